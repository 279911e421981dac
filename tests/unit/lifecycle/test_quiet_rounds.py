"""Quiet rounds (pbem.lifecycle.quiet): which seats are sent no report, and what the
next report carries from the rounds between; both from what the side may know."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem import rulesets
from pbem.core.events import Event
from pbem.lifecycle import quiet
from pbem.record import journal

J, A = "japanese", "allied"


@dataclass
class FakePhase:
    seq: int
    sides: list[str]
    name: str = ""
    epoch: int = 0


@dataclass
class FakeSeat:
    side: str | None


@dataclass
class FakeLookups:
    line: list[FakePhase]
    s: Any = None

    def line_of_play(self, game_id: str) -> list[FakePhase]:
        return self.line


# The WitP rounds of a Naval Phase and an Air Phase: who owes orders in each.
ROUNDS = [
    ("T1-air1-allocation", [J, A]),
    ("T1-naval1-plot-japanese", [J]),
    ("T1-naval1-plot", [A]),
    ("T1-air2-allocation", [J, A]),
    ("T1-naval2-plot-japanese", [J]),
    ("T1-naval2-plot", [A]),
]
LINE = [FakePhase(n + 1, sides, name) for n, (name, sides) in enumerate(ROUNDS)]


def test_a_seat_whose_side_owes_nothing_is_sent_no_report_but_the_first() -> None:
    rs = rulesets.get("witp")  # opts in (core.ruleset.QuietRounds)
    phase: Any = LINE[4]  # T1-naval2-plot-japanese: the Japanese alone plot
    assert quiet.skipped(rs, FakeSeat(A), phase, first=False)  # type: ignore[arg-type]
    assert not quiet.skipped(rs, FakeSeat(J), phase, first=False)  # type: ignore[arg-type]
    assert not quiet.skipped(rs, FakeSeat(A), phase, first=True)  # type: ignore[arg-type]
    assert not quiet.skipped(rs, FakeSeat(None), phase, first=False)  # type: ignore[arg-type]


def test_a_ruleset_that_does_not_opt_in_mails_every_seat() -> None:
    assert quiet.applies(rulesets.get("witp"))
    assert not quiet.applies(rulesets.get("usn")) and not quiet.applies(rulesets.get("demo"))


def test_the_next_report_carries_the_rounds_the_side_was_not_sent() -> None:
    """Opening T1-naval2-plot (seq 6), T1-naval2-plot-japanese (5) was just played; the
    Allies were sent no report as it opened (they owed nothing in it), so the report
    after T1-air2-allocation (4) is carried; the one before it they were sent."""
    lookups: Any = FakeLookups(LINE)
    assert quiet.unreported(lookups, "g", LINE[5], A) == [4]  # type: ignore[arg-type]
    # Opening T1-air2-allocation (seq 4) after T1-naval1-plot (3): the Japanese were sent
    # no report as T1-naval1-plot opened (the Allies' half), the Allies were.
    assert quiet.unreported(lookups, "g", LINE[3], J) == [2]  # type: ignore[arg-type]
    assert quiet.unreported(lookups, "g", LINE[3], A) == []  # type: ignore[arg-type]


def _adjudication(seq: int, events: list[Event]) -> dict[str, Any]:
    return {"payload": {"seq": seq, "epoch": 0, "events": [e.to_json() for e in events]}}


SEEN_BY_BOTH = Event("turn-ended", {"turn": 1, "time": "T1/end/advance"}, None, "3.1 I")


@st.composite
def hidden_events(draw: st.DrawFn) -> list[Event]:
    """Events the Allies may not see: told to the Japanese alone."""
    return [
        Event(kind, {"n": draw(st.integers(0, 9)), "time": "T1/air2/strike"}, (J,), "8.1")
        for kind in draw(st.lists(st.sampled_from(("admiral-ratings", "search-chit")), max_size=3))
    ]


@given(hidden_events(), hidden_events())
def test_hid_what_is_carried_is_the_same_in_worlds_the_side_cannot_tell_apart(
    one: list[Event], two: list[Event]
) -> None:
    """Two worlds whose skipped round differs only in what the Allies may not see carry
    the same events to the Allies' next report (and the round's name)."""
    lookups: Any = FakeLookups(LINE)
    told = []
    for hidden in (one, two):
        with pytest.MonkeyPatch.context() as mp:
            entries = [_adjudication(4, [*hidden, SEEN_BY_BOTH])]
            mp.setattr(journal, "entries", lambda *a, e=entries, **k: e)
            told.append(quiet.carried(lookups, "g", LINE[5], A))  # type: ignore[arg-type]
    assert told[0] == told[1]
    events, names = told[0]
    assert [e.kind for e in events] == ["turn-ended"] and names == ["T1-air2-allocation"]
