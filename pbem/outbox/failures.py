"""The moderator's digest of failed mail: every mail that failed for good, of a
game or of none (an answer to a stranger), told at most once per clock hour.

A mail that fails for good keeps, in ``next_attempt_at``, when it failed (it is
never due again until RESEND-MAIL); once a digest names it, ``TOLD`` instead. So
the first failure of an hour is told at once, and those after it in the same
hour by the next hour's digest (``tell_failures``, which the outbox also runs
every round): none is left untold. The digest's Message-ID names the hour, so of
two daemons failing mail at once one queues it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbem.config import Config
from pbem.outbox.queue import Outgoing, enqueue, message_id_for
from pbem.storage.enums import OutboundKind, OutboundStatus
from pbem.storage.models import OutboundMail

# A failed mail's next_attempt_at once a digest named it (before: when it failed).
TOLD = datetime(1970, 1, 1, tzinfo=UTC)
# Failures named one by one in a digest; more are counted (FAILED lists them all).
LISTED = 100


@dataclass(frozen=True)
class Failure:
    id: int
    kind: str
    game_id: str | None
    recipient: str
    last_error: str

    def line(self) -> str:
        of = f"of game {self.game_id}" if self.game_id else "of no game"
        return f"mail {self.id} ({self.kind} {of}) to {self.recipient}: {self.last_error}"


def untold(session: Session, config: Config) -> list[Failure]:
    """Failed mail no digest named yet, oldest failure first. A notice to the
    moderator that failed is not among them: nobody is left to tell but the log."""
    rows = session.execute(
        select(
            OutboundMail.id,
            OutboundMail.kind,
            OutboundMail.game_id,
            OutboundMail.recipient,
            OutboundMail.last_error,
        )
        .where(
            OutboundMail.status == OutboundStatus.FAILED,
            OutboundMail.next_attempt_at > TOLD,
            OutboundMail.recipient != config.moderator.human,
        )
        .order_by(OutboundMail.next_attempt_at, OutboundMail.id)
    )
    return [Failure(r.id, str(r.kind), r.game_id, r.recipient, r.last_error) for r in rows]


def tell_failures(session: Session, config: Config, now: datetime) -> bool:
    """Queue the digest of the mail failed since the last one, unless this clock
    hour's went out already (or nothing failed); True if queued."""
    cause = ("mail-failed", now.strftime("%Y-%m-%dT%H"))
    if _queued(session, message_id_for(config, OutboundKind.NOTICE, cause, config.moderator.human)):
        return False  # this hour's is out: the next hour's names the rest
    failed = untold(session, config)
    if not failed:
        return False
    try:
        # A savepoint: a peer (another connection, another daemon) failing mail in
        # the same hour may queue this very digest at the same moment.
        with session.begin_nested():
            enqueue(session, config, _digest(config, failed, cause), now)
            session.execute(
                update(OutboundMail)
                .where(OutboundMail.id.in_([f.id for f in failed]))
                .values(next_attempt_at=TOLD)
            )
            session.flush()  # inside the savepoint: a clash with a peer's digest shows here
    except IntegrityError:
        return False  # the peer's digest is this hour's; ours wait for the next
    return True


def _queued(session: Session, message_id: str) -> bool:
    found = session.scalar(
        select(OutboundMail.id).where(OutboundMail.message_id == message_id).limit(1)
    )
    return found is not None


def _digest(config: Config, failed: list[Failure], cause: tuple[str, ...]) -> Outgoing:
    games = {f.game_id for f in failed}
    lines = [f.line() for f in failed[:LISTED]]
    if len(failed) > LISTED:
        lines.append(f"and {len(failed) - LISTED} more (FAILED lists them all)")
    return Outgoing(
        kind=OutboundKind.NOTICE,
        cause=cause,
        to=config.moderator.human,
        subject=f"pbem: {len(failed)} mail(s) could not be sent",
        text=(
            "Mail that could not be sent since the last such notice:\n\n"
            + "".join(f"- {line}\n" for line in lines)
            + "\nList failed mail with FAILED [game]; once the cause is mended (e.g. the "
            "player's address, by REPLACE), send it again with RESEND-MAIL id [id ...]. "
            "One such notice goes out an hour at most: mail failing later in the hour "
            "is in the next.\n"
        ),
        # One game's failures belong to it (its retries last while it lives).
        game_id=next(iter(games)) if len(games) == 1 else None,
    )
