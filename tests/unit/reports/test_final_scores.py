"""The game-over block gives the final totals once: a verdict that states its victory
points is not followed by the ruleset's raw scores (War in the Pacific counts in
sixths of a VP, which read as "allied: 6" beside "allied 1 VP")."""

from __future__ import annotations

from pbem.reports.context import final_scores


def test_witp_verdict_stating_vp_prints_no_sixths() -> None:
    outcome = {
        "summary": "allied wins on ships sunk (34.1.1, R106): allied 1 VP, japanese 1/3 VP",
        "scores": {"allied": 6, "japanese": 2},
    }
    assert final_scores(outcome) is None


def test_usn_verdict_stating_victory_points_prints_no_rounded_scores() -> None:
    outcome = {"summary": "Victory points: Allied 12, Japanese 7.", "scores": {"allied": 12}}
    assert final_scores(outcome) is None


def test_a_verdict_without_points_gets_its_scores() -> None:
    outcome = {"summary": "north 3, south 1", "scores": {"north": 3, "south": 1}}
    assert final_scores(outcome) == {"north": 3, "south": 1}


def test_a_word_holding_vp_is_not_a_statement_of_points() -> None:
    outcome = {"summary": "the VPN went down", "scores": {"north": 1}}
    assert final_scores(outcome) == {"north": 1}
