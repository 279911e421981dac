"""Campaign Game 1 special rules and the Burma option's retreat, on the stub map:
CG1.PHILFORT.MANILA (Manila's naval base barred to the Japanese while the
fortifications hold), OPT.BURMA.RETREAT (Allied retreat into China or India) and
CG1.INDIAN / OFF.WEST.J (the Japanese carrier raid into the Indian Ocean)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from pbem.core.dice import ScriptedDice
from pbem.core.errors import IllegalOrderError
from pbem.rulesets.usn import land_combat as lc
from pbem.rulesets.usn import movement, scenario_rules, victory
from pbem.rulesets.usn.phases import can_refuel_in_base
from pbem.rulesets.usn.state import Air
from pbem.rulesets.usn.tables import LandResult
from pbem.rulesets.usn.work import Work

from .builders import CHINA_HEX, HOME, ISLAND, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
FORT, MANILA = ISLAND  # stand-ins for hexes 348 and 381
SPECIAL = {
    "philippine_fortifications": {
        "rule": "CG1.PHILFORT",
        "hex": FORT,
        "japanese_naval_base_barred": MANILA,
    }
}


def manila_state(*units: Any, **extra: Any) -> Any:
    return make_state(
        [ship(J, "DD-1", MANILA, in_base=True), ship(A, "DD-5", MANILA, in_base=True), *units],
        bases=[base(MANILA, J)],
        extra={"special": SPECIAL, **extra},
    )


# --- CG1.PHILFORT.MANILA ----------------------------------------------------------------


def test_cg1_philfort_manila_barred_while_allies_hold_the_fortifications() -> None:
    s = manila_state(land(A, "RGT-1", FORT), land(J, "DIV-1", FORT))
    assert scenario_rules.naval_base_barred(s, J, MANILA)
    assert not can_refuel_in_base(s, s.units["japanese/DD-1"])
    assert not scenario_rules.naval_base_barred(s, A, MANILA)  # a bar on the Japanese only
    assert not scenario_rules.naval_base_barred(s, J, HOME[0])


def test_cg1_philfort_manila_barred_until_the_japanese_occupy_the_hex() -> None:
    empty = manila_state()  # nobody on 348: not yet occupied
    assert scenario_rules.naval_base_barred(empty, J, MANILA)
    taken = manila_state(land(J, "DIV-1", FORT))
    assert not scenario_rules.naval_base_barred(taken, J, MANILA)
    assert can_refuel_in_base(taken, taken.units["japanese/DD-1"])


def test_cg1_philfort_manila_port_declaration_refused() -> None:
    s = replace(manila_state(land(A, "RGT-1", FORT)), units={})
    s = s.with_units([ship(J, "DD-1", MANILA), land(A, "RGT-1", FORT)])
    w = Work.start(stub_geo(), s)
    w.begin_phase(J, 2)
    with pytest.raises(IllegalOrderError) as e:
        movement.do_port(w, "DD-1", True)
    assert e.value.rule == "CG1.PHILFORT.MANILA"
    movement.do_port(w, "DD-1", False)  # at sea is always allowed


def test_cg1_philfort_manila_bar_lifted_for_good_once_the_fort_falls() -> None:
    before = manila_state(land(A, "RGT-1", FORT))
    fallen = manila_state(land(J, "DIV-1", FORT))
    after = scenario_rules.after_round(stub_geo(), before, fallen)
    assert after.extra["philfort_cleared"] is True
    # The Allies land on 348 again later: Manila stays open to the Japanese.
    back = replace(after, units=manila_state(land(A, "RGT-2", FORT)).units)
    assert not scenario_rules.naval_base_barred(back, J, MANILA)


# --- OPT.BURMA.RETREAT ------------------------------------------------------------------


def _d2_on_allied_unit(options: dict[str, bool], standing: tuple[str, ...] = ()) -> Work:
    """A Japanese 9-1 attack (die 1: D2) on an Allied regiment next to China; a
    Japanese carrier's zone leaves it no supplied hex to retreat to on the map."""
    at = HOME[0]  # next to the stub's China hex
    s = make_state(
        [
            replace(land(J, "DIV-1", at), attack=280),
            replace(land(A, "RGT-1", at), defense=30),
            ship(J, "CV-1", at),
        ],
        air={J: {"CV-1": Air(nac=3)}},
        options=options,
        standing={A: standing} if standing else {},
    )
    w = Work.start(stub_geo(), s)
    w.side = J
    assert not any(w.supply(A).supplied(n) for n in w.geo.land_nbrs[at])
    attackers = (w.units["japanese/DIV-1"],)
    assert lc.resolve_attack(w, lc.Attack(at, attackers), ScriptedDice([1])) is LandResult.D2
    return w


def test_opt_burma_retreat_allied_unit_leaves_the_game_into_china_no_vp() -> None:
    w = _d2_on_allied_unit({"burma": True})
    assert "allied/RGT-1" not in w.units
    assert not w.state.destroyed  # not destroyed: no replacement, no VP
    (ev,) = [e for e in w.events if e.kind == "left-game"]
    assert ev.rule == "OPT.BURMA.RETREAT" and ev.data["to"] == f"{CHINA_HEX:04d}"
    before = make_state([land(A, "RGT-1", HOME[0])])
    assert victory.account(before, w.snapshot()).extra["vp_log"] == []


