"""The TF Display's records (16.1-16.2): a TF marker and its box (``TaskForce``),
the hexes it entered this Naval Phase (``MoveStep``) and a ship's record (``Ship``),
each with its stored JSON (taskforces.py's schema). They sit low in the import graph,
as the other records of a side's private part do (sidepart.py), so that the state's
codec reads them typed; their rules live in taskforces.py, which re-exports them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from pbem.core.errors import DataError
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.missioncards import MissionCard


@dataclass(frozen=True, slots=True)
class Ship:
    """A ship in a TF's box on the TF Display (16.2), with the record other rules
    keep of it: its damage level (7.8.1, 16.8: 0-4, 5 sunk), a carrier's air group
    by AP type (4.0, 5.0), how many of them are elite (7.11) or green (58.1), an
    oiler's fuel left (17.9.2), and of the elite those with Night status (7.11.5)."""

    type: str
    ship_class: str = ""
    navy: str = ""
    members: tuple[str, ...] = ()
    force: str = ""
    damage: int = 0
    air: Mapping[str, int] | None = None
    elite: Mapping[str, int] | None = None
    green: Mapping[str, int] | None = None
    fuel_left: float | None = None
    name: str | None = None
    night_elite: Mapping[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "class": self.ship_class,
            "navy": self.navy,
            "members": list(self.members),
            "force": self.force,
            "damage": self.damage,
        }
        for key in _SHIP_OPTIONAL:
            v = getattr(self, key)
            if v is not None:
                out[key] = dict(v) if isinstance(v, Mapping) else v
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Ship:
        if unknown := sorted(set(raw) - _SHIP_KEYS):  # refused, as records.py refuses one
            raise DataError("ship", f"unknown key(s) {', '.join(unknown)}")
        optional = {k: raw[k] for k in _SHIP_OPTIONAL if k in raw}
        return cls(
            type=raw["type"],
            ship_class=raw.get("class", ""),
            navy=raw.get("navy", ""),
            members=tuple(raw.get("members", ())),
            force=raw.get("force", ""),
            damage=raw.get("damage", 0),
            **optional,
        )


_SHIP_OPTIONAL = ("air", "elite", "green", "fuel_left", "name", "night_elite")
_SHIP_KEYS = frozenset({"type", "class", "navy", "members", "force", "damage", *_SHIP_OPTIONAL})


@dataclass(frozen=True, slots=True)
class MoveStep:
    """One hex a TF entered this Naval Phase (16.6, 17.13): the MP spent so far,
    whether it moved there at night, and its mission's EV (17.16.5)."""

    hex: HexId
    mp: int
    night: bool
    ev: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hex": self.hex, "mp": self.mp, "night": self.night}
        if self.ev is not None:
            out["ev"] = self.ev
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> MoveStep:
        return cls(HexId(raw["hex"]), raw["mp"], raw["night"], raw.get("ev"))


# The Naval Phase's bookkeeping flags, kept on the record only while True.
_PHASE_FLAGS = ("active", "entered_port", "fuelled", "deployed")


@dataclass(frozen=True, slots=True)
class TaskForce:
    """A TF marker and its box on the TF Display (16.1-16.2): see the module's schema.

    ``mission`` is this Naval Phase's card (16.3);
    ``active``, ``entered_port``, ``fuelled`` and ``deployed`` are the current
    Naval Phase's (16.0, 18.4.1, 17.9, ruling R31), ``revealed`` how a dummy was
    definitively revealed mid-move (13.6.3)."""

    hex: HexId | None
    ships: tuple[str, ...] = ()
    dummy: bool = False
    speed_class: str = ""
    mission: MissionCard | None = None
    active_phases: int = 0
    fuel: int | None = None
    in_port: str | None = None
    log: tuple[MoveStep, ...] = ()
    name: str = ""
    port_phases: int = 0
    deactivated: bool = False
    unsupplied: bool = False
    night: bool = False
    active: bool = False
    entered_port: bool = False
    fuelled: bool = False
    deployed: bool = False
    revealed: str | None = None

    @property
    def at_sea(self) -> bool:
        return self.hex is not None and not self.in_port

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "hex": self.hex,
            "ships": list(self.ships),
            "dummy": self.dummy,
            "speed_class": self.speed_class,
            "mission": None if self.mission is None else self.mission.to_json(),
            "active_phases": self.active_phases,
            "fuel": self.fuel,
            "in_port": self.in_port,
            "log": [s.to_json() for s in self.log],
            "name": self.name,
            "port_phases": self.port_phases,
            "deactivated": self.deactivated,
            "unsupplied": self.unsupplied,
            "night": self.night,
        }
        out.update({flag: True for flag in _PHASE_FLAGS if getattr(self, flag)})
        if self.revealed is not None:
            out["revealed"] = self.revealed
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TaskForce:
        if unknown := sorted(set(raw) - _TF_KEYS):  # refused, as records.py refuses one
            raise DataError("task force", f"unknown key(s) {', '.join(unknown)}")
        mission = raw.get("mission")
        return cls(
            hex=raw.get("hex"),
            ships=tuple(raw.get("ships", ())),
            dummy=bool(raw.get("dummy", False)),
            speed_class=raw.get("speed_class", ""),
            mission=MissionCard.from_json(mission) if mission is not None else None,
            active_phases=raw.get("active_phases", 0),
            fuel=raw.get("fuel"),
            in_port=raw.get("in_port") or None,
            log=tuple(MoveStep.from_json(s) for s in raw.get("log", ())),
            name=raw.get("name", ""),
            port_phases=raw.get("port_phases", 0),
            deactivated=bool(raw.get("deactivated", False)),
            unsupplied=bool(raw.get("unsupplied", False)),
            night=bool(raw.get("night", False)),
            revealed=raw.get("revealed"),
            **{flag: bool(raw[flag]) for flag in _PHASE_FLAGS if flag in raw},
        )


_TF_KEYS = frozenset(f.name for f in fields(TaskForce))
