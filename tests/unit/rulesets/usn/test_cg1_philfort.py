"""CG1.PHILFORT on the stub map: "Any Allied land unit on hex 348 in Luzon may
entrench automatically without having to roll the die. A unit may move (if supplied)
into the hex and entrench in the same Movement Phase, or if isolated on hex 348 it may
entrench. Once entrenched, it is not affected by isolation for the first eight
Game-Turns in which the unit is out of supply.\""""

from __future__ import annotations

from dataclasses import replace

from pbem.rulesets.usn import scenario_rules
from pbem.rulesets.usn.state import Air, GameState
from pbem.rulesets.usn.supply import update_supply

from .builders import ISLAND, Game, base, land, make_state, ship, stub_geo

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
    game = fort_game(land(A, "RGT-1", FORT), ship(J, "CV-1", BESIDE), supplied_base=False)
    game.state = replace(game.s, air={J: {"CV-1": Air(nac=3)}}).to_json()  # its zone isolates
    (e,) = game.validate(A, f"MOVE RGT-1 {BESIDE:04d}").errors
    assert e.rule == "MOV.G"  # out of supply indeed
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
    that no line reaches (a Japanese carrier's zone covers it) stays supplied at every
    trace of those Game-Turns; each step 10 that finds it isolated counts one, and
    after the eighth it is out of supply. A unit not entrenched, or elsewhere, is not
    covered."""
    geo = stub_geo()
    s = make_state(
        [
            land(A, "RGT-1", FORT, entrenched=True),
            land(A, "RGT-2", FORT),
            land(A, "RGT-3", BESIDE, entrenched=True),
            ship(J, "CV-1", BESIDE),
        ],
        air={J: {"CV-1": Air(nac=3)}},
        extra={"special": SPECIAL},
        last_turn=20,
    )
    for turn in range(1, 9):
        s = update_supply(
            geo, s, immune=scenario_rules.isolation_immune
        )  # any step of the Game-Turn
        assert s.unit(A, "RGT-1").supplied, turn  # type: ignore[union-attr]
        assert not s.unit(A, "RGT-2").supplied and not s.unit(A, "RGT-3").supplied  # type: ignore[union-attr]
        s = _step_10(update_supply(geo, s, turn_over=True, immune=scenario_rules.isolation_immune))
        assert s.extra["philfort_isolation"]["allied/RGT-1"] == turn
    assert not s.unit(A, "RGT-1").supplied  # type: ignore[union-attr]
    assert (
        not update_supply(geo, s, immune=scenario_rules.isolation_immune).unit(A, "RGT-1").supplied
    )  # type: ignore[union-attr]


def test_cg1_philfort_a_supplied_step_10_counts_no_turn() -> None:
    """CG1.PHILFORT: only Game-Turns "in which the unit is out of supply" count: with
    a line at step 10 (the carrier gone) nothing is added to the record."""
    s = make_state([land(A, "RGT-1", FORT, entrenched=True)], extra={"special": SPECIAL})
    s = _step_10(
        update_supply(stub_geo(), s, turn_over=True, immune=scenario_rules.isolation_immune)
    )
    assert "philfort_isolation" not in s.extra and s.unit(A, "RGT-1").supplied  # type: ignore[union-attr]
