"""Naval, land and air movement (MOV.*, TER.*, AM.TRANSFER, PARA.*, OFF.*, CV*.EMBARK)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.rulesets.usn.hexgrid import neighbours
from pbem.rulesets.usn.state import Air
from pbem.rulesets.usn.supply import update_supply

from .builders import AUS, CHINA_HEX, HOME, ISLAND, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"


def path(c: int, r0: int, r1: int) -> str:
    return " ".join(f"{H(c, r):04d}" for r in range(r0, r1 + 1))


# --- naval ------------------------------------------------------------------


def test_mov_a_def_ma_each_hex_costs_one_and_ma_is_the_limit() -> None:
    # An Allied naval base 4 hexes away forbids double speed, so MA 5 binds.
    g = Game(make_state([ship(J, "CV-3", H(20, 2))], bases=[base(H(21, 9), A)]))
    ok = g.validate(J, f"MOVE CV-3 {path(20, 3, 7)}")
    assert not ok.errors
    bad = g.validate(J, f"MOVE CV-3 {path(20, 3, 8)}")
    (e,) = bad.errors
    assert e.rule == "MOV.N"
    assert "CV-3 can move 5 more hexes this phase" in e.message
    assert f"{H(20, 8):04d} would be hex 6" in e.message


def test_mov_n_double_speed_far_from_the_enemy() -> None:
    g = Game(make_state([ship(J, "CV-3", H(20, 2))]))
    g.play({J: f"MOVE CV-3 {path(20, 3, 12)}"})
    assert g.unit(J, "CV-3").hex == H(20, 12)
    assert any(e.kind == "double-speed" and e.rule == "MOV.N" for e in g.events)
    assert not g.validate(J, "").errors


def test_mov_n_double_speed_never_beyond_twice_ma() -> None:
    g = Game(make_state([ship(J, "CV-3", H(20, 2))]))
    (e,) = g.validate(J, f"MOVE CV-3 {path(20, 3, 13)}").errors
    assert e.rule == "DEF.MA" and "can move 10 more hexes" in e.message


def test_mov_n_no_double_speed_within_five_of_an_enemy_ship() -> None:
    g = Game(make_state([ship(J, "CV-3", H(20, 2)), ship(A, "DD-1", H(20, 17))]))
    # Hexes 3..11 stay more than 5 from 0,17 (H(20,12) is exactly 5 away).
    assert not g.validate(J, f"MOVE CV-3 {path(20, 3, 11)}").errors
    (e,) = g.validate(J, f"MOVE CV-3 {path(20, 3, 12)}").errors
    assert e.rule == "MOV.N" and "too near the enemy" in e.message


def test_mov_n_refusal_names_the_hex_near_the_enemy() -> None:
    """MOV.N: the double-speed refusal names the hex where the rule is broken - the
    first of the path within five hexes of the enemy ship (its second, 5 from 15,6) -
    not the hex past the normal allowance (the sixth)."""
    g = Game(make_state([ship(J, "CV-3", H(20, 2)), ship(A, "DD-1", H(15, 6))]))
    assert not g.validate(J, f"MOVE CV-3 {path(20, 3, 7)}").errors
    (e,) = g.validate(J, f"MOVE CV-3 {path(20, 3, 8)}").errors
    assert e.rule == "MOV.N"
    assert f"no double speed: {H(20, 4):04d} is too near the enemy" in e.message
    assert f"{H(20, 8):04d} would be hex 6" in e.message


def test_mov_n_refusal_names_the_start_when_the_ship_begins_near_the_enemy() -> None:
    """MOV.N: "spend their entire Movement Phase more than five hexes" away - a ship
    that starts within five hexes broke the rule where it stands."""
    g = Game(make_state([ship(J, "CV-3", H(20, 4)), ship(A, "DD-1", H(15, 6))]))
    (e,) = g.validate(J, f"MOVE CV-3 {path(20, 3, 3)} {path(20, 2, 2)} {path(21, 2, 5)}").errors
    assert e.rule == "MOV.N"
    assert f"no double speed: {H(20, 4):04d} is too near the enemy" in e.message


def test_mov_n_japanese_keep_six_hexes_from_allied_lbac() -> None:
    units = [ship(J, "CV-3", H(20, 2)), ship(A, "CV-5", H(30, 2))]
    air = {A: {f"{H(20, 17):04d}": Air(lbac=2)}}
    g = Game(make_state(units, air=air))
    assert not g.validate(J, f"MOVE CV-3 {path(20, 3, 10)}").errors
    (e,) = g.validate(J, f"MOVE CV-3 {path(20, 3, 11)}").errors
    assert e.rule == "MOV.N"


def test_cbt_h_damaged_ship_no_double_speed_and_half_ma_over_20_weeks() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 2), ma=6, damage=25)]))
    assert not g.validate(J, f"MOVE CA-1 {path(20, 3, 5)}").errors
    (e,) = g.validate(J, f"MOVE CA-1 {path(20, 3, 6)}").errors
    assert "can move 3 more hexes" in e.message


def test_ter_nav_ships_cross_only_partly_sea_hexsides() -> None:
    a, b = H(20, 3), H(20, 4)
    g = Game(make_state([ship(J, "CA-1", a)]), stub_geo(hexsides={(min(a, b), max(a, b)): "land"}))
    (e,) = g.validate(J, f"MOVE CA-1 {b:04d}").errors
    assert e.rule == "TER.NAV"


def test_mov_proc_path_goes_hex_by_hex() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 3))]))
    (e,) = g.validate(J, f"MOVE CA-1 {H(20, 5):04d}").errors
    assert e.rule == "MOV.PROC" and "not adjacent" in e.message


def test_nm_surf_1_first_portion_ends_in_the_enemy_hex() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 3)), ship(A, "CA-1", H(20, 5))]))
    (e,) = g.validate(J, f"MOVE CA-1 {path(20, 4, 6)}").errors
    assert e.rule == "NM.SURF.1"
    assert not g.validate(J, f"MOVE CA-1 {path(20, 4, 5)}").errors


def test_seq_2i_second_portion_uses_what_is_left() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 3)), ship(A, "BB-1", H(25, 9))]))
    text = f"MOVE CA-1 {path(20, 4, 6)}\nCONTINUE CA-1 {path(20, 7, 8)}"
    assert not g.validate(J, text).errors
    (e,) = g.validate(J, f"MOVE CA-1 {path(20, 4, 6)}\nCONTINUE CA-1 {path(20, 7, 9)}").errors
    assert e.line == 2 and "can move 2 more hexes" in e.message


def test_nm_surf_2_default_standing_order_is_flee_and_mov_o_escaped_hex() -> None:
    attacker = ship(J, "CA-1", H(20, 3), ma=5)
    fleet = ship(A, "CV-5", H(20, 5), ma=6)
    g = Game(make_state([attacker, fleet]))
    g.play({J: f"MOVE CA-1 {path(20, 4, 5)}"})
    cv = g.unit(A, "CV-5")
    assert cv.hex != H(20, 5)
    assert any(e.kind == "escaped" and e.rule == "NM.SURF.2" for e in g.events)


def test_nm_surf_2_standing_order_stay_accepts_combat() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 3)), ship(A, "CV-5", H(20, 5), ma=6)]))
    g.state = {**g.state, "standing": {A: ["STANDING SURFACE STAY"]}}
    g.play({J: f"MOVE CA-1 {path(20, 4, 5)}"})
    assert g.unit(A, "CV-5").hex == H(20, 5)
    # NM.SURF.3: the MA 5 attacker is slower than the MA 6 defender who stays.
    assert any(e.kind == "out-of-combat" and e.rule == "NM.SURF.3" for e in g.events)


def test_nm_surf_2_slower_defender_cannot_flee() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 3), ma=6), ship(A, "TR-1", H(20, 5), ma=3)]))
    g.play({J: f"MOVE CA-1 {path(20, 4, 5)}"})
    assert g.unit(A, "TR-1").hex == H(20, 5)


def test_mov_c_unit_ordered_twice_is_refused() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 3))]))
    v = g.validate(J, f"MOVE CA-1 {H(20, 4):04d}\nMOVE CA-1 {H(20, 2):04d}")
    assert len(v.accepted) == 1 and v.errors[0].line == 2


def test_unit_select_not_yours_or_unknown() -> None:
    g = Game(make_state([ship(A, "CA-1", H(20, 3))]))
    (e,) = g.validate(J, f"MOVE CA-1 {H(20, 4):04d}").errors
    assert "not one of your units" in e.message


# --- off the map ------------------------------------------------------------------


def test_off_box_allied_exit_east_then_west_coast_after_box_phases() -> None:
    edge = H(46, 5)
    g = Game(
        make_state([ship(A, "CV-5", H(45, 5))], round=1), stub_geo(east=[edge], boxes={edge: 2})
    )
    g.play({A: f"MOVE CV-5 {edge:04d} OFF"})
    assert g.unit(A, "CV-5").box == "E2"
    g.play({})  # air-5
    g.play({})  # one box nearer
    assert g.unit(A, "CV-5").box == "E1"
    for _ in range(4):  # J-7-8, air-9, J-2, then A-3-4 of turn 2
        g.play({})
    assert g.unit(A, "CV-5").box == "WC" and g.unit(A, "CV-5").in_base


def test_off_east_japanese_may_not_leave_east() -> None:
    edge = H(46, 5)
    g = Game(make_state([ship(J, "CV-3", edge)]), stub_geo(east=[edge]))
    (e,) = g.validate(J, "MOVE CV-3 OFF").errors
    assert e.rule == "OFF.EAST"


def test_off_ns_no_exit_north_or_south() -> None:
    g = Game(make_state([ship(A, "CV-5", H(20, 5))], round=1))
    (e,) = g.validate(A, "MOVE CV-5 OFF").errors
    assert e.rule == "OFF.NS"


def test_off_box_sail_from_west_coast_enters_with_full_ma() -> None:
    edge = H(46, 5)
    cv = ship(A, "CV-5", None, box="WC", in_base=True)
    g = Game(make_state([cv], round=1), stub_geo(east=[edge], boxes={edge: 1}))
    g.play({A: f"SAIL CV-5 {edge:04d}"})
    assert g.unit(A, "CV-5").box == "E1"
    g.play({})
    g.play({A: f"MOVE CV-5 {edge:04d} {H(45, 5):04d} {H(44, 5):04d}"})
    assert g.unit(A, "CV-5").hex == H(44, 5)


# --- land -----------------------------------------------------------------------


def land_game(*units, geo=None, **kw):
    return Game(make_state(list(units), round=4, **kw), geo)  # J-7-8


def test_mov_f_land_unit_moves_one_hex() -> None:
    g = land_game(land(J, "RGT-1", HOME[0]))
    g.play({J: f"MOVE RGT-1 {HOME[1]:04d}"})
    assert g.unit(J, "RGT-1").hex == HOME[1]
    g2 = land_game(land(J, "RGT-1", HOME[0]))
    (e,) = g2.validate(J, f"MOVE RGT-1 {HOME[1]:04d} {HOME[2]:04d}").errors
    assert e.rule == "MOV.F"


def test_mov_g_unsupplied_land_unit_may_not_move() -> None:
    # Cut off by an undisputed Allied air zone over the island, as the last step-10
    # trace found it (the rules keep a unit's supply in its flag: supply.py).
    air = {A: {"CV-5": Air(nac=5)}}
    units = [land(J, "RGT-1", ISLAND[0]), ship(A, "CV-5", ISLAND[1])]
    g = Game(update_supply(stub_geo(), make_state(units, round=4, air=air)))
    assert not g.unit(J, "RGT-1").supplied
    (e,) = g.validate(J, f"MOVE RGT-1 {ISLAND[1]:04d}").errors
    assert e.rule == "MOV.G"


def test_mov_h_coastal_defense_never_moves() -> None:
    g = land_game(land(J, "CD-70", HOME[0]))
    (e,) = g.validate(J, f"MOVE CD-70 {HOME[1]:04d}").errors
    assert e.rule == "MOV.H"


def test_mov_i_entrenched_unit_may_not_move() -> None:
    g = land_game(land(J, "RGT-1", HOME[0], entrenched=True))
    (e,) = g.validate(J, f"MOVE RGT-1 {HOME[1]:04d}").errors
    assert e.rule == "MOV.I"


def test_mov_m_never_into_china() -> None:
    start = H(2, 2)
    g = land_game(land(J, "RGT-1", start))
    (e,) = g.validate(J, f"MOVE RGT-1 {CHINA_HEX:04d}").errors
    assert e.rule == "MOV.M"


def test_mov_e_no_mountain_hexside_into_enemy() -> None:
    a, b = HOME[0], HOME[1]
    g = land_game(land(J, "RGT-1", a), land(A, "RGT-9", b), geo=stub_geo(mountains=[(a, b)]))
    (e,) = g.validate(J, f"MOVE RGT-1 {b:04d}").errors
    assert e.rule == "MOV.E"
    g2 = land_game(land(J, "RGT-1", a), geo=stub_geo(mountains=[(a, b)]))
    assert not g2.validate(J, f"MOVE RGT-1 {b:04d}").errors


def test_ter_desert_closed_to_land_units() -> None:
    g = land_game(land(J, "RGT-1", HOME[0]), geo=stub_geo(land={HOME[1]: "desert"}))
    (e,) = g.validate(J, f"MOVE RGT-1 {HOME[1]:04d}").errors
    assert e.rule == "TER.DESERT"


def test_ter_land_no_walk_into_the_sea() -> None:
    g = land_game(land(J, "RGT-1", HOME[0]))
    (e,) = g.validate(J, f"MOVE RGT-1 {H(2, 1):04d}").errors
    assert e.rule == "TER.LAND"


def test_stk_a_no_opposing_land_units_in_a_class1_hex() -> None:
    atoll_geo = stub_geo(land={HOME[1]: "class1"})
    g = land_game(land(J, "RGT-1", HOME[0]), land(A, "BN-1", HOME[1]), geo=atoll_geo)
    (e,) = g.validate(J, f"MOVE RGT-1 {HOME[1]:04d}").errors
    assert e.rule == "STK.A"


def test_err_base_i_land_unit_captures_an_undefended_base() -> None:
    g = land_game(land(J, "RGT-1", HOME[0]), bases=[base(HOME[1], A, air=5)])
    g.play({J: f"MOVE RGT-1 {HOME[1]:04d}"})
    assert g.s.bases[HOME[1]].owner == J


# --- air --------------------------------------------------------------------------


def air_game(**kw):
    b1, b2, b3 = AUS[0], H(10, 14), H(10, 9)
    geo = stub_geo(land={b2: "class1", b3: "class1"})
    bases = [base(b1, A, air=20), base(b2, A, air=5), base(b3, A, air=10)]
    air = {A: {f"{b1:04d}": Air(lac=10, lbac=2)}}
    return (
        Game(make_state(kw.pop("units", []), air=air, bases=bases, round=1, **kw), geo),
        b1,
        b2,
        b3,
    )


def test_am_transfer_unit_air_points_up_to_twice_normal_range_any_split() -> None:
    g, b1, b2, _b3 = air_game()
    g.play({A: f"TRANSFER 5 LAC {b1:04d} TO {b2:04d}"})
    assert g.s.air_at(A, f"{b2:04d}").lac == 5
    assert g.s.air_at(A, f"{b1:04d}").lac == 5


def test_am_transfer_out_of_range_refused_with_distance() -> None:
    g, b1, _b2, b3 = air_game()
    (e,) = g.validate(A, f"TRANSFER 5 LAC {b1:04d} TO {b3:04d}").errors
    assert e.rule == "AM.TRANSFER" and "is 11 away" in e.message


def test_stk_e_air_transfer_into_a_full_base_refused() -> None:
    g, b1, b2, _b3 = air_game()
    (e,) = g.validate(A, f"TRANSFER 6 LAC {b1:04d} TO {b2:04d}").errors
    assert e.rule == "STK.E" and "room for 5" in e.message


def test_mov_t_lac_may_not_land_on_a_carrier() -> None:
    g, b1, _b2, _b3 = air_game(units=[ship(A, "CV-5", H(10, 19))])
    (e,) = g.validate(A, f"TRANSFER 2 LAC {b1:04d} TO CV-5").errors
    assert e.rule == "MOV.T"


def test_mov_s_damaged_carrier_no_landing() -> None:
    g, b1, _b2, _b3 = air_game(units=[ship(A, "CV-5", H(10, 19), damage=5)])
    g.state = g.s.with_air(A, f"{b1:04d}", Air(lac=10, lbac=2, nac=3)).to_json()
    (e,) = g.validate(A, f"TRANSFER 2 NAC {b1:04d} TO CV-5").errors
    assert e.rule == "MOV.S"


def test_mov_r_unsupplied_base_aircraft_may_not_move() -> None:
    """MOV.R: "Air units may not move if their base is unsupplied" - the base's supply
    as the Japanese ships around it leave it now (SUP.D.SEA, ZOC.INSTANT)."""
    b2 = H(10, 14)
    ring = [ship(J, f"DD-{i}", h) for i, h in enumerate(neighbours(b2), 1)]
    g, _b1, b2, b3 = air_game(units=ring)
    s = replace(g.s, air={A: {f"{b2:04d}": Air(lac=2)}})
    g.state = s.to_json()
    (e,) = g.validate(A, f"TRANSFER 2 LAC {b2:04d} TO {b3:04d}").errors
    assert e.rule == "MOV.R"
    g.state = s.with_units((), removed=["japanese/DD-1"]).to_json()  # a gap in the ring
    assert not g.validate(A, f"TRANSFER 2 LAC {b2:04d} TO {b3:04d}").errors


def test_mov_u_mountain_hexside_costs_one_range() -> None:
    a, b = H(10, 10), H(12, 10)
    assert stub_geo().air_distance(a, b) == 2
    # With a detour of equal length (through 11,10) the mountain costs nothing.
    assert stub_geo(mountains=[(a, H(11, 9))]).air_distance(a, b) == 2
    # Walled in: every route crosses a mountain hexside, one extra (TER.AIR: at most one).
    walled = stub_geo(mountains=[(a, n) for n in neighbours(a)] + [(b, n) for n in neighbours(b)])
    assert walled.air_distance(a, b) == 3


def test_mov_v_def_range_extended_range_for_strikes_and_lbac_none() -> None:
    g, b1, _b2, _b3 = air_game()
    g.play({})  # A-3-4 passes
    ok = g.validate(A, f"STRIKE 2 LAC {b1:04d} {H(10, 16):04d} LAND")
    (e,) = ok.errors  # 4 hexes: extended LAC range; only the empty target is refused
    assert e.rule == "AM.BOMBLAND"
    (e,) = g.validate(A, f"STRIKE 2 LAC {b1:04d} {H(10, 15):04d} LAND").errors
    assert e.rule == "MOV.V"


def test_amac_limit9_at_most_nine_missions() -> None:
    g, b1, _b2, _b3 = air_game()
    g.play({})
    text = "\n".join(f"CAP 1 LAC {b1:04d}" for _ in range(10))
    v = g.validate(A, text)
    assert len(v.accepted) == 9
    assert [(e.line, e.rule) for e in v.errors] == [(10, "AMAC.LIMIT9")]


def test_seq_2b_para_drop_within_four_hexes_of_a_big_base() -> None:
    b = HOME[0]
    units = [land(J, "PARA-1", b)]
    g = Game(make_state(units, bases=[base(b, J, air=10)]), stub_geo(land={H(2, 6): "class2"}))
    g.play({J: f"DROP PARA-1 {H(2, 6):04d}"})
    assert g.unit(J, "PARA-1").hex == H(2, 6)
    g2 = Game(make_state(units, bases=[base(b, J, air=5)]), stub_geo(land={H(2, 6): "class2"}))
    (e,) = g2.validate(J, f"DROP PARA-1 {H(2, 6):04d}").errors
    assert e.rule == "PARA.BASE"
    g3 = Game(make_state(units, bases=[base(b, J, air=10)]), stub_geo(land={H(2, 8): "class2"}))
    (e,) = g3.validate(J, f"DROP PARA-1 {H(2, 8):04d}").errors
    assert e.rule == "PARA.DROP"


def test_seq_4_allies_may_not_drop() -> None:
    g = Game(make_state([land(A, "PARA-1", AUS[0])], bases=[base(AUS[0], A, air=10)], round=1))
    (e,) = g.validate(A, f"DROP PARA-1 {AUS[1]:04d}").errors
    assert e.rule == "SEQ.4"


# --- carrier aircraft embarkation -------------------------------------------------


def test_cvj_embark_new_nac_trains_two_idle_phases_in_japan() -> None:
    h = HOME[0]
    units = [ship(J, "CV-3", h, in_base=True)]
    air = {J: {f"{h:04d}": Air(nac=4, nac_new=4)}}
    g = Game(make_state(units, air=air, bases=[base(h, J, air=10)]))
    g.play({J: f"TRANSFER 4 NAC {h:04d} TO CV-3"})
    assert g.unit(J, "CV-3").training == 1
    for _ in range(3):
        g.play({})
    (e,) = g.validate(J, f"MOVE CV-3 {H(2, 4):04d}").errors  # J-7-8: still training
    assert e.rule == "CVJ.EMBARK"


def test_cvj_embark_new_nac_only_in_a_japanese_base() -> None:
    h = H(20, 5)
    g = Game(
        make_state(
            [ship(J, "CV-3", H(20, 6))],
            air={J: {f"{h:04d}": Air(nac=2, nac_new=2)}},
            bases=[base(h, J, air=10, naval=False)],
        ),
        stub_geo(land={h: "class1"}),
    )
    (e,) = g.validate(J, f"TRANSFER 2 NAC {h:04d} TO CV-3").errors
    assert e.rule == "CVJ.EMBARK"


def test_cva_embark_new_nac_at_the_west_coast_after_arriving() -> None:
    g = Game(make_state([ship(A, "CV-5", None, box="WC", in_base=True)], round=1))
    g.play({A: "TRANSFER 8 NAC WC TO CV-5"})
    assert g.s.air_at(A, "CV-5").nac == 8
    g2 = Game(make_state([ship(A, "CV-5", H(20, 5))], round=1))
    (e,) = g2.validate(A, "TRANSFER 8 NAC WC TO CV-5").errors
    assert e.rule == "CVA.EMBARK"


# --- cases named one by one ---------------------------------------------------------


def test_seq_2c_mov_gen_mov_c_ships_move_individually_or_together() -> None:
    g = Game(
        make_state(
            [ship(J, "CA-1", H(20, 3)), ship(J, "CA-2", H(20, 3)), ship(J, "DD-1", H(20, 3))]
        )
    )
    g.play({J: f"MOVE CA-1 CA-2 {path(20, 4, 5)}\nMOVE DD-1 {H(20, 2):04d}"})
    assert (g.unit(J, "CA-1").hex, g.unit(J, "CA-2").hex, g.unit(J, "DD-1").hex) == (
        H(20, 5),
        H(20, 5),
        H(20, 2),
    )
    moved = [e for e in g.events if e.kind == "moved"]
    assert all(e.witnesses is None for e in moved)  # open map: both sides see it


def test_mov_d_seq_3_land_units_do_not_move_in_a_naval_round() -> None:
    g = Game(make_state([land(J, "RGT-1", HOME[0])]))
    (e,) = g.validate(J, f"MOVE RGT-1 {HOME[1]:04d}").errors
    assert e.rule == "SEQ.STRICT"


def test_seq_3a_seq_7_land_units_move_in_their_land_phase() -> None:
    g = Game(make_state([land(A, "RGT-1", AUS[0])], round=1))
    g.play({A: f"MOVE RGT-1 {AUS[1]:04d}"})
    assert g.unit(A, "RGT-1").hex == AUS[1]
    assert any(e.kind == "moved" and e.rule == "SEQ.3A" for e in g.events)


def test_seq_6_seq_8_second_naval_phases_of_the_turn() -> None:
    g = Game(make_state([ship(A, "CA-1", H(30, 3)), ship(J, "CA-1", H(10, 3))], round=3))
    g.play({A: f"MOVE CA-1 {H(30, 4):04d}"})
    g.play({J: f"MOVE CA-1 {H(10, 4):04d}"})  # J-7-8
    assert g.unit(A, "CA-1").hex == H(30, 4) and g.unit(J, "CA-1").hex == H(10, 4)


def test_seq_9_both_sides_plot_and_cap_lands_back_at_seq_5l() -> None:
    b = AUS[0]
    g = Game(make_state([], air={A: {f"{b:04d}": Air(lac=5)}}, bases=[base(b, A, air=10)], round=5))
    g.play({A: f"CAP 5 LAC {b:04d}", J: ""})
    assert any(e.kind == "air-returned" and e.rule == "SEQ.5L" for e in g.events)
    assert any(e.kind == "plot" and e.data["order"] == f"CAP 5 LAC {b:04d}" for e in g.events)


def test_mov_l_land_units_pass_through_enemy_units() -> None:
    g = land_game(land(J, "RGT-1", HOME[0]), land(A, "RGT-9", HOME[1]))
    g.play({J: f"MOVE RGT-1 {HOME[1]:04d}"})
    assert g.unit(J, "RGT-1").hex == HOME[1] and g.unit(A, "RGT-9").hex == HOME[1]


def test_ter_class1_ter_class2_ter_sea_terrain_classes() -> None:
    geo = stub_geo()
    assert geo.terrain[ISLAND[0]] == "class2" and geo.is_land(ISLAND[0])
    from .builders import ATOLL

    assert geo.terrain[ATOLL] == "class1" and geo.is_land(ATOLL)
    assert geo.is_sea(H(20, 20)) and not geo.is_land(H(20, 20))


def test_ter_mtn_mountain_hexsides_are_hexside_features() -> None:
    a, b = HOME[0], HOME[1]
    geo = stub_geo(mountains=[(b, a)])
    assert geo.mountain_land(a, b) and geo.mountain_land(b, a)
    assert not geo.mountain_land(a, HOME[2])


def test_ter_air_mov_q_aircraft_range_counts_hexes() -> None:
    assert stub_geo().air_distance(H(10, 10), H(10, 14)) == 4


def test_para_base_para_count_only_japanese_parachute_units_drop() -> None:
    b = HOME[0]
    g = Game(make_state([land(J, "RGT-1", b)], bases=[base(b, J, air=10)]))
    (e,) = g.validate(J, f"DROP RGT-1 {HOME[1]:04d}").errors
    assert e.rule == "PARA.COUNT"


def test_para_nomove_para_reuse_dropped_unit_stays_and_may_drop_again() -> None:
    b, dest = HOME[0], H(2, 6)
    geo = stub_geo(land={dest: "class2"})
    g = Game(
        make_state([land(J, "PARA-1", b)], bases=[base(b, J, air=10), base(dest, J, air=10)]), geo
    )
    g.play({J: f"DROP PARA-1 {dest:04d}"})
    assert g.unit(J, "PARA-1").hex == dest
    for _ in range(3):  # to J-7-8: step 8 is a Japanese air phase again
        g.play({})
    g.play({J: f"DROP PARA-1 {HOME[1]:04d}"})  # PARA.REUSE: again, from the new base
    assert g.unit(J, "PARA-1").hex == HOME[1]
    g2 = Game(make_state([land(J, "PARA-1", b)], bases=[base(b, J, air=10)]), geo)
    v = g2.validate(J, f"DROP PARA-1 {dest:04d}\nDROP PARA-1 {HOME[1]:04d}")
    assert [e.rule for e in v.errors] == ["MOV.C"]  # PARA.NOMOVE: once per phase


def test_off_west_a_allied_units_leave_west_for_good() -> None:
    edge = H(0, 20)
    geo = stub_geo()
    geo.edges["west"] = frozenset({edge})
    g = Game(make_state([ship(A, "CA-5", edge)], round=1), geo)
    g.play({A: "MOVE CA-5 OFF"})
    assert g.s.unit(A, "CA-5") is None
    assert any(e.kind == "left-map" and e.rule == "OFF.WEST.A" for e in g.events)


def test_off_west_j_japanese_ships_may_not_leave_west() -> None:
    edge = H(0, 20)
    geo = stub_geo()
    geo.edges["west"] = frozenset({edge})
    g = Game(make_state([ship(J, "CV-1", edge)]), geo)
    (e,) = g.validate(J, "MOVE CV-1 OFF").errors
    assert e.rule == "OFF.WEST.J"


def test_off_zone_return_through_another_edge_zone() -> None:
    e1, e2 = H(46, 5), H(46, 20)
    cv = ship(A, "CV-5", None, box="WC", in_base=True)
    g = Game(make_state([cv], round=1), stub_geo(east=[e1, e2], boxes={e1: 1, e2: 1}))
    assert not g.validate(A, f"SAIL CV-5 {e2:04d}").errors
    assert not g.validate(A, f"SAIL CV-5 {e1:04d}").errors


def test_gen_rec_b_fuel_records_are_open_to_the_opponent() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 5), fuel=2), ship(J, "OIL-1", H(20, 6))]))
    view = g.rs.view(g.state, [], A)
    ca = next(u for u in view["enemy_units"] if u["id"] == "CA-1")
    assert ca["fuel"] == {"turns_at_sea": 2, "endurance": 3}
    oil = next(u for u in view["enemy_units"] if u["id"] == "OIL-1")
    assert oil["oiler_full"] is True


def test_def_cap_carrier_air_capacity_is_a_ceiling() -> None:
    h = HOME[0]
    units = [ship(J, "CVL-1", h, in_base=True, capacity=5)]
    g = Game(make_state(units, air={J: {f"{h:04d}": Air(nac=8)}}, bases=[base(h, J, air=10)]))
    (e,) = g.validate(J, f"TRANSFER 6 NAC {h:04d} TO CVL-1").errors
    assert e.rule == "DEF.CAP" and "room for 5" in e.message


# --- unit breakdown ------------------------------------------------------------------


def brk_game(*units: Any, spares: list[Any]) -> Game:
    from pbem.rulesets.usn.state import encode_unit

    sp: dict[str, list[dict[str, Any]]] = {}
    for u in spares:
        sp.setdefault(u.side, []).append(encode_unit(u))
    return Game(make_state(list(units), round=4, extra={"spares": sp}))


def jdiv(uid: str, at: int | None) -> Any:
    return land(J, uid, at, tp=12, attack=20, defense=40)


def test_brk_when_brk_j_rgt_division_into_three_regiments_which_may_move() -> None:
    rgts = [land(J, f"RGT-{i}", None, attack=6, defense=12) for i in (1, 2, 3)]
    g = brk_game(jdiv("DIV-1", HOME[0]), spares=rgts)
    g.play({J: f"BREAK DIV-1 RGT\nMOVE RGT-1 {HOME[1]:04d}"})
    assert g.s.unit(J, "DIV-1") is None
    assert [g.unit(J, f"RGT-{i}").hex for i in (1, 2, 3)] == [HOME[1], HOME[0], HOME[0]]
    assert "DIV-1" in [d["uid"] for d in g.s.extra["spares"][J]]


def test_brk_j_bde_division_into_two_brigades() -> None:
    bdes = [land(J, f"BDE-{i}", None, tp=6, attack=8, defense=18) for i in (1, 2)]
    g = brk_game(jdiv("DIV-1", HOME[0]), spares=bdes)
    g.play({J: "BREAK DIV-1 BDE"})
    assert g.unit(J, "BDE-2").hex == HOME[0]


def test_brk_rebuild_components_in_one_hex_combine() -> None:
    rgts = [land(J, f"RGT-{i}", HOME[0], attack=6, defense=12) for i in (1, 2, 3)]
    g = brk_game(*rgts, spares=[jdiv("DIV-9", None)])
    g.play({J: "COMBINE RGT-1 RGT-2 RGT-3"})
    assert g.unit(J, "DIV-9").hex == HOME[0] and g.s.unit(J, "RGT-1") is None
    apart = [
        land(J, "RGT-1", HOME[0], attack=6, defense=12),
        land(J, "RGT-2", HOME[1], attack=6, defense=12),
    ]
    g2 = brk_game(
        *apart, land(J, "RGT-3", HOME[0], attack=6, defense=12), spares=[jdiv("DIV-9", None)]
    )
    (e,) = g2.validate(J, "COMBINE RGT-1 RGT-2 RGT-3").errors
    assert e.rule == "BRK.REBUILD"


def test_brk_a_div_allied_division_into_three_8_15_regiments() -> None:
    div = land(A, "DIV-1", AUS[0], tp=12, attack=30, defense=50)
    rgts = [land(A, f"RGT-{i}", None) for i in (4, 5, 6)]
    g = brk_game(div, spares=rgts)
    g.state = {**g.state, "round": 1}
    g.play({A: "BREAK DIV-1 RGT"})
    assert sorted(u.uid for u in g.s.units.values()) == ["RGT-4", "RGT-5", "RGT-6"]


def test_brk_nobn_regiments_do_not_break_down() -> None:
    g = brk_game(land(J, "RGT-1", HOME[0], attack=6, defense=12), spares=[])
    (e,) = g.validate(J, "BREAK RGT-1 RGT").errors
    assert e.rule == "BRK.NOBN"


def test_brk_a_mar_err_brk_marine_three_10_15_marine_regiments_if_in_the_mix() -> None:
    mar = land(A, "MAR-1", AUS[0], tp=12, attack=50, defense=60)
    g = brk_game(mar, spares=[])
    g.state = {**g.state, "round": 1}
    (e,) = g.validate(A, "BREAK MAR-1 RGT").errors
    assert e.rule == "ERR.BRK.MARINE" and "10-15" in e.message


def test_mov_u_rulebook_example_range_two_across_a_mountain_reaches_only_adjacent() -> None:
    """MOV.U: "if an air unit normally had a Range Allowance of two, it would normally
    only be able to attack an adjacent hex if it were necessary to move through a
    mountain hex-side"."""
    b, near, far = AUS[0], H(10, 19), H(10, 18)
    walled = stub_geo(
        land={near: "class1", far: "class1"}, mountains=[(b, n) for n in neighbours(b)]
    )
    air = {A: {f"{b:04d}": Air(nac=4)}}
    targets = [land(J, "RGT-1", near), land(J, "RGT-2", far)]
    g = Game(make_state(targets, air=air, bases=[base(b, A, air=10)], round=2), walled)
    g.state = {**g.state, "extra": {"air_ranges": {"allied/NAC": [2, 2]}}}
    assert not g.validate(A, f"STRIKE 2 NAC {b:04d} {near:04d} LAND").errors
    (e,) = g.validate(A, f"STRIKE 2 NAC {b:04d} {far:04d} LAND").errors
    assert e.rule == "MOV.V" and "is 3 away" in e.message
