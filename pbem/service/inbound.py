"""Stored mail: filed as it arrives, claimed and decided, each batch one transaction.

A mail is filed (its raw bytes committed) before the server may forget it, and
claimed (pbem.service.leases) before anyone decides it, so that of several
daemons sharing the database one decides it, once. The games processed mail
names are noted for the next tick (pbem.service.station).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, defer

from pbem.intake.arrival import arrival_time
from pbem.lifecycle.mailroom import Mailroom, Opened, file_batch, open_mail
from pbem.service.leases import CLAIM_SECONDS, claim_free, take
from pbem.service.station import Station
from pbem.storage.db import database_unreachable, lock_unavailable
from pbem.storage.enums import InboundStatus
from pbem.storage.models import InboundMail

log = logging.getLogger("pbem.service")


class Inbound(Station):
    """Filing, claiming and deciding stored mail."""

    def file(self, ref: str, raw: bytes) -> bool:
        """Store an arrived mail; True once it is safely committed (new or known)."""
        return self.file_many([(ref, raw)])

    def file_many(
        self, messages: Sequence[tuple[str, bytes] | tuple[str, bytes, datetime | None]]
    ) -> bool:
        """Store a fetched batch (ref, raw[, the mailbox's delivery time]) in one
        transaction; True once committed. Each mail is stamped with when the
        mailbox received it (pbem.intake.arrival), which its lateness is judged by."""
        trusted = self.config.intake.trusted_hosts()
        with self.sessions.begin() as s:
            now = self._now(s)
            stamped = [
                (
                    m[0],
                    m[1],
                    arrival_time(
                        m[1],
                        delivered_at=m[2] if len(m) > 2 else None,
                        fetched_at=now,
                        trusted_hosts=trusted,
                    ),
                )
                for m in messages
            ]
            for mail_id, ref in file_batch(s, stamped, now, self.key):
                log.info("mail filed", extra={"mail": mail_id, "ref": ref})
        return True

    def _claim(self, s: Session, model: type[InboundMail], row_id: int, now: datetime) -> bool:
        self._hold(s, now)
        result = s.execute(
            update(model)
            .where(
                model.id == row_id,
                # Our own claim (a batch that fell back to one mail at a time) is no obstacle.
                or_(claim_free(model, now), model.claim_owner == self.owner),
            )
            .values(claim_owner=self.owner, claim_until=now + timedelta(seconds=CLAIM_SECONDS))
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]

    def pending_mail(self, limit: int = 100, *, besides: Collection[int] = ()) -> list[int]:
        """Stored mail waiting to be processed and not claimed by anyone (a live
        claim is a daemon or worker process at work on it), but ``besides``."""
        with self.sessions() as s:
            now = self._now(s)
            return list(
                s.scalars(
                    select(InboundMail.id)
                    .where(
                        InboundMail.status == InboundStatus.NEW,
                        claim_free(InboundMail, now),
                        InboundMail.id.not_in(besides),
                    )
                    .order_by(InboundMail.id)
                    .limit(limit)
                )
            )

    def process(self, mail_id: int) -> str | None:
        """Process one stored mail in one transaction; a failure is filed, never lost."""
        with self.sessions.begin() as s:
            if not self._claim(s, InboundMail, mail_id, self._now(s)):
                return None
        try:
            with self.sessions.begin() as s:
                now = self._now(s)
                # Locked and checked again: a peer that took over our claim (we stalled
                # past our lease) processes it, not we as well.
                row = s.get(InboundMail, mail_id, with_for_update=True)
                if row is None or row.status != InboundStatus.NEW or row.claim_owner != self.owner:
                    return None
                gm = self.game_master(s, now)
                outcome = Mailroom(gm).process(row)
                if row.game_id:
                    self._touched.add(row.game_id)
                if outcome.startswith("moderator"):
                    # Commands may act on any game: look at all of them next tick.
                    self._sweep_requested = True
                return outcome
        except Exception as exc:
            if lock_unavailable(exc):
                # A peer's transaction holds what this mail needs: not the mail's fault.
                log.warning("mail %s waits for a lock a peer holds; later", mail_id)
                self.release_mail([mail_id])
                return None
            # A bug, not bad input: keep the mail, mark it, tell the operator.
            log.exception("processing mail %s failed", mail_id)
            with self.sessions.begin() as s:
                row = s.get(InboundMail, mail_id)
                if row is not None:
                    row.status = InboundStatus.FAILED
                    row.outcome = traceback.format_exc(limit=5)[-2000:]
                    row.processed_at = self._now(s)
            return "failed"

    def process_many(self, mail_ids: Sequence[int]) -> dict[int, str]:
        """Process stored mails in one transaction: the same work as ``process`` for
        each, at a fraction of the cost.

        The mails are claimed and read in a first transaction, unsealed and parsed
        outside any (that needs no database; on SQLite another daemon may write
        meanwhile), then decided in one transaction: what every mail will look
        up (seats, used signatures, games, open phases, states, plots, record
        heads) is read in a few queries first, and the rows the batch writes go
        out in one flush at the commit. A mail that raises (a bug, not bad
        input) undoes the batch, which is then processed one mail at a time, so
        the failure is filed against that mail alone; so is a batch whose commit
        fails. A kill mid-batch undoes the whole batch, which the next daemon
        processes again, each mail once.
        """
        mine = self._claim_batch(mail_ids)
        max_size = self.config.intake.max_size
        opened = {row.id: open_mail(self.key, row, max_size) for row in mine}
        try:
            outcomes, touched, sweep = self._decide(opened)
        except Exception as exc:
            if database_unreachable(exc):
                raise  # one at a time cannot help: the round retries
            if lock_unavailable(exc):
                # A peer's transaction (a stalled daemon's) holds rows the batch needs;
                # the server ends it within idle_in_transaction_timeout. Nothing is
                # wrong with the mails: they wait for a later round, unclaimed.
                log.warning("a batch of %d mails waits for a lock a peer holds", len(mine))
                self.release_mail([row.id for row in mine])
                return {}
            log.exception("a batch of %d mails failed; one at a time now", len(mine))
            return {row.id: o for row in mine if (o := self.process(row.id)) is not None}
        self.note_for_tick(touched, sweep)
        return outcomes

    def _claim_batch(self, mail_ids: Sequence[int]) -> list[InboundMail]:
        """Claim the new mails of ``mail_ids`` nobody holds, in a transaction of its
        own; the rows claimed (read, detached, for unsealing outside any)."""
        with self.sessions.begin() as s:
            now = self._now(s)
            until = now + timedelta(seconds=CLAIM_SECONDS)
            self._hold(s, now)
            s.execute(
                take(
                    InboundMail,
                    self.owner,
                    until,
                    now,
                    InboundMail.id.in_(mail_ids),
                    InboundMail.status == InboundStatus.NEW,
                )
            )
            return list(
                s.scalars(
                    select(InboundMail)
                    .where(
                        InboundMail.id.in_(mail_ids),
                        InboundMail.claim_owner == self.owner,
                        InboundMail.claim_until == until,
                    )
                    .order_by(InboundMail.id)
                )
            )

    def _decide(self, opened: dict[int, Opened]) -> tuple[dict[int, str], set[str], bool]:
        """Decide the opened mails still ours in one transaction: their outcomes,
        the games they named, and whether a moderator command asks for a sweep."""
        outcomes: dict[int, str] = {}
        touched: set[str] = set()
        sweep = False
        with self.sessions.begin() as s:
            gm = self.game_master(s, self._now(s))
            mailroom = Mailroom(gm)
            batch = [
                (row, opened[row.id])
                for row in s.scalars(
                    # Locked and checked again: still ours (see ``process``). Without
                    # the bytes: the batch was opened from the claim's read already.
                    select(InboundMail)
                    .options(defer(InboundMail.raw))
                    .where(
                        InboundMail.id.in_(opened),
                        InboundMail.status == InboundStatus.NEW,
                        InboundMail.claim_owner == self.owner,
                    )
                    .order_by(InboundMail.id)
                    .with_for_update()
                )
            ]
            mailroom.prefetch(batch)
            for row, mail in batch:
                outcome = mailroom.process(row, mail)
                outcomes[row.id] = outcome
                if row.game_id:
                    touched.add(row.game_id)
                sweep = sweep or outcome.startswith("moderator")
        return outcomes, touched, sweep

    def release_mail(self, mail_ids: Collection[int]) -> None:
        """Give back our claims on these stored mails (a worker process died with
        them): free for anyone now; what was committed stays."""
        with self.sessions.begin() as s:
            s.execute(
                update(InboundMail)
                .where(
                    InboundMail.id.in_(mail_ids),
                    InboundMail.status == InboundStatus.NEW,
                    InboundMail.claim_owner == self.owner,
                )
                .values(claim_owner=None, claim_until=None)
            )
