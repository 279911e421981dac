"""The WitP state's own checks (statecheck.py), by rule: a set-up and every state of a
played game pass; each edit the rules cannot hold is named with its value and range."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pbem.core.dice import SeededDice
from pbem.rulesets.witp.ruleset import WitpRuleset
from tests.unit.rulesets.witp.conftest import SCENARIO


@pytest.fixture(scope="module")
def start(witp: WitpRuleset) -> dict[str, Any]:
    return dict(witp.initial_state(SCENARIO, {}))


def _one(witp: WitpRuleset, state: dict[str, Any]) -> str:
    problems = witp.state_problems(state)
    assert len(problems) == 1, problems
    return problems[0]


def _carrier(state: dict[str, Any]) -> str:
    ships = state["private"]["allied"]["ships"]
    return next(name for name, rec in ships.items() if rec.get("air"))


def test_3_0_every_state_of_a_played_game_passes(witp: WitpRuleset, start: dict[str, Any]) -> None:
    state, rounds = start, 0
    assert witp.state_problems(state) == []
    while (d := witp.pending(state)) is not None:
        orders = {s: list(witp.default_orders(state, s)) for s in d.sides}
        state = dict(witp.adjudicate(state, orders, SeededDice(b"k", "g", d.turn, d.phase)).state)
        assert witp.state_problems(state) == [], d.phase
        rounds += 1
    assert rounds > 10


def test_7_8_1_damage_0_to_5(witp: WitpRuleset, start: dict[str, Any]) -> None:
    state = copy.deepcopy(start)
    ship = state["private"]["allied"]["ships"]["Neosho"]
    ship["damage"] = 5
    assert witp.state_problems(state) == []
    for bad in (6, -1):
        ship["damage"] = bad
        assert _one(witp, state) == f"allied Neosho: damage {bad} is not 0 to 5 (7.8.1: 5 sunk)"


def test_4_0_air_points_never_negative(witp: WitpRuleset, start: dict[str, Any]) -> None:
    state = copy.deepcopy(start)
    name = _carrier(state)
    air = state["private"]["allied"]["ships"][name]["air"]
    ap_type = next(iter(air))
    air[ap_type] = -2
    problem = _one(witp, state)
    assert problem == f"allied {name}: {ap_type} APs -2 is not a count of 0 or more (4.0)"


def test_16_2_a_tfs_ships_exist(witp: WitpRuleset, start: dict[str, Any]) -> None:
    state = copy.deepcopy(start)
    tf_id, tf = next(iter(state["private"]["japanese"]["tfs"].items()))
    tf["ships"] = [*tf["ships"], "Yamato"]
    assert (
        _one(witp, state) == f"japanese {tf_id} lists Yamato, which is no ship of japanese (16.2)"
    )


def test_3_0_the_clock_within_the_scenario(witp: WitpRuleset, start: dict[str, Any]) -> None:
    state = copy.deepcopy(start)
    state["public"]["clock"]["game_turns"] = 30
    assert _one(witp, state) == "clock game_turns 30 is not 3, the scenario's (3.0)"
    state = copy.deepcopy(start)
    state["public"]["clock"]["at"] = 10_000
    assert _one(witp, state).startswith("clock at 10000 is not 0 to ")


def test_a_record_the_codec_refuses(witp: WitpRuleset, start: dict[str, Any]) -> None:
    state = copy.deepcopy(start)
    state["private"]["allied"]["ships"]["Neosho"]["colour"] = "grey"
    problem = _one(witp, state)
    assert problem.startswith("the state does not read as a WitP state") and "colour" in problem
