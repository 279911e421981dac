"""The game machine for one transaction: its jobs, sharing one desk and one set of reads.

Each job lives in its own module: ``lookups`` (the reads, remembered for the
transaction), ``acts`` (the moderator's acts), ``phases`` (the phase machine),
``rollback`` (rollback and the correcting edit), ``disputes`` and ``clock``.
``GameMaster`` only wires them together, so a caller (the mailroom, the
moderator's commands, the daemon's sweeps) holds one object per transaction.
"""

from __future__ import annotations

from pbem.lifecycle.acts import ModeratorActs
from pbem.lifecycle.clock import Clock
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.disputes import Disputes
from pbem.lifecycle.lookups import Lookups
from pbem.lifecycle.phases import PhaseMachine
from pbem.lifecycle.rollback import Corrections
from pbem.lifecycle.sink import ReportSink


class GameMaster:
    """The moderator's game machine for all games, bound to one transaction."""

    def __init__(self, desk: Desk, reporter: ReportSink | None = None) -> None:
        self.desk = desk
        self.lookups = Lookups(desk)
        self.phases = PhaseMachine(desk, self.lookups, reporter)
        self.acts = ModeratorActs(desk, self.lookups, self.phases)
        self.corrections = Corrections(desk, self.lookups, self.phases)
        self.disputes = Disputes(desk, self.lookups)
        self.clock = Clock(desk, self.lookups, self.phases, self.acts, reporter)
