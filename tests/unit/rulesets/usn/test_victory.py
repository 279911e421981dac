"""Victory points, objectives and the verdict (VP.*, GEN.REC.A, MINI.*.VC)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from pbem.rulesets.usn import victory
from pbem.rulesets.usn.state import Air, GameState, Pending, Unit

from .builders import ATOLL, ISLAND, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"


def _cv(side: str = J, damage: int = 0) -> Unit:
    return ship(side, "CV-3", 100, capacity=10, damage=damage)


def _sink(before: GameState, key: str, turn: int = 1) -> GameState:
    units = dict(before.units)
    units.pop(key)
    return replace(before, units=units, destroyed=(*before.destroyed, (key, turn, "test")))


def test_vp_sched_nav_carrier_and_warship() -> None:
    cv = ship(J, "CV-3", 100, capacity=10)
    ca = replace(ship(A, "CA-1", 100), defense=8)
    assert victory.unit_value(cv, A) == 100  # 10 x air capacity
    assert victory.unit_value(ca, J) == 16  # 2 x DEF


def test_vp_sched_land_vp_sched_j_vp_sched_a_err_vp_chinese_specific_lines() -> None:
    tr_j = ship(J, "TR-1", 100)
    tr_a = ship(A, "TR-1", 100)
    at = ship(A, "AT-1", 100)
    assert victory.unit_value(tr_j, A) == 20  # VP.SCHED.A
    assert victory.unit_value(tr_a, J) == 10  # VP.SCHED.J
    assert victory.unit_value(at, J) == 20
    assert victory.unit_value(land(A, "MAR-1", 5), J) == 20  # A20: Marine line wins
    assert victory.unit_value(land(J, "SNLF-1", 5), A) == 2
    assert victory.unit_value(land(J, "DIV-1", 5), A) == 10
    assert victory.unit_value(land(A, "CD-1", 5), J) == 0
    assert victory.unit_value(land(A, "ARMY-1", 5), J) == 0  # ERR.VP.CHINESE


def test_gen_rec_a_vp_damage_vp_damage_sink_rulebook_example() -> None:
    """VP.DAMAGE / VP.DAMAGE.SINK: a 10-capacity carrier damaged 40 weeks is worth 40;
    sunk before repair, only 60 more."""
    s0 = make_state([_cv()])
    s1 = replace(s0, units={k: replace(u, damage=40) for k, u in s0.units.items()})
    s1 = victory.account(s0, s1)
    assert s1.vp[A] == 40
    s2 = victory.account(s1, _sink(s1, "japanese/CV-3"))
    assert s2.vp[A] == 100
    assert [a.rule for a in victory.log_of(s2)] == ["VP.DAMAGE", "VP.DAMAGE.SINK"]


def test_vp_damage_repaired_then_sunk_scores_in_full() -> None:
    """VP.DAMAGE.REPAIRED: fully repaired, then sunk: 40 + 100."""
    s0 = make_state([_cv()])
    s1 = victory.account(s0, replace(s0, units={"japanese/CV-3": _cv(damage=40)}))
    s2 = victory.account(s1, replace(s1, units={"japanese/CV-3": _cv(damage=0)}))
    s3 = victory.account(s2, _sink(s2, "japanese/CV-3"))
    assert s3.vp[A] == 140


def test_vp_sched_air_losses_net_of_arrivals() -> None:
    """VP.SCHED.AIR: ½ per LAC point either side; arrivals are not losses."""
    s0 = make_state(
        [], air={J: {"0100": Air(lac=10)}}, pending=[Pending(1, J, air_type="LAC", air_points=5)]
    )
    s1 = replace(s0, air={J: {"0100": Air(lac=11)}}, pending=())  # 5 arrived, 4 lost
    s1 = victory.account(s0, s1)
    assert s1.vp[A] == 2
    assert Fraction(victory.log_of(s1)[0].points) == 2


def test_vp_levels_by_ratio() -> None:
    """VP.LEVELS and A18."""
    t = victory.tables()
    assert t.victory_level(3, 2) == "Marginal"
    assert t.victory_level(4, 2) == "Provisional"
    assert t.victory_level(9, 3) == "Strategic"
    assert t.victory_level(8, 2) == "Decisive"
    assert t.victory_level(5, 0) == "Decisive"
    assert t.victory_level(2, 2) is None


def test_mini_coral_vc_err_coral_vc_vp_mods_vp_geo_disputed_holder_of_port_moresby() -> None:
    """MINI.CORAL.VC: whoever holds Port Moresby at the end gets 100; the
    engineer on Guadalcanal needs supply from a base (ERR.CORAL.VC)."""
    pm, guad = ISLAND
    vc = {
        "objectives": [
            {"id": "pm", "hex": pm, "points": 100, "to": "holder", "when": "end"},
            {
                "id": "eng",
                "side": J,
                "hex": guad,
                "unit_type": "ENG",
                "supplied_from_base": True,
                "points": 10,
                "when": "end",
            },
        ]
    }
    geo = stub_geo()
    s = make_state([land(J, "RGT-1", pm), land(J, "ENG-1", guad)], bases=[base(pm, A, air=5)])
    s = replace(s, round=-1)
    out = victory.verdict(geo, s, vc)
    assert (out.winner, out.scores[J], out.level) == (J, 110, "Decisive")
    # Both sides present: disputed, nobody scores it (VP.GEO.DISPUTED).
    s2 = replace(s, units={**s.units, "allied/RGT-9": land(A, "RGT-9", pm)})
    s2 = victory.update_control(s2, {"pm": (pm,)})
    assert victory.verdict(geo, s2, vc).scores[J] == 10
    # Unsupplied engineer does not count.
    eng = replace(s.units["japanese/ENG-1"], supplied=False)
    s3 = replace(s, units={**s.units, eng.key: eng})
    assert victory.verdict(geo, s3, vc).scores[J] == 100


def test_vp_geo_control_last_to_occupy() -> None:
    """VP.GEO.CONTROL: the last side to occupy an empty area still holds it."""
    s = make_state([land(J, "RGT-1", ATOLL)])
    s = victory.update_control(s, {"atoll": (ATOLL,)})
    s = replace(s, units={})
    assert victory.holder(s, "atoll", (ATOLL,)) == J


def test_mini_solomons_vc_base_destroyed_and_damaged_turns() -> None:
    """MINI.SOLOMONS.VC (A14): 25 per turn neutralized while Allied; destroyed = 100 J."""
    guad = ISLAND[0]
    vc = {
        "objectives": [
            {"id": "g", "hex": guad, "base": "air", "points": 100, "to": "holder", "when": "end"},
            {
                "id": "gd",
                "side": J,
                "hex": guad,
                "base": "air",
                "condition": "destroyed",
                "points": 100,
                "when": "end",
            },
            {
                "id": "gn",
                "side": J,
                "hex": guad,
                "base": "air",
                "points": 25,
                "when": "each-turn",
            },
        ]
    }
    b = replace(base(guad, A, air=5, naval=False), neutralized_until=1)
    s = make_state([], bases=[b])
    s = victory.each_turn_objectives(s, vc, 1)
    assert s.vp[J] == 25
    out = victory.verdict(stub_geo(), replace(s, round=-1), vc)
    assert (out.scores[A], out.scores[J]) == (100, 25)
    gone = replace(b, air_capacity=0)
    s2 = replace(s, bases={guad: gone}, round=-1)
    out2 = victory.verdict(stub_geo(), s2, vc)
    assert (out2.winner, out2.scores[J], out2.scores[A]) == (J, 125, 0)


def test_vp_calc_draw_when_equal() -> None:
    out = victory.verdict(stub_geo(), replace(make_state([]), round=-1), {})
    assert out.winner is None and out.level == "Draw"


def test_vp_sched_nav_no_points_for_a_ship_lost_for_want_of_fuel() -> None:
    """VP.SCHED.* score destroying the enemy's units: SUP.G losses score nothing."""
    s0 = make_state([ship(A, "DD-7", 100)])
    units = dict(s0.units)
    units.pop("allied/DD-7")
    s1 = replace(s0, units=units, destroyed=(("allied/DD-7", 1, "out of fuel"),))
    assert victory.account(s0, s1).vp[J] == 0
