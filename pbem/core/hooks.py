"""Hook tables: where a ruleset's engine lets its scenario and optional rules in.

The engine declares each ``Hook`` (a name and the type of the rule it calls) and
consults ``table[hook]`` where the rulebook lets a scenario or an optional rule
change what happens; the scenario modules ``fill`` the hooks they implement. The
engine never imports a scenario module, so the rules form a one-way stack:
engine below, scenario rules on top, the ruleset assembling both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from pbem.core.errors import AdjudicationError

R = TypeVar("R", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Hook(Generic[R]):
    """One extension point, typed by the callable that fills it."""

    name: str
    rule: str  # the rule reference the hook stands for, e.g. "OPT.GAR.FIXED"


class HookTable:
    """The hooks of one ruleset: each declared once, filled once."""

    def __init__(self) -> None:
        self._declared: dict[str, Hook[Any]] = {}
        self._filled: dict[str, Callable[..., Any]] = {}

    def declare(self, name: str, rule: str) -> Hook[Any]:
        if name in self._declared:
            raise ValueError(f"hook {name!r} is declared twice")
        hook: Hook[Any] = Hook(name, rule)
        self._declared[name] = hook
        return hook

    def fill(self, hook: Hook[R], implementation: R) -> None:
        if self._declared.get(hook.name) is not hook:
            raise ValueError(f"hook {hook.name!r} is not declared in this table")
        if hook.name in self._filled:
            raise ValueError(f"hook {hook.name!r} is filled twice")
        self._filled[hook.name] = implementation

    def __getitem__(self, hook: Hook[R]) -> R:
        try:
            return cast(R, self._filled[hook.name])
        except KeyError:
            raise AdjudicationError(
                f"hook {hook.name!r} ({hook.rule}) has no rule: its module was not loaded"
            ) from None

    def unfilled(self) -> Iterator[str]:
        return (name for name in self._declared if name not in self._filled)
