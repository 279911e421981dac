"""What happens to a queued mail once a send was tried: sent, retried, or failed.

Each outcome is written by a short transaction the moment the SMTP server
answered (the mails accepted meanwhile by the other connections marked sent by
the same one), so a kill after the server's 250 re-sends at most the mails in
flight.
A report's delivery (or its failure, with the reason) lands in the game's record
then, not when it was queued. Mail is never dropped: temporary failures are
retried with a capped exponential backoff for as long as the game is alive
(mail of no game, or of a game that is over, for ``retry_window_hours`` of
retrying); a mail that fails for good is marked failed, the human moderator is
told (pbem.outbox.failures), and :func:`resend` puts it back.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import (
    ColumnElement,
    Connection,
    DateTime,
    Update,
    bindparam,
    func,
    select,
    update,
)
from sqlalchemy.orm import Session

from pbem.config import Config, OutboxConfig
from pbem.outbox.failures import tell_failures
from pbem.record import journal
from pbem.record.payloads import ReportDelivered, ReportFailed
from pbem.storage.enums import GameStatus, OutboundKind, OutboundStatus
from pbem.storage.models import Game, OutboundMail

log = logging.getLogger("pbem.outbox")


def retry_delay(config: OutboxConfig, attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed try: doubling, capped."""
    return min(config.retry_base * 2.0 ** min(attempts - 1, 60), config.retry_cap)


def retried_for(config: OutboxConfig, attempts: int) -> float:
    """Seconds of backoff a mail has waited out after ``attempts`` failed tries.

    Counted from the attempts, not the clock, so RESEND-MAIL (attempts back to 0)
    gives a mail a fresh window, and a daemon that was down meanwhile costs none."""
    return sum(retry_delay(config, n) for n in range(1, attempts))


def _lock_game(session: Session, game_id: str) -> bool:
    """Take the game's row lock (the record is appended under it); False: no such game."""
    return (
        session.scalars(select(Game.id).where(Game.id == game_id).with_for_update()).first()
        is not None
    )


def _sent_values(at: object) -> dict[str, object]:
    """What marking a mail sent sets, however it is marked."""
    return {
        "status": OutboundStatus.SENT,
        "sent_at": at,
        "attempts": OutboundMail.attempts + 1,
        "last_error": "",  # sent: an error of an earlier try no longer stands
        "claim_owner": None,
        "claim_until": None,
    }


@functools.cache
def _sent_as_claimed_statement(reports: bool, database_time: bool) -> Update:
    """``sent_as_claimed``'s and ``reports_sent``'s statement, built once (building
    one costs more than the round trip): the row ``:mail``, if still pending and
    claimed by ``:by``, a report or else anything but, marked sent at ``:at``, or
    at the database's own ``statement_timestamp()`` if ``database_time``. One row
    a statement: an expanding IN list costs more to render than the round trip
    (batches are a few mails, one per SMTP connection)."""
    kind = OutboundMail.kind == OutboundKind.REPORT
    statement = (
        update(OutboundMail)
        .where(
            OutboundMail.id == bindparam("mail"),
            OutboundMail.status == OutboundStatus.PENDING,
            OutboundMail.claim_owner == bindparam("by"),
            kind if reports else ~kind,
        )
        .values(
            _sent_values(
                func.statement_timestamp(type_=DateTime(timezone=True))
                if database_time
                else bindparam("at", type_=OutboundMail.sent_at.type)
            )
        )
    )
    if reports:  # what its delivery's record entry needs
        return statement.returning(
            OutboundMail.game_id, OutboundMail.message_id, OutboundMail.recipient
        )
    return statement


def _params(row_id: int, owner: str, at: datetime | None) -> dict[str, object]:
    params: dict[str, object] = {"mail": row_id, "by": owner}
    if at is not None:
        params["at"] = at
    return params


def sent_as_claimed(
    connection: Connection, row_ids: Collection[int], owner: str, at: datetime | None
) -> set[int]:
    """The common case of marking mails sent, through Core (the daemon's group
    commit: the mails accepted while one marking commit was under way are marked
    by the next, in one transaction): those that are no report, still pending
    and still claimed by ``owner``, marked sent at ``at`` (None: the database's
    time, read by the statement itself; on PostgreSQL one answer is then three
    round trips). The ids marked; the others are ``reports_sent``'s."""
    statement = _sent_as_claimed_statement(False, at is None)
    return {
        row_id
        for row_id in sorted(row_ids)
        if connection.execute(statement, _params(row_id, owner, at)).rowcount
    }


