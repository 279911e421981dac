"""The daemon's units of work, each one database transaction (synchronous, run in a thread).

Several daemons may share one PostgreSQL database: stored mail and queued
outgoing mail and games due a tick are *claimed* with a conditional UPDATE
before work starts (pbem.service.leases.take: rows picked ``FOR UPDATE SKIP
LOCKED`` on PostgreSQL, so nobody waits behind a peer), so each is handled by one
daemon; a claim is held under the daemon's lease, so a daemon that dies or
stalls leaves nothing stuck for longer than one lease time.

``Worker`` only puts the parts together, each a module with one job on the
shared footing of pbem.service.station: stored mail (``inbound``), the clock's
ticks (``ticks``), this daemon's lease and heartbeat (``presence``) and outgoing
mail's claims (``outgoing``). One object, so that a caller (the daemon, a worker
process, the command line, a test) holds one lease, one clock and one set of
tick notes.
"""

from __future__ import annotations

import gc

from sqlalchemy import select

from pbem import rulesets
from pbem.reports.render import warm_up as warm_templates
from pbem.service.inbound import Inbound
from pbem.service.outgoing import OutgoingClaims
from pbem.service.presence import Presence
from pbem.service.ticks import Ticks
from pbem.storage.models import Game


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


class Worker(Presence, Inbound, Ticks, OutgoingClaims):
    """A daemon's (or worker process's) work: the parts on one station."""

    def warm_up(self) -> None:
        """Pay now, before the daemon says it is ready, what the first mail after
        start-up would pay alone (its answer is as fast as any): each
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
