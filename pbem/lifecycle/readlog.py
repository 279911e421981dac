"""The moderator's reads, kept: an audit store beside the games' records.

A command that writes nothing into a game's record (STATUS, LIST, SEATS, AUDIT,
DISPUTES, FAILED, KEY ... LIST; DELETE and RESEND-MAIL, whose acts no record
keeps) leaves a ``ModeratorRead`` row in the command's own transaction, whichever
process ran it: a daemon answering mail or ``pbem mod``. The archive's export
never reads this table, so nothing here is published; AUDIT shows it to the
moderator. A CLI read names "moderator" and "command line", as the record does:
no local user or host name is stored.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from pbem.lifecycle.desk import Desk
from pbem.storage.models import ModeratorRead


def note(desk: Desk, **values: Any) -> None:
    """Keep a read (``ModeratorRead``'s columns) in the desk's transaction; the desk
    remembers it (see ``kept``)."""
    desk.session.add(ModeratorRead(**values))
    desk.reads.append(values)


def kept(desk: Desk, since: int) -> None:
    """After a savepoint's rollback (a command mail refused): the reads noted since
    ``since`` are kept all the same, since their answers were mailed."""
    undone, desk.reads = desk.reads[since:], desk.reads[:since]
    for values in undone:
        note(desk, **values)


def lines(session: Session, game_id: str) -> list[str]:
    """The reads naming ``game_id``, oldest first: AUDIT's lines."""
    return _lines(session, ModeratorRead.game_id == game_id)


def lines_elsewhere(session: Session, games: list[str]) -> list[str]:
    """The reads naming no game of ``games`` (LIST, FAILED; a deleted game's)."""
    return _lines(session, ModeratorRead.game_id.is_(None) | ModeratorRead.game_id.not_in(games))


def _lines(session: Session, where: ColumnElement[bool]) -> list[str]:
    rows = session.scalars(select(ModeratorRead).where(where).order_by(ModeratorRead.id))
    return [f"  {r.at:%Y-%m-%d %H:%M} UTC {r.line} by {r.by} by {r.via} ({r.origin})" for r in rows]
