"""Mission cards' values (16.3, 17.x): the card a TF carries out in a Naval Phase,
its missions in order, as kept in the TF's ``mission`` (taskforces.py) and carried
out by movement.py. missions.py judges the order lines that build a card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, Any

from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.records import ABSENT, Absent, Record, Wire


class MissionCode(StrEnum):
    """The mission card's codes pbem moderates (16.3, 17.x)."""

    MOVE = "MOVE"  # 17.13
    TRAN = "TRAN"  # 17.8
    FUEL = "FUEL"  # 17.9
    REGP = "REGP"  # 17.11
    LINK = "LINK"  # 17.10
    PORT = "PORT"  # 18.4.1


@dataclass(frozen=True, slots=True)
class Move(Record):
    """17.13 MOVE (17.8 TRAN: to a friendly hex, EV 1): the hexes entered on the way
    to ``to``, what each costs (17.13.3) and the mission's EV (17.16.5); its JSON by
    the one codec (records.py)."""

    code: MissionCode
    to: HexId
    route: tuple[HexId, ...]
    costs: tuple[int, ...]
    ev: int


@dataclass(frozen=True, slots=True)
class Fuelling:
    """17.9: fuel from ``source``'s oilers where the TF then is, for ``mp`` MP."""

    at: HexId
    source: str
    mp: int

    def to_json(self) -> dict[str, Any]:
        return {"code": "FUEL", "at": self.at, "from": self.source, "mp": self.mp}


@dataclass(frozen=True, slots=True)
class Regroup:
    """17.11: ``ships`` to TF ``to`` where the TF then is; or (13.6) a ``dummy``
    marker placed there."""

    at: HexId
    to: str | None = None
    ships: tuple[str, ...] = ()
    dummy: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.dummy is not None:
            return {"code": "REGP", "at": self.at, "dummy": self.dummy}
        return {"code": "REGP", "at": self.at, "to": self.to, "ships": list(self.ships)}


@dataclass(frozen=True, slots=True)
class Link:
    """17.10: the TF moves with ``leader``, as one TF."""

    leader: str

    def to_json(self) -> dict[str, Any]:
        return {"code": "LINK", "with": self.leader}


@dataclass(frozen=True, slots=True)
class PortEntry:
    """18.4.1: end in the port ``port`` (in ``at``) where the move ends, to deactivate."""

    at: HexId
    port: str | None

    def to_json(self) -> dict[str, Any]:
        return {"code": "PORT", "at": self.at, "port": self.port}


Mission = Move | Fuelling | Regroup | Link | PortEntry


def mission_from_json(raw: Mapping[str, Any]) -> Mission:
    code = MissionCode(raw["code"])
    if code in (MissionCode.MOVE, MissionCode.TRAN):
        return Move(code, raw["to"], tuple(raw["route"]), tuple(raw["costs"]), raw["ev"])
    if code is MissionCode.FUEL:
        return Fuelling(raw["at"], raw["from"], raw["mp"])
    if code is MissionCode.REGP:
        return Regroup(raw["at"], raw.get("to"), tuple(raw.get("ships", ())), raw.get("dummy"))
    if code is MissionCode.LINK:
        return Link(raw["with"])
    return PortEntry(raw["at"], raw["port"])


@dataclass(frozen=True, slots=True)
class MissionCard:
    """A TF's mission card for one Naval Phase (16.3): its missions in order, built
    up line by line (each judge returns the card with its line added)."""

    tf: str
    start: HexId
    speed: str  # the speed class it moves at this phase
    missions: tuple[Mission, ...] = ()
    path: tuple[HexId, ...] = ()  # every hex entered, in order
    mp: int = 0  # MP plotted so far (hexes entered, fuelling)
    night_after: int | None = None
    link: str | None = None  # the TF it moves with (17.10)
    port: bool = False
    converted_fuel: int | None = None  # 18.2.1: its fuelling period at the new speed class

    @property
    def at(self) -> HexId:
        return self.path[-1] if self.path else self.start

    def adding(self, mission: Mission, **changes: Any) -> MissionCard:
        """The card with ``mission`` written last."""
        return replace(self, missions=(*self.missions, mission), **changes)

    def to_json(self) -> dict[str, Any]:
        return {
            "tf": self.tf,
            "start": self.start,
            "speed": self.speed,
            "missions": [m.to_json() for m in self.missions],
            "path": list(self.path),
            "mp": self.mp,
            "night_after": self.night_after,
            "link": self.link,
            "port": self.port,
            "converted_fuel": self.converted_fuel,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> MissionCard:
        return cls(
            tf=raw["tf"],
            start=raw["start"],
            speed=raw["speed"],
            missions=tuple(mission_from_json(m) for m in raw["missions"]),
            path=tuple(raw["path"]),
            mp=raw["mp"],
            night_after=raw["night_after"],
            link=raw["link"],
            port=raw["port"],
            converted_fuel=raw["converted_fuel"],
        )


@dataclass(frozen=True)
class MissionNote(Record):
    """What a mission along a card did, as its owner is told (movement.TfExecuted):
    the mission, what it did or why it ``failed``, and the rule (17.8-17.11,
    18.4.1). Each key is stored only where the mission tells it, in the order told
    (``put`` adds a key last)."""

    mission: str
    source: Annotated[str | Absent, Wire("from")] = ABSENT  # FUEL's oilers' TF (17.9)
    to: str | Absent = ABSENT
    dummy: str | Absent = ABSENT
    ships: tuple[str, ...] | Absent = ABSENT
    at: str | Absent | None = ABSENT
    failed: str | Absent = ABSENT
    rule: str = ""
    points: float | Absent = ABSENT
