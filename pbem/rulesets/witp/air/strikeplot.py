"""What the Air Strike Plot's lines are judged with and into (5.0 Step 1): the side's
accepted plot and the judging context. Its own module so that the judges of plot.py
and of choices.py both build on it, and neither imports the other back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pbem.rulesets.witp.knowledge import Knowledge

Distance = Callable[[str, str], int]


@dataclass
class AirPlot:
    """The accepted orders, as JSON-ready dicts by id."""

    strikes: dict[str, dict[str, Any]] = field(default_factory=dict)
    covers: dict[str, dict[str, Any]] = field(default_factory=dict)
    transfers: dict[str, dict[str, Any]] = field(default_factory=dict)
    caps: dict[str, dict[str, int]] = field(default_factory=dict)  # TF -> shares by level
    allocated: dict[tuple[str, str], int] = field(default_factory=dict)  # (base, type) -> n
    choices: dict[str, str] = field(default_factory=dict)  # air/choices.py (12.3.2 Step 2)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "strikes": self.strikes,
            "covers": self.covers,
            "transfers": self.transfers,
        }
        if self.choices:
            out["choices"] = self.choices
        if self.caps:
            out["caps"] = self.caps
        return out


@dataclass(frozen=True)
class Context:
    knowledge: Knowledge
    side: str
    mp: Distance  # MP between two hexes