def reports_sent(session: Session, row_ids: Collection[int], owner: str, now: datetime) -> set[int]:
    """The rest of a batch of mails the server accepted, after ``sent_as_claimed``:
    the reports still ours by one statement each, each one's delivery recorded in its
    game's record; a mail a peer took over or sent already one by one, as
    ``mark_sent`` does, with its warnings. The ids marked now. The reports'
    games are locked first, in id order, before their mails' rows: one lock
    order, so two daemons marking reports of the same games wait for each other
    rather than deadlock. ``session`` must be flushed before the commit."""
    ids = sorted(set(row_ids))
    recorded = _lock_report_games(session, ids)
    statement = _sent_as_claimed_statement(True, False)
    marked: set[int] = set()
    for row_id in ids:
        row = session.connection().execute(statement, _params(row_id, owner, now)).first()
        if row is not None:
            marked.add(row_id)
            if row.game_id in recorded:
                journal.append(
                    session,
                    row.game_id,
                    ReportDelivered(message_id=row.message_id, to=row.recipient),
                    now,
                )
        elif mark_sent(session, row_id, now, owner):
            marked.add(row_id)
    return marked


def mark_sent(session: Session, row_id: int, now: datetime, owner: str) -> bool:
    """The server accepted the mail: mark it sent (and record a report's delivery).

    False if it was sent already: a peer whose lease had taken it over sent it too
    (the same Message-ID: a recipient's client shows it once)."""
    row = session.execute(
        select(
            OutboundMail.kind,
            OutboundMail.game_id,
            OutboundMail.message_id,
            OutboundMail.recipient,
            OutboundMail.claim_owner,
        ).where(OutboundMail.id == row_id)
    ).first()
    if row is None:
        return False
    report = row.kind == OutboundKind.REPORT and row.game_id is not None
    if report and row.game_id is not None:
        report = _lock_game(session, row.game_id)  # before the mail's row: one lock order
    done = session.execute(
        update(OutboundMail)
        .where(OutboundMail.id == row_id, OutboundMail.status == OutboundStatus.PENDING)
        .values(
            status=OutboundStatus.SENT,
            sent_at=now,
            attempts=OutboundMail.attempts + 1,
            last_error="",  # sent: an error of an earlier try no longer stands
            claim_owner=None,
            claim_until=None,
        )
    )
    if not done.rowcount:  # type: ignore[attr-defined]
        log.warning("mail %s was sent twice (lease lost to a peer)", row.message_id)
        return False
    if row.claim_owner != owner:
        log.warning("mail %s sent after its lease went to %s", row.message_id, row.claim_owner)
    if report and row.game_id is not None:
        journal.append(
            session, row.game_id, ReportDelivered(message_id=row.message_id, to=row.recipient), now
        )
    return True


def mark_failed(
    session: Session, config: Config, row_id: int, error: str, permanent: bool, now: datetime
) -> OutboundStatus | None:
    """A send failed: schedule the next try, or mark the mail failed for good (recorded,
    the moderator told). Its new status; None if it was not pending (a peer's)."""
    row = session.get(OutboundMail, row_id)
    if row is None or row.status != OutboundStatus.PENDING:
        return None
    game = session.get(Game, row.game_id) if row.game_id else None
    row.attempts += 1
    row.last_error = error[:2000]
    row.claim_owner = None
    row.claim_until = None
    if not permanent:
        alive = game is not None and game.status != GameStatus.OVER
        window = config.outbox.retry_window_hours * 3600
        if alive or retried_for(config.outbox, row.attempts) < window:
            delay = retry_delay(config.outbox, row.attempts)
            row.next_attempt_at = now + timedelta(seconds=delay)
            log.warning(
                "mail %s to %s: temporary failure, retry in %.0f s: %s",
                row.message_id,
                row.recipient,
                delay,
                error,
            )
            return OutboundStatus.PENDING
        error = f"still failing after {window / 3600:g} h of retries: {error}"
        row.last_error = error[:2000]
    row.status = OutboundStatus.FAILED
    log.error("mail %s to %s failed for good: %s", row.message_id, row.recipient, error)
    if row.kind == OutboundKind.REPORT and game is not None and _lock_game(session, game.id):
        journal.append(
            session,
            game.id,
            ReportFailed(message_id=row.message_id, to=row.recipient, reason=error[:500]),
            now,
        )
    row.next_attempt_at = now  # when it failed, until a digest names it (failures.TOLD)
    tell_failures(session, config, now)
    return OutboundStatus.FAILED


