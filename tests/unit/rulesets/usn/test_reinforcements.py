"""Reinforcements and replacements at Step 1 (SEQ.1, REIN.*, RPL.*)."""

from __future__ import annotations

from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.state import Pending

from .builders import HOME, Game, H, base, land, make_state, ship

J, A = "japanese", "allied"
PEARL = 1456


def test_seq_1_reinforcement_arrives_at_its_chart_hex() -> None:
    p = Pending(2, A, ship(A, "CA-2", None), place=str(PEARL))
    g = Game(make_state([], pending=[p], bases=[base(PEARL, A, air=30)]))
    for _ in range(6):
        g.play({})
    assert g.s.unit(A, "CA-2") is None  # not before its turn
    g.play({})  # turn 2, J-2: step 1 runs first
    u = g.unit(A, "CA-2")
    assert u.hex == PEARL and u.in_base and u.arrived_turn == 2
    assert any(e.kind == "reinforcement" and e.rule == "SEQ.1" for e in g.events)


def test_rein_a_default_arrivals_on_the_west_coast() -> None:
    g = Game(make_state([], pending=[Pending(1, A, ship(A, "BB-4", None))]))
    g.play({})
    assert g.unit(A, "BB-4").box == "WC"


def test_rein_a_lbac_at_pearl_harbor_else_west_coast() -> None:
    g = Game(
        make_state(
            [],
            pending=[Pending(1, A, air_type="LBAC", air_points=1)],
            bases=[base(PEARL, A, air=30)],
        )
    )
    g.play({})
    assert g.s.air_at(A, f"{PEARL:04d}").lbac == 1
    g2 = Game(
        make_state(
            [],
            pending=[Pending(1, A, air_type="LBAC", air_points=1)],
            bases=[base(PEARL, J, air=30)],
        )
    )
    g2.play({})
    assert g2.s.air_at(A, "WC").lbac == 1


def test_rein_j_default_anywhere_in_japan_then_placed() -> None:
    port2 = HOME[2]
    p = Pending(1, J, land(J, "DIV-5", None, tp=12))
    g = Game(make_state([], pending=[p], bases=[base(HOME[0], J, air=10), base(port2, J)]))
    g.play({J: f"PLACE DIV-5 {HOME[1]:04d}"})
    assert g.unit(J, "DIV-5").hex == HOME[1]


def test_rein_entryhex_place_refused_outside_the_region_or_for_old_units() -> None:
    p = Pending(1, J, land(J, "DIV-5", None, tp=12))
    g = Game(make_state([land(J, "RGT-1", HOME[0])], pending=[p], bases=[base(HOME[0], J)]))
    errors = g.validate(J, f"PLACE DIV-5 {H(20, 20):04d}\nPLACE RGT-1 {HOME[1]:04d}").errors
    assert [e.rule for e in errors] == ["REIN.ENTRYHEX", "REIN.ENTRYHEX"]


def test_rein_j_nac_arrive_untrained() -> None:
    g = Game(
        make_state(
            [],
            pending=[Pending(1, J, air_type="NAC", air_points=1)],
            bases=[base(HOME[0], J, air=10)],
        )
    )
    g.play({})
    a = g.s.air_at(J, f"{HOME[0]:04d}")
    assert a.nac == 1 and a.nac_new == 1


def test_rpl_eng_engineer_replaced_five_turns_after_loss() -> None:
    from pbem.rulesets.usn.work import Work, destroy

    from .builders import stub_geo

    s = make_state([land(J, "ENG-1", HOME[0])], turn=4, last_turn=10, bases=[base(HOME[0], J)])
    w = Work.start(stub_geo(), s)
    destroy(w, w.units["japanese/ENG-1"], "test", "CRT1.DX")
    (p,) = w.state.pending
    assert p.turn == 9 and p.unit is not None and p.unit.uid == "ENG-1"


def test_rpl_tr_transport_replaced_four_turns_after_loss_with_its_cargo_lost() -> None:
    from pbem.rulesets.usn.work import Work, destroy

    from .builders import stub_geo

    tr = ship(A, "TR-1", H(20, 5))
    rgt = land(A, "RGT-1", None, carried_by="TR-1")
    w = Work.start(stub_geo(), make_state([tr, rgt], turn=3, last_turn=10))
    destroy(w, tr, "test", "CRT5.X")
    assert "allied/RGT-1" not in w.units
    assert [(p.turn, p.unit.uid) for p in w.state.pending if p.unit] == [(7, "TR-1")]


