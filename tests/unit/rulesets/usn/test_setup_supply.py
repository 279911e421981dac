"""SETUP.SUPPLY: supply at the start of a scenario, on the real data."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.rulesets.usn import scenario_rules
from pbem.rulesets.usn.land_combat import defense_strength
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import GameState

from .builders import base, land, make_state

J, A = "japanese", "allied"


@pytest.fixture(scope="module")
def rs() -> UsnRuleset:
    return UsnRuleset(load_world(), world_geo())


def start(rs: UsnRuleset, scenario: str) -> GameState:
    return GameState.from_json(rs.initial_state(scenario, {}))


@pytest.mark.parametrize(
    ("scenario", "uid"), [("santa-cruz", "DIV-1"), ("eastern-solomons", "SNLF-1")]
)
def test_setup_supply_guadalcanal_japanese_start_unsupplied(
    rs: UsnRuleset, scenario: str, uid: str
) -> None:
    """SETUP.SUPPLY: "All air and land forces are considered supplied, except for the
    Japanese land forces on Guadalcanal in the Eastern Solomons and Santa Cruz
    Mini-Games." The set-up makes no supply trace that could overwrite it, so the
    unit defends at half strength (SUP.E) in turn 1."""
    s = start(rs, scenario)
    u = s.unit(J, uid)
    assert u is not None and u.hex == 828 and not u.supplied
    assert defense_strength(s, u) == defense_strength(s, replace(u, supplied=True)) / 2
    others = [x for x in s.units.values() if x.kind in ("land", "cd") and x.key != u.key]
    assert others and all(x.supplied for x in others)
    assert all(b.supplied for b in s.bases.values())


def test_setup_supply_unsupplied_start_is_read_from_the_special_rule() -> None:
    """SETUP.SUPPLY: ``special.unsupplied_start`` alone (no per-deployment flag) leaves
    the side's land units in its hexes out of supply, and only those."""
    sp = {"unsupplied_start": {"rule": "SETUP.SUPPLY", "side": J, "hexes": [828]}}
    s = make_state(
        [land(J, "DIV-1", 828), land(J, "RGT-1", 759), land(A, "RGT-1", 828)],
        bases=[replace(base(828, A, air=5), supplied=False)],
        extra={"special": sp},
    )
    out = scenario_rules.at_setup(s)
    assert not out.unit(J, "DIV-1").supplied  # type: ignore[union-attr]
    assert out.unit(J, "RGT-1").supplied and out.unit(A, "RGT-1").supplied  # type: ignore[union-attr]
    assert out.bases[828].supplied


@pytest.mark.parametrize("scenario", ["campaign-1", "campaign-3"])
def test_setup_supply_hong_kong_starts_supplied(rs: UsnRuleset, scenario: str) -> None:
    """SETUP.SUPPLY: "All air and land forces are considered supplied": Hong Kong's
    Allied coast-defence unit and its base start supplied though Japanese territory
    cuts their line (the first trace is made at step 10)."""
    s = start(rs, scenario)
    cd = [u for u in s.units.values() if u.hex == 311 and u.side == A]
    assert cd and all(u.supplied for u in cd)
    assert s.bases[311].owner == A and s.bases[311].supplied
