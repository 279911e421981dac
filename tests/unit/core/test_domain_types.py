"""The domain types both games share (pbem.core): sides, the sequence-of-play
table, dice draws, the sides' colours on a map."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from pbem.core.dice import Draw, ScriptedDice, SeededDice
from pbem.core.mapview import SIDE_COLOURS
from pbem.core.sequence import StepTable
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side, enemy_of, side_named


def test_sides_are_the_names_states_and_mail_carry() -> None:
    assert SIDES == (Side.JAPANESE, Side.ALLIED)
    assert json.dumps({JAPANESE: [ALLIED]}) == '{"japanese": ["allied"]}'
    assert f"{ALLIED}" == "allied" and JAPANESE == "japanese"
    assert JAPANESE.enemy is ALLIED and enemy_of("allied") is JAPANESE


@pytest.mark.parametrize(("text", "side"), [(" Allied ", ALLIED), ("JAPANESE", JAPANESE)])
def test_a_side_named_in_any_case(text: str, side: Side) -> None:
    assert side_named(text) is side


def test_a_name_that_is_no_side() -> None:
    assert side_named("north") is None


@dataclass(frozen=True, slots=True)
class _Step:
    key: str
    title: str
    rule: str


TABLE = StepTable(
    (_Step("1", "first", "R1"), _Step("2", "second", "R2"), _Step("3", "third", "R3"))
)


def test_step_table_finds_steps_by_key_in_order() -> None:
    assert TABLE.get("2").title == "second"
    assert TABLE.index("3") == 2 and TABLE[0].key == "1"
    assert TABLE.after("2") == TABLE[2] and TABLE.after("3") is None
    assert [s.key for s in TABLE] == ["1", "2", "3"] and "2" in TABLE and "4" not in TABLE


def test_step_table_names_the_keys_when_one_is_missing() -> None:
    with pytest.raises(KeyError, match="no step '9' \\(steps: 1, 2, 3\\)"):
        TABLE.get("9")


def test_step_table_refuses_two_steps_with_one_key() -> None:
    with pytest.raises(ValueError, match="two steps keyed '1'"):
        StepTable((_Step("1", "a", "R"), _Step("1", "b", "R")))


def test_usn_sequence_is_a_step_table_of_ten_steps() -> None:
    from pbem.rulesets.usn.sequence import STEPS, step

    assert len(STEPS) == 10 and step(5).rule == "SEQ.5" and STEPS.after("10") is None


def test_draws_are_recorded_as_value_and_purpose() -> None:
    dice = ScriptedDice([4, 2])
    dice.d6("initiative")
    dice.d6("search")
    assert dice.rolls == [Draw(4, "initiative"), Draw(2, "search")]
    assert json.dumps(dice.rolls) == '[[4, "initiative"], [2, "search"]]'
    seeded = SeededDice(b"s", "g", 1, "J-2")
    value = seeded.d6("x")
    assert seeded.rolls[0].value == value and seeded.rolls[0].purpose == "x"


def test_both_sides_and_no_side_have_a_colour() -> None:
    assert set(SIDE_COLOURS) == {JAPANESE, ALLIED, None}
    assert SIDE_COLOURS["japanese"] == SIDE_COLOURS[JAPANESE]
