"""The U.S.N. state's own checks (statecheck.py), by rule: a set-up passes, and each
edit the rules cannot hold is named with its value and the allowed range."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset


@pytest.fixture(scope="module")
def rules() -> UsnRuleset:
    return UsnRuleset(load_world(), world_geo())


@pytest.fixture(scope="module")
def coral(rules: UsnRuleset) -> dict[str, Any]:
    return dict(rules.initial_state("coral-sea", {}))


def _edited(state: dict[str, Any], who: str, **values: Any) -> dict[str, Any]:
    out = copy.deepcopy(state)
    side, _, uid = who.rpartition("/")  # "RGT-1", or "allied/RGT-1"
    unit = next(u for u in out["units"] if u["uid"] == uid and side in ("", u["side"]))
    unit.update(values)
    return out


def _one(rules: UsnRuleset, state: dict[str, Any]) -> str:
    problems = rules.state_problems(state)
    assert len(problems) == 1, problems
    return problems[0]


def test_every_scenarios_setup_passes(rules: UsnRuleset) -> None:
    for name in rules.data.scenarios:
        assert rules.state_problems(rules.initial_state(name, {})) == [], name


def test_cbt_i_damage_over_forty_weeks_refused(rules: UsnRuleset, coral: dict[str, Any]) -> None:
    ship = next(u["uid"] for u in coral["units"] if u["kind"] == "naval")
    assert rules.state_problems(_edited(coral, ship, damage=40)) == []
    assert "damage 41 is not 0 to 40 weeks (CBT.I" in _one(rules, _edited(coral, ship, damage=41))
    assert "damage -1 is not 0 to 40" in _one(rules, _edited(coral, ship, damage=-1))


def test_vp_damage_only_ships_are_damaged(rules: UsnRuleset, coral: dict[str, Any]) -> None:
    assert "(VP.DAMAGE: only ships)" in _one(rules, _edited(coral, "RGT-1", damage=3))


def test_sup_g_fuel_within_the_ships_endurance(rules: UsnRuleset, coral: dict[str, Any]) -> None:
    ship = next(u for u in coral["units"] if u["utype"] in ("CA", "DD", "BB", "CV"))
    assert rules.state_problems(_edited(coral, ship["uid"], fuel=2)) == []
    problem = _one(rules, _edited(coral, ship["uid"], fuel=3))
    assert "fuel 3 is not 0 to 2 Game-Turns at sea (SUP.G" in problem


def test_unit_select_a_unit_not_in_the_counter_mix(
    rules: UsnRuleset, coral: dict[str, Any]
) -> None:
    assert "has no unit CV-99 in the counter mix (UNIT.SELECT)" in _one(
        rules, _edited(coral, "RGT-1", uid="CV-99")
    )


def test_unit_select_a_unit_on_the_other_side_or_of_another_type(
    rules: UsnRuleset, coral: dict[str, Any]
) -> None:
    problems = rules.state_problems(_edited(coral, "RGT-1", utype="DIV"))
    assert problems == ["japanese RGT-1 is a RGT counter, not DIV (UNIT.SELECT)"]
    flipped = rules.state_problems(_edited(coral, "japanese/CA-2", side="allied"))
    assert flipped[0] == "allied CA-2 is in the state twice", flipped


def test_unit_map_hex_off_the_map(rules: UsnRuleset, coral: dict[str, Any]) -> None:
    problem = _one(rules, _edited(coral, "RGT-1", hex=9999))
    assert "hex 9999 is off the map (hexes run 0001 to 1575, UNIT.MAP)" in problem


def test_ent_gen_ships_are_never_entrenched(rules: UsnRuleset, coral: dict[str, Any]) -> None:
    ship = next(u["uid"] for u in coral["units"] if u["kind"] == "naval")
    assert "cannot be entrenched (ENT.GEN" in _one(rules, _edited(coral, ship, entrenched=True))
    assert rules.state_problems(_edited(coral, "RGT-1", entrenched=True)) == []


def test_unit_land_layout_a_land_units_printed_values(
    rules: UsnRuleset, coral: dict[str, Any]
) -> None:
    assert "japanese RGT-1: tp 1 is not its counter's 4 (UNIT.LAND.LAYOUT)" in _one(
        rules, _edited(coral, "RGT-1", tp=1)
    )


def test_nm_trans_cap_cargo_within_the_transports_capacity(
    rules: UsnRuleset, coral: dict[str, Any]
) -> None:
    dd = next(u for u in coral["units"] if u["side"] == "allied" and u["utype"] == "DD")
    cargo = next(u for u in coral["units"] if u["side"] == "allied" and u.get("tp", 0) > 2)
    state = _edited(coral, f"allied/{cargo['uid']}", hex=None, carried_by=dd["uid"])
    problem = _one(rules, state)
    assert f"allied {dd['uid']} carries {cargo['tp']} transport points" in problem
    assert "its capacity is 0 to 2 (NM.TRANS.CAP)" in problem  # NM.EMERG.CAP: Allied DD


def test_unit_air_points_never_negative(rules: UsnRuleset, coral: dict[str, Any]) -> None:
    state = copy.deepcopy(coral)
    loc = next(iter(state["air"]["allied"]))
    kind = next(iter(state["air"]["allied"][loc]))
    state["air"]["allied"][loc][kind] = -1
    assert f"allied's air at {loc}: {kind} -1 is below 0 (UNIT.AIR.POINTS)" in _one(rules, state)


def test_gen_turn_within_the_scenarios_length(rules: UsnRuleset, coral: dict[str, Any]) -> None:
    state = copy.deepcopy(coral)
    state["turn"] = 3
    assert _one(rules, state) == "Game-Turn 3 is not 1 to 2 (GEN.TURN: coral-sea)"


def test_codec_a_value_of_the_wrong_type_or_an_unknown_key(
    rules: UsnRuleset, coral: dict[str, Any]
) -> None:
    assert _one(rules, _edited(coral, "RGT-1", damage="3")) == (
        "units[0]: damage '3' is not a whole number"
    )
    assert _one(rules, _edited(coral, "RGT-1", entrenched=1)) == (
        "units[0]: entrenched 1 is not true or false"
    )
    assert _one(rules, _edited(coral, "RGT-1", colour="red")) == "units[0] has no key 'colour'"
    state = copy.deepcopy(coral)
    state["turn"] = True
    assert _one(rules, state) == "turn True is not a whole number"
