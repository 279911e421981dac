"""The report sink: what the game master hands each finished phase to.

The game master decides when reports are due (after each adjudication, at game
end, for a reminder); the sink turns that into mail, reading what it needs
through the game master's lookups. The service wires the
concrete sink (pbem.lifecycle.publishing.Publisher); a game master without one
sends no reports (tools that only read or replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pbem.core.events import Event
from pbem.core.ruleset import State
from pbem.lifecycle.lookups import Lookups
from pbem.storage.models import Game, Phase, Seat


class ReportSink(Protocol):
    def phase_reports(
        self, lookups: Lookups, game: Game, phase: Phase, state: State, events: Sequence[Event]
    ) -> None:
        """Report a phase just adjudicated to every seat; ``phase`` is the next one."""
        ...

    def final_reports(
        self, lookups: Lookups, game: Game, state: State, events: Sequence[Event]
    ) -> None:
        """Report the end of the game, everything disclosed, to every seat."""
        ...

    def seat_report(self, lookups: Lookups, game: Game, phase: Phase, seat: Seat) -> None:
        """Send one seat (a new player) its view of the open phase, with its order form."""
        ...

    def reminder(self, lookups: Lookups, game: Game, phase: Phase, side: str) -> None:
        """Remind ``side`` that its orders for ``phase`` are due."""
        ...
