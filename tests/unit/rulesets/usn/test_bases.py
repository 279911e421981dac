"""Bases, ship repair and replacements (BASE.*, BUILD.*, REP.*, RPL.*), with scripted dice."""

from __future__ import annotations

from dataclasses import replace

from pbem.core.dice import ScriptedDice
from pbem.rulesets.usn import bases as bs
from pbem.rulesets.usn.movement import Refused, Work
from pbem.rulesets.usn.orders import Simple
from pbem.rulesets.usn.state import GameState

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
    except Refused as e:
        assert e.rule == "BUILD.PROC"
    else:  # pragma: no cover
        raise AssertionError("built without an AT")


def test_base_d_allied_build_needs_five_or_six_and_base_e_adds_five() -> None:
    s = make_state([land(A, "ENG-1", ISL), ship(A, "AT-1", ISL)])
    w = work(s, A)
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([4]))
    assert ISL not in w.bases
    # BUILD.PROC: the transport may leave once work has started.
    w.remove(w.units["allied/AT-1"])
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([5]))
    b = w.bases[ISL]
    assert (b.owner, b.air_capacity) == (A, 5)
    assert b.neutralized(w.state.turn)  # usable from the next turn
    w.put(ship(A, "AT-1", ISL))
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([6]))
    assert w.bases[ISL].air_capacity == 10  # enlarged by five


def test_base_d_japanese_need_a_six() -> None:
    s = make_state([land(J, "ENG-1", ISL), ship(J, "TR-1", ISL)])
    w = work(s, J)
    bs.do_build(w, Simple("BUILD", ("ENG-1", "NAVAL")), ScriptedDice([5]))
    assert ISL not in w.bases
    bs.do_build(w, Simple("BUILD", ("ENG-1", "NAVAL")), ScriptedDice([6]))
    assert w.bases[ISL].has_naval


def test_build_gen_repair_is_certain_after_one_turn() -> None:
    """BUILD.GEN / BASE.A: a captured 10-point base is repaired at Step 10, no roll."""
    s = make_state(
        [land(J, "ENG-1", ISL), ship(J, "TR-1", ISL)],
        bases=[base(ISL, J, air=10, naval=False)],
        extra={"damaged_bases": {f"{ISL:04d}": "captured"}},
    )
    w = work(s, J)
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([]))
    bs.bookkeeping(w)
    assert f"{ISL:04d}" not in w.state.extra["damaged_bases"]
    assert any(e.kind == "base-repaired" for e in w.events)


def test_base_j_sabotage_engineer_one_to_four() -> None:
    s = make_state([land(A, "ENG-1", ISL), land(A, "DIV-1", ISL)], bases=[base(ISL, A, air=10)])
    w = work(s, A)
    bs.do_sabotage(w, Simple("SABOTAGE", ("ENG-1", "AIR")), ScriptedDice([4]))
    assert w.bases[ISL].air_capacity == 5
    bs.do_sabotage(w, Simple("SABOTAGE", ("DIV-1", "NAVAL")), ScriptedDice([3]))  # needs 1-2
    assert w.bases[ISL].has_naval
    bs.do_sabotage(w, Simple("SABOTAGE", ("DIV-1", "NAVAL")), ScriptedDice([2]))
    assert not w.bases[ISL].has_naval


def test_rep_rate_one_week_per_idle_turn_in_home_port() -> None:
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


def test_rpl_tr_heavily_damaged_transport_replaced_and_withdrawn() -> None:
    """RPL.TR (A17): 10+ weeks: a new TR in 4 turns; the damaged one leaves in port."""
    s = make_state([ship(J, "TR-1", 300, damage=12)], bases=[base(HOME[0], J)])
    w = work(s, J)
    bs.replace_damaged_transports(w)
    assert [(p.turn, p.unit.uid if p.unit else None) for p in w.state.pending] == [(5, "TR-1")]
    w.put(replace(w.units["japanese/TR-1"], hex=HOME[0], in_base=True))
    bs.replace_damaged_transports(w)
    assert "japanese/TR-1" not in w.units
    assert len(w.state.pending) == 1


def test_build_order_by_mail_in_land_phase() -> None:
    """SEQ.3C: BUILD is an order of the land movement round."""
    s = make_state([land(A, "ENG-1", ISL), ship(A, "AT-1", ISL)], round=1)
    g = Game(s)
    v = g.validate(A, "BUILD ENG-1 AIR")
    assert not v.errors and v.accepted == ("BUILD ENG-1 AIR",)
    bad = g.validate(A, "BUILD ENG-1 HANGAR")
    assert bad.errors
