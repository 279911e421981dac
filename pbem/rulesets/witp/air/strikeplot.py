"""What the Air Strike Plot's lines are judged with and into (5.0 Step 1): the side's
accepted plot and the judging context. Its own module so that the judges of plot.py
and of choices.py both build on it, and neither imports the other back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from pbem.rulesets.witp.air.strikes import AirStrike, AirTransfer, CoverFlight, FiledPlot
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.known import Knowledge

Distance = Callable[[str, str], int]


@dataclass
class AirPlot:
    """The plot being judged line by line: the accepted orders by id, typed, and the
    APs allotted so far by (base, type) (5.1.1)."""

    air_strikes: dict[str, AirStrike] = field(default_factory=dict)
    cover_flights: dict[str, CoverFlight] = field(default_factory=dict)
    air_transfers: dict[str, AirTransfer] = field(default_factory=dict)
    caps: dict[str, dict[str, int]] = field(default_factory=dict)  # TF -> shares by level
    allocated: dict[tuple[str, str], int] = field(default_factory=dict)  # (base, type) -> n
    choices: dict[str, str] = field(default_factory=dict)  # air/choices.py (12.3.2 Step 2)

    def filed(self, time: str | None = None) -> FiledPlot:
        """The accepted plot as filed in the Allocation Segment (5.0 Step 1)."""
        return FiledPlot(
            strikes=tuple(self.air_strikes.values()),
            covers=tuple(self.cover_flights.values()),
            transfers=tuple(self.air_transfers.values()),
            caps=tuple((tf, tuple(shares.items())) for tf, shares in self.caps.items()),
            choices=tuple(self.choices.items()),
            time=time,
        )

    def choose_entry(self, sid: str, choice: str) -> None:
        """7.7.1, R126: strike ``sid``'s elite waves' entry arc choice."""
        self.air_strikes[sid] = replace(self.air_strikes[sid], entry=choice)


@dataclass(frozen=True)
class Context:
    knowledge: Knowledge
    side: str
    mp: Distance  # MP between two hexes

    @property
    def pack(self) -> Mapping[str, PackItem]:
        """The charts the side holds, typed: what the judges read the AP types from."""
        return self.knowledge.pack
