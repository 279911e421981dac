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
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.witp.datapack import Pack as Pack
from pbem.rulesets.witp.datapack import PackItem, ShipClass, required_class
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.sidepart import SidePart
from pbem.rulesets.witp.tfdisplay import MoveStep as MoveStep
from pbem.rulesets.witp.tfdisplay import Ship as Ship
from pbem.rulesets.witp.tfdisplay import TaskForce as TaskForce
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
    def of(cls, part: SidePart) -> Fleet:
        """The fleet in a side's private part (a Knowledge's or the round's)."""
        return cls(dict(part.task_forces()), dict(part.ship_records()))


class Parts(Protocol):
    """What holds the sides' private parts: the round's Work (its working copy) or a
    side's Knowledge (what it may know; another side's part there is empty)."""

    def part(self, side: str) -> SidePart: ...


# The accessors: the rules read (from either) and write (the round's) a side's TFs
# and ships here.


def task_forces(parts: Parts, side: str) -> dict[str, TaskForce]:
    """A side's TF Display (a Knowledge's or the round's)."""
    return dict(parts.part(side).task_forces())


def task_force(parts: Parts, side: str, tf: str) -> TaskForce:
    return parts.part(side).task_forces()[tf]


def ship(parts: Parts, side: str, name: str) -> Ship:
    return parts.part(side).ship_records()[name]


def ships_of(parts: Parts, side: str, tf: TaskForce) -> list[Ship]:
    """The TF's ships, named, from the side's records (a ship with none: type "?")."""
    return Fleet.of(parts.part(side)).ships_in(tf)


def fleet(parts: Parts, side: str) -> Fleet:
    return Fleet.of(parts.part(side))


def put(work: Work, side: Side, tf: str, value: TaskForce) -> None:
    """``value`` into the side's TF Display (a TF kept is rewritten where it stands)."""
    part = work.part(side)
    work.put_part(side, part.put(tfs={**part.task_forces(), tf: value}))


def put_ship(work: Work, side: Side, name: str, value: Ship) -> None:
    part = work.part(side)
    work.put_part(side, part.put(ships={**part.ship_records(), name: value}))


def remove(work: Work, side: str, tf: str) -> None:
    """The TF's marker leaves the side's TF Display."""
    part = work.part(side)
    kept = {t: v for t, v in part.task_forces().items() if t != tf}
    work.put_part(side, part.put(tfs=kept))


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


def setup(forces: Mapping[str, PackItem], places: Collection[str], where: Locator) -> Fleet:
    """A side's TF Display at the start, read from its ``forces`` items of the pack
    (as stored): each force with ships becomes a TF, numbered in the pack's order,
    placed where its position (degrees) falls on the map."""
    tfs: dict[str, TaskForce] = {}
    ships: dict[str, Ship] = {}
    for fid, item in forces.items():
        v = item.value
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


def embarked(forces: Mapping[str, PackItem], ships: Mapping[str, Ship]) -> dict[str, Ship]:
    """4.0, 5.0: the carriers' air groups onto their ships' records, so a carrier TF
    launches, searches and loses APs from its ships: a forces item whose keys are all
    ship names (the scenario's ``*-air`` items) gives each its APs by type; a
    ``*-elite`` item, how many of them are elite (7.11, air/elite.py); a ``*-green``
    item, how many are untrained (58.1, air/training.py)."""
    out = dict(ships)
    for key, item in forces.items():
        v = item.value
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
