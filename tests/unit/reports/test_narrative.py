"""The archive site's turn-by-turn narrative and its times (issue 13)."""

from __future__ import annotations

from datetime import UTC, datetime

from pbem.reports.narrative import event_lines, narrative, when


def test_times_read_as_a_date_and_a_minute() -> None:
    assert (
        when(datetime(2026, 12, 1, 17, 15, 40, 126445, tzinfo=UTC)) == "Tue 01 Dec 2026 17:15 UTC"
    )
    assert when("2026-12-01T18:15:40.1+01:00") == "Tue 01 Dec 2026 17:15 UTC"


def test_ships_moving_together_are_told_once() -> None:
    moved = [
        {"kind": "moved", "rule": "SEQ.2C", "data": {"unit": u, "side": "allied", "path": ["0898"]}}
        for u in ("CV-5", "CV-2")
    ]
    assert event_lines(moved) == ["Allied CV-5 and CV-2 moved 0898. [SEQ.2C]"]


def test_a_combat_is_told_in_sentences_not_as_its_data() -> None:
    from .combat_events import LAND

    (line,) = event_lines([LAND])
    assert line.startswith("Land combat at 0213, Allied attacking: Attackers RGT-1, strength 40;")
    assert "CRT1 column 2-1. Die 6 (CRT1 result): D1: on Class 1 land" in line
    assert line.endswith("completes it in the progression of the printed cells. [SEQ.5K]")


def test_phases_grouped_by_turn_with_titles_orders_and_dice() -> None:
    at = "2026-12-01T17:15:40+00:00"
    entries = [
        {"kind": "phase-opened", "at": at, "payload": {"seq": 1, "phase": "J-2", "title": "Moves"}},
        {"kind": "report-sent", "at": at, "payload": {"audience": "japanese"}},
        {
            "kind": "phase-adjudicated",
            "at": at,
            "payload": {
                "seq": 1,
                "turn": 1,
                "phase": "J-2",
                "plots": {"japanese": {"orders": ["MOVE CV-1 0101"]}},
                "rolls": [3, 4],
                "seed": "ab",
                "events": [{"kind": "turn-end", "data": {"turn": 1}}],
            },
        },
    ]
    (turn,) = narrative(entries)
    (phase,) = turn["phases"]
    assert turn["turn"] == 1 and phase["title"] == "Moves"
    assert phase["orders"] == [("japanese", ["MOVE CV-1 0101"])]
    assert phase["rolls"] == 2 and phase["happened"] == ["Game-Turn 1 ended."]
