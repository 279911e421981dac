"""Task forces (16.1-16.2): each side's TF Display, its markers and its ships.

The TF Display is secret (16.0, 16.1.2), so it lives in the side's private part.
Schema (agreed with the search modules; keep it)::

    state["private"][side]["tfs"][tf_id] = {
        "hex": HexId | None,      # where the TF is; None: not on the map
        "ships": [ship names],    # its box on the TF Display (16.2); [] for a dummy
        "dummy": bool,            # 16.1.3: a marker with no ships
        "speed_class": str,       # "SC1".."SC3"; "" until chosen at sortie (16.0 A, B)
        "mission": {...} | None,  # this Naval Phase's card (16.3): missioncards.MissionCard
        "active_phases": int,     # active Naval Phases used this Game-Turn (16.0, 18.4)
        "fuel": int | None,       # active phases left in its fuelling period (18.1); None: no need (dummy)
        "in_port": base | None,   # the port it lies in (18.4.1)
        "log": [...],             # this phase's moves, hex by hex: {"hex", "mp", "night"}
        # pbem's own, beside the agreed fields:
        "name": str,              # the scenario's name for it ("Task Force 17"); "" if formed in play
        "port_phases": int,       # Naval Phases completed in port since it entered (18.4.1)
        "deactivated": bool,      # 18.4.1: after the phase following its port entry
        "unsupplied": bool,       # 18.3: at sea past its fuelling period
        "night": bool,            # 16.6.9: finished its missions at night this phase
    }
    state["private"][side]["ships"][name] = {"type", "class", "navy", "members", "force",
                                             "damage", "air" (a carrier's APs by type)}

A TF's id is its marker: ``TF1`` .. ``TF60`` (16.1.1). The enemy sees a marker only
when a rule discloses it (the Located chits of ``state["public"]["located"]``,
kept by the search rules): movement itself discloses nothing (16.1.6).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Protocol

from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.witp.datapack import Pack as Pack
from pbem.rulesets.witp.datapack import ShipClass, required_class
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import SideJson
from pbem.rulesets.witp.missioncards import MissionCard
from pbem.rulesets.witp.work import Work

TFS, SHIPS = "tfs", "ships"
MARKERS = "tables/tf-markers-per-side"
DAY_MP = "tables/naval-movement-allowance-day"
NIGHT_MP = "tables/naval-movement-allowance-night"
DURATION = "tables/active-phase-duration"
SPEED_CLASSES = ("SC1", "SC2", "SC3")
AT_SEA = "at sea"
_TF = re.compile(r"^TF\s*(\d{1,2})$", re.IGNORECASE)


class Locator(Protocol):
    """What set-up needs of the theatre map (map.TheatreMap)."""

    def hex_at(self, lat: float, lon: float) -> HexId | None: ...


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


@dataclass(frozen=True, slots=True)
class Fleet:
    """A side's TF Display and its ships' records (16.1-16.2), as values."""

    tfs: Mapping[str, TaskForce]
    ships: Mapping[str, Ship]

    def ships_in(self, tf: TaskForce) -> list[Ship]:
        """The TF's ships, named (a ship with no record: type "?")."""
        return [replace(self.ships.get(s) or Ship("?"), name=s) for s in tf.ships]

    def to_json(self) -> dict[str, Any]:
        return {
            TFS: {tf: entry.to_json() for tf, entry in self.tfs.items()},
            SHIPS: {name: s.to_json() for name, s in self.ships.items()},
        }

    @classmethod
    def from_json(cls, own: SideJson) -> Fleet:
        """The fleet in a side's private part (a Knowledge's or the round's)."""
        ships = {name: Ship.from_json(rec) for name, rec in own.get(SHIPS, {}).items()}
        return cls(display(own), ships)


def display(own: SideJson) -> dict[str, TaskForce]:
    """A side's TF Display decoded from its private part (a Knowledge's or the round's)."""
    return {tf: TaskForce.from_json(rec) for tf, rec in own.get(TFS, {}).items()}


def displayed(own: SideJson, tf: str) -> TaskForce:
    return TaskForce.from_json(own[TFS][tf])


def ship_record(own: SideJson, name: str) -> Ship:
    return Ship.from_json(own[SHIPS][name])


def ships_in(own: SideJson, tf: TaskForce) -> list[Ship]:
    """The TF's ships, named, from the side's records (a ship with none: type "?")."""
    records = own.get(SHIPS, {})
    return [
        replace(Ship.from_json(records[s]) if s in records else Ship("?"), name=s) for s in tf.ships
    ]


def store(own: dict[str, Any], tf: str, value: TaskForce) -> None:
    """``value`` into the side's TF Display."""
    _store_record(own.setdefault(TFS, {}), tf, value)


def store_ship(own: dict[str, Any], name: str, value: Ship) -> None:
    _store_record(own.setdefault(SHIPS, {}), name, value)


def _store_record(records: dict[str, Any], key: str, value: Ship | TaskForce) -> None:
    """``value``'s JSON as the record ``key``. An existing record is rewritten in
    place: the round's other rules may hold it while a TF moves."""
    new, rec = value.to_json(), records.get(key)
    if rec is None:
        records[key] = new
    elif rec != new:
        rec.clear()
        rec.update(new)


class Parts(Protocol):
    """What holds the sides' private parts: the round's Work (its working copy) or a
    side's Knowledge (what it may know; another side's part there is empty)."""

    def own(self, side: str) -> SideJson: ...


# The accessors: the rules read (from either) and write (the round's) a side's TFs
# and ships here.


def task_forces(parts: Parts, side: str) -> dict[str, TaskForce]:
    return display(parts.own(side))


def task_force(parts: Parts, side: str, tf: str) -> TaskForce:
    return displayed(parts.own(side), tf)


