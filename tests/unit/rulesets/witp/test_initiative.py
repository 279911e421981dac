"""3.2 Determining Initiative: both roll 1D6, the higher chooses, ties roll again."""

from __future__ import annotations

import pytest

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.rulesets.witp.initiative import FIRST, SECOND, determine


def test_3_2_higher_roll_wins_and_chooses() -> None:
    result = determine(ScriptedDice([2, 5]), "T1/air1/strike", FIRST)
    assert (result.winner, result.first, result.rolls) == ("allied", "allied", ((2, 5),))
    result = determine(ScriptedDice([6, 1]), "T1/naval1/execution", SECOND)
    assert (result.winner, result.choice, result.first) == ("japanese", SECOND, "allied")


def test_3_2_ties_roll_again() -> None:
    dice = ScriptedDice([3, 3, 4, 4, 1, 2])
    result = determine(dice, "T1/air1/strike", FIRST)
    assert result.rolls == ((3, 3), (4, 4), (1, 2)) and result.winner == "allied"
    assert [p for _v, p in dice.rolls] == [
        f"initiative T1/air1/strike {s}" for _ in range(3) for s in ("japanese", "allied")
    ]


def test_3_2_seeded_dice_decide_the_same_way_every_time() -> None:
    a = determine(SeededDice(b"seed", "g1", 1, "T1-open"), "T1/air1/strike")
    b = determine(SeededDice(b"seed", "g1", 1, "T1-open"), "T1/air1/strike")
    assert a == b


def test_3_2_choice_is_first_or_second() -> None:
    with pytest.raises(ValueError):
        determine(ScriptedDice([1, 2]), "x", "never")


def test_3_2_initiative_is_announced_to_both_sides(witp) -> None:  # type: ignore[no-untyped-def]
    state = witp.initial_state("coral-sea-1942", {})
    # The opening round: 13.6's dummy allotments (Japanese 3+3: 2; Allied SI 3 + |1-2|),
    # then twelve dice seed the secret stream (42.8 JN-25, 42.2.2 Magic: R71).
    opened = witp.adjudicate(state, {}, ScriptedDice([3, 3, 1, 2] + [1] * 12)).state
    # The First Air Phase's Allocation round: twelve open dice seed its secret stream,
    # then its Strike Segment rolls 3.2's dice.
    passes = {"japanese": ["PASS"], "allied": ["PASS"]}
    result = witp.adjudicate(opened, passes, ScriptedDice([1] * 12 + [4, 2]))
    (event,) = [e for e in result.events if e.kind == "initiative"]
    assert event.kind == "initiative" and event.rule == "3.2" and event.witnesses is None
    assert event.data["time"] == "T1/air1/strike" and event.data["winner"] == "japanese"
    # rulings/initiative-choice (R3): the winner goes second until a standing order says otherwise.
    assert event.data["first"] == "allied"
    for side in ("japanese", "allied"):
        assert witp.view(result.state, result.events, side)["initiative"][0]["rolls"] == [[4, 2]]
