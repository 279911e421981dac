"""The daemon's units of work, each one database transaction (synchronous, run in a thread).

Several daemons may share one PostgreSQL database: stored mail and queued
outgoing mail are *claimed* with a conditional UPDATE before work starts (rows
picked ``FOR UPDATE SKIP LOCKED`` on PostgreSQL, so nobody waits behind a peer),
so each is handled by one daemon; a claim is held under the daemon's lease
(pbem.service.leases), so a daemon that dies or stalls leaves nothing stuck for
longer than one lease time. Outgoing mail is claimed in batches under a lease that the send
loop checks before each send and renews as it runs low (Daemon._send_batch);
each mail is marked sent by its own commit (pbem.outbox.delivery). Game
changes take the game's row lock (see pbem.lifecycle.desk).
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from pbem import rulesets
from pbem.config import Config
from pbem.core import stages
from pbem.intake.arrival import arrival_time
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import Mailroom, file_mails, open_mail
from pbem.lifecycle.publishing import Publisher
from pbem.outbox import delivery
from pbem.outbox.queue import open_outbound
from pbem.reports.render import warm_up as warm_templates
from pbem.service.heartbeat import Pulse
from pbem.service.leases import Lease, claim_free
from pbem.storage.db import database_unreachable
from pbem.storage.enums import InboundStatus, OutboundStatus
from pbem.storage.models import Game, InboundMail, OutboundMail

log = logging.getLogger("pbem.service")

CLAIM_SECONDS = 300
# PostgreSQL's SQLSTATE for a lock wait ended by lock_timeout.
LOCK_NOT_AVAILABLE = "55P03"
# The intake loop ticks every game at least this often (deadlines are hours apart).
SWEEP = timedelta(seconds=30)


class Worker:
    def __init__(
        self,
        config: Config,
        sessions: sessionmaker[Session],
        owner: str,
        clock: Callable[[], datetime],
    ) -> None:
        self.config = config
        self.sessions = sessions
        self.owner = owner
        self.clock = clock
        self.key = config.secrets.key_bytes()
        self.publisher = Publisher()
        self._touched: set[str] = set()  # games named by mail processed since the last tick
        self._last_sweep: datetime | None = None
        self._sweep_requested = False
        self.pulse = Pulse(owner)
        self.lease = Lease(owner, config.database.lease_seconds)
        self.fetching: str | None = None  # the mailbox whose lease we hold, renewed by beats

    def _hold(self, s: Session, now: datetime) -> None:
        """Renew our lease in ``s``'s transaction, as the first thing it does. The
        first time, the lease row is committed alone first: a peer's claim that
        re-checks our claimed row (PostgreSQL re-reads a row changed under it) reads
        the leases as they were when its statement began, and must find ours."""
        if self.lease.until is None:
            try:
                with self.sessions.begin() as first:
                    self.lease.hold(first, now)
            except BaseException:
                self.lease.until = None  # not committed: register again next time
                raise
        self.lease.hold(s, now)

    def game_master(self, session: Session, now: datetime) -> GameMaster:
        return GameMaster(Desk(session, self.config, self.key, now), self.publisher)

    # ------------------------------------------------------------- intake

    def file(self, ref: str, raw: bytes) -> bool:
        """Store an arrived mail; True once it is safely committed (new or known)."""
        return self.file_many([(ref, raw)])

    def file_many(
        self, messages: Sequence[tuple[str, bytes] | tuple[str, bytes, datetime | None]]
    ) -> bool:
        """Store a fetched batch (ref, raw[, the mailbox's delivery time]) in one
        transaction; True once committed. Each mail is stamped with when the
        mailbox received it (pbem.intake.arrival), which its lateness is judged by."""
        now = self.clock()
        trusted = self.config.intake.trusted_hosts()
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
        with self.sessions.begin() as s:
            for row in file_mails(s, stamped, now, self.key):
                log.info("mail filed", extra={"mail": row.id, "ref": row.transport_ref})
        return True

    def _claim(
        self, s: Session, model: type[InboundMail] | type[OutboundMail], row_id: int, now: datetime
    ) -> bool:
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
        now = self.clock()
        with self.sessions() as s:
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
        now = self.clock()
        with self.sessions.begin() as s:
            if not self._claim(s, InboundMail, mail_id, now):
                return None
        try:
            with self.sessions.begin() as s:
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
        except Exception:
            # A bug, not bad input: keep the mail, mark it, tell the operator.
            log.exception("processing mail %s failed", mail_id)
            with self.sessions.begin() as s:
                row = s.get(InboundMail, mail_id)
                if row is not None:
                    row.status = InboundStatus.FAILED
                    row.outcome = traceback.format_exc(limit=5)[-2000:]
                    row.processed_at = now
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
        now = self.clock()
        until = now + timedelta(seconds=CLAIM_SECONDS)
        claimable = (
            InboundMail.id.in_(mail_ids),
            InboundMail.status == InboundStatus.NEW,
            claim_free(InboundMail, now),
        )
        with self.sessions.begin() as s:
            self._hold(s, now)
            # SKIP LOCKED (PostgreSQL): rows a peer is claiming this moment are its own.
            picked = select(InboundMail.id).where(*claimable).with_for_update(skip_locked=True)
            s.execute(
                update(InboundMail)
                .where(InboundMail.id.in_(picked.scalar_subquery()), *claimable)
                .values(claim_owner=self.owner, claim_until=until)
            )
            mine = list(
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
        max_size = self.config.intake.max_size
        opened = {row.id: open_mail(self.key, row, max_size) for row in mine}
        outcomes: dict[int, str] = {}
        touched: set[str] = set()
        sweep = False
        try:
            with self.sessions.begin() as s:
                gm = self.game_master(s, now)
                mailroom = Mailroom(gm)
                batch = [
                    (row, opened[row.id])
                    for row in s.scalars(
                        # Locked and checked again: still ours (see ``process``).
                        select(InboundMail)
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
        except Exception as exc:
            if database_unreachable(exc):
                raise  # one at a time cannot help: the round retries
            log.exception("a batch of %d mails failed; one at a time now", len(mine))
            return {row.id: o for row in mine if (o := self.process(row.id)) is not None}
        self.note_for_tick(touched, sweep)
        return outcomes

    def take_tick_notes(self) -> tuple[set[str], bool]:
        """The games processed mail named since the last tick, and whether a
        moderator command asks for a full sweep; forgotten here (a worker
        process hands them to the daemon's Worker, see note_for_tick)."""
        touched, sweep = self._touched, self._sweep_requested
        self._touched, self._sweep_requested = set(), False
        return touched, sweep

    def note_for_tick(self, touched: set[str], sweep: bool) -> None:
        self._touched |= touched
        self._sweep_requested = self._sweep_requested or sweep

    # -------------------------------------------------------------- clock

    def tick_games(self, everything: bool = True) -> list[str]:
        """Deadlines, reminders and early adjudication, one transaction per game.

        Only games with something due are ticked (``Clock.due_games``).
        ``everything=False`` (the daemon's intake loop) looks only at the games
        that processed mail named since the last tick, plus all games once the
        clock has moved SWEEP past the last full sweep: a tick of every stored
        game after every batch of mail cost time linear in the games stored.
        """
        now = self.clock()
        touched, self._touched = self._touched, set()
        sweep_due = self._last_sweep is None or now - self._last_sweep >= SWEEP
        if everything or sweep_due or self._sweep_requested:
            self._last_sweep, self._sweep_requested = now, False
            with self.sessions() as s:
                games = self.game_master(s, now).clock.due_games()
        elif touched:
            # Of the games mail named, those with something due (one query, no locks).
            with self.sessions() as s:
                games = self.game_master(s, now).clock.due_games(among=touched)
        else:
            games = []
        did: list[str] = []
        for game_id in games:
            try:
                with self.sessions.begin() as s:
                    for what in self.game_master(s, self.clock()).clock.tick(game_id):
                        log.info(what, extra={"game": game_id})
                        did.append(f"{game_id}: {what}")
            except OperationalError as exc:
                if getattr(exc.orig, "sqlstate", None) != LOCK_NOT_AVAILABLE:
                    log.exception("tick of game %s failed", game_id)
                    continue
                # A peer holds the game (stalled, or a long adjudication): its lock is
                # broken by the server within idle_in_transaction_timeout; next tick.
                log.warning("game %s is locked by another daemon; ticked later", game_id)
            except Exception:
                log.exception("tick of game %s failed", game_id)
        return did

    def start_up(self) -> list[str]:
        """Take this daemon's lease; push back deadlines that passed while no
        daemon could work; note we are alive."""
        with self.sessions.begin() as s:
            now = self.clock()
            self._hold(s, now)
            moved = self._beat(s, now, None)
        self.pulse.beaten()
        return moved

    def warm_up(self) -> None:
        """Pay now, before the daemon says it is ready, what the first mail after
        start-up would pay alone (issue 15: its answer is as fast as any): each
        ruleset's data loaded, every template compiled, and the SQL of a batch's
        game lookups compiled by a dry run on one game, rolled back."""
        for name in rulesets.names():
            rulesets.get(name)
        warm_templates(rulesets.names())
        with self.sessions() as s:
            game = s.scalars(select(Game.id).limit(1)).first()
            if game is not None:
                self.game_master(s, self.clock()).lookups.prefetch({game})
            s.rollback()

    def shut_down(self) -> None:
        """A clean stop: our lease ends now, so peers take over at once."""
        with self.sessions.begin() as s:
            self.lease.end(s, self.clock())

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

    def fetches(self, mailbox: str) -> bool:
        """Whether this daemon fetches from ``mailbox`` now: it takes or keeps
        the mailbox's lease (one fetcher at a time; the others process and send)."""
        with self.sessions.begin() as s:
            now = self.clock()
            self._hold(s, now)
            ours = self.lease.fetch_from(s, mailbox, now)
        self.fetching = mailbox if ours else None
        return ours

    def fetcher_down_since(self, mailbox: str) -> datetime | None:
        """For a daemon that does not fetch: None while the daemon fetching from
        ``mailbox`` beats as working (its mailbox answers), else since when it has
        not. None too when nobody holds the mailbox: we take it next round."""
        with self.sessions() as s:
            now = self.clock()
            owner = self.lease.fetcher(s, mailbox, now)
            return None if owner is None else self.pulse.peer_down_since(s, owner, now)

    def heartbeat(self, mailbox_down_since: datetime | None = None) -> list[str]:
        """This daemon's heartbeat (pbem.service.heartbeat): it can work, or, with
        ``mailbox_down_since``, its mailbox has been out of reach since then. The
        first beat that can work after an outage of every daemon pushes the
        deadlines back by it; returns the games whose deadlines moved."""
        with self.sessions.begin() as s:
            now = self.clock()
            self._hold(s, now)
            # While our mailbox does not answer, its lease is left to lapse: a peer
            # that reaches it fetches (our intake round is stuck reconnecting).
            if (
                self.fetching is not None
                and mailbox_down_since is None
                and not self.lease.fetch_from(s, self.fetching, now)
            ):
                self.fetching = None  # lost to a peer (we stalled): it fetches now
            moved = self._beat(s, now, mailbox_down_since)
        if mailbox_down_since is None:
            self.pulse.beaten()
        return moved

    def _beat(self, s: Session, now: datetime, mailbox_down_since: datetime | None) -> list[str]:
        outage_from = self.pulse.beat(s, now, mailbox_down_since)
        if outage_from is None:
            return []
        moved = self.game_master(s, now).clock.push_back_deadlines(outage_from)
        log.warning(
            "no daemon could work from %s to %s (%.0f s): deadlines of %d game(s) pushed back",
            outage_from.isoformat(),
            now.isoformat(),
            (now - outage_from).total_seconds(),
            len(moved),
        )
        for game_id in moved:
            log.info("deadline pushed back after an outage", extra={"game": game_id})
        return moved

    # -------------------------------------------------------------- outbox

    @stages.stage("sending")
    def due_outgoing(self, limit: int = 50) -> OutgoingBatch:
        """Claim up to ``limit`` mails due to be sent, under one lease.

        Only claimable mail is looked at (pending, due, no live claim), so a peer's
        batch never blocks ours; on PostgreSQL the rows are picked ``FOR UPDATE SKIP
        LOCKED`` (a peer claiming at the same moment takes others), on SQLite the
        one conditional UPDATE is atomic (one writer at a time).
        """
        now = self.clock()
        until = now + timedelta(seconds=CLAIM_SECONDS)
        claimable = (
            OutboundMail.status == OutboundStatus.PENDING,
            OutboundMail.next_attempt_at <= now,
            claim_free(OutboundMail, now),
        )
        with self.sessions.begin() as s:
            self._hold(s, now)
            picked = (
                select(OutboundMail.id)
                .where(*claimable)
                .order_by(OutboundMail.id)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            rows = s.execute(
                update(OutboundMail)
                .where(OutboundMail.id.in_(picked.scalar_subquery()), *claimable)
                .values(claim_owner=self.owner, claim_until=until)
                .returning(
                    OutboundMail.id,
                    OutboundMail.message_id,
                    OutboundMail.sender,
                    OutboundMail.recipient,
                    OutboundMail.raw,
                )
            ).all()
            mails = [
                Outgoing(r.id, r.sender, r.recipient, open_outbound(self.key, r))
                for r in sorted(rows, key=lambda r: r.id)
            ]
        return OutgoingBatch(mails, until)

    def renew_outgoing(
        self, row_ids: Collection[int], until: datetime
    ) -> tuple[set[int], datetime]:
        """Extend our lease on these mails; the ids still ours, and the new end.

        A mail whose lease expired and was taken by a peer (or sent by it) is no longer
        ours and must not be sent: a daemon stalled past its lease sends nothing."""
        now = self.clock()
        new_until = now + timedelta(seconds=CLAIM_SECONDS)
        with self.sessions.begin() as s:
            self._hold(s, now)
            kept = s.scalars(
                update(OutboundMail)
                .where(
                    OutboundMail.id.in_(row_ids),
                    OutboundMail.status == OutboundStatus.PENDING,
                    OutboundMail.claim_owner == self.owner,
                    OutboundMail.claim_until == until,
                )
                .values(claim_until=new_until)
                .returning(OutboundMail.id)
            ).all()
        return set(kept), new_until

    def release_outgoing(self, row_ids: Collection[int], until: datetime) -> None:
        """Give back claimed mails we did not send (shutting down): due for anyone now."""
        with self.sessions.begin() as s:
            s.execute(
                update(OutboundMail)
                .where(
                    OutboundMail.id.in_(row_ids),
                    OutboundMail.claim_owner == self.owner,
                    OutboundMail.claim_until == until,
                )
                .values(claim_owner=None, claim_until=None)
            )

    @stages.stage("sending")
    def sent(self, row_id: int) -> bool:
        """The server accepted the mail: marked sent by its own commit, now."""
        with self.sessions.begin() as s:
            return delivery.mark_sent(s, row_id, self.clock(), self.owner)

    def send_failed(self, row_id: int, error: str, permanent: bool) -> OutboundStatus | None:
        with self.sessions.begin() as s:
            return delivery.mark_failed(s, self.config, row_id, error, permanent, self.clock())


@dataclass(frozen=True)
class Outgoing:
    id: int
    sender: str
    recipient: str
    raw: bytes = field(repr=False)


@dataclass
class OutgoingBatch:
    """Mails claimed together, and the end of their lease (renewed as it runs low)."""

    mails: list[Outgoing]
    until: datetime
