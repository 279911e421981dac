"""The U.S.N. game options the lifecycle checks at CREATE (issue 13): the fog mode and
each scenario's optional rules, typed, with the values that reach the rules."""

from __future__ import annotations

import pytest

from pbem.core.options import OptionError, resolve
from pbem.rulesets.usn import fog, submarines
from pbem.rulesets.usn.data import UsnWorld
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.scenario import FOG_OPTION
from pbem.rulesets.usn.state import GameState


@pytest.fixture(scope="module")
def world() -> UsnWorld:
    return load_world()


def test_fog_option_offers_exactly_the_modes_fog_knows() -> None:
    assert FOG_OPTION.choices == fog.MODES and FOG_OPTION.default == "open"


def test_every_scenario_offers_fog_and_its_optional_rules_as_switches(world: UsnWorld) -> None:
    for sc in world.scenarios.values():
        info = sc.info()
        assert info.options["fog"] == FOG_OPTION
        switches = {k for k, o in info.options.items() if o.is_switch}
        assert switches == set(sc.optional_rules), sc.name
        assert all(info.options[k].default is False for k in switches)


def test_sub_gen_subs_false_keeps_the_submarines_out(world: UsnWorld) -> None:
    """The issue's case: ``subs=false`` once switched submarines on."""
    rs = UsnRuleset(world, world_geo())
    info = world.scenario("coral-sea").info()
    for word, on in (("false", False), ("off", False), ("YES", True)):
        options = resolve(info.options, {"subs": word, "fog": "Double-Blind"})
        state = GameState.from_json(rs.initial_state("coral-sea", options))
        assert submarines.enabled(state) is on
        assert fog.mode_of(state) == "double-blind"


def test_misspelt_fog_mode_refused_not_played_open(world: UsnWorld) -> None:
    info = world.scenario("midway").info()
    with pytest.raises(OptionError, match="fog takes open, double-blind"):
        resolve(info.options, {"fog": "doubleblind"})
