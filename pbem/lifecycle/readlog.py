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

from sqlalchemy import ColumnElement, func, select
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


# The reads AUDIT lists at most, per game and for no game: the newest (a season's
# reads grow without end; the count says how many more there are).
SHOWN = 50


def lines(session: Session, game_id: str) -> tuple[int, list[str]]:
    """How many reads name ``game_id``, and the newest SHOWN of them, oldest first:
    AUDIT's lines."""
    return _lines(session, ModeratorRead.game_id == game_id)


def lines_elsewhere(session: Session, games: list[str]) -> tuple[int, list[str]]:
    """The reads naming no game of ``games`` (LIST, FAILED; a deleted game's)."""
    return _lines(session, ModeratorRead.game_id.is_(None) | ModeratorRead.game_id.not_in(games))


def heading(what: str, count: int, shown: list[str], note: str = "") -> list[str]:
    """AUDIT's heading line for ``count`` reads of which ``shown`` follow."""
    if not count:
        return []
    newest = f"; the newest {len(shown)} below" if len(shown) < count else ""
    return [f"{what}: {count} read(s){note}{newest}", *shown]


def _lines(session: Session, where: ColumnElement[bool]) -> tuple[int, list[str]]:
    count = session.scalar(select(func.count()).select_from(ModeratorRead).where(where)) or 0
    newest = session.scalars(
        select(ModeratorRead).where(where).order_by(ModeratorRead.id.desc()).limit(SHOWN)
    )
    rows = reversed(list(newest))
    return count, [
        f"  {r.at:%Y-%m-%d %H:%M} UTC {r.line} by {r.by} by {r.via} ({r.origin})" for r in rows
    ]
