"""Task forces (16.1-16.2): each side's TF Display, its markers and its ships.

The TF Display is secret (16.0, 16.1.2), so it lives in the side's private part.
Schema (agreed with the search modules; keep it)::

    state["private"][side]["tfs"][tf_id] = {
        "hex": HexId | None,      # where the TF is; None: not on the map
        "ships": [ship names],    # its box on the TF Display (16.2); [] for a dummy
        "dummy": bool,            # 16.1.3: a marker with no ships
        "speed_class": str,       # "SC1".."SC3"; "" until chosen at sortie (16.0 A, B)
        "mission": {...} | None,  # this Naval Phase's card (16.3): missions.Card.to_json()
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
from collections.abc import Mapping
from typing import Any, Protocol

from pbem.core.dice import Dice
from pbem.core.errors import DataError
from pbem.core.events import Event
from pbem.core.sides import JAPANESE, SIDES
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, disclose

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


def tf_id(text: str) -> str | None:
    """'TF7', 'tf 7' -> 'TF7'; None if ``text`` names no marker."""
    m = _TF.match(text.strip())
    return f"TF{int(m.group(1))}" if m and int(m.group(1)) >= 1 else None


def marker_number(tf: str) -> int:
    return int(tf[2:])


def new_tf(
    hex_: str | None, ships: list[str], *, dummy: bool = False, name: str = ""
) -> dict[str, Any]:
    return {
        "hex": hex_,
        "ships": list(ships),
        "dummy": dummy,
        "speed_class": "",
        "mission": None,
        "active_phases": 0,
        "fuel": None,
        "in_port": None,
        "log": [],
        "name": name,
        "port_phases": 0,
        "deactivated": False,
        "unsupplied": False,
        "night": False,
    }


def value(public: Mapping[str, Any], key: str) -> Any:
    """A public pack item's value (the charts both sides hold)."""
    try:
        return public["pack"][key]["value"]
    except KeyError:
        raise DataError(key.replace("/", "."), "missing from the game's data pack") from None


def setup(
    forces: Mapping[str, Mapping[str, Any]], places: Mapping[str, Any], where: Locator
) -> dict[str, Any]:
    """A side's TF Display at the start: each force with ships becomes a TF, numbered
    in the pack's order, placed where its position (degrees) falls on the map."""
    tfs: dict[str, Any] = {}
    ships: dict[str, Any] = {}
    for fid, item in forces.items():
        v = item["value"]
        if "ships" not in v:
            continue
        tf = f"TF{len(tfs) + 1}"
        h = where.hex_at(float(v["lat"]), float(v["lon"]))
        if h is None:
            raise DataError(f"forces.{fid}", f"position {v['lat']}, {v['lon']} is off the map")
        place = str(v.get("place", AT_SEA))
        names = []
        for s in v["ships"]:
            names.append(str(s["name"]))
            ships[str(s["name"])] = {
                "type": s["type"],
                "class": s.get("class", ""),
                "navy": s.get("navy", ""),
                "members": list(s.get("members", ())),
                "force": fid,
                "damage": 0,  # 7.8.1, 16.8: damage level 0-4, 5 sunk (air/ships.py)
            }
        entry = new_tf(h, names, name=str(v.get("name", fid)))
        entry["in_port"] = place if place != AT_SEA and place in places else None
        entry["deactivated"] = entry["in_port"] is not None  # ships lying in port
        entry["fuel"] = None  # set when its speed class is chosen (16.0 A; 18.1)
        tfs[tf] = entry
    embark(forces, ships)
    return {TFS: tfs, SHIPS: ships}


