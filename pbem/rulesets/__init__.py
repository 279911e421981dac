"""Registry of rulesets: name -> Ruleset. Rulesets import only ``pbem.core``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from pbem.core.errors import LifecycleError
from pbem.core.ruleset import Ruleset

_FACTORIES: dict[str, Callable[[], Ruleset]] = {}


def register(name: str, factory: Callable[[], Ruleset]) -> None:
    _FACTORIES[name] = factory


def get(name: str) -> Ruleset:
    _load_builtins()
    factory = _FACTORIES.get(name)
    if factory is None:
        raise LifecycleError(f"unknown ruleset {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    return factory()


def names() -> list[str]:
    _load_builtins()
    return sorted(_FACTORIES)


def _load_builtins() -> None:
    # Imported lazily so that importing the registry does not load every game.
    from pbem.rulesets import demo  # noqa: F401

    with contextlib.suppress(ImportError):  # the U.S.N. ruleset may be absent
        from pbem.rulesets.usn import ruleset as _usn  # noqa: F401
