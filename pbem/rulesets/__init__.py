"""Registry of rulesets: name -> Ruleset. Rulesets import only ``pbem.core``.

Each factory builds a ruleset with its world data: the registry reads the data
(through the ruleset's loader) and hands it in, so the rules themselves read no file.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.core.errors import LifecycleError
from pbem.core.ruleset import Ruleset
from pbem.rulesets.demo import RaidRuleset
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset


def _usn() -> Ruleset:
    return UsnRuleset(load_world(), world_geo())


_FACTORIES: dict[str, Callable[[], Ruleset]] = {"demo": RaidRuleset, "usn": _usn}


def get(name: str) -> Ruleset:
    factory = _FACTORIES.get(name)
    if factory is None:
        raise LifecycleError(f"unknown ruleset {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    return factory()


def names() -> list[str]:
    return sorted(_FACTORIES)