def ship(parts: Parts, side: str, name: str) -> Ship:
    return ship_record(parts.own(side), name)


def ships_of(parts: Parts, side: str, tf: TaskForce) -> list[Ship]:
    return ships_in(parts.own(side), tf)


def fleet(parts: Parts, side: str) -> Fleet:
    return Fleet.from_json(parts.own(side))


def put(work: Work, side: Side, tf: str, value: TaskForce) -> None:
    store(work.own(side), tf, value)


def put_ship(work: Work, side: Side, name: str, value: Ship) -> None:
    store_ship(work.own(side), name, value)


def update(work: Work, side: Side, tf: str, **changes: Any) -> TaskForce:
    """The side's TF ``tf`` with ``changes`` (dataclasses.replace), stored back."""
    value = replace(task_force(work, side, tf), **changes)
    put(work, side, tf, value)
    return value


def tf_id(text: str) -> str | None:
    """'TF7', 'tf 7' -> 'TF7'; None if ``text`` names no marker."""
    m = _TF.match(text.strip())
    return f"TF{int(m.group(1))}" if m and int(m.group(1)) >= 1 else None


def marker_number(tf: str) -> int:
    return int(tf[2:])


def value(pack: Pack, key: str) -> Any:
    """A public pack item's value (the charts both sides hold)."""
    try:
        return pack[key].value
    except KeyError:
        raise DataError(key.replace("/", "."), "missing from the game's data pack") from None


def setup(
    forces: Mapping[str, Mapping[str, Any]], places: Collection[str], where: Locator
) -> Fleet:
    """A side's TF Display at the start, read from its ``forces`` items of the pack
    (as stored): each force with ships becomes a TF, numbered in the pack's order,
    placed where its position (degrees) falls on the map."""
    tfs: dict[str, TaskForce] = {}
    ships: dict[str, Ship] = {}
    for fid, item in forces.items():
        v = item["value"]
        if "ships" not in v:
            continue
        h = where.hex_at(float(v["lat"]), float(v["lon"]))
        if h is None:
            raise DataError(f"forces.{fid}", f"position {v['lat']}, {v['lon']} is off the map")
        for s in v["ships"]:
            ships[str(s["name"])] = Ship(
                type=s["type"],
                ship_class=s.get("class", ""),
                navy=s.get("navy", ""),
                members=tuple(s.get("members", ())),
                force=fid,
            )
        place = str(v.get("place", AT_SEA))
        in_port = place if place != AT_SEA and place in places else None
        tfs[f"TF{len(tfs) + 1}"] = TaskForce(
            h,
            tuple(str(s["name"]) for s in v["ships"]),
            name=str(v.get("name", fid)),
            in_port=in_port,
            deactivated=in_port is not None,  # ships lying in port
        )  # its fuel is set when its speed class is chosen (16.0 A; 18.1)
    return Fleet(tfs, embarked(forces, ships))


def embarked(forces: Mapping[str, Mapping[str, Any]], ships: Mapping[str, Ship]) -> dict[str, Ship]:
    """4.0, 5.0: the carriers' air groups onto their ships' records, so a carrier TF
    launches, searches and loses APs from its ships: a forces item whose keys are all
    ship names (the scenario's ``*-air`` items) gives each its APs by type; a
    ``*-elite`` item, how many of them are elite (7.11, air/elite.py); a ``*-green``
    item, how many are untrained (58.1, air/training.py)."""
    out = dict(ships)
    for key, item in forces.items():
        v = item.get("value")
        if isinstance(v, Mapping) and v and all(name in out for name in v):
            for name, air in v.items():
                out[name] = _embark(out[name], str(key), {str(t): int(n) for t, n in air.items()})
    return out


def _embark(ship: Ship, item: str, aps: Mapping[str, int]) -> Ship:
    """The ship with ``aps`` as its air group, its elite (a ``*-elite`` item) or its
    green (a ``*-green`` item, 58.1)."""
    if item.endswith("-elite"):
        return replace(ship, elite=aps)
    if item.endswith("-green"):
        return replace(ship, green=aps)
    return replace(ship, air=aps)


def ship_class(pack: Pack, ship: Ship) -> ShipClass:
    """The ship's class values of the public charts (``units/<class>``)."""
    return required_class(pack, ship.ship_class)


def top_speed_class(pack: Pack, fleet: Fleet, tf: TaskForce) -> int:
    """17.13.1: a TF's speed class may not exceed its slowest ship's; a dummy any (13.6.1)."""
    if tf.dummy or not tf.ships:
        return 3
    return min(ship_class(pack, fleet.ships[s]).speed_class for s in tf.ships)


def fuelling_period(pack: Pack, speed_class: str) -> int:
    """18.1, 18.4: the active Naval Phases a TF may spend at sea between fuellings."""
    return int(value(pack, DURATION)[speed_class]["total"])


def per_game_turn(pack: Pack, speed_class: str) -> int:
    """16.0, 18.4: the most active Naval Phases a Game-Turn."""
    return int(value(pack, DURATION)[speed_class]["per_game_turn"])


def allowance(pack: Pack, speed_class: str, *, night: bool = False) -> int:
    """17.13.1, 16.6: MP an active phase, by speed class (18.3: unsupplied is SC1)."""
    return int(value(pack, NIGHT_MP if night else DAY_MP)[speed_class])


def free_markers(pack: Pack, tfs: Iterable[str]) -> list[str]:
    """16.1.1: the side's unused markers, lowest first."""
    limit, used = int(value(pack, MARKERS)), set(tfs)
    return [f"TF{n}" for n in range(1, limit + 1) if f"TF{n}" not in used]


def types_of(fleet: Fleet, tf: TaskForce) -> list[str]:
    return [fleet.ships[s].type for s in tf.ships]