def test_rein_check_rein_table_arrivals_come_from_the_scenario_chart() -> None:
    """REIN.CHECK: the chart is read at the start of every turn (only due rows arrive)."""
    ps = [Pending(1, A, ship(A, "DD-11", None)), Pending(2, A, ship(A, "CA-4", None))]
    g = Game(make_state([], pending=ps))
    g.play({})
    assert g.s.unit(A, "DD-11") is not None and g.s.unit(A, "CA-4") is None
    assert [p.turn for p in g.s.pending] == [2]


def test_rein_airpts_rein_navid_rein_landstr_arrivals_by_points_id_and_strength() -> None:
    ps = [
        Pending(1, A, air_type="LAC", air_points=3, place=str(PEARL)),
        Pending(1, A, ship(A, "CV-6", None), place=str(PEARL)),
        Pending(1, A, land(A, "RGT-4", None), place=str(PEARL)),
    ]
    g = Game(make_state([], pending=ps, bases=[base(PEARL, A, air=30)]))
    g.play({})
    assert g.s.air_at(A, f"{PEARL:04d}").lac == 3
    assert g.unit(A, "CV-6").hex == PEARL and g.unit(A, "RGT-4").hex == PEARL


def test_rein_a_nac_arrive_aboard_their_carrier() -> None:
    ps = [
        Pending(1, A, ship(A, "CV-6", None, capacity=20), place=str(PEARL)),
        Pending(1, A, air_type="NAC", air_points=17, place="CV-6"),
    ]
    g = Game(make_state([], pending=ps, bases=[base(PEARL, A, air=30)]))
    g.play({})
    assert g.s.air_at(A, "CV-6").nac == 17


def test_rein_note_a_tr4_withdrawn_from_the_west_coast() -> None:
    tr = ship(A, "TR-4", None, box="WC", in_base=True)
    g = Game(make_state([tr], round=5, turn=1, extra={"withdrawals": [[1, A, "TR-4"]]}))
    g.play({})
    assert g.s.unit(A, "TR-4") is None
    assert any(e.kind == "withdrawn" and e.rule == "REIN.NOTE.A" for e in g.events)
    g2 = Game(
        make_state([ship(A, "TR-4", H(30, 5))], round=5, extra={"withdrawals": [[1, A, "TR-4"]]})
    )
    g2.play({})
    assert any(e.kind == "withdrawal-missed" for e in g2.events)


# --- the chart in the real data -------------------------------------------------------


def _cg3_pending() -> list[Pending]:
    from pbem.rulesets.usn.ruleset import UsnRuleset
    from pbem.rulesets.usn.state import GameState

    return list(
        GameState.from_json(
            UsnRuleset(load_world(), world_geo()).initial_state("campaign-3", {})
        ).pending
    )


def test_err_rein_5_dd11_not_dd10_on_turn_5() -> None:
    t5 = [p.unit.uid for p in _cg3_pending() if p.turn == 5 and p.unit and p.side == A]
    assert "DD-11" in t5 and "DD-10" not in t5


def test_err_rein_31_cve1_and_two_nac() -> None:
    t31 = [p for p in _cg3_pending() if p.turn == 31 and p.side == A]
    assert any(p.unit and p.unit.uid == "CVE-1" for p in t31)
    assert [(p.air_type, p.air_points, p.place) for p in t31 if p.air_type] == [("NAC", 2, "CVE-1")]


def test_err_rein_48_bb6_arrives() -> None:
    assert any(p.unit and p.unit.uid == "BB-6" for p in _cg3_pending() if p.turn == 48)


def test_rein_a_nac_with_their_carrier_and_lbac_not_aboard() -> None:
    t5 = [p for p in _cg3_pending() if p.turn == 5 and p.side == A and p.air_type]
    assert ("NAC", "CV-5") in [(p.air_type, p.place) for p in t5]
    assert ("LBAC", None) in [(p.air_type, p.place) for p in t5]


def test_rein_note_b_burma_arrivals_only_with_the_option() -> None:
    from pbem.rulesets.usn.loader import load_world

    burma = [a for a in load_world().scenario("campaign-3").arrivals if a.requires == "burma"]
    assert burma
    plain = {(p.turn, p.unit.uid) for p in _cg3_pending() if p.unit}
    assert not any((a.turn, uid) in plain for a in burma for uid in a.units)
    from pbem.rulesets.usn.ruleset import UsnRuleset
    from pbem.rulesets.usn.state import GameState

    opt = GameState.from_json(
        UsnRuleset(load_world(), world_geo()).initial_state("campaign-3", {"burma": True})
    )
    with_option = {(p.turn, p.unit.uid) for p in opt.pending if p.unit}
    assert all((a.turn, uid) in with_option for a in burma for uid in a.units)
