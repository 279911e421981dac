"""CG1.PHILFORT on the stub map: "Any Allied land unit on hex 348 in Luzon may
entrench automatically without having to roll the die. A unit may move (if supplied)
into the hex and entrench in the same Movement Phase, or if isolated on hex 348 it may
entrench. Once entrenched, it is not affected by isolation for the first eight
Game-Turns in which the unit is out of supply.\""""

from __future__ import annotations

from dataclasses import replace

from pbem.rulesets.usn import scenario_rules
from pbem.rulesets.usn.state import GameState

from .builders import ISLAND, Game, base, land, make_state, stub_geo

J, A = "japanese", "allied"
FORT, BESIDE = ISLAND  # a stand-in for hex 348 and a land hex next to it
SPECIAL = {
    "philippine_fortifications": {
        "rule": "CG1.PHILFORT",
        "hex": FORT,
        "automatic_entrench": True,
        "isolation_immunity_turns": 8,
    }
}
A_3_4 = 1  # the Allied land movement round


def fort_game(*units: object, supplied_base: bool = True) -> Game:
    bases = [base(BESIDE, A, air=5)] if supplied_base else []
    s = make_state(list(units), bases=bases, extra={"special": SPECIAL})  # type: ignore[arg-type]
    game = Game(s)
    game.set_round(A_3_4)
    return game


def test_cg1_philfort_move_in_and_entrench_without_a_die() -> None:
    """CG1.PHILFORT: "A unit may move (if supplied) into the hex and entrench in the
    same Movement Phase" - "without having to roll the die" (no die is scripted)."""
    game = fort_game(land(A, "RGT-1", BESIDE), land(A, "RGT-2", FORT))
    game.play({A: f"MOVE RGT-1 {FORT:04d}\nENTRENCH RGT-1 RGT-2"}, dice=())
    assert game.unit(A, "RGT-1").entrenched and game.unit(A, "RGT-2").entrenched
    assert [e.rule for e in game.events if e.kind == "entrench"] == ["CG1.PHILFORT"] * 2


def test_cg1_philfort_a_unit_moving_in_is_entrenched_automatically() -> None:
    """CG1.PHILFORT: "may entrench automatically": a unit that comes into the hex is
    entrenched there without an order (the data's automatic_entrench); elsewhere the
    ordinary rule stands (ENT.PROC, ENT.C)."""
    game = fort_game(land(A, "RGT-1", BESIDE))
    game.play({A: f"MOVE RGT-1 {FORT:04d}"}, dice=())
    assert game.unit(A, "RGT-1").entrenched
    # A Japanese unit coming in gets nothing.
    s = make_state([land(J, "RGT-1", FORT)], extra={"special": SPECIAL})
    before = replace(s, units={})
    after = scenario_rules.after_round(stub_geo(), before, s)
    assert not after.unit(J, "RGT-1").entrenched  # type: ignore[union-attr]


def test_cg1_philfort_isolated_unit_may_entrench() -> None:
    """CG1.PHILFORT: "or if isolated on hex 348 it may entrench" (ENT.PROC asks for
    supply elsewhere)."""
    game = fort_game(land(A, "RGT-1", FORT, supplied=False), supplied_base=False)
    game.play({A: "ENTRENCH RGT-1"}, dice=())
    assert game.unit(A, "RGT-1").entrenched


def _step_10(s: GameState) -> GameState:
    """after_round as it runs once step 10's trace has been made."""
    before = replace(s, round=5)
    after = replace(s, round=0, turn=s.turn + 1)
    return scenario_rules.after_round(stub_geo(), before, after)


def test_cg1_philfort_isolation_ignored_for_eight_unsupplied_turns() -> None:
    """CG1.PHILFORT: "Once entrenched, it is not affected by isolation for the first
    eight Game-Turns in which the unit is out of supply": an entrenched unit on the hex
    found out of supply at step 10 stays supplied, eight times, then no more. A unit
    not entrenched, or elsewhere, is not covered."""
    s = make_state(
        [
            land(A, "RGT-1", FORT, entrenched=True, supplied=False),
            land(A, "RGT-2", FORT, supplied=False),
            land(A, "RGT-3", BESIDE, entrenched=True, supplied=False),
        ],
        extra={"special": SPECIAL},
        last_turn=20,
    )
    for turn in range(1, 9):
        s = _step_10(s)
        assert s.unit(A, "RGT-1").supplied, turn  # type: ignore[union-attr]
        assert not s.unit(A, "RGT-2").supplied and not s.unit(A, "RGT-3").supplied  # type: ignore[union-attr]
        s = s.with_units([replace(s.units["allied/RGT-1"], supplied=False)])  # the next trace
    s = _step_10(s)
    assert not s.unit(A, "RGT-1").supplied  # type: ignore[union-attr]
    assert s.extra["philfort_isolation"]["allied/RGT-1"] == 9
