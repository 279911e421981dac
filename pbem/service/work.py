"""The daemon's units of work, each one database transaction (synchronous, run in a thread).

Several daemons may share one PostgreSQL database: stored mail and queued
outgoing mail and games due a tick are *claimed* with a conditional UPDATE
before work starts (pbem.service.leases.take: rows picked ``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, so nobody waits behind a peer), so each is handled by one
daemon; a claim is held under the daemon's lease, so a daemon that dies or
stalls leaves nothing stuck for longer than one lease time. Outgoing mail is
claimed in batches under a lease that the send loop checks before each send and
renews as it runs low (Daemon._send_batch); each mail is marked sent by its own
commit (pbem.outbox.delivery). A game's tick commits only if the game's claim is
still its own, checked in the tick's own transaction (``_tick_one``). Game
changes take the game's row lock too (see pbem.lifecycle.desk).

Every transaction that judges leases, deadlines or lateness reads the time
inside it (``_now``): the database's (pbem.service.clock).
"""

from __future__ import annotations

import gc
import logging
import traceback
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Engine, or_, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from pbem import rulesets
from pbem.config import Config
from pbem.core import stages
from pbem.intake.arrival import arrival_time
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import Mailroom, file_batch, open_mail
from pbem.lifecycle.publishing import Publisher, ReportsDue, render_due, store_rendered
from pbem.outbox import delivery
from pbem.outbox.queue import open_outbound
from pbem.reports.render import warm_up as warm_templates
from pbem.service.clock import statement_time, transaction_time
from pbem.service.heartbeat import Pulse
from pbem.service.leases import Lease, claim_free, claims_lapse, held, take
from pbem.storage.db import database_unreachable, lock_unavailable
from pbem.storage.enums import InboundStatus, OutboundStatus
from pbem.storage.models import Game, InboundMail, OutboundMail

log = logging.getLogger("pbem.service")

CLAIM_SECONDS = 300
# PostgreSQL's SQLSTATE for a lock wait ended by lock_timeout.
# The clock looks at every game at least this often: what has no indexed time to
# wake the daemon (a pause's cap, the moderator's digest) waits this long at most.
# Deadlines, grace ends, reminders and lapsed claims wake it at once (next_wake).
SAFETY_SWEEP = timedelta(minutes=5)


def freeze_start_up() -> None:
    """In a process given to serving (the daemon's, a worker process), once started
    up: what start-up made (modules, rulesets, templates, compiled SQL) lives as
    long as the process, so it is frozen out of the garbage collector's view and
    its full passes no longer walk it again and again (timed over 1,000 orders of
    ``Worker.process_many``: the collector's passes cost 0.13 ms an order before,
    0.03 after). Start-up's own garbage is collected first. Not in a process that runs daemons for a while
    (the tests): it would keep their garbage."""
    gc.collect()
    gc.freeze()


