"""The stacking rules in the set-up rounds by mail (STK.GEN, STK.A, STK.B, STK.E):
each PLACE line is checked against the units already in the hex, whether there by the
default set-up, by the other side's earlier round or by an earlier line of the mail."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

from pbem.rulesets.usn.geo import Geo
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import GameState, Pending

from .builders import HOME, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"


@cache
def _geo() -> Geo:
    return world_geo()


@cache
def _start(scenario: str) -> dict[str, Any]:
    return UsnRuleset(load_world(), _geo()).initial_state(scenario, {})


def _indo(terrain: str) -> list[int]:
    geo = _geo()
    return sorted(h for h in geo.regions["indo-china"] if geo.terrain.get(h) == terrain)


def _with_enemy(g: Game, h: int, kind: str = "land") -> None:
    """An Allied unit at ``h`` (as if set up there before this mail)."""
    enemy = replace(g.unit(J, "DIV-2"), side=A, uid="RGT-99", hex=h, kind=kind)
    g.state = replace(g.s, units={**g.s.units, "allied/RGT-99": enemy}).to_json()


def _errors(g: Game, text: str) -> list[tuple[int, str]]:
    return [(e.line, e.rule or "") for e in g.validate(J, text).errors]


def test_stk_gen_setup_no_limit_to_the_units_in_a_hex() -> None:
    """STK.GEN: "With a few exceptions, there is no limit to the number or type of
    units that may be present in a single hex, whether Enemy or Friendly": all four free
    divisions may set up in one Indo-China hex, with earlier lines' units already there."""
    g = Game(GameState.from_json(_start("campaign-1")), geo=_geo())
    h = _indo("class2")[0]
    g.play({J: "\n".join(f"PLACE DIV-{n} {h:04d}" for n in (1, 2, 3, 4))})
    assert {g.unit(J, f"DIV-{n}").hex for n in (1, 2, 3, 4)} == {h}


def test_stk_a_setup_opposing_land_units_never_share_a_class1_hex() -> None:
    """STK.A: "Enemy and Friendly units may co-exist in the same hex ... Exception:
    there may never be opposing land units on the same Class 1 (see Terrain) hex." A
    PLACE onto a Class 1 hex that an enemy land unit holds is refused by line; a Class 2
    hex may hold both sides (as Guadalcanal, 0828, does in the Eastern Solomons)."""
    g = Game(GameState.from_json(_start("campaign-1")), geo=_geo())
    c1 = next(h for h in _indo("class1") if h != 179)
    _with_enemy(g, c1)
    v = g.validate(J, f"PLACE DIV-3 {_indo('class2')[0]:04d}\nPLACE DIV-1 {c1:04d}")
    assert [(e.line, e.rule) for e in v.errors] == [(2, "STK.A")]
    assert f"Class 1 hex {c1:04d}" in v.errors[0].message
    g = Game(GameState.from_json(_start("campaign-1")), geo=_geo())
    c2 = _indo("class2")[0]
    _with_enemy(g, c2)
    assert _errors(g, f"PLACE DIV-1 {c2:04d}") == []


def test_stk_b_setup_never_onto_an_enemy_coastal_defence_unit() -> None:
    """STK.B: "The presence of an Enemy unit in a hex containing Coastal Defense units
    results in the Coastal Defense unit's destruction ... Bases are considered captured":
    no set-up destroys or captures; such a hex is refused, Class 1 or 2."""
    g = Game(GameState.from_json(_start("campaign-1")), geo=_geo())
    c2 = _indo("class2")[0]
    _with_enemy(g, c2, kind="cd")
    assert _errors(g, f"PLACE DIV-1 {c2:04d}") == [(1, "STK.B")]


def test_stk_e_setup_capacity_counts_earlier_lines_and_the_default() -> None:
    """STK.E: "The number of Air Points in an air base is restricted to the Air Point
    Capacity number of the base. This may never be exceeded" (SETUP.CAPACITY). Lae
    (0692) holds 5: two lines of 3 LAC do not fit; the garrison-free default of a type
    not placed stays and counts."""
    g = Game(GameState.from_json(_start("coral-sea")), geo=_geo())
    assert _errors(g, "PLACE 3 LAC 0692\nPLACE 3 LAC 0692") == [(2, "SETUP.CAPACITY")]
    assert _errors(g, "PLACE 3 LAC 0692\nPLACE 2 LAC 0692") == []
    # Campaign Game 1: the LAC dealt to Rabaul (0754, capacity 10) by default stay when
    # only NAC are placed, and fill it: one more NAC point does not fit.
    g = Game(GameState.from_json(_start("campaign-1")), geo=_geo())
    assert g.s.air[J]["0754"].lac == 10
    assert _errors(g, "PLACE 1 NAC 0754") == [(1, "SETUP.CAPACITY")]


def test_stk_a_arrival_placed_never_onto_a_class1_hex_the_enemy_holds() -> None:
    """STK.A at Step 1 (SEQ.1): a reinforcement placed "anywhere in Japan" follows the
    same stacking rules as a set-up: "there may never be opposing land units on the same
    Class 1 ... hex"; a Class 2 hex may hold both sides."""
    home1 = HOME[1]
    p = Pending(1, J, land(J, "DIV-5", None, tp=12))
    state = make_state(
        [land(A, "RGT-9", home1), land(A, "RGT-8", HOME[2])],
        pending=[p],
        bases=[base(HOME[0], J)],
    )
    g = Game(state, geo=stub_geo({home1: "class1"}))
    v = g.validate(J, f"PLACE DIV-5 {home1:04d}")
    assert [(e.line, e.rule) for e in v.errors] == [(1, "STK.A")]
    assert g.validate(J, f"PLACE DIV-5 {HOME[2]:04d}").errors == ()


def test_stk_a_jvd_engineer_never_onto_a_class1_hex_the_enemy_holds() -> None:
    """STK.A with OPT.JVD: an engineer counter may go to any Japanese naval base, but a
    land unit still never shares a Class 1 hex with an enemy land unit; a destroyer
    may (STK.A binds land units only)."""
    jbase, far = H(4, 4), H(8, 4)
    jvd = {"japanese_variable_deployment": {"rule": "OPT.JVD", "side": J, "types": ["DD", "ENG"]}}
    state = make_state(
        [ship(J, "DD-1", jbase), land(J, "ENG-1", jbase), land(A, "RGT-9", far)],
        bases=[base(jbase, J, air=5), base(far, J, air=5)],
        extra={"opening": ["setup-japanese"], "optional_rules": jvd},
    )
    state = replace(state, options={"japanese_variable_deployment": True})
    g = Game(state, geo=stub_geo({far: "class1"}))
    v = g.validate(J, f"PLACE DD-1 {far:04d}\nPLACE ENG-1 {far:04d}")
    assert [(e.line, e.rule) for e in v.errors] == [(2, "STK.A")]
