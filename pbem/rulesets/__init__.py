"""Registry of rulesets: name -> Ruleset. Rulesets import only ``pbem.core``.

Each factory builds a ruleset with its world data: the registry reads the data
(through the ruleset's loader) and hands it in, so the rules themselves read no file.
It also fingerprints the data files (``identity``): the record carries the rules'
version and that fingerprint, so a game is re-adjudicated by the rules it was played by.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from pbem.core.errors import LifecycleError
from pbem.core.ruleset import Ruleset, RulesIdentity, data_fingerprint
from pbem.rulesets.demo import RaidRuleset
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.ruleset import WitpRuleset


def _files(folder: Traversable, prefix: str = "") -> Iterator[tuple[str, bytes]]:
    for item in folder.iterdir():
        if item.name.startswith((".", "__")):
            continue
        name = f"{prefix}{item.name}"
        if item.is_dir():
            yield from _files(item, name + "/")
        else:
            yield name, item.read_bytes()


@lru_cache(maxsize=4)
def packaged_fingerprint(ruleset: str) -> str:
    """The fingerprint of the data files this pbem ships for ``ruleset``
    (pbem/scenarios/<ruleset>/: tables, units, scenarios, packs, map)."""
    return data_fingerprint(_files(files("pbem").joinpath("scenarios", ruleset)))


def _usn() -> Ruleset:
    return UsnRuleset(load_world(), world_geo(), packaged_fingerprint("usn"))


def _witp() -> Ruleset:
    # The theatre map (pbem/scenarios/witp/map.json and map-overrides.toml) is read
    # by the map's own loader.
    return WitpRuleset(load_library(), load_map(), packaged_fingerprint("witp"))


_FACTORIES: dict[str, Callable[[], Ruleset]] = {"demo": RaidRuleset, "usn": _usn, "witp": _witp}

# The rules of a record made before records named their rules' version (pbem 0.1.0
# up to commit bb4b81f): taken as version 1 with the data that release shipped.
LEGACY: dict[str, RulesIdentity] = {
    "demo": RulesIdentity(
        "demo", "1", "79ca24ce9f336058f28e06c620a31769a0c768a424ba796385fee8a1fc779a67"
    ),
    "usn": RulesIdentity(
        "usn", "1", "409b5f8cbb5d02fb93d4c04c05dec736530b5e8d1f3473782baf61d6420cb325"
    ),
    "witp": RulesIdentity(
        "witp", "1", "03ddb793ca1331a99c0bc3e203ae0dca55f54114873cda440c281086eb88f11f"
    ),
}
# The pbem release that recorded them, and its last commit.
LEGACY_RELEASE = "0.1.0"
LEGACY_COMMIT = "bb4b81f"


def get(name: str) -> Ruleset:
    factory = _FACTORIES.get(name)
    if factory is None:
        raise LifecycleError(f"unknown ruleset {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    return factory()


def names() -> list[str]:
    return sorted(_FACTORIES)


def identity(ruleset: Ruleset) -> RulesIdentity:
    """The rules ``ruleset`` plays by: its version and its data's fingerprint."""
    return RulesIdentity(ruleset.name, ruleset.version, ruleset.data_fingerprint)


def recorded(name: str, rules: Any) -> RulesIdentity:
    """The rules a record entry names (``{"version", "data"}``); an entry from before
    rules were recorded (None) names the legacy rules of its ruleset."""
    if isinstance(rules, dict):
        return RulesIdentity(name, str(rules.get("version")), str(rules.get("data")))
    return LEGACY.get(name, RulesIdentity(name, "1", ""))
