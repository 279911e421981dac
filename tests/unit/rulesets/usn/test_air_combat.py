"""Air missions and air combat of the air-strike steps (SEQ.5D-L, AM.*, CRT2.*, MOV.S, MOV.V)."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.rulesets.usn import air_combat, air_return
from pbem.rulesets.usn.air_combat import Flight, split_on_group, take_losses
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.state import Air
from pbem.rulesets.usn.tables import AirLoss
from pbem.rulesets.usn.work import Work

from .builders import ATOLL, ISLAND, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
AIR5 = 2  # the index of round air-5 (sequence.ROUNDS)
ISL, ISL2 = ISLAND  # an Allied air base and its neighbour
SEA = H(8, 10)  # open sea two hexes from the island
RANGES = {"air_ranges": {"allied/LBAC": [8, 8]}}


def strikes(g: Game, rule: str | None = None) -> list[dict[str, Any]]:
    return [dict(e.data) for e in g.events if e.kind == "air-strike" and rule in (None, e.rule)]


def fleet_game(**air: int) -> Game:
    """A Japanese carrier group at sea near an Allied air base."""
    units = [
        replace(ship(J, "CV-1", SEA), defense=5, aa=5, stack=0),
        replace(ship(J, "CA-1", SEA), defense=5, aa=5, stack=1),
    ]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(**air)}, J: {"CV-1": Air(nac=6)}},
        bases=[base(ISL, A, air=30)],
        round=AIR5,
        extra=RANGES,
    )
    return Game(state)


# --- SEQ.5F / AM.BOMBNAV: strikes on ships at sea --------------------------------------


def test_am_bombnav_order_lbac_then_lac_each_its_whole_sequence() -> None:
    g = fleet_game(lbac=4, lac=6)
    orders = {
        A: f"STRIKE 6 LAC {ISL:04d} {SEA:04d} SHIPS 1\nSTRIKE 4 LBAC {ISL:04d} {SEA:04d} SHIPS 1",
        J: "CAP 4 NAC CV-1",
    }
    g.play(orders, dice=[6] * 40)
    waves = strikes(g, "AM.BOMBNAV.SEQ")
    assert [w["type"] for w in waves] == ["LBAC", "LAC"]
    assert all(w["cap"] is not None and w["ships"] == ["CV-1", "CA-1"] for w in waves)


def test_am_bombnav_str_seq_5f_2c_seq_5f_3c_allied_lac_halved_lbac_one_per_point() -> None:
    g = fleet_game(lbac=4, lac=6)
    orders = {
        A: f"STRIKE 6 LAC {ISL:04d} {SEA:04d} SHIPS 1\nSTRIKE 4 LBAC {ISL:04d} {SEA:04d} SHIPS 1"
    }
    g.play(orders, dice=[6] * 40)
    lbac, lac = strikes(g, "AM.BOMBNAV.SEQ")
    assert lbac["attack"][0]["attack"] == 4  # SEQ.5F.2c
    assert lac["attack"][0]["attack"] == 48  # SEQ.5F.3c: eight per air point
    assert lac["attack"][0]["target"] == "CV-1"  # the more valuable ship of the pair


def test_seq_5f_3c_damage_is_effective_for_later_waves_and_carrier_loses_aircraft() -> None:
    g = fleet_game(lac=10)
    # No CAP (none plotted); AA 10 die 6: nothing; 80 v 5 = 16-1, die 1 -> 2, CRT5 die 1 -> 10.
    g.play({A: f"STRIKE 10 LAC {ISL:04d} {SEA:04d} SHIPS 1"}, dice=[6, 1, 1] + [6] * 10)
    cv = g.unit(J, "CV-1")
    assert cv.damage == 10
    assert g.s.air_at(J, "CV-1").total == 0  # CBT.H
    assert any(e.kind == "ship-damaged" and e.witnesses is None for e in g.events)


def test_am_cap_scope_air_base_cap_does_not_cover_ships_at_sea() -> None:
    units = [ship(A, "CA-1", ISL2), ship(J, "CV-1", ISL)]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lac=5)}, J: {"CV-1": Air(nac=6)}},
        bases=[base(ISL, A, air=30)],
        round=AIR5,
    )
    g = Game(state)
    g.play({A: f"CAP 5 LAC {ISL:04d}", J: f"STRIKE 6 NAC CV-1 {ISL2:04d} SHIPS 1"}, dice=[6] * 20)
    (wave,) = strikes(g, "AM.BOMBNAV.SEQ")
    assert wave["cap"] is None


def test_am_cap_fire_simultaneous_both_sides_lose() -> None:
    g = fleet_game(lac=10)
    # CAP 4 NAC (A2A 20, die 1: 2/2) and 10 LAC (A2A 50, die 1: 3/5) fire together.
    g.play(
        {A: f"STRIKE 10 LAC {ISL:04d} {SEA:04d} SHIPS 1", J: "CAP 4 NAC CV-1"},
        dice=[1, 1] + [6] * 20,
    )
    (wave,) = strikes(g)
    assert wave["cap"]["strike_losses"] == {"destroyed": {"LAC": 2}, "aborted": {"LAC": 2}}
    assert wave["cap"]["cap_losses"]["destroyed"] == {"NAC": 4}


def test_am_cap_optional_standing_decline() -> None:
    g = fleet_game(lac=10)
    g.state = {**g.state, "standing": {J: ["STANDING CAP DECLINE"]}}
    g.play({A: f"STRIKE 10 LAC {ISL:04d} {SEA:04d} SHIPS 1", J: "CAP 4 NAC CV-1"}, dice=[6] * 20)
    (wave,) = strikes(g)
    assert "cap" not in wave


# --- CRT2 ------------------------------------------------------------------------------


def _work() -> Work:
    return Work.start(stub_geo(), make_state([]))


def test_crt2_lbac_counts_as_two_fractions_dropped() -> None:
    force = [Flight(A, "LBAC", 4, "0212", ISL, "STRIKE", SEA)]
    take_losses(_work(), force, AirLoss(0, 3), ("LBAC", "NAC", "LAC"), J)
    assert force[0].points == 3 and force[0].lost == 1


def test_crt2_errata_err_crt2_crt2_destroy_destroyed_results_are_applied_first() -> None:
    force = [Flight(J, "NAC", 3, "CV-1", SEA, "STRIKE", ISL)]
    hit = take_losses(_work(), force, AirLoss(2, 2), ("NAC", "LAC", "LBAC"), A)
    assert hit == {"destroyed": {"NAC": 2}, "aborted": {"NAC": 1}}
    assert (force[0].lost, force[0].aborted, force[0].points) == (2, 1, 0)


def test_crt2_mixed_the_firing_side_picks_the_types() -> None:
    force = [
        Flight(J, "LAC", 3, "0212", SEA, "STRIKE", ISL),
        Flight(J, "NAC", 3, "CV-1", SEA, "STRIKE", ISL),
    ]
    take_losses(_work(), force, AirLoss(0, 2), ("NAC", "LAC", "LBAC"), A)
    assert [f.points for f in force] == [3, 1]


def test_mov_v_extended_range_a2a_is_one_japanese_two_allied() -> None:
    assert Flight(J, "LAC", 3, "x", 1, "STRIKE", 2, extended=True).a2a() == 3
    assert Flight(A, "NAC", 3, "x", 1, "STRIKE", 2, extended=True).a2a() == 6
    assert Flight(A, "NAC", 3, "x", 1, "STRIKE", 2).a2a() == 15


def test_am_bombnav_seq_split_only_when_the_first_ship_is_swamped() -> None:
    s = make_state([])
    cv, ca = replace(ship(J, "CV-1", SEA), defense=2), replace(ship(J, "CA-1", SEA), defense=5)
    assert [(u.uid, b) for u, b in split_on_group(s, 30, [ca, cv])] == [("CV-1", 30)]
    assert [(u.uid, b) for u, b in split_on_group(s, 60, [ca, cv])] == [("CV-1", 33), ("CA-1", 27)]


# --- SEQ.5H / AM.BASE, AM.STRAFE, AM.BOMBCD, AM.BOMBLAND, port ---------------------------


def test_am_base_target_am_base_resolve_cbt_j_aircraft_rise_and_base_is_neutralized() -> None:
    units = [land(J, "RGT-9", ATOLL)]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lbac=26)}, J: {f"{ATOLL:04d}": Air(lac=5)}},
        bases=[base(ISL, A, air=30), base(ATOLL, J, air=10, naval=False)],
        round=AIR5,
        extra=RANGES,
    )
    g = Game(state)
    # LBAC are immune to CAP and AA (SEQ.5H.2a-b); 260 v 10 = 26-1, die 1 -> 5, CRT5 -> 30.
    g.play({A: f"STRIKE 26 LBAC {ISL:04d} {ATOLL:04d} AIRBASE"}, dice=[1] * 10)
    (hit,) = strikes(g, "AM.BASE.RESOLVE")
    assert hit["cap"]["cap_losses"] == {"destroyed": {"LAC": 2}, "aborted": {"LAC": 2}}
    assert hit["cap"]["strike_losses"] == {"destroyed": {}, "aborted": {}}
    assert hit["attack"]["result"] == "30"
    b = g.s.bases[ATOLL]
    assert b.neutralized(1) and b.neutralized(2)
    assert g.s.air_at(J, f"{ATOLL:04d}").lac == 3  # CBT.J: CAP lands on the base hit under it
    assert g.s.air_at(A, f"{ISL:04d}").lbac == 26


def test_am_strafe_cap_am_strafe_aa_am_strafe_fire_lbac_stay_down_and_are_hit_double() -> None:
    units = [replace(ship(J, "CV-1", ISL2), capacity=12)]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lbac=4, lac=2)}, J: {"CV-1": Air(nac=12)}},
        bases=[base(ISL, A, air=6)],
        round=AIR5,
        extra=RANGES,
    )
    g = Game(state)
    g.play({J: f"STRIKE 12 NAC CV-1 {ISL:04d} STRAFE"}, dice=[1] * 10)
    (hit,) = strikes(g, "AM.STRAFE.FIRE")
    assert hit["cap"]["cap_losses"]["destroyed"] == {"LAC": 2}  # the LAC rose (AM.STRAFE.CAP)
    assert hit["attack"]["destroyed"] == {"LBAC": 1}  # A2A 35, die 1: 3 destroyed = 1 LBAC
    assert g.s.air_at(A, f"{ISL:04d}").lbac == 3


def test_cg1_shock_nocap_no_automatic_cap_in_the_first_turn() -> None:
    units = [replace(ship(J, "CV-1", ISL2), capacity=12)]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lac=2)}, J: {"CV-1": Air(nac=12)}},
        bases=[base(ISL, A, air=6)],
        round=AIR5,
    )
    g = Game(replace(state, scenario="campaign-1"))
    g.play({J: f"STRIKE 12 NAC CV-1 {ISL:04d} STRAFE"}, dice=[1] * 10)
    (hit,) = strikes(g, "AM.STRAFE.FIRE")
    assert hit["cap"] is None and hit["attack"]["destroyed"] == {"LAC": 2}


def test_am_bombcd_damage_number_two_destroys_no_aa() -> None:
    cd = replace(land(J, "CD-1", ATOLL), defense=5, sa=20)
    state = make_state(
        [cd], air={A: {f"{ISL:04d}": Air(lac=10)}}, bases=[base(ISL, A, air=30)], round=AIR5
    )
    g = Game(state)
    # 160 v 5 = 8-1 on CRT4, die 1: 8.
    g.play({A: f"STRIKE 10 LAC {ISL:04d} {ATOLL:04d} CD"}, dice=[1] * 10)
    (hit,) = strikes(g, "AM.BOMBCD")
    assert hit["aa"] is None and g.s.unit(J, "CD-1") is None


def test_am_bombland_only_dx_cuts_the_unit_off() -> None:
    state = make_state(
        [land(J, "RGT-9", ATOLL)],
        air={A: {f"{ISL:04d}": Air(lac=10)}},
        bases=[base(ISL, A, air=30)],
        round=AIR5,
    )
    g = Game(state)
    g.play({A: f"STRIKE 10 LAC {ISL:04d} {ATOLL:04d} LAND"}, dice=[6] * 10)  # 160 v 15, DX
    assert not g.unit(J, "RGT-9").supplied
    assert g.s.extra["cut_off"] == {"japanese/RGT-9": 2}


def _bombland_game(**options: str) -> Game:
    """Two Japanese land units on the atoll, three hexes from an Allied air base."""
    state = make_state(
        [land(J, "RGT-9", ATOLL, defense=6), land(J, "BN-1", ATOLL, defense=2)],
        air={A: {f"{ISL:04d}": Air(lac=10)}},
        bases=[base(ISL, A, air=30)],
        round=AIR5,
        options=dict(options),
    )
    return Game(state)


def _bombed(g: Game) -> list[str]:
    return [e.data["target"] for e in g.events if e.kind == "bombardment"]


def test_am_bombland_the_striking_player_names_the_land_unit() -> None:
    """AM.BOMBLAND: "Compare Bombardment Strength of air units to Defense Strength of
    any of the land units in the hex" - the striking player's choice, written
    ``STRIKE ... LAND AT <unit>`` (as NM.BOMBLAND's BOMBARD ... AT); without AT the
    unit with the lowest defence."""
    strike = f"STRIKE 10 LAC {ISL:04d} {ATOLL:04d} LAND"
    g = _bombland_game()
    (e,) = g.validate(A, f"{strike} AT DIV-7").errors  # not there, and the hex is open
    assert e.rule == "AM.BOMBLAND"
    (e,) = g.validate(A, f"STRIKE 10 LAC {ISL:04d} {ATOLL:04d} CD AT RGT-9").errors
    assert e.rule == "AM.BOMBLAND"  # AT only for LAND
    g.play({A: f"{strike} AT RGT-9"}, dice=[6] * 10)
    assert _bombed(g) == ["RGT-9"]
    assert not g.unit(J, "RGT-9").supplied and g.unit(J, "BN-1").supplied
    g = _bombland_game()
    g.play({A: strike}, dice=[6] * 10)
    assert _bombed(g) == ["BN-1"]  # the default: the lowest defence


def test_am_bombland_named_unit_out_of_sight_is_judged_at_the_strike() -> None:
    """AM.BOMBLAND ("any of the land units in the hex") in a double-blind game: the
    validator does not tell the striker whether a unit it cannot see is there (the
    atoll is outside the Allied sight), so any name is accepted; at the strike a name
    that is not there falls back to the unit with the lowest defence, and only the
    striker is told."""
    g = _bombland_game(fog="double-blind")
    strike = f"STRIKE 10 LAC {ISL:04d} {ATOLL:04d} LAND"
    assert not g.validate(A, f"{strike} AT RGT-9").errors
    assert not g.validate(A, f"{strike} AT DIV-7").errors  # same answer: nothing leaks
    g.play({A: f"{strike} AT DIV-7"}, dice=[6] * 10)
    (told,) = [e for e in g.events if e.kind == "strike-retargeted"]
    assert told.witnesses == (A,) and told.data["named"] == "DIV-7"
    assert told.data["target"] == "BN-1" and told.rule == "AM.BOMBLAND"
    assert _bombed(g) == ["BN-1"]
    g = _bombland_game(fog="double-blind")
    g.play({A: f"{strike} AT RGT-9"}, dice=[6] * 10)
    assert _bombed(g) == ["RGT-9"]
    assert not [e for e in g.events if e.kind == "strike-retargeted"]


def test_am_bombnav_port_nm_aa_port_ships_in_base_add_their_aa_to_the_base() -> None:
    units = [
        ship(J, "CA-1", ATOLL, in_base=True, stack=0),
        ship(J, "CA-2", ATOLL, in_base=True, stack=1),
    ]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(nac=4)}},
        bases=[base(ISL, A, air=30), base(ATOLL, J, air=0, naval=True)],
        round=AIR5,
    )
    g = Game(state)
    g.play({A: f"STRIKE 4 NAC {ISL:04d} {ATOLL:04d} PORT"}, dice=[6] * 10)
    (hit,) = strikes(g, "AM.BOMBNAV.PORT")
    assert hit["aa"]["aa"] == 30  # 5 + 5 + the naval base's 20 (NM.AA.PORT)


# --- SEQ.5J ground support -------------------------------------------------------------


def test_am_gso_seq_5j_offensive_support_adds_full_bombardment() -> None:
    units = [land(A, "RGT-1", ISL2), land(J, "RGT-9", ISL2)]
    state = make_state(
        units, air={A: {f"{ISL:04d}": Air(lac=2)}}, bases=[base(ISL, A, air=30)], round=AIR5
    )
    g = Game(state)
    g.play(
        {A: f"SUPPORT 2 LAC {ISL:04d} {ISL2:04d} ATTACK\nATTACK {ISL2:04d} RGT-1"}, dice=[6] * 20
    )
    (gs,) = [e for e in g.events if e.kind == "ground-support"]
    assert gs.rule == "AM.GSO" and gs.data["attack"] == 32
    assert "ground_support" not in g.s.extra and "aloft" not in g.s.extra  # SEQ.5L clears


def test_am_gsd_defensive_support_only_for_the_side_attacked() -> None:
    units = [land(A, "RGT-1", ISL2)]
    state = make_state(
        units, air={A: {f"{ISL:04d}": Air(lac=2)}}, bases=[base(ISL, A, air=30)], round=AIR5
    )
    g = Game(state)
    (e,) = g.validate(A, f"SUPPORT 2 LAC {ISL:04d} {ISL2:04d} DEFEND").errors
    assert e.rule == "AM.GSD"


# --- bad input ----------------------------------------------------------------------------


def test_am_cap_hex_cap_only_from_own_base_or_carrier() -> None:
    units = [ship(A, "TR-1", ISL2)]
    state = make_state(
        units, air={A: {"TR-1": Air(lac=2)}}, bases=[base(ISL, A, air=30)], round=AIR5
    )
    g = Game(state)
    (e,) = g.validate(A, "CAP 2 LAC TR-1").errors
    assert e.rule == "NM.TRANS.AIR"
    (e,) = g.validate(A, f"CAP 2 LAC {ISL2:04d}").errors  # no base of yours there
    assert e.rule == "MOV.S" and "not a usable air base of yours" in e.message


def test_amac_b_strike_on_a_group_that_is_not_there() -> None:
    g = fleet_game(lac=6)
    (e,) = g.validate(A, f"STRIKE 6 LAC {ISL:04d} {SEA:04d} SHIPS 2").errors
    assert e.rule == "AMAC.B" and "1 enemy ship group" in e.message
    (e,) = g.validate(A, f"STRIKE 6 LAC {ISL:04d} {H(9, 12):04d} SHIPS 1").errors
    assert e.rule == "AM.BOMBNAV.SEQ"
    (e,) = g.validate(A, f"STRIKE 7 LAC {ISL:04d} {SEA:04d} SHIPS 1").errors
    assert e.rule == "UNIT.AIR.POINTS"  # aircraft that are not there


def test_mov_v_strike_beyond_extended_range_is_refused() -> None:
    g = fleet_game(lac=6)
    far = H(6, 16)
    (e,) = g.validate(A, f"STRIKE 6 LAC {ISL:04d} {far:04d} LAND").errors
    assert e.rule == "MOV.V"


# --- SEQ.5L return to base -------------------------------------------------------------------


def _aloft(w: Work, *flights: Flight) -> None:
    w.state = replace(w.state, extra={"aloft": [asdict(f) for f in flights]})


def test_mov_s_carrier_cap_lost_when_its_carrier_is_damaged() -> None:
    w = Work.start(stub_geo(), make_state([ship(J, "CV-1", SEA, damage=5)]))
    _aloft(w, Flight(J, "NAC", 4, "CV-1", SEA, "CAP", SEA))
    air_return.hook_return(w, None, {}, _dice())  # type: ignore[arg-type]
    (lost,) = [e for e in w.events if e.kind == "air-lost"]
    assert lost.data["points"] == 4 and lost.rule == "SEQ.5L"


def test_seq_5l_cbt_k_nac_return_to_their_carrier_others_to_a_base_in_range_with_room() -> None:
    units = [ship(J, "CV-1", SEA, capacity=5)]
    state = make_state(
        units,
        air={J: {"CV-1": Air(nac=3)}},
        bases=[base(ISL2, J, air=4), base(H(20, 20), J, air=10)],
    )
    w = Work.start(stub_geo(), state)
    _aloft(
        w,
        Flight(J, "NAC", 4, "CV-1", SEA, "STRIKE", ISL, "LAND"),
        Flight(J, "LAC", 3, f"{H(20, 20):04d}", H(20, 20), "STRIKE", ISL, "LAND", extended=True),
    )
    air_return.hook_return(w, None, {}, _dice())  # type: ignore[arg-type]
    assert w.air_at(J, "CV-1").nac == 5  # two fit aboard
    assert w.air_at(J, f"{ISL2:04d}").nac == 2  # the rest at the nearest base in range
    assert w.air_at(J, f"{ISL2:04d}").lac == 2  # the LAC find 2 places left there...
    lost = [e.data for e in w.events if e.kind == "air-lost"]
    assert lost == [
        {"side": J, "type": "LAC", "points": 1, "cause": "no base or carrier with room in range"}
    ]


def _dice() -> Any:
    from pbem.core.dice import ScriptedDice

    return ScriptedDice([])


# --- the whole sequences of SEQ.5F-I ------------------------------------------------------

CV_A = ISL2  # an Allied carrier beside the island base


def three_type_game() -> Game:
    units = [
        replace(ship(J, "CV-1", SEA), defense=5, aa=5, stack=0),
        replace(ship(J, "CA-1", SEA), defense=5, aa=5, stack=1),
        ship(A, "CV-5", CV_A),
    ]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lbac=4, lac=6), "CV-5": Air(nac=4)}, J: {"CV-1": Air(nac=6)}},
        bases=[base(ISL, A, air=30)],
        round=AIR5,
        extra=RANGES,
    )
    g = Game(state)
    target = f"{SEA:04d} SHIPS 1"
    orders = {
        A: f"STRIKE 4 NAC CV-5 {target}\nSTRIKE 6 LAC {ISL:04d} {target}\n"
        f"STRIKE 4 LBAC {ISL:04d} {target}",
        J: "CAP 4 NAC CV-1",
    }
    # LBAC wave: CAP fire 20 (die 1: 2/2), LBAC fire 4 (die 1: one CAP aborts), AA 10 die 6;
    # 2 LBAC left bomb 2 v 5 (below 1-1, no die). Every later die is 6: no losses, no hits.
    g.play(orders, dice=[1, 1, 6] + [6] * 30)
    return g


def test_seq_5f_1_seq_5f_2a_seq_5f_3a_seq_5f_4a_cap_is_worn_down_wave_by_wave() -> None:
    g = three_type_game()
    lbac, lac, nac = strikes(g, "AM.BOMBNAV.SEQ")
    assert (lbac["type"], lac["type"], nac["type"]) == ("LBAC", "LAC", "NAC")
    # CRT2.LBAC: 2 destroyed and 2 aborted cost one LBAC point each.
    assert lbac["cap"]["strike_losses"] == {"destroyed": {"LBAC": 1}, "aborted": {"LBAC": 1}}
    assert lbac["cap"]["cap_losses"]["aborted"] == {"NAC": 1}
    assert lac["cap"]["cap"] == 15 and nac["cap"]["cap"] == 15  # three NAC left on CAP


def test_seq_5f_2b_seq_5f_3b_seq_5f_4b_seq_5f_4c_each_wave_meets_the_group_aa_then_bombs() -> None:
    g = three_type_game()
    lbac, lac, nac = strikes(g, "AM.BOMBNAV.SEQ")
    assert all(w["aa"]["aa"] == 10 for w in (lbac, lac, nac))  # the pair's combined AA
    (weak,) = lbac["attack"]  # 2 against 5: below 1-1, no die (A2)
    assert (weak["odds"], weak["die"], weak["result"]) == ("below 1-1", 0, "-")
    assert lac["attack"][0]["attack"] == 48 and nac["attack"][0]["attack"] == 44


def test_crt2_abort_amac_c_amac_d_aborted_go_home_and_survivors_return() -> None:
    g = three_type_game()
    s = g.s
    assert s.air_at(A, f"{ISL:04d}") == Air(lbac=3, lac=6)  # one LBAC destroyed
    assert s.air_at(A, "CV-5").nac == 4
    assert s.air_at(J, "CV-1").nac == 6  # the aborted CAP point came back aboard


def test_seq_5g_1_seq_5g_2a_c_seq_5g_3a_c_japanese_lac_then_nac_at_full_strength() -> None:
    units = [
        replace(ship(J, "CV-1", SEA), capacity=10),
        replace(ship(A, "CA-1", H(8, 9)), defense=1),
        ship(A, "CA-2", H(8, 9)),
    ]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lac=2)}, J: {"CV-1": Air(nac=6), f"{ATOLL:04d}": Air(lac=4)}},
        bases=[base(ISL, A, air=30), base(ATOLL, J, air=10, naval=False)],
        round=AIR5,
    )
    g = Game(state)
    orders = {
        A: f"STRIKE 2 LAC {ISL:04d} {SEA:04d} SHIPS 1",
        J: f"STRIKE 6 NAC CV-1 {H(8, 9):04d} SHIPS 1\nSTRIKE 4 LAC {ATOLL:04d} {H(8, 9):04d} SHIPS 1",
    }
    g.play(orders, dice=[6] * 30)
    waves = strikes(g, "AM.BOMBNAV.SEQ")
    assert [(w["side"], w["type"]) for w in waves] == [(A, "LAC"), (J, "LAC"), (J, "NAC")]
    assert waves[1]["attack"][0]["attack"] == 56 and waves[2]["attack"][0]["attack"] == 42


def test_seq_5fg_aloft_amac_a_aircraft_leave_their_base_and_stay_up_until_seq_5l() -> None:
    state = make_state(
        [land(J, "RGT-9", ATOLL)],
        air={A: {f"{ISL:04d}": Air(lac=10)}},
        bases=[base(ISL, A, air=30)],
        round=AIR5,
    )
    w = Work.start(stub_geo(), state)
    w.begin_phase(A, 5)
    from pbem.core.dice import ScriptedDice
    from pbem.rulesets.usn.orders import parse_orders
    from pbem.rulesets.usn.sequence import STEPS, StepKind

    lines, _ = parse_orders(
        f"STRIKE 4 LAC {ISL:04d} {ATOLL:04d} LAND", frozenset({StepKind.STRIKE})
    )
    air_combat.hook_strikes(w, STEPS[4], {A: lines}, ScriptedDice([6] * 5))
    assert w.air_at(A, f"{ISL:04d}").lac == 6
    assert [f["points"] for f in w.state.extra["aloft"]] == [4]
    air_return.hook_return(w, STEPS[4], {}, ScriptedDice([]))
    assert w.air_at(A, f"{ISL:04d}").lac == 10 and "aloft" not in w.state.extra


def test_seq_5h_1_seq_5h_2a_seq_5h_2b_seq_5h_2c_lbac_untouched_over_land_targets() -> None:
    state = make_state(
        [land(J, "RGT-9", ATOLL)],
        air={A: {f"{ISL:04d}": Air(lbac=4, lac=10)}, J: {f"{ATOLL:04d}": Air(lac=8)}},
        bases=[base(ISL, A, air=30), base(ATOLL, J, air=10, naval=False)],
        round=AIR5,
        extra=RANGES,
    )
    g = Game(state)
    text = f"STRIKE 4 LBAC {ISL:04d} {ATOLL:04d} LAND\nSTRIKE 10 LAC {ISL:04d} {ATOLL:04d} LAND"
    g.play({A: text, J: f"CAP 8 LAC {ATOLL:04d}"}, dice=[1] * 30)
    (hit,) = strikes(g, "AM.BOMBLAND")
    assert set(hit["cap"]["strike_losses"]["destroyed"]) == {"LAC"}  # CAP 40, die 1: 4/2
    assert hit["aa"] is None  # land units fire no AA
    assert g.s.air_at(A, f"{ISL:04d}").lbac == 4


def test_seq_5i_1_2c_japanese_land_strikes_come_after_the_allied_ones() -> None:
    units = [land(J, "RGT-9", ATOLL), land(A, "RGT-1", ISL2)]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lac=2)}, J: {f"{ATOLL:04d}": Air(lac=2)}},
        bases=[base(ISL, A, air=30), base(ATOLL, J, air=10, naval=False)],
        round=AIR5,
    )
    g = Game(state)
    orders = {
        J: f"STRIKE 2 LAC {ATOLL:04d} {ISL2:04d} LAND",
        A: f"STRIKE 2 LAC {ISL:04d} {ATOLL:04d} LAND",
    }
    g.play(orders, dice=[6] * 30)
    assert [s["side"] for s in strikes(g, "AM.BOMBLAND")] == [A, J]


def test_cbt_b_am_base_aa_only_the_named_base_defends_and_fires() -> None:
    state = make_state(
        [],
        air={A: {f"{ISL:04d}": Air(lbac=2, lac=4)}},
        bases=[base(ISL, A, air=30), base(ATOLL, J, air=10, naval=True)],
        round=AIR5,
        extra=RANGES,
    )
    g = Game(state)
    text = (
        f"STRIKE 2 LAC {ISL:04d} {ATOLL:04d} NAVALBASE\nSTRIKE 2 LAC {ISL:04d} {ATOLL:04d} AIRBASE"
    )
    g.play({A: text}, dice=[6] * 30)
    aa = {s["target"]: s["aa"]["aa"] for s in strikes(g)}
    assert aa == {"NAVALBASE": 20, "AIRBASE": 10}  # BASE.M


def test_am_base_grounded_aircraft_on_a_neutralized_base_cannot_rise_and_are_hit() -> None:
    atoll = replace(base(ATOLL, J, air=10, naval=False), neutralized_until=1)
    state = make_state(
        [],
        air={A: {f"{ISL:04d}": Air(lbac=16)}, J: {f"{ATOLL:04d}": Air(lac=8)}},
        bases=[base(ISL, A, air=30), atoll],
        round=AIR5,
        extra=RANGES,
    )
    g = Game(state)
    # 160 v 10 = 16-1 (CRT3 column 16-20), die 1: 2; CRT5 die 1: 10 weeks -> 25% of 8.
    g.play({A: f"STRIKE 16 LBAC {ISL:04d} {ATOLL:04d} AIRBASE"}, dice=[1] * 10)
    (hit,) = strikes(g, "AM.BASE.RESOLVE")
    assert hit["cap"] is None
    assert g.s.air_at(J, f"{ATOLL:04d}").lac == 6


def test_am_strafe_alloc_am_strafe_range_extended_strafers_fire_at_reduced_a2a() -> None:
    far = H(9, 10)  # three hexes from the base: NAC extended range
    units = [replace(ship(J, "CV-1", far), capacity=12)]
    state = make_state(
        units,
        air={A: {f"{ISL:04d}": Air(lbac=4)}, J: {"CV-1": Air(nac=10)}},
        bases=[base(ISL, A, air=6)],
        round=AIR5,
        extra=RANGES,
    )
    g = Game(state)
    assert g.s.units["japanese/CV-1"].hex is not None
    g.play({J: f"STRIKE 10 NAC CV-1 {ISL:04d} STRAFE"}, dice=[6] * 10)
    (hit,) = strikes(g, "AM.STRAFE.FIRE")
    assert hit["cap"] is None  # the LBAC on the ground do not rise (AM.STRAFE.CAP)
    assert hit["aa"]["aa"] == 6


def test_amac_form_amac_purpose_every_chart_column_is_an_order() -> None:
    from pbem.rulesets.usn.orders import Mission, parse_line

    columns = {
        "CAP": "CAP 2 NAC CV-1",
        "ground support": "SUPPORT 2 LAC 0212 0213 ATTACK",
        "land units": "STRIKE 2 LAC 0212 0213 LAND",
        "coastal defense": "STRIKE 2 LAC 0212 0213 CD",
        "naval units": "STRIKE 2 LAC 0212 0213 SHIPS 1",
        "naval bases": "STRIKE 2 LAC 0212 0213 NAVALBASE",
        "air bases": "STRIKE 2 LAC 0212 0213 AIRBASE",
        "strafing": "STRIKE 2 LAC 0212 0213 STRAFE",
    }
    for text in columns.values():
        assert isinstance(parse_line(text), Mission)


def test_seq_5d_nm_aa_groups_pairs_from_the_top_and_an_odd_bottom_ship_alone() -> None:
    units = [
        replace(ship(J, "CA-1", SEA), stack=0),
        replace(ship(J, "CA-2", SEA), stack=1),
        replace(ship(J, "CV-1", SEA), stack=2, aa=7),
    ]
    state = make_state(
        units, air={A: {f"{ISL:04d}": Air(lac=4)}}, bases=[base(ISL, A, air=30)], round=AIR5
    )
    g = Game(state)
    (e,) = g.validate(A, f"STRIKE 4 LAC {ISL:04d} {SEA:04d} SHIPS 3").errors
    assert e.rule == "AMAC.B"
    g.play({A: f"STRIKE 4 LAC {ISL:04d} {SEA:04d} SHIPS 2"}, dice=[6] * 10)
    (wave,) = strikes(g, "AM.BOMBNAV.SEQ")
    assert wave["ships"] == ["CV-1"] and wave["aa"]["aa"] == 7


# --- a carrier battle on the real map and data ---------------------------------------------


def test_seq_5f_seq_5g_seq_5l_coral_sea_carrier_battle_keeps_every_air_point_accounted() -> None:
    """Coral Sea counters on the real map, the carriers two hexes apart; for many seeds,
    every air point that took off either lands within capacity or is in the combat
    ledger as lost, and no damaged carrier keeps aircraft aboard (CBT.H)."""
    from pbem.core.dice import SeededDice
    from pbem.rulesets.usn.ruleset import UsnRuleset
    from pbem.rulesets.usn.sequence import rounds_for
    from pbem.rulesets.usn.state import GameState

    rs = UsnRuleset(load_world(), world_geo())
    start = GameState.from_json(rs.initial_state("coral-sea", {}))
    x, y = 829, 763  # open sea off Guadalcanal, two hexes apart
    assert rs.geo.is_sea(x) and rs.geo.is_sea(y)
    units = dict(start.units)
    for k, u in units.items():
        if u.side == A and u.hex == 899:
            units[k] = replace(u, hex=x, in_base=False)
        if u.side == J and u.hex == 754:
            units[k] = replace(u, hex=y, in_base=False)
    air5 = [r.key for r in rounds_for(start)].index("air-5")  # after the set-up rounds
    battle = replace(start, units=units, round=air5).to_json()
    orders = {
        A: f"CAP 2 NAC CV-5\nSTRIKE 9 NAC CV-2 {y:04d} SHIPS 2\nSTRIKE 3 NAC CV-5 {y:04d} SHIPS 1",
        J: f"CAP 3 NAC CV-4\nSTRIKE 8 NAC CV-3 {x:04d} SHIPS 2\nSTRIKE 4 NAC CV-4 {x:04d} SHIPS 1",
    }
    accepted = {}
    for side, text in orders.items():
        v = rs.validate(battle, side, text)
        assert not v.errors, v.errors
        accepted[side] = list(v.accepted)

    def total(s: GameState, side: str) -> int:
        return sum(a.total for a in s.air.get(side, {}).values())

    hits = 0
    for seed in range(12):
        result = rs.adjudicate(battle, accepted, SeededDice(bytes([seed]), "t", 1, "air-5"))
        after = GameState.from_json(dict(result.state))
        assert after.round == air5 + 1
        lost = {A: 0, J: 0}
        for e in after.extra.get("combat_ledger", []):
            if e["kind"] == "air":
                lost[e["side"]] += e["points"]
        for side in (A, J):
            assert total(after, side) + lost[side] == total(start, side)
        for u in after.units.values():
            held = after.air_at(u.side, u.uid).total
            assert held <= max(u.capacity, 0) or not u.is_carrier
            if u.is_carrier and u.damaged:
                assert held == 0
        kinds = [e.kind for e in result.events]
        assert kinds.count("air-strike") == 4
        assert all(e.witnesses is None for e in result.events if e.kind == "air-strike")
        hits += sum(1 for e in result.events if e.kind in ("ship-damaged", "destroyed"))
    assert hits > 0  # over twelve seeds some bombs find their mark


# --- property ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lac=st.integers(0, 12),
    lbac=st.integers(0, 6),
    nac_a=st.integers(0, 8),
    nac_j=st.integers(0, 8),
    lac_j=st.integers(0, 8),
    plans=st.lists(st.tuples(st.integers(0, 7), st.integers(1, 12)), max_size=7),
    rolls=st.lists(st.integers(1, 6), min_size=200, max_size=200),
)
def test_amac_c_seq_5l_property_every_air_point_lands_or_is_lost(
    lac: int,
    lbac: int,
    nac_a: int,
    nac_j: int,
    lac_j: int,
    plans: list[tuple[int, int]],
    rolls: list[int],
) -> None:
    """Random plots of both sides over a carrier group, an island base and an atoll:
    air points are conserved (landed + ledger losses), nothing exceeds its capacity,
    no carrier that was damaged keeps aircraft."""
    units = [
        replace(ship(J, "CV-1", SEA), defense=5, aa=5, stack=0, capacity=8),
        replace(ship(J, "CA-1", SEA), defense=5, aa=5, stack=1),
        replace(ship(A, "CV-5", CV_A), capacity=8),
        land(J, "RGT-9", ATOLL),
    ]
    air = {
        A: {f"{ISL:04d}": Air(lac=lac, lbac=lbac), "CV-5": Air(nac=nac_a)},
        J: {"CV-1": Air(nac=nac_j), f"{ATOLL:04d}": Air(lac=lac_j)},
    }
    state = make_state(
        units,
        air=air,
        bases=[base(ISL, A, air=30), base(ATOLL, J, air=10, naval=False)],
        round=AIR5,
        extra=RANGES,
    )
    menu = [
        (A, f"STRIKE {{n}} LAC {ISL:04d} {SEA:04d} SHIPS 1"),
        (A, f"STRIKE {{n}} LBAC {ISL:04d} {ATOLL:04d} AIRBASE"),
        (A, f"STRIKE {{n}} NAC CV-5 {SEA:04d} SHIPS 1"),
        (A, f"CAP {{n}} LAC {ISL:04d}"),
        (J, f"STRIKE {{n}} NAC CV-1 {CV_A:04d} SHIPS 1"),
        (J, f"STRIKE {{n}} LAC {ATOLL:04d} {ISL:04d} STRAFE"),
        (J, "CAP {n} NAC CV-1"),
        (J, f"STRIKE {{n}} NAC CV-1 {ISL:04d} AIRBASE"),
    ]
    texts: dict[str, list[str]] = {A: [], J: []}
    for i, n in plans:
        side, line = menu[i]
        texts[side].append(line.format(n=n))
    g = Game(state)
    accepted = {s: list(g.validate(s, "\n".join(t)).accepted) for s, t in texts.items()}
    start = g.s
    from pbem.core.dice import ScriptedDice

    result = g.rs.adjudicate(g.state, accepted, ScriptedDice(rolls))
    after = type(start).from_json(dict(result.state))
    lost = {A: 0, J: 0}
    for e in after.extra.get("combat_ledger", []):
        if e["kind"] == "air":
            lost[e["side"]] += e["points"]
    for side in (A, J):
        before = sum(a.total for a in start.air.get(side, {}).values())
        now = sum(a.total for a in after.air.get(side, {}).values())
        assert now + lost[side] == before
        for loc, a in after.air.get(side, {}).items():
            assert a.lac >= 0 and a.nac >= 0 and a.lbac >= 0
            if loc.isdigit():
                assert a.total <= max(after.bases[int(loc)].air_capacity, 0) or a.total == 0
            else:
                carrier = after.units[f"{side}/{loc}"]
                # An emptied record may stay behind; aircraft may not.
                assert a.total == 0 or (a.total <= carrier.capacity and not carrier.damaged)


# --- CG1.SHOCK: the combat side of the Shock turn ----------------------------------------


def test_cg1_shock_nav13_rulebook_dd_example_and_land_defense_third() -> None:
    """'an Allied DD unit would have a Defense Strength of "one", a Surface Attack
    Strength of "one," and an Anti-Aircraft Strength of "four"' (DD 4/12/4)."""
    from pbem.rulesets.usn.naval_combat import strength

    shock = replace(make_state([]), scenario="campaign-1", turn=1)
    dd = replace(ship(A, "DD-1", SEA), defense=4, aa=12, sa=4)
    assert [strength(shock, dd, v) for v in ("defense", "sa", "aa")] == [1, 1, 4]
    assert strength(replace(shock, turn=2), dd, "aa") == 12
    assert strength(shock, replace(dd, side=J), "aa") == 12
    assert strength(shock, land(A, "RGT-1", ISL), "defense") == 5  # 15 / 3
    assert strength(shock, replace(land(A, "CD-1", ISL), defense=20), "defense") == 20


def test_cg1_shock_jnac10_japanese_nac_bomb_at_ten_per_point() -> None:
    shock = replace(make_state([]), scenario="campaign-3", turn=1)
    nac = Flight(J, "NAC", 3, "CV-1", SEA, "STRIKE", ISL)
    assert nac.bombardment(shock, naval=True) == 30
    assert nac.bombardment(replace(shock, turn=2), naval=True) == 21
    assert Flight(A, "NAC", 3, "CV-5", SEA, "STRIKE", ISL).bombardment(shock, naval=True) == 33


def test_cg1_shock_noair_allied_aircraft_fly_no_missions_in_step_9() -> None:
    state = make_state(
        [land(A, "RGT-1", ISL2)],
        air={A: {f"{ISL:04d}": Air(lac=5)}},
        bases=[base(ISL, A, air=30)],
        round=5,  # air-9
    )
    g = Game(replace(state, scenario="campaign-1"))
    (e,) = g.validate(A, f"CAP 5 LAC {ISL:04d}").errors
    assert e.rule == "CG1.SHOCK.NOAIR"
    g2 = Game(replace(state, scenario="campaign-1", turn=2, last_turn=3))
    assert not g2.validate(A, f"CAP 5 LAC {ISL:04d}").errors


def test_cg1_shock_allied_base_aa_at_a_third() -> None:
    units = [replace(ship(J, "CV-1", ISL2), capacity=12)]
    state = make_state(
        units,
        air={J: {"CV-1": Air(nac=12)}},
        bases=[base(ISL, A, air=10)],
        round=AIR5,
    )
    g = Game(replace(state, scenario="campaign-1"))
    g.play({J: f"STRIKE 12 NAC CV-1 {ISL:04d} AIRBASE"}, dice=[6] * 10)
    (hit,) = strikes(g, "AM.BASE.RESOLVE")
    assert hit["aa"]["aa"] == 3  # capacity 10 / 3, fraction dropped
    assert hit["attack"]["attack"] == 120  # and the NAC bomb at ten a point


def test_seq_5d_groups_stand_for_the_phase_a_sinking_does_not_re_pair_the_stack() -> None:
    units = [
        replace(ship(J, "CA-1", SEA), stack=0, damage=35),
        replace(ship(J, "CA-2", SEA), stack=1),
        replace(ship(J, "CV-1", SEA), stack=2),
        replace(ship(J, "CV-2", SEA), stack=3),
    ]
    state = make_state(
        units, air={A: {f"{ISL:04d}": Air(lac=20)}}, bases=[base(ISL, A, air=30)], round=AIR5
    )
    g = Game(state)
    text = f"STRIKE 10 LAC {ISL:04d} {SEA:04d} SHIPS 1\nSTRIKE 10 LAC {ISL:04d} {SEA:04d} SHIPS 2"
    g.play({A: text}, dice=[1] * 30)
    first, second = strikes(g, "AM.BOMBNAV.SEQ")
    assert first["ships"] == ["CA-1", "CA-2"]
    assert g.s.unit(J, "CA-1") is None  # 35 + 15 weeks: sunk by the first strike
    assert second["ships"] == ["CV-1", "CV-2"]
