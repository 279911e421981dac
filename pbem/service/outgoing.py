"""Outgoing mail's claims: batches claimed under a lease, renewed, marked sent.

Outgoing mail is claimed in batches under a lease that the send loop checks
before each send and renews as it runs low (pbem.service.sending.Outbox); each
mail the server accepted is marked sent by a commit of its own, with the others
accepted meanwhile (pbem.service.marking, pbem.outbox.delivery), so a kill
re-sends at most the mails in flight; and the sent journal's mails (written
down at the 250, pbem.service.sentjournal) are marked before any claim
(``replay_sent``), so a kill before the commit sends none again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import or_, update
from sqlalchemy.orm import Session

from pbem.core import stages
from pbem.outbox import delivery, failures
from pbem.outbox.queue import open_outbound
from pbem.service.clock import statement_time
from pbem.service.leases import CLAIM_SECONDS, claim_free, held, take
from pbem.service.station import Station
from pbem.storage.enums import OutboundStatus
from pbem.storage.models import OutboundMail


@dataclass(frozen=True)
class Outgoing:
    id: int
    sender: str
    recipient: str
    raw: bytes = field(repr=False)
    message_id: str = ""  # what the sent journal names it by, with its id


@dataclass
class OutgoingBatch:
    """Mails claimed together, and the end of their lease (renewed as it runs low)."""

    mails: list[Outgoing]
    until: datetime
    term: int  # the daemon lease's term they were claimed (or last renewed) in


class OutgoingClaims(Station):
    """Claiming due mail, renewing and giving back its claims, marking it sent or failed."""

    @stages.stage("sending")
    def due_outgoing(self, limit: int = 50) -> OutgoingBatch:
        """Claim up to ``limit`` mails due to be sent, under one lease.

        Only claimable mail is looked at (pending, due, no live claim), so a peer's
        batch never blocks ours; on PostgreSQL the rows are picked ``FOR UPDATE SKIP
        LOCKED`` (a peer claiming at the same moment takes others), on SQLite the
        one conditional UPDATE is atomic (one writer at a time).
        """
        with self.sessions.begin() as s:
            now = self._now(s)
            until = now + timedelta(seconds=CLAIM_SECONDS)
            self._hold(s, now)
            rows = s.execute(
                take(
                    OutboundMail,
                    self.owner,
                    until,
                    now,
                    OutboundMail.status == OutboundStatus.PENDING,
                    OutboundMail.next_attempt_at <= now,
                    limit=limit,
                ).returning(
                    OutboundMail.id,
                    OutboundMail.message_id,
                    OutboundMail.sender,
                    OutboundMail.recipient,
                    OutboundMail.raw,
                )
            ).all()
            mails = [
                Outgoing(r.id, r.sender, r.recipient, open_outbound(self.key, r), r.message_id)
                for r in sorted(rows, key=lambda r: r.id)
            ]
        return OutgoingBatch(mails, until, self.lease.term)

    def renew_outgoing(
        self, row_ids: Collection[int], until: datetime
    ) -> tuple[set[int], datetime, int]:
        """Extend our lease on these mails; the ids still ours, the new end, and the
        daemon lease's term they are held in.

        A mail whose lease expired and was taken by a peer (or sent by it) is no longer
        ours and must not be sent: a daemon stalled past its lease sends nothing."""
        with self.sessions.begin() as s:
            now = self._now(s)
            new_until = now + timedelta(seconds=CLAIM_SECONDS)
            self._hold(s, now)
            term = self.lease.term
            kept = s.scalars(
                update(OutboundMail)
                .where(
                    *held(OutboundMail, self.owner, row_ids, until),
                    OutboundMail.status == OutboundStatus.PENDING,
                )
                .values(claim_until=new_until)
                .returning(OutboundMail.id)
            ).all()
        return set(kept), new_until, term

    def release_outgoing(self, row_ids: Collection[int], until: datetime | None = None) -> None:
        """Give back claimed mails we did not send (shutting down, a round failed):
        due for anyone now. ``until``: only where the claim is still the one ending
        then (None: any claim of ours)."""
        with self.sessions.begin() as s:
            s.execute(
                update(OutboundMail)
                .where(*held(OutboundMail, self.owner, row_ids, until))
                .values(claim_owner=None, claim_until=None)
            )

    @stages.stage("sending")
    def sent(self, row_ids: Collection[int]) -> set[int]:
        """The server accepted these mails: marked sent together, by one commit, now.
        The ids marked; a mail missing was sent already (by a peer that had taken
        it over).

        The answers still claimed by us (nearly every mail) take one prebuilt
        statement through Core (pbem.outbox.delivery.sent_as_claimed); only
        reports and the odd mail a peer took need a session, in the same
        transaction (reports_sent): the session's own work cost several times
        the statement's."""
        with self._engine.begin() as c:
            at = statement_time(self.clock, c.dialect.name)
            marked = delivery.sent_as_claimed(c, row_ids, self.owner, at)
            rest = set(row_ids) - marked
            if rest:
                with Session(bind=c) as s:
                    marked |= delivery.reports_sent(s, rest, self.owner, self._now(s))
                    s.flush()
        return marked

    @stages.stage("sending")
    def replay_sent(self, mails: Mapping[int, str]) -> tuple[set[int], set[int]]:
        """The sent journal's mails (id to Message-ID), which the server accepted:
        those still pending marked sent, as ``sent`` does, by one commit. The ids
        marked now, and the ids whose journal lines are done with.

        A mail claimed by a peer whose lease runs a quarter lease beyond now is
        left alone: the peer is alive and marks it itself (a replay of ours would
        make its mark look like a second send). Any other is marked: ours, a dead
        daemon's, or one whose claim lapses before this daemon's next claim
        could take it (the quarter lease covers the round between)."""
        with self.sessions.begin() as s:
            now = self._now(s)
            later = now + self.lease.length / 4
            not_a_live_peers = or_(
                claim_free(OutboundMail, later), OutboundMail.claim_owner == self.owner
            )
            return delivery.journaled_sent(s, mails, now, not_a_live_peers)

    def send_failed(self, row_id: int, error: str, permanent: bool) -> OutboundStatus | None:
        with self.sessions.begin() as s:
            return delivery.mark_failed(s, self.config, row_id, error, permanent, self._now(s))

    def tell_failures(self) -> bool:
        """Queue the moderator's digest of failed mail if one is due (a new hour, and
        mail failed since the last): True if queued."""
        with self.sessions.begin() as s:
            return failures.tell_failures(s, self.config, self._now(s))
