"""SETUP.SUPPLY: supply at the start of a scenario, on the real data."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.rulesets.usn import scenario_rules
from pbem.rulesets.usn.land_combat import attack_strength, defense_strength, retreat_hex
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.sequence import rounds_for
from pbem.rulesets.usn.state import Air, GameState
from pbem.rulesets.usn.supply import hold_setup_supply, update_supply
from pbem.rulesets.usn.work import Work

from .builders import ISLAND, Game, base, land, make_state, ship, stub_geo

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
    cuts their line, and are held so through the first Game-Turn (to its step 10)."""
    s = start(rs, scenario)
    cd = [u for u in s.units.values() if u.hex == 311 and u.side == A]
    assert cd and all(u.supplied for u in cd)
    assert s.bases[311].owner == A and s.bases[311].supplied
    held = s.extra["setup_supply"]
    assert all(held[u.key] is True for u in cd) and held["0311"] is True
    step_2 = update_supply(world_geo(), s)  # a trace in turn 1 keeps them
    assert step_2.bases[311].supplied and all(step_2.units[u.key].supplied for u in cd)


def _round(s: GameState, key: str) -> GameState:
    keys = [r.key for r in rounds_for(s)]
    return replace(s, round=keys.index(key))


def test_setup_supply_unsupplied_start_binds_every_check_before_the_first_trace(
    rs: UsnRuleset,
) -> None:
    """SETUP.SUPPLY: "All air and land forces are considered supplied, except for the
    Japanese land forces on Guadalcanal in the Eastern Solomons and Santa Cruz
    Mini-Games." Santa Cruz's DIV-1 on 828 could trace a line, but in turn 1 (before
    the first step-10 trace) it is out of supply for every rule that asks: it may not
    move (MOV.G: "Land units may not move when they are out of supply"), entrench
    (ENT.PROC), attack (SUP.E) or retreat (MOV.G: "nor are they permitted to retreat
    when out of supply")."""
    s = start(rs, "santa-cruz")
    assert s.turn == 1
    land_phase = _round(s, "J-7-8").to_json()
    for order, rule in (("MOVE DIV-1 0827", "MOV.G"), ("ENTRENCH DIV-1", "ENT.PROC")):
        (e,) = rs.validate(land_phase, J, order).errors
        assert e.rule == rule
    (e,) = rs.validate(_round(s, "air-9").to_json(), J, "ATTACK 0828 DIV-1").errors
    assert e.rule == "SUP.E"
    div = s.unit(J, "DIV-1")
    assert div is not None and attack_strength(div) == 0
    assert retreat_hex(Work.start(world_geo(), s), div) is None
    fed = replace(div, supplied=True)  # as an emergency run (SUP.F) leaves it
    assert retreat_hex(Work.start(world_geo(), s.with_units([fed])), fed) is not None


def test_setup_supply_supplied_start_holds_where_no_line_is_traced() -> None:
    """SETUP.SUPPLY: "All air and land forces are considered supplied": a unit set up
    where no line can be traced (here an island inside an undisputed enemy air zone,
    as Hong Kong in Campaign Games 1 and 3) is supplied through the first Game-Turn,
    so it may entrench (ENT.PROC); step 10 ends that, and then it may not."""
    air = {A: {"CV-5": Air(nac=5)}}
    units = [land(J, "RGT-1", ISLAND[0]), ship(A, "CV-5", ISLAND[1])]
    s = hold_setup_supply(stub_geo(), make_state(units, round=4, air=air))  # J-7-8, turn 1
    assert s.extra["setup_supply"] == {"japanese/RGT-1": True}
    assert not Game(s).validate(J, "ENTRENCH RGT-1").errors
    traced = update_supply(stub_geo(), s, turn_over=True)
    assert "setup_supply" not in traced.extra
    (e,) = Game(traced).validate(J, "ENTRENCH RGT-1").errors
    assert e.rule == "ENT.PROC"


def test_setup_supply_holds_only_where_the_line_disagrees() -> None:
    """SETUP.SUPPLY with ZOC.INSTANT: a unit whose set-up supply agrees with its line is
    held by nothing, so an enemy zone that closes over it in the first Game-Turn cuts
    it off at once (MOV.G)."""
    units = [land(J, "RGT-1", ISLAND[0])]
    s = hold_setup_supply(stub_geo(), make_state(units, round=4))
    assert "setup_supply" not in s.extra
    cut = replace(s.with_units([ship(A, "CV-5", ISLAND[1])]), air={A: {"CV-5": Air(nac=5)}})
    (e,) = Game(cut).validate(J, f"MOVE RGT-1 {ISLAND[1]:04d}").errors
    assert e.rule == "MOV.G"
