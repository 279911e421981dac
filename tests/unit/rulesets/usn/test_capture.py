"""Capture of bases by every way of arriving (BASE.I, ERR.BASE.I, CBT.G, BASE.A-C,
BASE.B, BASE.H) and the base-use rules a captured base obeys until usable."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.core.dice import ScriptedDice
from pbem.core.errors import IllegalOrderError
from pbem.rulesets.usn import air_combat, bombardment, capture, movement, transport
from pbem.rulesets.usn import bases as bs
from pbem.rulesets.usn import land_combat as lc
from pbem.rulesets.usn.orders import Embark, Emergency, Line, Move, Simple, parse_line
from pbem.rulesets.usn.phases import can_refuel_in_base
from pbem.rulesets.usn.state import Air, GameState
from pbem.rulesets.usn.tables import Damage
from pbem.rulesets.usn.work import Work

from .builders import HOME, ISLAND, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
ISL, ISL2 = ISLAND
PORT = HOME[0]


def work(state: GameState, side: str) -> Work:
    w = Work.start(stub_geo(), state)
    w.begin_phase(side, 3)
    return w


def test_base_i_err_base_i_inverted_defender_stops_capture_by_a_land_move() -> None:
    """BASE.I / ERR.BASE.I / CBT.G: "Bases are considered captured simply by moving a unit
    into that hex, unless there is an Enemy land unit in that hex which is inverted or
    Entrenched; then those units must be dislodged by combat." A plain move does not take
    a base an inverted unit defends; an undefended one falls to it."""
    s = make_state(
        [land(J, "RGT-1", ISL2, supplied=True), land(A, "BN-1", ISL, tp=2)],
        bases=[base(ISL, A, air=5, naval=False)],
        extra={"defending": ["allied/BN-1"]},
    )
    w = work(s, J)
    movement.do_land_move(w, Move(("RGT-1",), (str(ISL),)), False)
    assert w.bases[ISL].owner == A
    s2 = replace(s, extra={})
    w2 = work(s2, J)
    movement.do_land_move(w2, Move(("RGT-1",), (str(ISL),)), False)
    assert w2.bases[ISL].owner == J


def test_base_a_base_c_captured_large_base_by_unloading_needs_repair() -> None:
    """BASE.A / BASE.C: "those with a capacity of 'ten' or more must be repaired";
    "Captured Naval Bases are repaired in the same manner as the larger air bases".
    Taken by an unloading, the base is not usable at once (BASE.PROC.DAMAGED)."""
    s = make_state(
        [ship(J, "TR-1", ISL), land(J, "RGT-1", None, carried_by="TR-1")],
        bases=[base(ISL, A, air=10, naval=True)],
        air={A: {f"{ISL:04d}": Air(lac=3)}},
    )
    w = work(s, J)
    transport.do_embark(w, Embark("TR-1", ("RGT-1",), debark=True))
    b = w.bases[ISL]
    assert b.owner == J and b.neutralized(w.state.turn)
    assert w.air_at(A, f"{ISL:04d}").total == 0  # BASE.H
    assert capture.awaiting(w.state.extra, ISL)["repair"] == ["air", "naval"]
    assert bs.needs_repair(w, ISL, "air") and bs.needs_repair(w, ISL, "naval")


def test_base_b_captured_small_base_usable_after_first_land_attack_phase() -> None:
    """BASE.B: "The captured Enemy air base may be used by Friendly air units after the
    first Friendly Land Attack Phase of occupation ... by any unit for a smaller air
    base." Taken by an emergency transport in the naval phase, a 5-point base is
    usable only once the side's land attack phase has ended with the unit there."""
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class1"})
    s = make_state(
        [ship(J, "DD-1", PORT, ma=6), land(J, "SNLF-1", PORT, tp=2)],
        bases=[base(PORT, J), base(dest, A, air=5, naval=False)],
    )
    w = Work.start(geo, s)
    w.begin_phase(J, 2)
    transport.do_emergency(w, Emergency("DD-1", ("SNLF-1",), dest))
    assert w.bases[dest].owner == J
    with pytest.raises(IllegalOrderError) as e:
        movement.check_air_dest(w, f"{dest:04d}", "LAC", 1)  # BASE.PROC.DAMAGED
    assert e.value.rule == "MOV.S"
    w.begin_phase(J, 9)
    bs.after_land_attack(w)
    movement.check_air_dest(w, f"{dest:04d}", "LAC", 1)
    assert capture.base_usable(w.state.extra, dest)


