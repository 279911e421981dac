"""A small stage-1 world for the search tests: the stage-1 tables and the Coral Sea
unit values in the public part, TFs in the agreed schema in each side's private part."""

from __future__ import annotations

import tomllib
from importlib.resources import files
from typing import Any

from pbem.core.sides import SIDES
from pbem.rulesets.witp.datapack import parse_pack, resolve
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR, PRIVATE, PUBLIC


def _pack(folder: str, name: str, *categories: str) -> Any:
    raw = files("pbem").joinpath("scenarios", "witp", folder, name).read_bytes()
    doc = tomllib.loads(raw.decode())
    if categories:  # the scenario's unit values only (its set-up says "history")
        doc = {k: v for k, v in doc.items() if k == "pack" or k in categories}
    return parse_pack(doc, name)


PACK = resolve(
    [_pack("packs", "tables-stage1.toml"), _pack("scenarios", "coral-sea-1942.toml", "units")]
)


def ship(t: str, name: str = "", damage: int = 0) -> dict[str, Any]:
    return {"name": name or t, "type": t, "damage": damage}


def tf(
    hexid: str | None, *types: str, dummy: bool = False, air: dict[str, int] | None = None
) -> dict[str, Any]:
    ships = [ship(t, f"{t}{i}") for i, t in enumerate(types)]
    if air:
        ships[0]["air"] = air
    return {
        "hex": hexid,
        "ships": ships,
        "dummy": dummy,
        "speed_class": "SC3",
        "mission": None,
        "in_port": False,
        "log": [],
    }


def world(
    japanese: dict[str, Any] | None = None,
    allied: dict[str, Any] | None = None,
    bases: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """``bases``: by side, {base name: {"hex": ..., "air_points": {...}}}."""
    tfs = {"japanese": japanese or {}, "allied": allied or {}}
    return {
        "scenario": "test",
        PUBLIC: {"clock": {"at": 0, "game_turns": 3, "turn_in_cycle": 1}, "pack": PACK.public()},
        PRIVATE: {
            s: {"tfs": tfs[s], "air_bases": (bases or {}).get(s, {}), "plots": {}} for s in SIDES
        },
        DISCLOSURES: [],
        MODERATOR: {},
    }
