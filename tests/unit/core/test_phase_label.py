"""The one label every subject and heading gives a phase (pbem.core.sequence)."""

from __future__ import annotations

import pytest

from pbem.core.sequence import phase_label


@pytest.mark.parametrize(
    ("turn", "phase", "label"),
    [
        (3, "J-2", "turn 3 J-2"),  # U.S.N. SEQ: the mail rounds of a turn
        (1, "plot", "turn 1 plot"),  # the demonstration game
        (1, "T1-air1-allocation", "T1-air1-allocation"),  # WitP 3.1: it says its turn
        (4, "S1-ms-escort", "S1-ms-escort"),  # WitP 50.0: the Strategic Game-Turn
        (1, "T1-open", "T1-open"),
        (1, "setup-J", "setup-J"),  # U.S.N. SETUP.JFIRST: before turn 1, not in it
        (1, "pre-J-2", "pre-J-2"),  # U.S.N. CG1.SHOCK.PREGAME: before turn 1
        (None, "J-2", "J-2"),
    ],
)
def test_phase_label_says_the_turn_once_and_keeps_the_name_whole(
    turn: int | None, phase: str, label: str
) -> None:
    assert phase_label(turn, phase) == label


@pytest.mark.parametrize("phase", ["T1-air1-allocation", "S2-ms-escort", "setup-A", "A-3-4"])
def test_phase_label_never_says_the_turn_twice(phase: str) -> None:
    label = phase_label(1, phase)
    assert label.endswith(phase)  # the identifier players write in Phase:
    assert label.count("turn") + label.count("T1-") <= 1