def test_base_b_captured_large_base_usable_after_transported_engineer_attack_phase() -> None:
    """BASE.B (C23: capacity ten or more): usable "after the first Friendly Land Attack
    Phase of occupation by a transported Engineer unit"; BUILD.PROC: engineer and
    transport begin the work. Occupation by a division alone is not enough."""
    s = make_state(
        [land(J, "DIV-1", ISL, tp=12), ship(J, "TR-1", ISL), land(J, "ENG-1", ISL2)],
        bases=[base(ISL, A, air=10, naval=False)],
    )
    w = work(s, J)
    capture.capture_all(w)
    assert w.bases[ISL].owner == J
    w.begin_phase(J, 9)
    bs.after_land_attack(w)
    assert w.bases[ISL].neutralized(w.state.turn)  # no engineer yet
    w.bases[ISL2] = base(ISL2, J, air=0, naval=False)
    w.put(replace(w.units["japanese/ENG-1"], hex=ISL))
    w.begin_phase(J, 7)
    bs.do_build(w, Simple("BUILD", ("ENG-1", "AIR")), ScriptedDice([]))
    w.begin_phase(J, 9)
    bs.after_land_attack(w)
    assert not w.bases[ISL].neutralized(w.state.turn)
    assert any(e.kind == "base-repaired" and e.rule == "BASE.B" for e in w.events)


def test_base_gen_air_lac_must_use_air_bases() -> None:
    """BASE.GEN.AIR: "Land air units (LAC) and Long-range bomber air units (LBAC) must
    operate from air bases" - a transfer to a hex with no own air base is refused."""
    s = make_state([], bases=[base(PORT, J, air=10)], air={J: {f"{PORT:04d}": Air(lac=2)}})
    w = work(s, J)
    with pytest.raises(IllegalOrderError) as e:
        movement.check_air_dest(w, f"{ISL:04d}", "LAC", 1)
    assert e.value.rule == "BASE.GEN.AIR"


def test_base_proc_damaged_nm_bombbase_neut_captured_or_neutralized_base_not_used() -> None:
    """BASE.PROC.DAMAGED: "Units may not land or operate from damaged or neutralized air
    bases"; NM.BOMBBASE.NEUT: "A neutralized naval base can't refuel or serve as an
    emergency-supply base." A captured base awaiting repair counts as neutralized."""
    dest = H(1, 0)
    geo = stub_geo(land={dest: "class1"})
    s = make_state(
        [ship(J, "DD-1", PORT, ma=6, in_base=True), land(J, "DIV-1", dest, supplied=False)],
        bases=[replace(base(PORT, J, air=10), neutralized_until=1)],
    )
    w = Work.start(geo, s)
    w.begin_phase(J, 2)
    with pytest.raises(IllegalOrderError) as e:
        transport.do_emergency(w, Emergency("DD-1", (), dest))
    assert e.value.rule == "NM.EMERG.SUPPLY"
    with pytest.raises(IllegalOrderError) as e:
        movement.check_air_dest(w, f"{PORT:04d}", "NAC", 1)
    assert e.value.rule == "MOV.S"


def test_base_proc_navdamaged_no_refuelling_in_a_captured_naval_base() -> None:
    """BASE.PROC.NAVDAMAGED: "Naval units may enter damaged bases, but may not refuel
    there." A naval base captured and not yet repaired refuels nobody."""
    s = make_state(
        [land(J, "RGT-1", ISL), ship(J, "CA-1", ISL, in_base=True)],
        bases=[base(ISL, A, air=0, naval=True)],
    )
    w = work(s, J)
    capture.capture_all(w)
    w.put(replace(w.units["japanese/CA-1"], in_base=True))
    assert not can_refuel_in_base(w.snapshot(), w.units["japanese/CA-1"])


