"""Bases, ship repair and replacements (BASE.*, BUILD.*, REP.*, RPL.*), with scripted dice."""

from __future__ import annotations

from dataclasses import replace

from pbem.core.dice import ScriptedDice
from pbem.core.errors import IllegalOrderError
from pbem.rulesets.usn import bases as bs
from pbem.rulesets.usn.orders import Simple
from pbem.rulesets.usn.state import GameState
from pbem.rulesets.usn.work import Work

from .builders import HOME, ISLAND, Game, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
ISL = ISLAND[0]


def work(state: GameState, side: str) -> Work:
    w = Work.start(stub_geo(), state)
    w.side = side
    return w


def test_base_m_defense_and_aa() -> None:
    b = base(ISL, A, air=10)
    assert bs.base_defense(b) == 10
    assert bs.base_aa(b, naval=True) == 20 and bs.base_aa(b, naval=False) == 10


def test_build_proc_needs_engineer_and_transport_err_build() -> None:
    """BUILD.PROC / ERR.BUILD (A8): the Allies need an AT, not a TR, to start."""
    s = make_state([land(A, "ENG-1", ISL), ship(A, "TR-1", ISL)])
    w = work(s, A)
    try:
        bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([6]))
    except IllegalOrderError as e:
        assert e.rule == "BUILD.PROC"
    else:  # pragma: no cover
        raise AssertionError("built without an AT")


def test_base_d_base_g_allied_build_needs_five_or_six_and_base_e_adds_five() -> None:
    s = make_state([land(A, "ENG-1", ISL, supplied=False), ship(A, "AT-1", ISL)])
    w = work(s, A)  # BASE.G: an engineer out of supply still works
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([4]))
    assert ISL not in w.bases
    # BUILD.PROC: the transport may leave once work has started.
    w.remove(w.units["allied/AT-1"])
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([5]))
    b = w.bases[ISL]
    assert (b.owner, b.air_capacity) == (A, 5)
    assert b.neutralized(w.state.turn)  # usable from the next turn
    bs.bookkeeping(w)
    w.state = replace(w.state, turn=w.state.turn + 1)
    w.put(ship(A, "AT-1", ISL))
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([6]))
    assert w.bases[ISL].air_capacity == 10  # enlarged by five, next turn


def test_base_d_japanese_need_a_six() -> None:
    s = make_state([land(J, "ENG-1", ISL), ship(J, "TR-1", ISL)])
    w = work(s, J)
    bs.do_build(w, Simple("BUILD", ("ENG-1", "NAVAL")), ScriptedDice([5]))
    assert ISL not in w.bases
    bs.do_build(w, Simple("BUILD", ("ENG-1", "NAVAL")), ScriptedDice([6]))
    assert w.bases[ISL].has_naval


def test_build_gen_repair_is_certain_after_one_turn() -> None:
    """BUILD.GEN: "repairs are accomplished definitely after one Game-Turn, while new
    building depends on the roll of the die" - a destroyed naval base, no roll."""
    s = make_state(
        [land(J, "ENG-1", ISL), ship(J, "TR-1", ISL)],
        bases=[replace(base(ISL, J, air=0, naval=True), naval_destroyed=True)],
    )
    w = work(s, J)
    bs.do_build(w, Simple("BUILD", ("ENG-1", "NAVAL")), ScriptedDice([]))
    assert not w.bases[ISL].has_naval
    bs.bookkeeping(w)
    assert w.bases[ISL].has_naval
    assert any(e.kind == "base-repaired" for e in w.events)


def test_base_j_base_destroy_air0_base_destroy_navx_base_proc_destroyed_sabotage() -> None:
    s = make_state([land(A, "ENG-1", ISL), land(A, "DIV-1", ISL)], bases=[base(ISL, A, air=10)])
    w = work(s, A)
    bs.do_sabotage(w, Simple("SABOTAGE", ("ENG-1", "AIR")), ScriptedDice([4]))
    assert w.bases[ISL].air_capacity == 5
    bs.do_sabotage(w, Simple("SABOTAGE", ("ENG-1", "AIR")), ScriptedDice([1]))
    assert not w.bases[ISL].has_air  # BASE.DESTROY.AIR0: capacity 0 is destroyed
    bs.do_sabotage(w, Simple("SABOTAGE", ("DIV-1", "NAVAL")), ScriptedDice([3]))  # needs 1-2
    assert w.bases[ISL].has_naval
    bs.do_sabotage(w, Simple("SABOTAGE", ("DIV-1", "NAVAL")), ScriptedDice([2]))
    assert not w.bases[ISL].has_naval  # BASE.DESTROY.NAVX / BASE.PROC.DESTROYED