def embark(forces: Mapping[str, Mapping[str, Any]], ships: Mapping[str, dict[str, Any]]) -> None:
    """4.0, 5.0: the carriers' air groups onto their ships' records, so a carrier TF
    launches, searches and loses APs from its ships: a forces item whose keys are all
    ship names (the scenario's ``*-air`` items) gives each its APs by type; a
    ``*-elite`` item, how many of them are elite (7.11, air/elite.py); a ``*-green``
    item, how many are untrained (58.1, air/training.py)."""
    for key, item in forces.items():
        v = item.get("value")
        if isinstance(v, Mapping) and v and all(name in ships for name in v):
            field = "elite" if str(key).endswith("-elite") else "air"
            field = "green" if str(key).endswith("-green") else field  # 58.1, air/training.py
            for name, air in v.items():
                ships[name][field] = {str(t): int(n) for t, n in air.items()}


def ship_class(public: Mapping[str, Any], ship: Mapping[str, Any]) -> Mapping[str, Any]:
    cls = str(ship.get("class", ""))
    got: Mapping[str, Any] = value(public, f"units/{cls}")
    return got


def top_speed_class(
    public: Mapping[str, Any], own: Mapping[str, Any], tf: Mapping[str, Any]
) -> int:
    """17.13.1: a TF's speed class may not exceed its slowest ship's; a dummy any (13.6.1)."""
    if tf["dummy"] or not tf["ships"]:
        return 3
    return min(int(ship_class(public, own[SHIPS][s])["speed_class"]) for s in tf["ships"])


def fuelling_period(public: Mapping[str, Any], speed_class: str) -> int:
    """18.1, 18.4: the active Naval Phases a TF may spend at sea between fuellings."""
    return int(value(public, DURATION)[speed_class]["total"])


def per_game_turn(public: Mapping[str, Any], speed_class: str) -> int:
    """16.0, 18.4: the most active Naval Phases a Game-Turn."""
    return int(value(public, DURATION)[speed_class]["per_game_turn"])


def allowance(public: Mapping[str, Any], speed_class: str, *, night: bool = False) -> int:
    """17.13.1, 16.6: MP an active phase, by speed class (18.3: unsupplied is SC1)."""
    return int(value(public, NIGHT_MP if night else DAY_MP)[speed_class])


def free_markers(public: Mapping[str, Any], tfs: Mapping[str, Any]) -> list[str]:
    """16.1.1: the side's unused markers, lowest first."""
    limit = int(value(public, MARKERS))
    return [f"TF{n}" for n in range(1, limit + 1) if f"TF{n}" not in tfs]


def types_of(own: Mapping[str, Any], tf: Mapping[str, Any]) -> list[str]:
    return [str(own[SHIPS][s]["type"]) for s in tf["ships"]]


def allot_dummies(state: dict[str, Any], dice: Dice, time: str, cycle: int) -> list[Event]:
    """13.6: each side's dummy sorties for the cycle, told to that side alone
    (``dummy_allotment``: {cycle, allowed, sorties}, the search modules' schema).
    Japanese: 2D6 on the Japanese Dummy TF Allotment (a 7 rolls 1D6 more), secretly;
    Allied: the Allied SI level plus the difference of 2D6. Dummies still at sea
    count against the new allotment (13.6.7)."""
    public = state[PUBLIC]
    events: list[Event] = []
    for side in SIDES:
        a, b = dice.d6(f"dummy allotment {side} {time}"), dice.d6(f"dummy allotment {side} {time}")
        if side == JAPANESE:
            rows = value(public, "tables/japanese-dummy-allotment")["rows"]
            row = next(r for r in rows if r["roll"][0] <= a + b <= r["roll"][1])
            granted = (
                dice.d6(f"dummy allotment {side} {time} 1D6")
                if row["dummies"] == "1D6"
                else int(row["dummies"])
            )
        else:
            granted = int(value(public, "scenario/si-levels")["allied"]) + abs(a - b)
        own = state[PRIVATE][side]
        at_sea = sum(1 for t in own.get(TFS, {}).values() if t["dummy"])
        own["dummy_allotment"] = {"cycle": cycle, "allowed": granted, "sorties": at_sea}
        fact = {"kind": "dummy-allotment", "cycle": cycle, "rolls": [a, b], "allowed": granted}
        events.append(disclose(state, fact, [side], time, "13.6"))
    return events
