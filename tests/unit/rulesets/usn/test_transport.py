"""Transports and emergency transport (NM.TRANS.*, NM.EMERG.*, MOV.J, MOV.K, SEQ.2D, SEQ.2E)."""

from __future__ import annotations

from pbem.rulesets.usn import transport
from pbem.rulesets.usn.orders import Embark
from pbem.rulesets.usn.state import Air
from pbem.rulesets.usn.work import Work

from .builders import AUS, HOME, ISLAND, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
PORT = HOME[0]


def jgame(*units, geo=None, **kw):
    return Game(make_state(list(units), bases=kw.pop("bases", [base(PORT, J)]), **kw), geo)


def test_nm_trans_cost_embark_costs_one_mp_for_tr() -> None:
    g = jgame(ship(J, "TR-1", PORT, ma=3), land(J, "RGT-1", PORT))
    g.play({J: f"EMBARK TR-1 RGT-1\nCONTINUE TR-1 {H(2, 1):04d}"})
    assert g.unit(J, "RGT-1").carried_by == "TR-1"
    near = ship(A, "DD-9", H(6, 2))  # no double speed (MOV.N)
    g2 = jgame(ship(J, "TR-1", H(2, 1), ma=3), land(J, "RGT-1", PORT), near)
    text = f"MOVE TR-1 {PORT:04d}\nEMBARK TR-1 RGT-1\nCONTINUE TR-1 {H(2, 1):04d} {H(2, 0):04d}"
    (e,) = g2.validate(J, text).errors
    assert e.line == 3 and "can move 1 more hexes" in e.message


def test_nm_trans_at_pays_nothing_to_load() -> None:
    at = ship(A, "AT-1", AUS[0], ma=2)
    g = Game(make_state([at, land(A, "RGT-1", AUS[0])], bases=[base(AUS[0], A)], round=1))
    text = f"EMBARK AT-1 RGT-1\nCONTINUE AT-1 {H(10, 19):04d} {H(10, 18):04d}"
    assert not g.validate(A, text).errors


def test_nm_trans_cap_def_tp_embark_over_capacity_refused() -> None:
    g = jgame(ship(J, "TR-1", PORT, capacity=6), land(J, "DIV-1", PORT, tp=12))
    (e,) = g.validate(J, "EMBARK TR-1 DIV-1").errors
    assert (
        e.rule == "NM.TRANS.CAP"
        and "can take 6 more transport points; this load needs 12" in e.message
    )


def test_nm_trans_hidden_cargo_seen_only_by_its_owner() -> None:
    g = jgame(ship(J, "TR-1", PORT), land(J, "RGT-1", PORT))
    g.play({J: "EMBARK TR-1 RGT-1"})
    (ev,) = [e for e in g.events if e.kind == "embarked"]
    assert ev.witnesses == (J,) and ev.rule == "NM.TRANS.HIDDEN"
    view = g.rs.view(g.state, g.events, A)
    # H1 (docs/usn-fog.md): with TR-1 still in port, RGT-1 shows ashore as before loading.
    (rgt,) = [u for u in view["enemy_units"] if u["id"] == "RGT-1"]
    assert rgt["at"] == f"{PORT:04d}" and "aboard" not in rgt
    assert not [e for e in view["events"] if e["kind"] == "embarked"]


def test_nm_trans_debark_reveals_and_mov_j_lands_in_the_naval_phase() -> None:
    tr = ship(J, "TR-1", ISLAND[0])
    rgt = land(J, "RGT-1", None, carried_by="TR-1")
    g = jgame(tr, rgt)
    g.play({J: "DEBARK TR-1 RGT-1"})
    assert g.unit(J, "RGT-1").hex == ISLAND[0]
    (ev,) = [e for e in g.events if e.kind == "debarked"]
    assert ev.witnesses is None


def test_seq_2d_no_unopposed_debark_onto_enemy_units() -> None:
    """SEQ.2D: no debarking past enemy ships or a CD unit (AMP.CD); onto enemy land units
    alone a DEBARK only pays for the opposed landing (NM.TRANS.OPPOSED)."""
    g = jgame(
        ship(J, "TR-1", ISLAND[0]),
        land(J, "RGT-1", None, carried_by="TR-1"),
        land(A, "BN-1", ISLAND[0]),
        ship(A, "CA-1", ISLAND[0]),
    )
    (e,) = g.validate(J, "DEBARK TR-1 RGT-1").errors
    assert e.rule == "SEQ.2D" and "LAND" in e.message


