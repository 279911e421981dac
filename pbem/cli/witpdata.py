"""``pbem data … witp``: War in the Pacific's data packs, by provenance, checked.

The packs and scenarios are read as a game reads them (witp/loader.py); ``check``
also builds each scenario's opening position, which places every force on the
theatre map, so a pack whose forces stand on no hex or use no known unit fails here
rather than at CREATE.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from pbem.core.errors import PbemError
from pbem.rulesets.witp.datapack import DataPack, Provenance
from pbem.rulesets.witp.library import Library
from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.ruleset import WitpRuleset

WITP_SOURCES = tuple(str(p) for p in Provenance)


def _library(directory: Path | None) -> Library:
    return load_library(directory)


def _packs(library: Library) -> dict[str, DataPack]:
    """Every pack by name, the scenarios' own packs after the installation's."""
    return {**library.packs, **{name: s.pack for name, s in library.scenarios.items()}}


def provenance_report(directory: Path | None) -> dict[str, dict[str, int]]:
    """Each pack's items counted by provenance."""
    return {
        name: dict(Counter(str(i.provenance) for i in pack.items.values()))
        for name, pack in _packs(_library(directory)).items()
    }


def check(directory: Path | None) -> int:
    """Load every pack and scenario and set each scenario up on the map: OK or the errors."""
    try:
        library = _library(directory)
        ruleset = WitpRuleset(library, load_map())
        for name in library.scenarios:
            ruleset.initial_state(name, {})
    except PbemError as e:
        print(f"{e}", file=sys.stderr)
        print("FAILED", file=sys.stderr)
        return 1
    items = sum(len(p.items) for p in _packs(library).values())
    illustrative = sum(
        i.provenance is Provenance.ILLUSTRATIVE
        for p in _packs(library).values()
        for i in p.items.values()
    )
    print(
        f"OK: {len(library.packs)} packs and {len(library.scenarios)} scenario(s) "
        f"({', '.join(library.scenarios)}), {items} items ({illustrative} illustrative), "
        "each scenario set up on the theatre map"
    )
    return 0


def units(directory: Path | None) -> str:
    """One line a unit item (ship classes, air point types): its values and provenance."""
    lines = []
    for pack_name, pack in _packs(_library(directory)).items():
        for key, item in sorted(pack.items.items()):
            if key.startswith("units/"):
                values = (
                    item.value
                    if not isinstance(item.value, dict)
                    else " ".join(f"{k}={v}" for k, v in item.value.items())
                )
                lines.append(
                    f"{key[len('units/') :]:<24} {item.provenance!s:<13} {values}  [{pack_name}]"
                )
    return "\n".join(lines)
