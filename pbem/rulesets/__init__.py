"""Registry of rulesets: name -> Ruleset. Rulesets import only ``pbem.core``.

Each factory builds a ruleset with its world data: the registry reads the data
(through the ruleset's loader) and hands it in, so the rules themselves read no file.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.core.errors import LifecycleError
from pbem.core.ruleset import Ruleset

# Each factory imports its ruleset when first asked: listing the names (the command
# line's choices) reads no game's modules or data.


def _demo() -> Ruleset:
    from pbem.rulesets.demo import RaidRuleset

    return RaidRuleset()


def _usn() -> Ruleset:
    from pbem.rulesets.usn.loader import load_world, world_geo
    from pbem.rulesets.usn.ruleset import UsnRuleset

    return UsnRuleset(load_world(), world_geo())


def _witp() -> Ruleset:
    # The theatre map (pbem/scenarios/witp/map.json and map-overrides.toml) is read
    # by the map's own loader.
    from pbem.rulesets.witp.loader import load_library
    from pbem.rulesets.witp.map import load_map
    from pbem.rulesets.witp.ruleset import WitpRuleset

    return WitpRuleset(load_library(), load_map())


_FACTORIES: dict[str, Callable[[], Ruleset]] = {"demo": _demo, "usn": _usn, "witp": _witp}


def get(name: str) -> Ruleset:
    factory = _FACTORIES.get(name)
    if factory is None:
        raise LifecycleError(f"unknown ruleset {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    return factory()


def names() -> list[str]:
    return sorted(_FACTORIES)
