"""The Midway simulation's forced run, strike and keep-out played by mail on the real
map and data (MINI.MIDSIM.MOVE, MINI.MIDSIM.STRIKE, MINI.MIDSIM.KEEPOUT)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pbem.core.dice import ScriptedDice
from pbem.rulesets.usn import hexgrid, scenario_rules
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import GameState

J, A = "japanese", "allied"
GROUP = "CV-1 CV-2 CV-5 CV-6 BB-1"
MIDWAY = 1218
# Osaka (609) is 18 hexes from Midway: 12 hexes that end 7 hexes from Midway (out of
# reach of its LBAC, so double speed holds, MOV.N), then 6 that end next to it.
DASH = [642, 675, 708, 742, 776, 810, 844, 878, 912, 946, 980, 1013]
RUN_IN = [1047, 1081, 1115, 1149, 1183, 1217]


def fmt(hexes: list[int]) -> str:
    return " ".join(f"{h:04d}" for h in hexes)


@pytest.fixture(scope="module")
def rs() -> UsnRuleset:
    return UsnRuleset(load_world(), world_geo())


def play(rs: UsnRuleset, state: Any, orders: dict[str, str]) -> Any:
    """One mail round: every side due writes ``orders`` (nothing if not given)."""
    demand = rs.pending(state)
    assert demand is not None
    accepted: dict[str, list[str]] = {}
    for side in demand.sides:
        v = rs.validate(state, side, orders.get(side, ""))
        assert not v.errors, (demand.phase, side, v.errors)
        accepted[side] = list(v.accepted)
    return rs.adjudicate(state, accepted, ScriptedDice([4] * 400)).state


def until(rs: UsnRuleset, state: Any, phase: str, turn: int) -> Any:
    while (d := rs.pending(state)) is not None and (d.turn, d.phase) != (turn, phase):
        state = play(rs, state, {})
    return state


def test_mini_midsim_move_the_whole_forced_sequence(rs: UsnRuleset) -> None:
    """MINI.MIDSIM.MOVE / STRIKE / KEEPOUT: "CV-1, CV-2, CV-5, CV-6, escorted by BB-1,
    must move full speed (12 hexes first Naval Movement Phase, and 6 hexes second Naval
    Movement Phase) to a position directly adjacent to Midway. The Japanese Player must
    then launch an air-strike on Midway ... No Japanese naval units may move within 5
    hexes of Midway until the Japanese Movement Phase after the attack." The keep-out
    binds the other Japanese ships, not the group (C13, the data's keep_out_applies_to)."""
    state = rs.initial_state("midway-simulation", {})
    assert hexgrid.distance(DASH[-1], MIDWAY) == 7 and hexgrid.distance(RUN_IN[-1], MIDWAY) == 1
    state = until(rs, state, "J-2", 1)  # past the set-up rounds (SETUP.JFIRST)
    state = play(rs, state, {J: f"MOVE {GROUP} {fmt(DASH)}"})
    s = GameState.from_json(state)
    assert {s.unit(J, u).hex for u in GROUP.split()} == {DASH[-1]}

    state = until(rs, state, "J-7-8", 1)
    # The other Japanese ships are still kept out: CA-3 may not come in with the group.
    mixed = rs.validate(state, J, f"MOVE CV-1 CV-2 CV-5 CV-6 BB-1 CA-3 {fmt(RUN_IN)}")
    assert [e.rule for e in mixed.errors] == ["MINI.MIDSIM.KEEPOUT"]
    state = play(rs, state, {J: f"MOVE {GROUP} {fmt(RUN_IN)}"})
    s = GameState.from_json(state)
    assert {s.unit(J, u).hex for u in GROUP.split()} == {RUN_IN[-1]}

    # The strike is now due: a plot without 20 NAC on Midway is refused.
    assert rs.pending(state).phase == "air-9"
    assert [e.rule for e in rs.validate(state, J, "").errors] == ["MINI.MIDSIM.STRIKE"]
    air = s.air[J]
    strike = []
    need = 20
    for cv in ("CV-1", "CV-2", "CV-5", "CV-6"):
        n = min(air[cv].nac, need)
        if n:
            strike.append(f"STRIKE {n} NAC {cv} {hexgrid.fmt(MIDWAY)} AIRBASE")
            need -= n
    assert need == 0
    state = play(rs, state, {J: "\n".join(strike)})
    s = GameState.from_json(state)
    assert s.extra.get("midway_struck") is True
    # The Japanese movement phase after the attack: the keep-out is over for all.
    assert rs.pending(state).phase == "J-2"
    assert scenario_rules.keep_out_zones(s, rs.geo, J) == []


def test_mini_midsim_keepout_applies_to_from_the_data(rs: UsnRuleset) -> None:
    """MINI.MIDSIM.KEEPOUT (C13): the data's keep_out_applies_to decides whom the
    keep-out binds: "japanese naval units not in the group" leaves the group out; with
    no such key every Japanese ship is bound."""
    s = GameState.from_json(rs.initial_state("midway-simulation", {}))
    cv1, ca3 = s.unit(J, "CV-1"), s.unit(J, "CA-3")
    assert cv1 is not None and ca3 is not None
    assert scenario_rules.keep_out_zones(s, rs.geo, J, [cv1]) == []
    assert [z[2] for z in scenario_rules.keep_out_zones(s, rs.geo, J, [cv1, ca3])] == [
        "MINI.MIDSIM.KEEPOUT"
    ]
    sim = dict(load_world().scenario("midway-simulation").special["midway_simulation"])
    del sim["keep_out_applies_to"]
    bound = replace(s, extra={**s.extra, "special": {"midway_simulation": sim}})
    assert scenario_rules.keep_out_zones(bound, rs.geo, J, [cv1]) != []


def test_mini_midsim_move_a_sheet_without_the_forced_move_is_refused(rs: UsnRuleset) -> None:
    """MINI.MIDSIM.MOVE: the group "must move full speed (12 hexes first Naval Movement
    Phase, and 6 hexes second Naval Movement Phase) to a position directly adjacent to
    Midway": a sheet that leaves it in port, moves it short, splits a ship off or ends
    it anywhere but next to Midway is refused, naming the line and the rule."""
    state = until(rs, rs.initial_state("midway-simulation", {}), "J-2", 1)

    def refused(text: str) -> list[tuple[int, str, str]]:
        return [(e.line, e.rule or "", e.message) for e in rs.validate(state, J, text).errors]

    (only,) = refused("")  # nothing written: the group would stay in Osaka
    assert only[:2] == (0, "MINI.MIDSIM.MOVE") and "no MOVE for the forced group" in only[2]
    assert "CV-1 CV-2 CV-5 CV-6 BB-1" in only[2]
    (short,) = refused(f"MOVE {GROUP} {fmt(DASH[:-1])}")
    assert short[:2] == (1, "MINI.MIDSIM.MOVE") and "12 hexes" in short[2]
    # BB-1 left behind: the four carriers' line stands, BB-1's move is missing.
    (alone,) = refused(f"MOVE CV-1 CV-2 CV-5 CV-6 {fmt(DASH)}")
    assert alone[:2] == (0, "MINI.MIDSIM.MOVE") and "BB-1" in alone[2]
    # MOVE and CONTINUE count together (SEQ.2C and SEQ.2I are one phase).
    assert refused(f"MOVE {GROUP} {fmt(DASH[:5])}\nCONTINUE {GROUP} {fmt(DASH[5:])}") == []

    state = until(rs, play(rs, state, {J: f"MOVE {GROUP} {fmt(DASH)}"}), "J-7-8", 1)
    (away,) = refused(f"MOVE {GROUP} {fmt([1014, 1048, 1082, 1116, 1150, 1151])}")
    assert away[:2] == (1, "MINI.MIDSIM.MOVE") and "directly adjacent to Midway" in away[2]
    assert refused(f"MOVE {GROUP} {fmt(RUN_IN)}") == []


def test_mini_midsim_move_default_orders_make_the_forced_run_and_strike(rs: UsnRuleset) -> None:
    """MINI.MIDSIM.MOVE / STRIKE: a Japanese player who sends nothing still makes the
    forced run (12 hexes, then 6 to a hex next to Midway, by sea) and the forced strike
    (at least 20 NAC on Midway): the ruleset's default orders write them; the other
    rounds' defaults stay empty (MOV.B)."""
    state = rs.initial_state("midway-simulation", {})
    for _ in range(8):
        demand = rs.pending(state)
        assert demand is not None
        orders = {side: list(rs.default_orders(state, side)) for side in demand.sides}
        for side, lines in orders.items():
            assert not rs.validate(state, side, "\n".join(lines)).errors, (demand.phase, side)
            forced = demand.phase in ("J-2", "J-7-8", "air-9") and side == J
            assert bool(lines) == forced, (demand.phase, side, lines)
        state = rs.adjudicate(state, orders, ScriptedDice([4] * 400)).state
        s = GameState.from_json(state)
        if demand.phase == "J-7-8":
            assert {hexgrid.distance(s.unit(J, u).hex, MIDWAY) for u in GROUP.split()} == {1}
    assert GameState.from_json(state).extra.get("midway_struck") is True
    assert rs.default_orders(state, J) == ()  # turn 2: nothing is forced any more


def test_mini_midsim_move_a_crippled_ship_moves_its_full_speed_toward_midway(
    rs: UsnRuleset,
) -> None:
    """MINI.MIDSIM.MOVE: "must move full speed": a carrier damaged more than 20 weeks
    before the second phase has its Movement Allowance halved (CBT.H) and no double
    speed (MOV.N), so its full speed is 3 hexes, all of them toward Midway; the rest of
    the group still ends next to Midway. The default orders split the group so."""
    state = until(rs, rs.initial_state("midway-simulation", {}), "J-2", 1)
    state = until(rs, play(rs, state, {J: f"MOVE {GROUP} {fmt(DASH)}"}), "J-7-8", 1)
    s = GameState.from_json(state)
    cv1 = s.unit(J, "CV-1")
    assert cv1 is not None
    hurt = replace(s, units={**s.units, cv1.key: replace(cv1, damage=30)}).to_json()
    rest = "CV-2 CV-5 CV-6 BB-1"
    ok = f"MOVE {rest} {fmt(RUN_IN)}\nMOVE CV-1 {fmt(RUN_IN[:3])}"
    assert rs.validate(hurt, J, ok).errors == ()
    (stays,) = rs.validate(hurt, J, f"MOVE {rest} {fmt(RUN_IN)}\nMOVE CV-1 1014 1015 1016").errors
    assert (stays.line, stays.rule) == (2, "MINI.MIDSIM.MOVE")
    default = rs.default_orders(hurt, J)
    assert len(default) == 2 and rs.validate(hurt, J, "\n".join(default)).errors == ()
