"""The start of Campaign Game 2 on the real map and data: bases captured in Game 1
start damaged (CG2.BASES.J), Bangkok, neutral in Game 1 (CG1.THAI), and the Allied
ships printed at the open-sea hex 1068 (CG2.OB.A.NAV, C24)."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

import pbem
from pbem.core.sides import Side
from pbem.rulesets.usn import bases, scenario_rules
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.orders import Simple
from pbem.rulesets.usn.phases import can_refuel_in_base
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import GameState
from pbem.rulesets.usn.work import Work

J, A = "japanese", "allied"
SUVA = 1066
CG2_FILE = "scenarios/usn/scenarios/campaign-2.toml"


@pytest.fixture(scope="module")
def cg2() -> GameState:
    rs = UsnRuleset(load_world(), world_geo())
    return GameState.from_json(rs.initial_state("campaign-2", {}))


def test_cg2_bases_j_other_bases_inside_the_line_start_damaged(cg2: GameState) -> None:
    """CG2.BASES.J: "The Japanese may use all their bases in Game 1, and all five Air
    Point Capacity air bases behind the Game 2 start line. The Japanese may also use the
    Singapore (116) Naval Base, the Hong Kong (311) Air and Naval Bases, the Manila (381)
    Air Base, the Soerabaja (220) Air and Naval Bases, and the Rabaul (759) Air and
    Naval Bases. All other bases within the Game 2 Start Line are considered damaged.\""""
    b = cg2.bases
    assert b[116].air_capacity == 0 and b[116].has_naval  # Singapore: naval base only
    assert b[381].air_capacity == 25  # Manila's air base is usable, its naval base not
    damaged = cg2.extra["damaged_bases"]
    assert set(damaged) == {"0044", "0153", "0381", "0684"}  # Rangoon, Batavia, Manila, Guam
    assert b[44].air_capacity == 5 and b[153].air_capacity == 5  # five-point air bases
    for h in (311, 220, 759):  # usable in full
        assert b[h].has_air and b[h].has_naval and f"{h:04d}" not in damaged
    assert b[311].air_capacity == 10 and b[759].air_capacity == 15
    # Ships may be in a damaged naval base (DD-4 at Manila) but not refuel there.
    dd4 = cg2.unit(J, "DD-4")
    assert dd4 is not None and dd4.hex == 381 and dd4.in_base
    assert not can_refuel_in_base(cg2, dd4)
    dd3 = cg2.unit(J, "DD-3")  # Singapore's naval base is usable
    assert dd3 is not None and can_refuel_in_base(cg2, dd3)
    # No aircraft were dealt to a damaged air base.
    assert "0116" not in cg2.air.get(J, {})
    # Repaired (an engineer's work removes the mark): Manila refuels again.
    fixed = replace(cg2, extra={**cg2.extra, "damaged_bases": {}})
    assert not scenario_rules.damaged_naval_base(fixed, 381) and can_refuel_in_base(fixed, dd4)


def test_cg2_bases_j_base_c_air_and_naval_parts_are_repaired_separately(
    cg2: GameState,
) -> None:
    """CG2.BASES.J: "All other bases within the Game 2 Start Line are considered
    damaged"; BASE.C: "if two bases are in the same hex, each must be repaired
    separately", and BUILD.GEN: "repairs are accomplished definitely after one
    Game-Turn". Manila's naval base starts damaged; its air
    base, bombed to 0 here, is repaired by the engineer's turn on the air base alone,
    and the naval base still waits for its own turn of work."""
    manila = 381
    w = Work.start(world_geo(), cg2)
    w.set_side(Side.JAPANESE)
    tr, eng = cg2.unit(J, "TR-1"), cg2.unit(J, "ENG-1")
    assert tr is not None and eng is not None and eng.hex == manila
    w.put(replace(tr, hex=manila, in_base=True))
    w.bases[manila] = replace(w.bases[manila], air_capacity=0)
    # The Japanese land attack phase releases captured bases (BASE.B); the start
    # mark is no capture: nothing is repaired by it.
    bases.after_land_attack(w)
    assert scenario_rules.damaged_naval_base(w.snapshot(), manila)
    bases.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), None)
    bases.bookkeeping(w)  # step 10: the air part is repaired, the naval part not
    assert w.bases[manila].air_capacity == 25
    assert scenario_rules.damaged_naval_base(w.snapshot(), manila)
    bases.do_build(w, Simple("BUILD", ("ENG-1", "NAVAL")), None)
    bases.bookkeeping(w)
    assert not scenario_rules.damaged_naval_base(w.snapshot(), manila)
    assert "0381" not in w.state.extra["damaged_bases"]
    dd4 = w.units["japanese/DD-4"]
    next_turn = replace(w.snapshot(), turn=cg2.turn + 1)  # BASE.D: usable from the next turn
    assert can_refuel_in_base(next_turn, dd4)


def test_cg1_thai_bangkok_neutral_in_game_1_is_usable_in_game_2(cg2: GameState) -> None:
    """CG1.THAI: "Thailand was practically an ally of the Japanese": Bangkok, which
    nobody held at the start of Game 1, was not captured, so in Game 2 it is not among
    the damaged bases (its 15 LAC are set up there, CG2.OB.J.AIR); in Game 1 it belongs
    to nobody until a Japanese land unit enters Thailand."""
    assert cg2.bases[112].air_capacity == 15 and cg2.bases[112].has_naval
    assert "0112" not in cg2.extra["damaged_bases"]
    assert cg2.air[J]["0112"].lac == 15
    rs = UsnRuleset(load_world(), world_geo())
    cg1 = GameState.from_json(rs.initial_state("campaign-1", {}))
    assert 112 not in cg1.bases  # neutral: no one's base to use


def test_cg2_ob_a_nav_ships_printed_at_1068_start_at_suva(cg2: GameState) -> None:
    """CG2.OB.A.NAV: "Transport-1, DD-7-(1068)": 1068 is open sea on the rebuilt map and
    ships start only in naval bases (SETUP.TERRAIN), so they start in the nearest
    Allied naval base, Suva (1066); the data says so, labelled reconstructed (C24)."""
    for uid in ("TR-1", "DD-7"):
        u = cg2.unit(A, uid)
        assert u is not None and u.hex == SUVA and u.in_base
    assert world_geo().is_sea(1068)
    raw = tomllib.loads((Path(pbem.__file__).parent / CG2_FILE).read_text())
    row = next(d for d in raw["deploy"] if "DD-7" in d["units"] and d["side"] == A)
    assert row["src_fields"]["at"] == "reconstructed" and "1068" in row["why"]
