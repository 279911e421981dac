"""Leases: what a daemon holds, it holds for a time it renews.

Every daemon start has a row in ``daemons`` (a uuid, with host and pid for
humans) whose ``lease_until`` it pushes ahead with every heartbeat and every
claim. A claim on stored mail, outgoing mail or a game to tick
(``claim_owner``/``claim_until``) is free once its ``claim_until`` passed *or*
its owner's lease did: a daemon killed, paused (SIGSTOP) or cut off from the
database loses its claims one lease time after its last renewal, on every host
alike; nobody guesses from a pid. Claims are taken one way (``take``).

One daemon at a time fetches from a mailbox (``mailbox_leases``); the others
process and send. Times are the database's, read in the transaction that judges
by them (pbem.service.clock.DatabaseClock).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Update, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pbem.storage.models import DaemonLease, Game, InboundMail, MailboxLease, OutboundMail

# What may be claimed: a row with ``id``, ``claim_owner`` and ``claim_until``.
Claimable = type[InboundMail] | type[OutboundMail] | type[Game]

# Rows of daemons gone this long are forgotten.
_FORGET_AFTER = timedelta(days=14)
# How long a claim on stored or outgoing mail runs (renewed as it runs low).
CLAIM_SECONDS = 300


def live_daemons(now: datetime) -> Any:
    """The ids of daemons whose lease runs at ``now`` (a subquery)."""
    return select(DaemonLease.id).where(DaemonLease.lease_until >= now)


def claim_free(model: Claimable, now: datetime) -> ColumnElement[bool]:
    """A row nobody holds: never claimed, its claim ran out, or its owner's lease did."""
    return or_(
        model.claim_until.is_(None),
        model.claim_until < now,
        model.claim_owner.is_(None),
        model.claim_owner.not_in(live_daemons(now)),
    )


def take(
    model: Claimable,
    owner: str,
    until: datetime,
    now: datetime,
    *where: ColumnElement[bool],
    limit: int | None = None,
) -> Update:
    """The claim, for ``owner`` until ``until``, of the free rows of ``model`` that
    match ``where`` (the first ``limit`` by id), as one conditional UPDATE: the rows
    are picked ``FOR UPDATE SKIP LOCKED`` on PostgreSQL (a peer claiming this very
    moment takes others, nobody waits behind a peer's work) and checked again as
    they are updated; SQLite has one writer at a time. Add ``.returning(...)`` to
    learn what was taken."""
    claimable = (*where, claim_free(model, now))
    picked = select(model.id).where(*claimable).order_by(model.id)
    if limit is not None:
        picked = picked.limit(limit)
    return (
        update(model)
        .where(model.id.in_(picked.with_for_update(skip_locked=True).scalar_subquery()), *claimable)
        .values(claim_owner=owner, claim_until=until)
    )


def held(
    model: Claimable, owner: str, ids: Collection[Any], until: datetime | None = None
) -> tuple[ColumnElement[bool], ...]:
    """The rows of ``ids`` that ``owner`` still holds (by the claim ending at
    ``until``, if given): a claim renewed, given back or checked only where it is
    still one's own, never where a peer took it over."""
    mine = (model.id.in_(ids), model.claim_owner == owner)
    return mine if until is None else (*mine, model.claim_until == until)


def claims_lapse(s: Session, now: datetime) -> datetime | None:
    """The earliest moment after ``now`` at which a game claimed now becomes free
    (its claim or its owner's lease runs out): a daemon that found a due game
    held by a peer looks again then."""
    held = select(Game.claim_owner).where(Game.claim_until > now)
    first_claim, first_lease = s.execute(
        select(
            select(func.min(Game.claim_until)).where(Game.claim_until > now).scalar_subquery(),
            select(func.min(DaemonLease.lease_until))
            .where(DaemonLease.lease_until > now, DaemonLease.id.in_(held))
            .scalar_subquery(),
        )
    ).one()
    return min((t for t in (first_claim, first_lease) if t is not None), default=None)


