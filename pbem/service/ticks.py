"""The clock's ticks: the games due a look, each claimed, ticked and given back.

A game's tick commits only if the game's claim is still its own, checked in the
tick's own transaction (``_tick_one``): a daemon that stalled past its lease and
wakes commits nothing for the game. Games are claimed a batch at a time
(pbem.service.leases.take: a game a peer holds is skipped, never waited for);
the claims not used yet are renewed as they run low. Game changes take the
game's row lock too (see pbem.lifecycle.desk).

Between sweeps only the games processed mail named are looked at (the notes in
pbem.service.station); the next sweep is planned at the earliest time anything
falls due (``plan_wake``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import ReportsDue, render_due, store_rendered
from pbem.service.leases import claims_lapse, held, take
from pbem.service.station import Station
from pbem.storage.db import database_unreachable, lock_unavailable
from pbem.storage.models import Game

log = logging.getLogger("pbem.service")

# The clock looks at every game at least this often: what has no indexed time to
# wake the daemon (a pause's cap, the moderator's digest) waits this long at most.
# Deadlines, grace ends, reminders and lapsed claims wake it at once (next_wake).
SAFETY_SWEEP = timedelta(minutes=5)


class LeaseLost(Exception):
    """A game's claim went to a peer (we stalled past it): this tick commits nothing."""


@dataclass(frozen=True)
class GameClaim:
    """Games claimed together for a tick, and the end of their claim."""

    games: list[str]
    until: datetime


class Ticks(Station):
    """Deadlines, reminders and early adjudication, game by game under a claim."""

    _swept_at: datetime | None = None  # the last look at every game
    _next_wake: datetime | None = None  # when the next look at every game is due
    replan = False  # a look at every game or a tick since plan_wake

    def tick_games(self, everything: bool = True) -> list[str]:
        """Deadlines, reminders and early adjudication of the games due a tick
        (``due_for_tick``), each claimed and ticked here (``tick_some``); then the
        next wake is planned. The daemon spreads the same steps over its worker
        processes (pbem.service.rounds.ProcessingRounds.tick_due)."""
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
