"""The world data the rules consult while they run: counters, tables, scenarios.

The rules read no files. Whoever builds the ruleset hands it the world data read
by ``pbem.rulesets.usn.loader`` and the ruleset installs it here; rule modules
ask ``current()`` for the counter catalogue, the combat tables and the scenario
records. A rule run before any world is installed is a bug (AdjudicationError).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.errors import AdjudicationError
from pbem.rulesets.usn.data import UsnWorld
from pbem.rulesets.usn.scenario import Scenario
from pbem.rulesets.usn.state import GameState, Unit, unit_from_counter

_installed: list[UsnWorld] = []


def install(world: UsnWorld) -> None:
    """Make ``world`` the data every rule consults (the latest install wins)."""
    _installed[:] = [world]


def current() -> UsnWorld:
    if not _installed:
        raise AdjudicationError("no U.S.N. world data installed: build the ruleset first")
    return _installed[0]


def scenario_of(state: GameState) -> Scenario | None:
    """The scenario record a game plays (None for hand-built test states)."""
    return current().scenarios.get(state.scenario)


def special(state: GameState) -> Mapping[str, Mapping[str, Any]]:
    """The scenario's special rules (a test state may carry its own in extra)."""
    if "special" in state.extra:
        return dict(state.extra["special"])
    sc = scenario_of(state)
    return sc.special if sc is not None else {}


def optional(state: GameState) -> Mapping[str, Mapping[str, Any]]:
    """The optional rules this game switched on (scenario parameters per rule)."""
    sc = scenario_of(state)
    rules = dict(state.extra.get("optional_rules", {})) or (
        dict(sc.optional_rules) if sc is not None else {}
    )
    return {k: v for k, v in rules.items() if state.options.get(k)}


def counter_unit(side: str, uid: str) -> Unit | None:
    """A unit fresh from its counter in the catalogue (None: the data lacks it)."""
    try:
        return unit_from_counter(current().catalogue.get(side, uid))
    except Exception:  # an unknown counter: nothing arrives, nothing scores
        return None