def test_opt_burma_retreat_without_the_option_china_stays_closed() -> None:
    """MOV.M / CRT1.D2: without the Burma option the unit has nowhere to go."""
    w = _d2_on_allied_unit({})
    assert "allied/RGT-1" not in w.units
    assert [d[0] for d in w.state.destroyed] == ["allied/RGT-1"]


def test_opt_burma_retreat_japanese_never_retreat_into_china() -> None:
    u = land(J, "RGT-1", HOME[0])
    w = Work.start(stub_geo(), make_state([u], options={"burma": True}))
    assert lc.exile_hexes(w, u) == []
    a = land(A, "RGT-1", HOME[0])
    assert lc.exile_hexes(w, a) == [CHINA_HEX]


def test_opt_burma_retreat_prefers_staying_in_the_game_unless_named() -> None:
    at = HOME[0]
    u = land(A, "RGT-1", at)
    w = Work.start(stub_geo(), make_state([u], options={"burma": True}))
    on_map = lc.retreat_hex(w, u)
    assert on_map is not None and on_map != CHINA_HEX
    assert lc.retreat_hex(w, u, (CHINA_HEX,)) == CHINA_HEX  # STANDING RETREAT names it


# --- CG1.INDIAN / OFF.WEST.J ------------------------------------------------------------

EDGE, EDGE2 = H(0, 20), H(0, 21)
RAID = {
    "indian_ocean": {
        "rule": "CG1.INDIAN",
        "by_turn": 20,
        "carrier_types": ["CV", "CVL"],
        "nac_points": 30,
        "naval_phases_off_map": 2,
    }
}


def raid_game(nac: int = 20, special: Mapping[str, Any] = RAID, **kw: Any) -> Game:
    geo = stub_geo()
    geo.edges["west"] = frozenset({EDGE, EDGE2})
    units = [
        ship(J, "CV-1", EDGE, capacity=30),
        ship(J, "CVL-1", EDGE, capacity=10),
        ship(J, "CA-1", EDGE),
    ]
    air = {J: {"CV-1": Air(nac=nac), "CVL-1": Air(nac=10)}}
    state = make_state(units, air=air, extra={"special": special}, last_turn=30, **kw)
    return Game(state, geo)


def next_round(g: Game, orders: Mapping[str, str] | None = None, dice: int = 6) -> None:
    g.play(dict(orders or {}), dice=[dice] * 50)


def test_off_west_j_only_carriers_leave_west_for_the_raid() -> None:
    g = raid_game()
    (e,) = g.validate(J, "MOVE CA-1 OFF").errors
    assert e.rule == "OFF.WEST.J" and "CV/CVL" in e.message
    assert not g.validate(J, "MOVE CV-1 OFF").errors


def test_cg1_indian_raid_two_full_phases_off_then_back_by_any_west_edge_hex() -> None:
    g = raid_game()
    next_round(g, {J: "MOVE CV-1 CVL-1 OFF"})
    assert g.unit(J, "CV-1").hex is None and g.unit(J, "CV-1").box == "IO0"
    assert g.s.extra["indian_ocean"]["out"] == {"CV-1": 20, "CVL-1": 10}
    refusals = 0
    while g.s.round != 4 or g.s.turn != 2:  # J-7-8 of turn 2: the third Japanese phase
        if g.s.round in (0, 4):
            (e,) = g.validate(J, f"MOVE CV-1 {EDGE2:04d}").errors
            assert e.rule == "CG1.INDIAN" and "not yet due back" in e.message
            refusals += 1
        next_round(g)
    assert refusals == 2  # two full naval phases off the map (J-7-8, then J-2 of turn 2)
    (e,) = g.validate(J, f"MOVE CV-1 {H(1, 20):04d}").errors  # not an edge hex
    assert e.rule == "CG1.INDIAN"
    next_round(g, {J: f"MOVE CV-1 CVL-1 {EDGE2:04d}"})
    assert g.unit(J, "CV-1").hex == EDGE2 and g.unit(J, "CV-1").box is None
    assert g.s.extra["indian_ocean"]["done"] is True
    next_round(g)  # on to turn 3's first Japanese naval phase
    (e,) = g.validate(J, "MOVE CV-1 OFF").errors  # the requirement is met: no second raid
    assert e.rule == "OFF.WEST.J"


def test_cg1_indian_one_loss_roll_while_off_the_map_allied_vp() -> None:
    g = raid_game()
    next_round(g, {J: "MOVE CV-1 CVL-1 OFF"})
    next_round(g, dice=4)  # the next round starts with the raid off the map
    (ev,) = [e for e in g.events if e.kind == "indian-ocean-losses"]
    assert ev.data == {"roll": 4, "lost": {"CV-1": 4}}  # the most loaded carrier first
    assert g.s.air_at(J, "CV-1").nac == 16
    (award,) = g.s.extra["scenario_awards"]
    assert award[0] == A and Fraction(award[1]) == 4 * victory.air_value("NAC", A)
    next_round(g, dice=6)
    assert not [e for e in g.events if e.kind == "indian-ocean-losses"]  # once only
    assert g.s.air_at(J, "CV-1").nac == 16


def test_cg1_indian_too_few_nac_not_met_and_deadline_recorded() -> None:
    special = {"indian_ocean": {**RAID["indian_ocean"], "by_turn": 1}}
    g = raid_game(nac=5, special=special)
    next_round(g, {J: "MOVE CV-1 CVL-1 OFF"})
    while g.s.turn == 1:
        next_round(g)
    rec = g.s.extra["indian_ocean"]
    assert rec["failed"] is True and not rec.get("done")
