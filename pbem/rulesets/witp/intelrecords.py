"""The records 42 keeps in the sides' private parts (intelligence.py's rules): the
Allies' holdings (``intelligence``), the Japanese JN-25 counters (``jn25``) and the
42.9 dummy plot card he filed (``dummy_plot_card``), and the plot card's face Sigint
and Magic show. They sit low in the import graph, as the other records of a side's
private part do (sidepart.py), so that the state's codec reads them typed;
intelligence.py re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.rulesets.witp.records import ABSENT, Absent, Record


@dataclass(frozen=True, slots=True)
class PlotCard:
    """A plot card as Sigint or Magic shows it (16.3, 42.9): one shape for every card,
    a TF's own or the 42.9 dummy card: TF, speed class, composition, lines."""

    tf: str
    speed: str
    composition: tuple[str, ...]
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "tf": self.tf,
            "speed": self.speed,
            "composition": list(self.composition),
            "lines": list(self.lines),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> PlotCard:
        return card_face(obj["tf"], obj["speed"], obj["composition"], obj["lines"])


def card_face(tf: str, speed: str, composition: Sequence[str], lines: Sequence[str]) -> PlotCard:
    return PlotCard(tf, speed, tuple(composition), tuple(lines))


# -- the records 42 keeps ------------------------------------------------------------


def count(value: int | Absent) -> int:
    return 0 if value is ABSENT else value


@dataclass(frozen=True)
class Holdings(Record):
    """The Allies' intelligence holdings (``private["allied"]["intelligence"]``): the cycle's
    SI difference, Sigint uses and ruses left (42.2.2, 42.3.5), the Naval Phase Sigint
    was used in (42.3.2), the Magic chits held (42.4) and the calls filed for the next
    Japanese cards (R71). Each key is set by the rule that first needs it."""

    cycle: int | Absent = ABSENT
    si_difference: int | Absent = ABSENT
    sigint_left: int | Absent = ABSENT
    ruses_left: int | Absent = ABSENT
    sigint_phase: str | Absent | None = ABSENT
    magic: tuple[str, ...] | Absent = ABSENT
    calls: tuple[tuple[str, ...], ...] | Absent = ABSENT

    @property
    def chits(self) -> tuple[str, ...]:
        return () if self.magic is ABSENT else self.magic

    @property
    def filed(self) -> tuple[tuple[str, ...], ...]:
        return () if self.calls is ABSENT else self.calls


@dataclass(frozen=True)
class Jn25(Record):
    """The Japanese JN-25 Code Change counters (``private["japanese"]["jn25"]``, 42.8):
    how many he holds, and the cycle a dummy plot card committed one to (R72)."""

    held: int
    committed_cycle: int | None


NO_JN25 = Jn25(0, None)


@dataclass(frozen=True)
class DummyPlotCard(Record):
    """The 42.9 dummy plot card the Japanese filed (``private["japanese"]["dummy_plot_card"]``):
    the card, and the Game-Turn and Naval Phase it was filed for."""

    card: PlotCard
    turn: int
    time: str