@dataclass(frozen=True)
class FailedMail:
    id: int
    kind: str
    game_id: str | None
    recipient: str
    attempts: int
    last_error: str


def failed(session: Session, game_id: str | None = None) -> list[FailedMail]:
    """Failed mail, oldest first; of one game, or of all."""
    stmt = select(
        OutboundMail.id,
        OutboundMail.kind,
        OutboundMail.game_id,
        OutboundMail.recipient,
        OutboundMail.attempts,
        OutboundMail.last_error,
    ).where(OutboundMail.status == OutboundStatus.FAILED)
    if game_id is not None:
        stmt = stmt.where(OutboundMail.game_id == game_id)
    return [FailedMail(*r) for r in session.execute(stmt.order_by(OutboundMail.id))]


def failed_count(session: Session, game_id: str) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(OutboundMail)
            .where(OutboundMail.status == OutboundStatus.FAILED, OutboundMail.game_id == game_id)
        )
        or 0
    )


def resend(session: Session, ids: Collection[int], now: datetime) -> Sequence[int]:
    """Put failed mails back to pending, due now, with a fresh retry window: the
    attempts count again from 0 and the old error goes (the moderator's notice and
    a report's record keep it). The ids that were failed (and now are pending)."""
    rows = session.scalars(
        select(OutboundMail)
        .where(OutboundMail.id.in_(ids), OutboundMail.status == OutboundStatus.FAILED)
        .order_by(OutboundMail.id)
    )
    done = []
    for row in rows:
        row.status = OutboundStatus.PENDING
        row.attempts = 0
        row.last_error = ""
        row.next_attempt_at = now
        row.claim_owner = None
        row.claim_until = None
        done.append(row.id)
    return done


def _lock_report_games(session: Session, ids: Collection[int]) -> set[str]:
    """Lock the games of the reports among ``ids``, in id order (one lock order for
    every marking of reports); the games whose records take their deliveries."""
    games = session.scalars(
        select(OutboundMail.game_id)
        .where(OutboundMail.id.in_(ids), OutboundMail.kind == OutboundKind.REPORT)
        .distinct()
    ).all()
    return {g for g in sorted(g for g in games if g is not None) if _lock_game(session, g)}


def journaled_sent(
    session: Session,
    mails: Mapping[int, str],
    now: datetime,
    *where: ColumnElement[bool],
) -> tuple[set[int], set[int]]:
    """Mails the sent journal lists (id to Message-ID: the server accepted them, a
    daemon may have died before marking them), marked sent as a daemon's own mark
    does, a report's delivery recorded in its game's record: those still pending,
    of this Message-ID, and matching ``where`` (not a live peer's to mark). The ids
    marked now, and the ids whose lines are done with (marked now or before, or
    not this database's mail); the rest are left for a later replay. Games are
    locked first, in id order, as ``reports_sent`` does."""
    rows = session.execute(
        select(OutboundMail.id, OutboundMail.message_id, OutboundMail.status).where(
            OutboundMail.id.in_(sorted(mails))
        )
    ).all()
    pending = sorted(
        r.id for r in rows if r.status == OutboundStatus.PENDING and r.message_id == mails[r.id]
    )
    recorded = _lock_report_games(session, pending)
    statement = (
        update(OutboundMail)
        .where(
            OutboundMail.id == bindparam("mail"),
            OutboundMail.status == OutboundStatus.PENDING,
            *where,
        )
        .values(_sent_values(now))
        .returning(
            OutboundMail.kind, OutboundMail.game_id, OutboundMail.message_id, OutboundMail.recipient
        )
    )
    marked: set[int] = set()
    for row_id in pending:
        row = session.connection().execute(statement, {"mail": row_id}).first()
        if row is None:
            continue  # a live peer's to mark: left in the journal
        marked.add(row_id)
        if row.kind == OutboundKind.REPORT and row.game_id in recorded:
            journal.append(
                session,
                row.game_id,
                ReportDelivered(message_id=row.message_id, to=row.recipient),
                now,
            )
    return marked, set(mails) - (set(pending) - marked)