def test_base_gen_inport_ships_in_base_only_by_declaration() -> None:
    """BASE.GEN.INPORT / BASE.K: ships "must announce that they are in the base, and not
    'at sea'" - BASE declares it, SEA undoes it; and BASE.L: in a captured base they
    are at sea."""
    s = make_state([ship(A, "CA-1", ISL), land(J, "RGT-1", ISL2)], bases=[base(ISL, A, naval=True)])
    w = work(s, A)
    assert not w.units["allied/CA-1"].in_base
    movement.do_port(w, "CA-1", True)
    assert w.units["allied/CA-1"].in_base
    w.begin_phase(J, 3)
    w.put(replace(w.units["japanese/RGT-1"], hex=ISL))
    lc.capture(w)
    assert not w.units["allied/CA-1"].in_base


def test_base_proc_place_aircraft_on_missions_leave_the_base() -> None:
    """BASE.PROC.PLACE: "When a unit leaves the base, place the air units on the Air Unit
    Attack Allocation Chart": a mission's aircraft leave the base for the flight, so a
    base captured meanwhile destroys only what stood on it (BASE.H)."""
    s = make_state(
        [land(J, "RGT-1", ISL)],
        bases=[base(ISL, A, air=10, naval=False)],
        air={A: {f"{ISL:04d}": Air(lac=3)}},
    )
    w = work(s, A)
    text = f"STRIKE 2 LAC {ISL:04d} {ISL:04d} LAND"
    (flight,) = air_combat.flights_from(w, {A: [Line(1, text, parse_line(text))]})
    assert (flight.points, w.air_at(A, f"{ISL:04d}").get("LAC")) == (2, 1)
    w.set_side(J)
    capture.capture_all(w)
    (lost,) = [e for e in w.events if e.kind == "air-destroyed"]
    assert lost.rule == "BASE.H" and lost.data["points"] == 1


def test_base_i_crt1_d2_a_retreating_unit_takes_an_undefended_base() -> None:
    """BASE.I: "Bases are considered captured simply by moving a unit into that hex" - a
    unit forced back by CRT1.D2 arrives too: an undefended enemy base in the hex it
    retreats into is captured, as by any other way of arriving."""
    s = make_state(
        [
            replace(land(A, "DIV-1", ISL, tp=12), attack=280),
            replace(land(J, "RGT-1", ISL), defense=10),
        ],
        bases=[base(ISL2, A, air=5, naval=False)],
        standing={J: (f"STANDING RETREAT RGT-1 {ISL2:04d}",)},
    )
    w = Work.start(stub_geo(), s)
    w.begin_phase(A, 5)
    attackers = (w.units["allied/DIV-1"],)
    assert lc.resolve_attack(w, lc.Attack(ISL, attackers), ScriptedDice([1])).value == "D2"
    assert w.units["japanese/RGT-1"].hex == ISL2
    assert w.bases[ISL2].owner == J and w.bases[ISL2].neutralized(w.state.turn)


def test_base_b_nm_bombbase_neut_bombed_while_awaiting_stays_neutralized_after_release() -> None:
    """BASE.B with NM.BOMBBASE: a captured base bombed before it is usable is still
    "neutralized for one complete Game-Turn" after its release."""
    s = make_state([land(J, "RGT-1", ISL)], bases=[base(ISL, A, air=5, naval=False)])
    w = work(s, J)
    capture.capture_all(w)
    bombardment.base_hit(w, ISL, "AIRBASE", Damage(20), A, "AM.BASE.RESOLVE", False)
    w.begin_phase(J, 9)
    bs.after_land_attack(w)
    assert capture.base_usable(w.state.extra, ISL)
    assert w.bases[ISL].neutralized(w.state.turn + 1)
    assert not w.bases[ISL].neutralized(w.state.turn + 2)
