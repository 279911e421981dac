"""A small carrier-battle world for the stage-2 air tests: the stage-1 and stage-2
tables and the Coral Sea unit values in the public part; two carrier TFs in the
TF Display schema (ships as dicts with class, damage and air groups)."""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping
from importlib.resources import files
from typing import Any, Unpack

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, SIDES
from pbem.rulesets.witp.air import naval_strike
from pbem.rulesets.witp.air.strike.plotted import StrikeOptions
from pbem.rulesets.witp.air.strikes import AirStrike
from pbem.rulesets.witp.datapack import parse_pack, resolve
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR, PRIVATE, PUBLIC
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.work import Work


def _pack(folder: str, name: str, *categories: str) -> Any:
    raw = files("pbem").joinpath("scenarios", "witp", folder, name).read_bytes()
    doc = tomllib.loads(raw.decode())
    if categories:
        doc = {k: v for k, v in doc.items() if k == "pack" or k in categories}
    return parse_pack(doc, name)


PACK = resolve(
    [
        _pack("packs", "tables-stage1.toml"),
        _pack("packs", "tables-stage2.toml"),
        _pack("scenarios", "coral-sea-1942.toml", "units"),
    ]
)
PUBLIC_PACK = PACK.public()
JAPANESE_HEX, ALLIED_HEX = "E2010", "E2016"  # 6 hexes apart: 36 MP in the Tropics


def ship(
    name: str, t: str, cls: str, damage: int = 0, air: dict[str, int] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "type": t, "class": cls, "damage": damage}
    if air:
        out["air"] = dict(air)
    return out


def kido_butai(damage: int = 0) -> list[dict[str, Any]]:
    return [
        ship("Shokaku", "CV", "ship-cv-shokaku", damage, {"A6M2": 2, "D3A1": 2, "B5N2": 2}),
        ship("Zuikaku", "CV", "ship-cv-shokaku", 0, {"A6M2": 2, "D3A1": 2, "B5N2": 2}),
        ship("Myoko", "CA", "ship-ca-myoko"),
        ship("Haguro", "CA", "ship-ca-myoko"),
        ship("DesDiv 7", "DD", "ship-dd-ijn-fleet"),
    ]


def task_force_17() -> list[dict[str, Any]]:
    return [
        ship("Yorktown", "CV", "ship-cv-yorktown", 0, {"F4F-3": 2, "SBD-3": 3, "TBD-1": 1}),
        ship("Lexington", "CV", "ship-cv-lexington", 0, {"F4F-3": 2, "SBD-3": 3, "TBD-1": 1}),
        ship("Astoria", "CA", "ship-ca-new-orleans"),
        ship("Hammann", "DD", "ship-dd-usn"),
    ]


def tf(hexid: str, ships: list[dict[str, Any]], dummy: bool = False) -> dict[str, Any]:
    """The TF's marker as the TF Display keeps it: its ships by name (``records``
    gives their records)."""
    return {
        "hex": hexid,
        "ships": [x["name"] for x in ships],
        "dummy": dummy,
        "speed_class": "SC3",
        "mission": None,
        "log": [],
    }


def world(
    japanese: list[dict[str, Any]] | None = None,
    allied: list[dict[str, Any]] | None = None,
    located: tuple[str, ...] = ("japanese:TF1",),
    bases: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Japanese TF1 at E2010, Allied TF2 at E2016; ``located``: the Located chits."""
    ships = {
        JAPANESE: japanese if japanese is not None else kido_butai(),
        ALLIED: allied if allied is not None else task_force_17(),
    }
    tfs = {
        JAPANESE: {"TF1": tf(JAPANESE_HEX, ships[JAPANESE])},
        ALLIED: {"TF2": tf(ALLIED_HEX, ships[ALLIED])},
    }
    markers = {}
    for key in located:
        owner, tf_id = key.split(":")
        markers[key] = {
            "owner": owner,
            "tf": tf_id,
            "hex": tfs[owner][tf_id]["hex"],
            "label": "Located 1A",
            "placed": 0,
            "time": "T1/air1/search",
            "source": "air",
        }
    return {
        "scenario": "test",
        PUBLIC: {
            "clock": {"at": 0, "game_turns": 3, "turn_in_cycle": 1},
            "pack": PUBLIC_PACK,
            "located": markers,
        },
        PRIVATE: {
            s: {
                "tfs": tfs[s],
                "air_bases": copy.deepcopy((bases or {}).get(s, {})),
                "ships": records(ships[s]),
            }
            for s in SIDES
        },
        DISCLOSURES: [],
        MODERATOR: {},
    }


def records(ships: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The ships' records by name (copies: a test's list stays its own)."""
    return {x["name"]: copy.deepcopy(x) for x in ships}


def in_tf(state: dict[str, Any], side: str, tf_id: str) -> list[dict[str, Any]]:
    """The records of the ships in ``side``'s TF ``tf_id``, in its box's order."""
    own = state[PRIVATE][side]
    return [own["ships"][name] for name in own["tfs"][tf_id]["ships"]]


def resolve_stored(
    state: Mapping[str, Any],
    strike: AirStrike,
    dice: Dice,
    secret: Dice,
    time: str,
    **options: Unpack[StrikeOptions],
) -> tuple[dict[str, Any], list[Event]]:
    """``strike`` resolved (naval_strike.resolve_into) on a round's work area begun
    on the stored ``state``: (the state it ends in, stored; the events)."""
    work = Work.begin(state)
    events = naval_strike.resolve_into(work, strike, dice, secret, time, **options)
    return work.finish().to_json(), events


def knowing(state: dict[str, Any], side: str) -> Knowledge:
    return Knowledge.of(state, side)


def told(state: dict[str, Any], side: str, kind: str) -> list[dict[str, Any]]:
    """The facts of ``kind`` disclosed to ``side``."""
    return [
        dict(d["fact"])
        for d in state[DISCLOSURES]
        if side in d["audience"] and d["fact"]["kind"] == kind
    ]


def test_the_world_holds_both_carrier_forces() -> None:
    s = world()
    assert s[PRIVATE][JAPANESE]["tfs"]["TF1"]["ships"][:2] == [
        "Shokaku",
        "Zuikaku",
    ]
    assert "tables/apat" in PUBLIC_PACK and "units/air-SBD-3" in PUBLIC_PACK