def test_nm_trans_opposed_movement_point_paid_in_the_naval_phase() -> None:
    """NM.TRANS.OPPOSED: "If the hex is Enemy occupied, the Player must expend the
    movement cost during a naval movement phase, but debark the unit in a Friendly Land
    Attack Phase." The TR's DEBARK in step 8 pays the point (the units stay aboard);
    without it the LAND of step 9 is refused."""
    units = [
        ship(J, "TR-1", ISLAND[0]),
        land(J, "RGT-1", None, carried_by="TR-1", attack=30),
        land(A, "BN-1", ISLAND[0], defense=2),
    ]
    g9 = jgame(*units, round=5)
    (e,) = g9.validate(J, "LAND TR-1 RGT-1").errors
    assert e.rule == "NM.TRANS.OPPOSED"
    g = jgame(*units, round=4)
    g.play({J: "DEBARK TR-1 RGT-1"})
    assert g.unit(J, "RGT-1").carried_by == "TR-1"
    assert any(e.kind == "landing-prepared" for e in g.events)
    g.play({J: "LAND TR-1 RGT-1", A: ""}, dice=[1] * 10)
    assert g.unit(J, "RGT-1").hex == ISLAND[0]
    assert "landings" not in g.s.extra


def test_nm_trans_alliedwait_two_phases_at_a_hex_without_base() -> None:
    tr = ship(A, "TR-1", ISLAND[0], wait=1)
    g = Game(make_state([tr, land(A, "RGT-1", None, carried_by="TR-1")], round=1))
    (e,) = g.validate(A, "DEBARK TR-1 RGT-1").errors
    assert e.rule == "NM.TRANS.ALLIEDWAIT"
    g.play({})  # step 4: TR-1 waits a second phase
    g.play({})
    g.play({A: "DEBARK TR-1 RGT-1"})  # step 6
    assert g.unit(A, "RGT-1").hex == ISLAND[0]


def test_nm_trans_alliedhex_allied_tr_not_where_enemy_units_are() -> None:
    tr = ship(A, "TR-1", ISLAND[0], wait=2)
    g = Game(make_state([tr, land(A, "RGT-1", ISLAND[0]), land(J, "RGT-9", ISLAND[0])], round=1))
    (e,) = g.validate(A, "EMBARK TR-1 RGT-1").errors
    assert e.rule == "NM.TRANS.ALLIEDHEX"


def test_nm_trans_air_only_allied_transports_carry_aircraft_at_air_bases() -> None:
    h = AUS[0]
    g = Game(
        make_state(
            [ship(A, "TR-1", h)],
            air={A: {f"{h:04d}": Air(lac=6)}},
            bases=[base(h, A, air=10)],
            round=1,
        )
    )
    g.play({A: "EMBARK TR-1 4 LAC"})
    assert g.s.air_at(A, "TR-1").lac == 4 and g.s.air_at(A, f"{h:04d}").lac == 2
    jg = jgame(
        ship(J, "TR-1", PORT), air={J: {f"{PORT:04d}": Air(lac=6)}}, bases=[base(PORT, J, air=10)]
    )
    (e,) = jg.validate(J, "EMBARK TR-1 4 LAC").errors
    assert e.rule == "NM.TRANS.AIR"


def test_rein_a_lac_unlimited_onto_a_transport_at_the_west_coast() -> None:
    g = Game(make_state([ship(A, "TR-1", None, box="WC", in_base=True)], round=1))
    g.play({A: "EMBARK TR-1 10 LAC"})
    assert g.s.air_at(A, "TR-1").lac == 10


def test_mov_k_one_vehicle_per_phase() -> None:
    g = jgame(ship(J, "TR-1", PORT), ship(J, "TR-2", PORT), land(J, "RGT-1", PORT))
    text = "EMBARK TR-1 RGT-1\nDEBARK TR-1 RGT-1\nEMBARK TR-2 RGT-1"
    errors = g.validate(J, text).errors
    assert [e.rule for e in errors] == ["MOV.K"]