def test_rep_where_rep_rate_am_base_neut_one_week_per_idle_turn_in_home_port() -> None:
    """REP.WHERE / REP.RATE (A16): a whole turn idle in a naval base in Japan."""
    port = HOME[0]
    s = make_state([ship(J, "CA-1", port, damage=3, in_base=True)], bases=[base(port, J)])
    w = work(s, J)
    bs.repair_ships(w)
    assert w.units["japanese/CA-1"].damage == 3  # first Step 10 in port: the watch begins
    bs.repair_ships(w)
    assert w.units["japanese/CA-1"].damage == 2
    # Not a proper port: an Allied ship is not repaired at an ordinary base.
    s2 = make_state([ship(A, "CA-1", ISL, damage=3, in_base=True)], bases=[base(ISL, A)])
    w2 = work(s2, A)
    bs.repair_ships(w2)
    bs.repair_ships(w2)
    assert w2.units["allied/CA-1"].damage == 3
    # AM.BASE.NEUT: a neutralized naval base repairs nothing.
    s3 = make_state(
        [ship(J, "CA-1", port, damage=3, in_base=True)],
        bases=[replace(base(port, J), neutralized_until=5)],
    )
    w3 = work(s3, J)
    bs.repair_ships(w3)
    bs.repair_ships(w3)
    assert w3.units["japanese/CA-1"].damage == 3


def test_rpl_gen_rpl_tr_rpl_at_rpl_where_heavily_damaged_transport_replaced_and_withdrawn() -> None:
    """RPL.TR (A17): 10+ weeks: a new TR in 4 turns; the damaged one leaves in port."""
    s = make_state([ship(J, "TR-1", 300, damage=12)], bases=[base(HOME[0], J)])
    w = work(s, J)
    bs.replace_damaged_transports(w)
    assert [(p.turn, p.unit.uid if p.unit else None) for p in w.state.pending] == [(5, "TR-1")]
    w.put(replace(w.units["japanese/TR-1"], hex=HOME[0], in_base=True))
    bs.replace_damaged_transports(w)
    assert "japanese/TR-1" not in w.units
    assert len(w.state.pending) == 1
    # RPL.AT: an assault transport with 20 weeks is replaced ten turns later.
    s2 = make_state([ship(A, "AT-1", 300, damage=19), ship(A, "AT-2", 300, damage=20)])
    w2 = work(s2, A)
    bs.replace_damaged_transports(w2)
    assert [(p.turn, p.unit.uid if p.unit else None) for p in w2.state.pending] == [(11, "AT-2")]


def test_seq_3c_build_order_by_mail_in_land_phase() -> None:
    """SEQ.3C: BUILD is an order of the land movement round."""
    s = make_state([land(A, "ENG-1", ISL), ship(A, "AT-1", ISL)], round=1)
    g = Game(s)
    v = g.validate(A, "BUILD ENG-1 AIR")
    assert not v.errors and v.accepted == ("BUILD ENG-1 AIR",)
    bad = g.validate(A, "BUILD ENG-1 HANGAR")
    assert bad.errors


def test_rep_move_damaged_ships_move_at_half_allowance() -> None:
    """REP.MOVE / CBT.H (A1): over 20 weeks of damage halves MA (floor, at least 1)."""
    from pbem.rulesets.usn.movement import movement_allowance

    assert movement_allowance(ship(J, "CA-1", 300, ma=5, damage=20)) == 5
    assert movement_allowance(ship(J, "CA-1", 300, ma=5, damage=21)) == 2


def test_base_f_base_e_two_engineers_succeeding_add_five_not_ten() -> None:
    """BASE.F: "Two engineer units attempting to build a base may roll twice to attempt
    it" - two chances at one base; BASE.E: "built in increments of five Air Points
    Capacity". Both succeeding in one phase still add five."""
    s = make_state([land(A, "ENG-1", ISL), land(A, "ENG-2", ISL), ship(A, "AT-1", ISL)])
    w = work(s, A)
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([6]))
    bs.do_build(w, Simple("BUILD", ("ENG-2", "AIR")), ScriptedDice([6]))
    assert w.bases[ISL].air_capacity == 5


def test_rep_rate_first_turn_in_port_counts() -> None:
    """REP.RATE (A16): "For every complete Game-Turn spent idle in the proper Naval Base,
    reduce the amount of damage by one week" - in base at the start of the turn and idle:
    a ship in port at the start of the game, or undamaged at the last Step 10 and damaged
    in port during the turn, is repaired at this turn's Step 10."""
    port = HOME[0]
    s = make_state(
        [ship(J, "CA-1", port, damage=1, in_base=True), ship(J, "CA-2", port, in_base=True)],
        bases=[base(port, J)],
    )
    w = work(s, J)
    w.begin_phase(J, 2)  # the game's first phase: the ships' start-of-turn places
    bs.repair_ships(w)
    assert w.units["japanese/CA-1"].damage == 0
    w.put(replace(w.units["japanese/CA-2"], damage=2))  # bombed in port next turn
    bs.repair_ships(w)
    assert w.units["japanese/CA-2"].damage == 1
