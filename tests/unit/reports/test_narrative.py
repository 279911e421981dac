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
    assert event_lines(moved) == ["allied: moved (CV-5, CV-2): path 0898 [SEQ.2C]"]


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
                "events": [{"kind": "turn-end", "data": {}}],
            },
        },
    ]
    (turn,) = narrative(entries)
    (phase,) = turn["phases"]
    assert turn["turn"] == 1 and phase["title"] == "Moves"
    assert phase["orders"] == [("japanese", ["MOVE CV-1 0101"])]
    assert phase["rolls"] == 2 and phase["happened"] == ["Turn end"]
