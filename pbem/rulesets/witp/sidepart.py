"""A side's private part (knowledge.py's ``private``, by side): its displays, logs
and plots, none of which the enemy sees, as one record of the one codec (records.py),
each key typed by the record of the rules that own it:

- ``forces``: its order of battle, the pack's force items (datapack.PackItem);
- ``plots``: its last plot's lines, by game time (16.3, orders.py);
- ``tfs`` and ``ships``: the TF Display and its ships' records (16.1-16.2,
  tfdisplay.py; their rules in taskforces.py);
- ``air_bases``: its land air bases (4.3, 13.0, air/bases.py);
- ``standing``: its standing orders (R50, R10, 13.8, R92, R105, 42.9, standing.py);
- ``coastwatchers``: the Allies' CW Log (13.8.1, coastwatchers.py's rules);
- ``dummy_allotment``: its dummy sorties this cycle (13.6, dummies.py's rules);
- ``intelligence``, ``jn25``, ``dummy_plot_card``: 42's records (intelrecords.py);
- ``card_order`` and ``card_lines``: the TFs its cards were written for, in order
  (17.13.6), and each card's lines as written (42.3.1);
- ``cap_aborted``: the CAP APs aborted this Air Phase, by TF or base and type (5.3.6);
- ``air_plot``: this Air Phase's accepted Air Strike Plot (5.0, air/strikes.py);
- ``naval_cover_aloft``: the Naval Cover still over its TFs (5.3.4, R124);
- ``intensive``: its intensive searches' bases, by game time (13.2).

It sits low in the import graph (as markers.py and moderatorrecords.py do), so that
the state's codec (state.py) and the knowledge model (known.py) read it typed; the
rules read and write it through the round's work area (work.Work.part / put_part)
and their owners' accessors. Each key is stored once its rule first makes it; the
keys keep the order they were read in (the layout), so a state read and written
back is the same text. The small records whose owners sit above the work area are
declared here and re-exported by their owners (the dummy allotment, the CW Log's
islands).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from pbem.rulesets.witp.air.bases import AirBase
from pbem.rulesets.witp.air.strikes import CoverFlight, FiledPlot
from pbem.rulesets.witp.datapack import PackItem
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.intelrecords import DummyPlotCard, Holdings, Jn25
from pbem.rulesets.witp.records import ABSENT, Absent, Record
from pbem.rulesets.witp.standing import Standing
from pbem.rulesets.witp.tfdisplay import Ship, TaskForce


@dataclass(frozen=True, slots=True)
class DummyAllotment:
    """13.6: a side's dummy TF sorties for a cycle: how many it may make and how many
    it has made (dummies still at sea count against it, 13.6.7)."""

    cycle: int
    allowed: int
    sorties: int

    @property
    def left(self) -> int:
        return self.allowed - self.sorties

    def sortie(self) -> DummyAllotment:
        return replace(self, sorties=self.sorties + 1)

    def to_json(self) -> dict[str, Any]:
        return {"cycle": self.cycle, "allowed": self.allowed, "sorties": self.sorties}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> DummyAllotment:
        return cls(raw["cycle"], raw["allowed"], raw["sorties"])


@dataclass(frozen=True, slots=True)
class CoastwatcherIsland:
    """An entry of the Allies' CW Log (13.8.1, 13.8.3): the island's name and the
    hexes its watcher occupies (ruling R24)."""

    name: str
    hexes: tuple[HexId, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "hexes": list(self.hexes)}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CoastwatcherIsland:
        return cls(raw["name"], tuple(raw["hexes"]))


@dataclass(frozen=True)
class SidePart(Record):
    """A side's private part (see the module's docstring for each key's rule)."""

    forces: Mapping[str, PackItem] | Absent = ABSENT
    plots: Mapping[str, tuple[str, ...]] | Absent = ABSENT
    tfs: Mapping[str, TaskForce] | Absent = ABSENT
    ships: Mapping[str, Ship] | Absent = ABSENT
    air_bases: Mapping[str, AirBase] | Absent = ABSENT
    standing: Standing | Absent = ABSENT
    coastwatchers: Mapping[str, CoastwatcherIsland] | Absent = ABSENT
    dummy_allotment: DummyAllotment | Absent = ABSENT
    intelligence: Holdings | Absent = ABSENT
    jn25: Jn25 | Absent = ABSENT
    dummy_plot_card: DummyPlotCard | Absent = ABSENT
    card_order: tuple[str, ...] | Absent = ABSENT
    card_lines: Mapping[str, tuple[str, ...]] | Absent = ABSENT
    cap_aborted: Mapping[str, Mapping[str, int]] | Absent = ABSENT
    air_plot: FiledPlot | Absent = ABSENT
    naval_cover_aloft: Mapping[str, tuple[CoverFlight, ...]] | Absent = ABSENT
    intensive: Mapping[str, tuple[str, ...]] | Absent = ABSENT

    # Each key read as its rules read it when the part has none (an empty display,
    # no standing orders, no holdings: every key absent).

    def task_forces(self) -> Mapping[str, TaskForce]:
        return {} if self.tfs is ABSENT else self.tfs

    def ship_records(self) -> Mapping[str, Ship]:
        return {} if self.ships is ABSENT else self.ships

    def bases(self) -> Mapping[str, AirBase]:
        return {} if self.air_bases is ABSENT else self.air_bases

    def orders(self) -> Standing:
        return Standing() if self.standing is ABSENT else self.standing

    def holdings(self) -> Holdings:
        return Holdings() if self.intelligence is ABSENT else self.intelligence

    def order_of_battle(self) -> Mapping[str, PackItem]:
        return {} if self.forces is ABSENT else self.forces


NO_PART = SidePart()  # a side's part another side's knowledge holds: nothing