class LeaseLost(Exception):
    """A game's claim went to a peer (we stalled past it): this tick commits nothing."""


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
        self._swept_at: datetime | None = None  # the last look at every game
        self._next_wake: datetime | None = None  # when the next look at every game is due
        self._sweep_requested = False
        self.replan = False  # a look at every game or a tick since plan_wake
        self.pulse = Pulse(owner)
        self.lease = Lease(owner, config.database.lease_seconds)
        self.fetching: str | None = None  # the mailbox whose lease we hold, renewed by beats
        bind = sessions.kw.get("bind")
        if not isinstance(bind, Engine):
            raise TypeError("a Worker needs sessions bound to an Engine")
        self._engine = bind  # for the outbox's marks, through Core (``sent``)

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

    def _now(self, s: Session) -> datetime:
        """The time ``s``'s transaction judges by: the database's, read in it."""
        return transaction_time(self.clock, s)

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
                gm = self.game_master(s, self._now(s))
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
        """Deadlines, reminders and early adjudication of the games due a tick
        (``due_for_tick``), each claimed and ticked here (``tick_some``); then the
        next wake is planned. The daemon spreads the same steps over its worker
        processes (Daemon._tick_due)."""
        did = self.tick_some(self.due_for_tick(everything))
        self.plan_wake()
        return did

    def due_for_tick(self, everything: bool = True) -> list[str]:
        """The games a tick may have something to do for (``Clock.due_games``), one
        query, no locks. Every game once the next wake has come (``plan_wake``: the
        earliest deadline, grace end or reminder after the last such look, a peer's
        claim running out), when asked (``everything``, a moderator command), or
        SAFETY_SWEEP after the last look; else only the games processed mail named
        since: a look at every stored game after every batch of mail cost time
        linear in the games stored."""
        touched, self._touched = self._touched, set()
        with self.sessions() as s:
            now = self._now(s)
            clock = self.game_master(s, now).clock
            wake = self._next_wake
            if everything or self._sweep_requested or wake is None or now >= wake:
                self._swept_at, self._sweep_requested = now, False
                self._next_wake = now + SAFETY_SWEEP  # until plan_wake knows better
                self.replan = True
                return clock.due_games()
            if touched:
                return clock.due_games(among=touched)
        return []

    def plan_wake(self) -> datetime | None:
        """When the clock must next look at every game (after ticking what was due):
        the earliest deadline, grace end or reminder after the last look (one
        indexed query: a tick since may have opened a phase due at once), or a
        game claim running out, at most SAFETY_SWEEP after the last look. The
        daemon sleeps until then unless mail wakes it."""
        with self.sessions() as s:
            now = self._now(s)
            since = self._swept_at or now
            game_master = self.game_master(s, since)
            times = [game_master.clock.next_due(), claims_lapse(s, now), since + SAFETY_SWEEP]
        self._next_wake = min(t for t in times if t is not None)
        self.replan = False
        return self._next_wake

    @property
    def next_wake(self) -> datetime | None:
        return self._next_wake

    def tick_some(self, game_ids: Sequence[str]) -> list[str]:
        """Claim those of ``game_ids`` nobody holds (``claim_games``) and tick them
        (``tick_claimed``); what the ticks did. Run by a worker process for a batch
        of the due games, or by the daemon itself."""
        if not game_ids:
            return []
        self.replan = True  # a tick may open a phase due sooner than the planned wake
        return self.tick_claimed(self.claim_games(game_ids))

    def claim_games(self, game_ids: Collection[str]) -> GameClaim:
        """Claim the games of ``game_ids`` no live claim holds, for one lease time,
        in one transaction (pbem.service.leases.take: a game a peer holds or is
        claiming is skipped, never waited for)."""
        with self.sessions.begin() as s:
            now = self._now(s)
            self._hold(s, now)
            until = now + self.lease.length
            taken = s.scalars(
                take(Game, self.owner, until, now, Game.id.in_(sorted(game_ids))).returning(Game.id)
            ).all()
        return GameClaim(sorted(taken), until)

    def tick_claimed(self, claim: GameClaim) -> list[str]:
        """Tick each claimed game in a transaction of its own, which also gives its
        claim back; the claims not yet used are renewed as they run low."""
        did: list[str] = []
        for n, game_id in enumerate(claim.games):
            lease = self.lease
            if claim.until - self.clock() < lease.length / 2:  # an estimate: margin enough
                claim = self._renew_games(claim, claim.games[n:])
                if game_id not in claim.games:
                    continue
            did.extend(self._tick_one(game_id, claim.until))
        return did

    def _renew_games(self, claim: GameClaim, game_ids: Sequence[str]) -> GameClaim:
        """Push our claims on ``game_ids`` a lease time ahead; those a peer took over
        (we stalled) are left out."""
        with self.sessions.begin() as s:
            now = self._now(s)
            self._hold(s, now)
            until = now + self.lease.length
            kept = s.scalars(
                update(Game)
                .where(*held(Game, self.owner, game_ids, claim.until))
                .values(claim_until=until)
                .returning(Game.id)
            ).all()
        for game_id in sorted(set(game_ids) - set(kept)):
            log.warning("lease on game %s lost to another daemon; nothing committed", game_id)
        return GameClaim(sorted(kept), until)

    def _tick_one(self, game_id: str, until: datetime) -> list[str]:
        """One game's tick, committed only while the game's claim (ours until
        ``until``) is still ours: a conditional UPDATE in the committing transaction
        gives it back and must hit the row, else all is rolled back. A daemon that
        stalled past its lease and wakes commits nothing for the game.

        The reports an adjudication makes due are noted in the tick's transaction
        and rendered after it (pbem.lifecycle.publishing): the claim is given back
        by the short transaction that queues them. Reports a dead daemon left
        noted are rendered first, so they go out in the order of play."""
        did: list[str] = []
        due: list[ReportsDue] = []
        committed = False  # the tick's own transaction: then its reports are owed
        try:
            with self.sessions.begin() as s:
                self._still_ours(s, game_id, until)
                game_master = GameMaster(
                    Desk(s, self.config, self.key, self._now(s)), self.publisher.deferring(due)
                )
                if self.publisher.publish_owed(game_master.lookups, game_id):
                    did.append(f"{game_id}: sent the reports a stopped daemon left unsent")
                for what in game_master.clock.tick(game_id):
                    did.append(f"{game_id}: {what}")
                # Kept while its reports are owed: the next tick of the game waits for them.
                self._give_back(s, game_id, until, keep=bool(due))
            committed = True
            for what in did:
                log.info(what.split(": ", 1)[1], extra={"game": game_id})
            if due:
                # Outside any transaction: other writers go on while the maps are drawn.
                rendered = [render_due(self.config, reports) for reports in due]
                with self.sessions.begin() as s:
                    self._still_ours(s, game_id, until)
                    for reports, done in zip(due, rendered, strict=True):
                        store_rendered(s, self.config, reports, done)
                    self._give_back(s, game_id, until)
        except LeaseLost:
            log.warning(
                "lease on game %s lost to another daemon; %s",
                game_id,
                "its reports are left to it" if committed else "nothing committed",
            )
            return did if committed else []
        except OperationalError as exc:
            if database_unreachable(exc):  # cut off: the claim lapses with our lease
                log.warning("tick of game %s: the database is out of reach; later", game_id)
                return did if committed else []
            self._release_game(game_id, until)
            if not lock_unavailable(exc):
                log.exception("tick of game %s failed", game_id)
                return did if committed else []
            # A peer's transaction holds the game's row (stalled, or a long batch): the
            # server ends it within idle_in_transaction_timeout; ticked next time.
            log.warning("game %s is locked by another daemon; ticked later", game_id)
            return did if committed else []
        except Exception:
            self._release_game(game_id, until)
            log.exception("tick of game %s failed", game_id)
            return did if committed else []
        return did

    def _still_ours(self, s: Session, game_id: str, until: datetime) -> None:
        """Lock the game's row; LeaseLost unless our claim (to ``until``) still holds it."""
        mine = held(Game, self.owner, [game_id])
        if s.scalar(select(Game.claim_until).where(*mine).with_for_update()) != until:
            raise LeaseLost(game_id)

    def _give_back(self, s: Session, game_id: str, until: datetime, keep: bool = False) -> None:
        """Give back our claim (or ``keep`` it) in the committing transaction;
        LeaseLost (all rolled back) if a peer took it meanwhile."""
        given_back = s.execute(
            update(Game)
            .where(*held(Game, self.owner, [game_id]), Game.claim_until == until)
            .values({"claim_until": until} if keep else {"claim_owner": None, "claim_until": None})
        )
        if given_back.rowcount != 1:  # type: ignore[attr-defined]
            raise LeaseLost(game_id)

    def _release_game(self, game_id: str, until: datetime) -> None:
        """Give back our claim on a game whose tick failed: free for anyone now."""
        try:
            self.release_games([game_id], until)
        except Exception as exc:  # the claim lapses with the lease anyway
            log.warning("could not give back the claim on game %s: %s", game_id, exc)

    def release_games(self, game_ids: Collection[str], until: datetime | None = None) -> None:
        """Give back our claims on these games (of that end, if given; all of them
        when a worker process died with them): free for anyone now."""
        with self.sessions.begin() as s:
            s.execute(
                update(Game)
                .where(*held(Game, self.owner, game_ids, until))
                .values(claim_owner=None, claim_until=None)
            )

    def start_up(self) -> list[str]:
        """Take this daemon's lease; push back deadlines that passed while no
        daemon could work; note we are alive."""
        with self.sessions.begin() as s:
            now = self._now(s)
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
            self.lease.end(s, self._now(s))

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
            now = self._now(s)
            self._hold(s, now)
            ours = self.lease.fetch_from(s, mailbox, now)
        self.fetching = mailbox if ours else None
        return ours

    def fetcher_down_since(self, mailbox: str) -> datetime | None:
        """For a daemon that does not fetch: None while the daemon fetching from
        ``mailbox`` beats as working (its mailbox answers), else since when it has
        not. None too when nobody holds the mailbox: we take it next round."""
        with self.sessions() as s:
            now = self._now(s)
            owner = self.lease.fetcher(s, mailbox, now)
            return None if owner is None else self.pulse.peer_down_since(s, owner, now)

    def heartbeat(self, mailbox_down_since: datetime | None = None) -> list[str]:
        """This daemon's heartbeat (pbem.service.heartbeat): it can work, or, with
        ``mailbox_down_since``, its mailbox has been out of reach since then. The
        first beat that can work after an outage of every daemon pushes the
        deadlines back by it; returns the games whose deadlines moved."""
        with self.sessions.begin() as s:
            now = self._now(s)
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
                Outgoing(r.id, r.sender, r.recipient, open_outbound(self.key, r))
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

    def release_outgoing(self, row_ids: Collection[int], until: datetime) -> None:
        """Give back claimed mails we did not send (shutting down): due for anyone now."""
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

    def send_failed(self, row_id: int, error: str, permanent: bool) -> OutboundStatus | None:
        with self.sessions.begin() as s:
            return delivery.mark_failed(s, self.config, row_id, error, permanent, self._now(s))


@dataclass(frozen=True)
class Outgoing:
    id: int
    sender: str
    recipient: str
    raw: bytes = field(repr=False)


@dataclass(frozen=True)
class GameClaim:
    """Games claimed together for a tick, and the end of their claim."""

    games: list[str]
    until: datetime


@dataclass
class OutgoingBatch:
    """Mails claimed together, and the end of their lease (renewed as it runs low)."""

    mails: list[Outgoing]
    until: datetime
    term: int  # the daemon lease's term they were claimed (or last renewed) in
