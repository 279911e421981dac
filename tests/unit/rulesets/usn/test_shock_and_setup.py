"""Per-scenario opening rounds: the OPT.JVD set-up round, CG1's pre-game and Shock
turn (CG1.SHOCK.*), and the Midway simulation's forced strike (MINI.MIDSIM.STRIKE)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.events import Event
from pbem.rulesets.usn import opening, scenario_rules
from pbem.rulesets.usn.orders import Line, parse_line
from pbem.rulesets.usn.phases import advance
from pbem.rulesets.usn.sequence import ROUNDS, current_round, ends_turn, rounds_for
from pbem.rulesets.usn.state import Air, GameState
from pbem.rulesets.usn.work import Work

from .builders import Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
SHOCK = {
    "shock_turn": {
        "rule": "CG1.SHOCK",
        "turn": 1,
        "pregame_naval_turn": True,
        "pregame_keep_out_hexes": 5,
        "pregame_double_speed": False,
        "first_phase_keep_out_hexes": 5,
    }
}
ALLIED_BASE = H(10, 10)
JVD = {
    "japanese_variable_deployment": {
        "rule": "OPT.JVD",
        "side": "japanese",
        "types": ["CL", "DD", "OIL", "ENG"],
    }
}


def _shock_state(**kw: Any) -> GameState:
    units = [
        ship(J, "CA-1", H(10, 2), ma=5),
        ship(J, "TR-1", H(10, 2), ma=5),
        ship(A, "DD-1", ALLIED_BASE, ma=6),
        land(A, "DIV-1", ALLIED_BASE),
    ]
    extra = {"special": SHOCK, "opening": ["pregame", "shock"]}
    return make_state(units, bases=[base(ALLIED_BASE, A, air=5)], extra=extra, **kw)


def _keys(s: GameState) -> list[str]:
    return [r.key for r in rounds_for(s)]


def _restrict(s: GameState, side: str, *texts: str) -> list[tuple[int, str]]:
    w = Work.start(stub_geo(), s)
    w.set_side(side)
    lines = [Line(i + 1, t, parse_line(t)) for i, t in enumerate(texts)]
    return [
        (ln.number, rule) for ln, _msg, rule in opening.restrict(w, current_round(s), side, lines)
    ]


def _column(c: int, rows: range) -> str:
    return " ".join(f"{H(c, r):04d}" for r in rows)


# --- the sequence -----------------------------------------------------------------------


def test_cg1_shock_pregame_rounds_come_before_turn_1() -> None:
    """CG1.SHOCK.PREGAME: two Japanese naval rounds, then turn 1's Shock rounds; turn 2
    is the normal six-round turn."""
    s = _shock_state(last_turn=3)
    assert _keys(s) == ["pre-J-2", "pre-J-8", "J-2", "air-5", "J-7-8", "air-9"]
    assert [r.sides for r in rounds_for(s)[:2]] == [(J,), (J,)]
    seen = []
    while s.turn == 1:
        seen.append((current_round(s).key, ends_turn(s)))
        s = advance(s)
    assert seen[-1] == ("air-9", True) and not any(end for _k, end in seen[:-1])
    assert s.turn == 2 and s.round == 0 and rounds_for(s) == ROUNDS


def test_cg1_shock_every_step_of_turn_1_still_runs_once() -> None:
    """CG1.SHOCK.ANOMOVE: the Allied steps 3, 4 and 6 run without orders inside the
    Japanese and mutual rounds; the pre-game adds steps 2 and 8 before Step 1."""
    steps = [n for r in rounds_for(_shock_state()) for n in r.steps]
    assert steps == [2, 8, *range(1, 11)]


def test_seq_syn_other_scenarios_keep_the_six_rounds() -> None:
    """SEQ.SYN: a state without an opening plays the fixed rounds on turn 1."""
    assert rounds_for(make_state([])) == ROUNDS
    assert rounds_for(make_state([], extra={"opening": ["pregame", "shock"]}, turn=2)) == ROUNDS


def test_cg1_shock_pregame_set_up_names_the_opening() -> None:
    """CG1.SHOCK.PREGAME, OPT.JVD: the set-up names the opening from the scenario data."""
    s = make_state([], extra={"special": SHOCK, "optional_rules": JVD})
    assert opening.at_setup(s).extra["opening"] == ["pregame", "shock"]
    on = replace(s, options={"japanese_variable_deployment": True})
    assert opening.at_setup(on).extra["opening"] == ["setup-japanese", "pregame", "shock"]
    plain = make_state([])
    assert "opening" not in opening.at_setup(plain).extra


def test_cg1_shock_pregame_pending_is_the_pre_game_round() -> None:
    """CG1.SHOCK.PREGAME: the first demand is the Japanese pre-game round, alone."""
    game = Game(_shock_state())
    d = game.rs.pending(game.state)
    assert d is not None and d.phase == "pre-J-2" and tuple(d.sides) == (J,)
    assert game.rs.pending(game.state) == d  # pure and deterministic


# --- CG1.SHOCK restrictions ---------------------------------------------------------------


def test_cg1_shock_pregame_keep_out_of_allied_bases() -> None:
    """CG1.SHOCK.PREGAME: Japanese ships may not come within 5 hexes of an Allied base."""
    s = _shock_state()
    near = _column(10, range(3, 6))  # ends at row 5: five hexes from the base at row 10
    far = _column(10, range(3, 5))  # ends at row 4: six hexes off
    assert _restrict(s, J, f"MOVE CA-1 {near}") == [(1, "CG1.SHOCK.PREGAME")]
    assert _restrict(s, J, f"MOVE CA-1 {far}") == []


def test_cg1_shock_pregame_no_double_speed() -> None:
    """CG1.SHOCK.PREGAME: no MOV.N double speed (MOVE and CONTINUE count together)."""
    s = _shock_state()
    west = " ".join(f"{H(c, 2):04d}" for c in range(9, 3, -1))  # six hexes, MA 5
    assert _restrict(s, J, f"MOVE CA-1 {west}") == [(1, "CG1.SHOCK.PREGAME")]
    first = " ".join(f"{H(c, 2):04d}" for c in range(9, 6, -1))
    then = " ".join(f"{H(c, 2):04d}" for c in range(6, 3, -1))
    assert _restrict(s, J, f"MOVE CA-1 {first}", f"CONTINUE CA-1 {then}") == [
        (2, "CG1.SHOCK.PREGAME")
    ]
    # Turn 1's first phase has the keep-out but not the speed limit.
    t1 = replace(s, round=2)
    assert _restrict(t1, J, f"MOVE CA-1 {west}") == []


def test_cg1_shock_pregame_only_naval_units_move() -> None:
    """CG1.SHOCK.PREGAME: "the Japanese Player may move his Naval units": no air
    transfer or embarkation in the pre-game turn."""
    s = _shock_state()
    got = _restrict(s, J, "TRANSFER 2 NAC 0210 TO 0310", "EMBARK TR-1 DIV-9")
    assert got == [(1, "CG1.SHOCK.PREGAME"), (2, "CG1.SHOCK.PREGAME")]


def test_cg1_shock_t1j1_keep_out_and_no_non_naval_moves() -> None:
    """CG1.SHOCK.T1J1: turn 1's first Japanese phase keeps the 5-hex keep-out and moves
    no non-naval unit."""
    s = replace(_shock_state(), round=2)
    assert current_round(s).key == "J-2"
    near = _column(10, range(3, 6))
    got = _restrict(s, J, f"MOVE CA-1 {near}", "TRANSFER 2 NAC 0210 TO 0310")
    assert got == [(1, "CG1.SHOCK.T1J1"), (2, "CG1.SHOCK.T1J1")]


def test_cg1_shock_anomove_allies_move_nothing_in_turn_1() -> None:
    """CG1.SHOCK.ANOMOVE: every Allied move is refused in turn 1; air missions are not
    moves and stay allowed in step 5 (CG1.SHOCK.NOAIR is step 9's)."""
    s = replace(_shock_state(), round=3)
    assert current_round(s).key == "air-5"
    got = _restrict(
        s,
        A,
        f"MOVE DD-1 {H(10, 9):04d}",
        f"MOVE DIV-1 {H(10, 9):04d}",
        f"CAP 2 LAC {ALLIED_BASE:04d}",
    )
    assert got == [(1, "CG1.SHOCK.ANOMOVE"), (2, "CG1.SHOCK.ANOMOVE")]
    v = Game(s).validate(A, f"MOVE DD-1 {H(10, 9):04d}")
    assert [e.rule for e in v.errors] == ["CG1.SHOCK.ANOMOVE"]


def test_cg1_shock_t1j2_second_japanese_phase_is_normal() -> None:
    """CG1.SHOCK.T1J2: the second Japanese phase of turn 1 has no keep-out."""
    s = replace(_shock_state(), round=4)
    assert current_round(s).key == "J-7-8"
    near = _column(10, range(3, 6))
    assert _restrict(s, J, f"MOVE CA-1 {near}", "TRANSFER 2 NAC 0210 TO 0310") == []


def test_cg1_shock_noair_round_refuses_allied_missions_in_step_9() -> None:
    """CG1.SHOCK.NOAIR: the air-9 round of the Shock turn carries the rule."""
    s = replace(_shock_state(), round=5)
    assert "CG1.SHOCK.NOAIR" in current_round(s).rules


# --- OPT.JVD -------------------------------------------------------------------------------


def _jvd_state() -> GameState:
    jbase, far, abase = H(4, 4), H(8, 4), H(10, 10)
    units = [
        ship(J, "DD-1", jbase),
        ship(J, "CA-1", jbase),
        land(J, "ENG-1", jbase),
    ]
    s = make_state(
        units,
        bases=[base(jbase, J, air=5), base(far, J, air=5), base(abase, A, air=5)],
        extra={"opening": ["setup-japanese"], "optional_rules": JVD},
    )
    return replace(s, options={"japanese_variable_deployment": True})


def test_opt_jvd_set_up_round_comes_first() -> None:
    """OPT.JVD, SETUP.JFIRST: the Japanese set-up round opens the game, then turn 1."""
    s = _jvd_state()
    assert _keys(s)[:2] == ["setup-J", "J-2"]
    d = Game(s).rs.pending(s.to_json())
    assert d is not None and d.phase == "setup-J" and tuple(d.sides) == (J,)


def test_opt_jvd_place_at_a_japanese_naval_base() -> None:
    """OPT.JVD: CL, DD, oiler and engineer counters go to any Japanese naval base."""
    game = Game(_jvd_state())
    far = f"{H(8, 4):04d}"
    v = game.validate(J, f"PLACE DD-1 {far}\nPLACE ENG-1 {far}")
    assert not v.errors and len(v.accepted) == 2
    game.play({J: f"PLACE DD-1 {far}\nPLACE ENG-1 {far}"})
    assert game.unit(J, "DD-1").hex == H(8, 4) and game.unit(J, "DD-1").in_base
    assert game.unit(J, "ENG-1").hex == H(8, 4)
    assert game.s.round == 1 and current_round(game.s).key == "J-2"


def test_opt_jvd_refuses_other_units_bases_and_orders() -> None:
    """OPT.JVD: a CA, an Allied base, a hex with no base and a MOVE are refused."""
    game = Game(_jvd_state())
    v = game.validate(
        J,
        "\n".join(
            [
                f"PLACE CA-1 {H(8, 4):04d}",
                f"PLACE DD-1 {H(10, 10):04d}",
                f"PLACE ENG-1 {H(6, 6):04d}",
                f"MOVE DD-1 {H(5, 4):04d}",
            ]
        ),
    )
    assert sorted({e.line for e in v.errors}) == [1, 2, 3, 4]
    assert all(e.rule in ("OPT.JVD", "SEQ.STRICT") for e in v.errors)
    assert not v.accepted
    assert not Game(_jvd_state()).validate(A, f"PLACE DD-1 {H(8, 4):04d}").accepted


# --- MINI.MIDSIM.STRIKE --------------------------------------------------------------------

MIDWAY = H(10, 10)
SIM = {
    "midway_simulation": {
        "rule": "MINI.MIDSIM.MOVE",
        "group": ["CV-1", "BB-1"],
        "strike_target": MIDWAY,
        "max_cap_points": 4,
        "min_strike_points": 20,
        "keep_out_hexes": 5,
    }
}


def _sim_state(at: int, struck: bool = False, round: int = 5) -> GameState:
    extra: dict[str, Any] = {"special": SIM}
    if struck:
        extra["midway_struck"] = True
    return make_state(
        [ship(J, "CV-1", at, capacity=30), ship(J, "BB-1", at)],
        air={J: {"CV-1": Air(nac=30)}},
        bases=[base(MIDWAY, A, air=5)],
        round=round,
        extra=extra,
    )


def test_mini_midsim_strike_refuses_a_plot_without_the_strike() -> None:
    """MINI.MIDSIM.STRIKE: next to Midway, a plot with fewer than 20 NAC on it is refused."""
    s = _sim_state(H(10, 9))
    short = f"STRIKE 19 NAC CV-1 {MIDWAY:04d} AIRBASE"
    assert _restrict(s, J, short) == [(0, "MINI.MIDSIM.STRIKE")]
    assert _restrict(s, J) == [(0, "MINI.MIDSIM.STRIKE")]
    ok = f"STRIKE 20 NAC CV-1 {MIDWAY:04d} AIRBASE"
    assert _restrict(s, J, ok, "CAP 4 NAC CV-1") == []


def test_mini_midsim_strike_at_most_4_nac_on_cap() -> None:
    """MINI.MIDSIM.STRIKE: the CAP line that takes the NAC on CAP past 4 is refused."""
    s = _sim_state(H(10, 9))
    ok = f"STRIKE 20 NAC CV-1 {MIDWAY:04d} AIRBASE"
    assert _restrict(s, J, ok, "CAP 3 NAC CV-1", "CAP 2 NAC CV-1") == [(3, "MINI.MIDSIM.STRIKE")]


def test_mini_midsim_strike_due_only_next_to_midway_and_before_the_strike() -> None:
    """MINI.MIDSIM.STRIKE: not due before the run ends next to Midway, nor once struck,
    nor for the Allies, nor in a movement round."""
    assert _restrict(_sim_state(H(10, 7)), J) == []
    assert _restrict(_sim_state(H(10, 9), struck=True), J) == []
    assert _restrict(_sim_state(H(10, 9)), A) == []
    assert _restrict(_sim_state(H(10, 9), round=4), J) == []
    assert opening.midway_strike_due(_sim_state(H(10, 9))) is not None


def test_mini_midsim_strike_sets_midway_struck() -> None:
    """MINI.MIDSIM.STRIKE / KEEPOUT: a Japanese air strike on Midway sets midway_struck."""
    s = _sim_state(H(10, 9))
    hit = Event("air-strike", {"attacker": J, "hex": f"{MIDWAY:04d}"}, None, "AM.STRIKE")
    after = scenario_rules.after_round(stub_geo(), s, s, [hit])
    assert after.extra.get("midway_struck") is True
    assert opening.midway_strike_due(after) is None
    miss = Event("air-strike", {"attacker": A, "hex": f"{MIDWAY:04d}"}, None, "AM.STRIKE")
    assert not scenario_rules.after_round(stub_geo(), s, s, [miss]).extra.get("midway_struck")


def test_mini_midsim_strike_validate_reports_the_missing_strike() -> None:
    """MINI.MIDSIM.STRIKE: the ruleset's validation reports the refusal as line 0."""
    v = Game(_sim_state(H(10, 9))).validate(J, "CAP 2 NAC CV-1")
    assert [(e.line, e.rule) for e in v.errors] == [(0, "MINI.MIDSIM.STRIKE")]


def test_cg1_shock_pregame_whole_opening_adjudicates_to_turn_2() -> None:
    """CG1.SHOCK.PREGAME to CG1.SHOCK.T1J2: every round of the opening adjudicates (no
    orders) and turn 2 starts with the normal J-2 round."""
    game = Game(_shock_state(last_turn=3))
    far = _column(10, range(3, 5))
    game.play({J: f"MOVE CA-1 {far}"})
    assert game.unit(J, "CA-1").hex == H(10, 4)
    keys = []
    while game.s.turn == 1:
        d = game.rs.pending(game.state)
        assert d is not None
        keys.append(d.phase)
        game.play({side: "" for side in d.sides})
    assert keys == ["pre-J-8", "J-2", "air-5", "J-7-8", "air-9"]
    d = game.rs.pending(game.state)
    assert d is not None and (game.s.turn, d.phase) == (2, "J-2")


def test_opt_jvd_order_template_names_the_set_up_order() -> None:
    """OPT.JVD: the set-up round's order template shows the PLACE order and the rule."""
    text = Game(_jvd_state()).rs.order_template(_jvd_state().to_json(), J)
    assert "round setup-J" in text and "PLACE <unit> <hex>" in text and "OPT.JVD" in text
