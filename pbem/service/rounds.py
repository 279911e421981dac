"""The processing loop: rounds of stored mail, then the clock's ticks.

Answers first: each batch's answers are committed and the outbox woken as the
batch ends, before the tick adjudicates the rounds their mails closed and
renders the reports. A mail's transaction only files its orders; the round it
completes is adjudicated by the tick, a transaction of its own (after a kill in
between, by the next daemon's). Mail batches and due games alike are spread
over the worker processes, if any (pbem.service.loops.spread).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from pbem.service.fetching import Fetcher
from pbem.service.loops import Loop, LoopContext, round_failed, spread
from pbem.service.processing import ProcessingPool
from pbem.service.sending import Outbox

log = logging.getLogger("pbem.service")

# Stored mails processed per transaction at most (see Worker.process_many): a batch's
# lookups, claim and commit cost the same for 5 mails as for 50. A few pending
# mails are spread over the free workers instead (see _process_pending).
PROCESS_BATCH = 50
# Mails handed out per processing round at most: then the games are ticked, and
# the next round starts with a fresh (small) list of mails already handed out.
DRAIN_LIMIT = 2000
# Due games claimed and ticked per batch (in a worker process, when there are
# some): one, so that in a deadline storm the cores share the games evenly and
# the outbox is woken as each game's reports are queued (a worker process's
# commit cannot wake the daemon's outbox; the batch's end does), not after four.
TICK_BATCH = 1


class ProcessingRounds(Loop):
    """Processes filed mail and ticks the games, round after round."""

    def __init__(
        self,
        context: LoopContext,
        pool: ProcessingPool | None,
        outbox: Outbox,
        fetcher: Fetcher,
    ) -> None:
        super().__init__(context)
        self.pool = pool
        self.outbox = outbox  # woken as answers are committed
        self.fetcher = fetcher  # sets mail_filed; says whether the mailbox answers
        # Mails handed out by a round that failed (the database out of reach,
        # restarting) and not decided: maybe still claimed by us, for CLAIM_SECONDS
        # while our lease runs on; given back by the next round.
        self._stranded: set[int] = set()

    async def loop(self) -> None:
        """Process filed mail and tick the games: after each filing, every poll
        interval (a peer may have filed mail), and the moment the clock's next
        wake comes (a deadline, grace end or reminder: Worker.plan_wake)."""
        while not self.stopping.is_set():
            self.watchdog.beat("processing", self.config.intake.poll_interval + 1.0)
            self.fetcher.mail_filed.clear()
            try:
                await self.round(tick=self._may_tick())
            except Exception as exc:
                round_failed("processing", exc)
                await asyncio.sleep(1.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.fetcher.mail_filed.wait(), timeout=self._until_wake())

    async def round(self, tick_everything: bool = False, tick: bool = True) -> None:
        """The pending mail, then (``tick``) the answers out and the games due."""
        await self._process_pending()
        if tick:
            await self.outbox.answers_out()
            await self.tick_due(tick_everything)
        self.outbox.wakeup.set()

    def _may_tick(self) -> bool:
        """Deadlines are acted on only while this daemon works: the mailbox answers
        its fetcher (else mail may wait there unseen; when a peer fetches, as that
        peer's heartbeat says) and its last heartbeat is fresh (after an outage, the
        first beat pushes the deadlines back before any tick)."""
        return self.fetcher.mailbox_down_since() is None and self.worker.pulse.beating()

    def _until_wake(self) -> float:
        """Seconds until the processing loop must look again: the poll interval, or
        less if the clock's next wake comes sooner (estimated on this host's
        clock, corrected by the offset measured at start)."""
        poll = self.config.intake.poll_interval
        wake = self.worker.next_wake
        if wake is None:
            return poll
        return max(0.01, min(poll, (wake - self.worker.clock()).total_seconds()))

    async def _process_pending(self) -> None:
        """Process stored mail until none is left, PROCESS_BATCH mails a batch,
        spread over the worker processes."""
        pool = self.pool
        await self._give_back_stranded()
        handed_out = 0
        # Handed out and not decided (yet): not handed out again this round. A mail
        # still pending after its batch (a peer's claim) waits for next time; a mail
        # decided is no longer pending, so the list stays short (asking the database
        # to leave out every mail handed out this round cost time linear in them).
        undecided: set[int] = set()

        async def next_batches(room: int) -> list[list[int]]:
            nonlocal handed_out
            if handed_out >= DRAIN_LIMIT:
                return []
            pending = await asyncio.to_thread(
                self.worker.pending_mail, room * PROCESS_BATCH, besides=undecided
            )
            handed_out += len(pending)
            undecided.update(pending)
            # As many batches as there is room for: a flood goes in full batches, a
            # few mails go to every free worker at once.
            size = max(1, min(PROCESS_BATCH, -(-len(pending) // room)))
            return [pending[i : i + size] for i in range(0, len(pending), size)]

        async def process(batch: list[int]) -> None:
            if pool is not None:
                outcomes = await pool.process(batch, self.worker)
            else:
                outcomes = await asyncio.to_thread(self.worker.process_many, batch)
            undecided.difference_update(outcomes)
            log.info("processed %d mail(s), answers queued", len(batch))

        try:
            await spread(
                pool, next_batches, process, stopping=self.stopping, batch_done=self._batch_done
            )
        except Exception:
            self._stranded |= undecided
            raise

    async def _give_back_stranded(self) -> None:
        """Give back the claims a failed round may have left, as soon as the
        database answers: free for anyone (this daemon too) at once. A mail a
        worker process is still deciding is safe: its batch decides only the
        mails still claimed by us and new, under lock (Worker.process_many)."""
        if self._stranded:
            await asyncio.to_thread(self.worker.release_mail, self._stranded)
            log.info("gave back %d mail(s) a failed round left claimed", len(self._stranded))
            self._stranded = set()

    async def tick_due(self, everything: bool) -> None:
        """Tick the games due (Worker.due_for_tick), TICK_BATCH games a batch, spread
        over the worker processes as mail batches are (each worker claims its
        games by lease), the outbox woken as each batch's reports are committed;
        then plan when the clock must look at every game next (Worker.plan_wake)."""
        games = await asyncio.to_thread(self.worker.due_for_tick, everything)
        batches = [games[i : i + TICK_BATCH] for i in range(0, len(games), TICK_BATCH)]
        pool = self.pool

        async def next_batches(room: int) -> list[list[str]]:
            taken = batches[:room]
            del batches[:room]
            return taken

        await spread(
            pool,
            next_batches,
            lambda batch: (
                pool.tick(batch, self.worker)
                if pool is not None
                else asyncio.to_thread(self.worker.tick_some, batch)
            ),
            stopping=self.stopping,
            batch_done=self._batch_done,
        )
        # Planned every round (one indexed query), not only after a tick here: a
        # game created or a deadline moved outside this daemon (the CLI, a peer)
        # is then seen within one poll interval, not at the safety sweep.
        await asyncio.to_thread(self.worker.plan_wake)

    def _batch_done(self) -> None:
        """A batch's answers or reports are committed."""
        self.watchdog.beat("processing", self.config.intake.poll_interval)
        self.outbox.wake()  # its answers are committed: send them now
