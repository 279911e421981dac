"""A small stage-1 world for the search tests: the stage-1 tables and the Coral Sea
unit values in the public part, TFs in the agreed schema in each side's private part
(ship names in the TF, their records in the side's ``ships``)."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from importlib.resources import files
from typing import Any

from pbem.core.sides import SIDES
from pbem.rulesets.witp import chits
from pbem.rulesets.witp.datapack import parse_pack, resolve
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR, PRIVATE, PUBLIC
from pbem.rulesets.witp.taskforces import Ship
from pbem.rulesets.witp.work import Work


def _pack(folder: str, name: str, *categories: str) -> Any:
    raw = files("pbem").joinpath("scenarios", "witp", folder, name).read_bytes()
    doc = tomllib.loads(raw.decode())
    if categories:  # the scenario's unit values only (its set-up says "history")
        doc = {k: v for k, v in doc.items() if k == "pack" or k in categories}
    return parse_pack(doc, name)


PACK = resolve(
    [_pack("packs", "tables-stage1.toml"), _pack("scenarios", "coral-sea-1942.toml", "units")]
)


def ship(t: str, name: str = "", damage: int = 0, air: dict[str, int] | None = None) -> Ship:
    return Ship(t, damage=damage, air=air, name=name or t)


def tf(
    hexid: str | None, *types: str, dummy: bool = False, air: dict[str, int] | None = None
) -> dict[str, Any]:
    """A TF in the agreed schema, but holding its ``Ship`` values: ``world`` files them
    in the side's ``ships`` records and leaves their names in the TF (taskforces.py)."""
    ships = [ship(t, f"{t}{i}", air=air if i == 0 else None) for i, t in enumerate(types)]
    return {
        "hex": hexid,
        "ships": ships,
        "dummy": dummy,
        "speed_class": "SC3",
        "mission": None,
        "in_port": False,
        "log": [],
    }


def _displayed(tfs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The side's TF Display and ship records from TFs holding ``Ship`` values (two
    TFs' ships of one name are one record when alike, else the name is made the TF's)."""
    display: dict[str, Any] = {}
    records: dict[str, Any] = {}
    for key, rec in tfs.items():
        names = []
        for s in rec.get("ships", ()):
            shared = records.get(s.name, s.to_json()) == s.to_json()  # the same ship
            name = s.name if shared else f"{s.name}/{key}"
            records[name] = replace(s, name=name).to_json()
            names.append(name)
        display[key] = {**rec, "ships": names}
    return display, records


def world(
    japanese: dict[str, Any] | None = None,
    allied: dict[str, Any] | None = None,
    bases: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``bases``: by side, {base name: {"hex": ..., "air_points": {...}}}."""
    tfs = {"japanese": _displayed(japanese or {}), "allied": _displayed(allied or {})}
    return {
        "scenario": "test",
        PUBLIC: {"clock": {"at": 0, "game_turns": 3, "turn_in_cycle": 1}, "pack": PACK.public()},
        PRIVATE: {
            s: {
                "tfs": tfs[s][0],
                "ships": tfs[s][1],
                "air_bases": (bases or {}).get(s, {}),
                "plots": {},
            }
            for s in SIDES
        },
        DISCLOSURES: [],
        MODERATOR: {},
    }


def fill(work: Work, cup: str, contents: dict[str, int]) -> Work:
    """Set ``cup``'s chits to ``contents`` (a test's set-up: 13.5.1's cups otherwise)."""
    cups = chits.chit_cups(work)
    chits.keep(work, cups.put(cups={**cups.cups, cup: contents}))
    return work