def test_nm_emerg_roundtrip_must_return_to_start() -> None:
    dd = ship(J, "DD-1", PORT, ma=6)
    snlf = land(J, "SNLF-1", PORT, tp=2)
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class1"})
    g = jgame(dd, snlf, geo=geo)
    g.play({J: f"EMERGENCY DD-1 SNLF-1 {dest:04d}"})
    assert g.unit(J, "SNLF-1").hex == dest and g.unit(J, "DD-1").hex == PORT
    far = H(6, 2)
    g2 = jgame(dd, snlf, geo=stub_geo(land={far: "class1"}))
    (e,) = g2.validate(J, f"EMERGENCY DD-1 SNLF-1 {far:04d}").errors
    assert e.rule == "NM.EMERG.ROUNDTRIP"


def test_nm_emerg_cap_and_units() -> None:
    g = jgame(
        ship(J, "DD-1", PORT), land(J, "DIV-1", PORT, tp=12), geo=stub_geo(land={H(2, 5): "class1"})
    )
    (e,) = g.validate(J, f"EMERGENCY DD-1 DIV-1 {H(2, 5):04d}").errors
    assert e.rule == "NM.EMERG.CAP"
    ga = Game(make_state([ship(A, "CL-1", AUS[0]), land(A, "BN-1", AUS[0], tp=2)], round=1))
    (e,) = ga.validate(A, f"EMERGENCY CL-1 BN-1 {AUS[1]:04d}").errors
    assert e.rule == "NM.EMERG.UNITS"


def test_sup_f_nm_emerg_supply_run_supplies_one_division_for_the_turn() -> None:
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class1"})
    units = [
        ship(J, "DD-1", PORT, ma=6, in_base=True),
        land(J, "DIV-1", dest, tp=12, supplied=False),
        land(J, "RGT-1", dest, tp=4, supplied=False),
    ]
    g = jgame(*units, geo=geo)
    g.play({J: f"EMERGENCY DD-1 SUPPLY {dest:04d}"})
    assert g.unit(J, "DIV-1").emergency_supply_turn == 1
    assert g.unit(J, "RGT-1").emergency_supply_turn == 0  # only 12 TP of supply


def test_seq_2e_nm_emerg_cost_no_mp_for_loading_and_it_is_the_whole_move() -> None:
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class1"})
    g = jgame(ship(J, "DD-1", PORT, ma=4), land(J, "SNLF-1", PORT, tp=2), geo=geo)
    text = f"EMERGENCY DD-1 SNLF-1 {dest:04d}\nCONTINUE DD-1 {H(2, 1):04d}"
    v = g.validate(J, text)
    # 2 + 2 = 4 hexes: loading costs nothing, but the round trip is the whole move.
    assert len(v.accepted) == 1 and [e.line for e in v.errors] == [2]
    g.play({J: f"EMERGENCY DD-1 SNLF-1 {dest:04d}"})
    assert g.unit(J, "DD-1").hex == PORT


def test_nm_trans_units_only_transports_embark() -> None:
    g = jgame(ship(J, "CA-1", PORT), land(J, "RGT-1", PORT))
    (e,) = g.validate(J, "EMBARK CA-1 RGT-1").errors
    assert e.rule == "NM.TRANS.UNITS"


def test_nm_emerg_units_allied_cl_may_not() -> None:
    ga = Game(make_state([ship(A, "CL-1", AUS[0]), land(A, "BN-1", AUS[0], tp=2)], round=1))
    (e,) = ga.validate(A, f"EMERGENCY CL-1 BN-1 {AUS[1]:04d}").errors
    assert e.rule == "NM.EMERG.UNITS"


def test_off_wcload_transport_spends_a_full_phase_loading_at_the_west_coast() -> None:
    tr = ship(A, "TR-1", None, box="E1", heading="out")
    g = Game(make_state([tr], round=3))  # TR-1 reaches the West Coast this phase
    (e,) = g.validate(A, "EMBARK TR-1 10 LAC").errors
    assert e.rule == "OFF.WCLOAD"
    for _ in range(4):
        g.play({})
    g.play({A: "EMBARK TR-1 10 LAC"})  # next turn's step 4: a full phase at the West Coast
    assert g.s.air_at(A, "TR-1").lac == 10