class Lease:
    """One daemon start's lease (the Worker's; worker processes share their daemon's)."""

    def __init__(self, owner: str, seconds: float) -> None:
        self.owner = owner
        self.length = timedelta(seconds=seconds)
        self.until: datetime | None = None  # as last committed... or about to be
        # Counts the renewals that found the lease lapsed: a peer may have taken over
        # claims made in an earlier term, so only the database can say they are ours.
        self.term = 0

    def hold(self, s: Session, now: datetime) -> datetime:
        """Renew (or take) this daemon's lease, in ``s``'s transaction; its new end.
        A lease is never shortened: a batch started later may have pushed it further.
        The new end counts once the transaction commits."""
        until = now + self.length
        mine = DaemonLease.id == self.owner
        renewed = s.execute(
            update(DaemonLease)
            .where(mine, DaemonLease.lease_until >= now, DaemonLease.lease_until < until)
            .values(lease_until=until)
        )
        if renewed.rowcount:  # type: ignore[attr-defined]
            self.until = until
            return until
        current = s.scalar(select(DaemonLease.lease_until).where(mine))
        if current is not None and current < now:  # lapsed (cut off, paused): a new term
            self.term += 1
            s.execute(update(DaemonLease).where(mine).values(lease_until=until))
        elif current is None:
            if self.until is not None:
                self.term += 1  # ours once, forgotten since: lapsed long ago
            s.execute(delete(DaemonLease).where(DaemonLease.lease_until < now - _FORGET_AFTER))
            try:
                with s.begin_nested():
                    s.execute(
                        insert(DaemonLease).values(
                            id=self.owner,
                            host=socket.gethostname()[:255],
                            pid=os.getpid(),
                            started_at=now,
                            lease_until=until,
                        )
                    )
            except IntegrityError:
                pass  # a worker process of this daemon registered it this very moment
        # Either way the lease runs until ``until`` at least (never shortened).
        self.until = until
        return until

    def runs(self, now: datetime, margin: timedelta) -> bool:
        """Whether our lease, as last renewed, still runs ``margin`` past ``now``:
        no peer can have taken our claims yet (else ask the database)."""
        return self.until is not None and now + margin < self.until

    def end(self, s: Session, now: datetime) -> None:
        """A clean stop: our claims and mailbox are free for the others at once."""
        s.execute(update(DaemonLease).where(DaemonLease.id == self.owner).values(lease_until=now))
        s.execute(delete(MailboxLease).where(MailboxLease.owner == self.owner))
        self.until = None

    def fetch_from(self, s: Session, mailbox: str, now: datetime) -> bool:
        """Take or keep the lease on fetching from ``mailbox``; whether it is ours."""
        until = now + self.length
        taken = s.execute(
            update(MailboxLease)
            .where(
                MailboxLease.mailbox == mailbox,
                or_(
                    MailboxLease.owner == self.owner,
                    MailboxLease.until < now,
                    MailboxLease.owner.not_in(live_daemons(now)),
                ),
            )
            .values(owner=self.owner, until=until)
        )
        if taken.rowcount:  # type: ignore[attr-defined]
            return True
        if s.get(MailboxLease, mailbox) is not None:
            return False  # a live peer fetches
        try:
            with s.begin_nested():
                s.execute(
                    insert(MailboxLease).values(mailbox=mailbox, owner=self.owner, until=until)
                )
        except IntegrityError:
            return False  # a peer took it first, this very moment
        return True

    def fetcher(self, s: Session, mailbox: str, now: datetime) -> str | None:
        """The live daemon fetching from ``mailbox``, if any."""
        return s.scalar(
            select(MailboxLease.owner).where(
                MailboxLease.mailbox == mailbox,
                MailboxLease.until >= now,
                MailboxLease.owner.in_(live_daemons(now)),
            )
        )