def test_nm_trans_air_cargo_and_enemy_carrier_air_hidden_in_views() -> None:
    units = [ship(A, "TR-1", H(20, 5)), ship(A, "CV-5", H(20, 6))]
    air = {A: {"TR-1": Air(lac=5), "CV-5": Air(nac=8), f"{AUS[0]:04d}": Air(lac=3)}}
    g = Game(make_state(units, air=air, bases=[base(AUS[0], A, air=10)]))
    seen = g.rs.view(g.state, [], J)["air"].get(A, {})
    assert seen == {f"{AUS[0]:04d}": {"LAC": 3, "NAC": 0, "LBAC": 0}}
    own = g.rs.view(g.state, [], A)["air"][A]
    assert own["TR-1"]["LAC"] == 5 and own["CV-5"]["NAC"] == 8


def test_nm_emerg_cap_tp_japanese_destroyer_carries_two_snlf() -> None:
    """NM.EMERG.CAP: "Japanese Destroyer and Light Cruiser units have a Transport
    Capacity of four points ... at the same number of Transport Points for units as
    given in the schedule for normal transport" (SNLF: 2): two SNLF fill a DD."""
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class1"})
    g = jgame(
        ship(J, "DD-1", PORT, ma=6),
        land(J, "SNLF-1", PORT, tp=2),
        land(J, "SNLF-2", PORT, tp=2),
        land(J, "SNLF-3", PORT, tp=2),
        geo=geo,
    )
    (e,) = g.validate(J, f"EMERGENCY DD-1 SNLF-1 SNLF-2 SNLF-3 {dest:04d}").errors
    assert e.rule == "NM.EMERG.CAP"
    g.play({J: f"EMERGENCY DD-1 SNLF-1 SNLF-2 {dest:04d}"})
    assert g.unit(J, "SNLF-1").hex == dest and g.unit(J, "SNLF-2").hex == dest
    assert g.unit(J, "SNLF-3").hex == PORT and g.unit(J, "DD-1").hex == PORT


def test_amp_trans_nm_emerg_no_emergency_landing_in_enemy_held_class_2_hex() -> None:
    """AMP.TRANS / ERR.AMP: "Only Japanese Transports and Allied Assault Transports may
    perform an opposed debarkation, whether Class 1 or 2 land hexes." A destroyer's
    emergency transport may not put troops ashore where enemy land units are."""
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class2"})
    g = jgame(
        ship(J, "DD-1", PORT, ma=6), land(J, "SNLF-1", PORT, tp=2), land(A, "BN-1", dest), geo=geo
    )
    (e,) = g.validate(J, f"EMERGENCY DD-1 SNLF-1 {dest:04d}").errors
    assert e.rule == "AMP.TRANS"


def test_sup_f_nm_emerg_supply_second_run_supplies_the_second_division() -> None:
    """SUP.F / NM.EMERG.SUPPLY: "Each transporting unit may supply as much as one
    division for one Game-Turn": two runs to a hex of two divisions supply both."""
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class1"})
    units = [
        ship(J, "DD-1", PORT, ma=6, in_base=True),
        ship(J, "DD-2", PORT, ma=6, in_base=True),
        land(J, "DIV-1", dest, tp=12, supplied=False),
        land(J, "DIV-2", dest, tp=12, supplied=False),
    ]
    g = jgame(*units, geo=geo)
    g.play({J: f"EMERGENCY DD-1 SUPPLY {dest:04d}\nEMERGENCY DD-2 SUPPLY {dest:04d}"})
    assert g.unit(J, "DIV-1").emergency_supply_turn == 1
    assert g.unit(J, "DIV-2").emergency_supply_turn == 1


def test_nm_trans_opposed_debark_onto_enemy_costs_the_tr_one_point() -> None:
    """NM.TRANS.OPPOSED / NM.TRANS.COST: the opposed landing's movement cost (one for a
    TR) is spent in the naval phase."""
    s = make_state(
        [
            ship(J, "TR-1", ISLAND[0]),
            land(J, "RGT-1", None, carried_by="TR-1"),
            land(A, "BN-1", ISLAND[0]),
        ]
    )
    w = Work.start(stub_geo(), s)
    w.begin_phase(J, 2)
    transport.do_embark(w, Embark("TR-1", ("RGT-1",), debark=True))
    assert w.spent["japanese/TR-1"] == 1
    assert w.state.extra["landings"]["japanese/TR-1"]["units"] == ["RGT-1"]
