"""Noninterference on the mail itself (issue 13): every mail a side receives, as
the mailroom and the publisher compose it, is the same in two worlds the side
cannot tell apart.

The worlds are test_leaks' (tests/unit/reports/test_leaks.py): public units near
the viewer; the enemy's hidden part (cargo, which of his troops on the quay went
aboard the transport beside them, standing orders, far stacks, base states out of
sight) and, double-blind, enemy ships lurking just out of sight;
with the optional submarines (SUB.GEN) the Japanese subs and their log, which
the Allies never know (GEN.REC.C). Each world is put into a real U.S.N. game's
open phase (SQLite), and the same signed order mail (bytes) goes through
``Mailroom.process``; its answer, and the phase's report to the viewer, are read
back from the outbox as composed (headers, text, HTML, attachments).

What may legitimately differ is made equal by construction (mailworlds.py):
only the commitment in a receipt is masked.

The ruleset is test_leaks' (the stub map the worlds are drawn on): the
registry hands it to the game, as it hands the real one to a real game.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pbem import rulesets
from pbem.core.events import Event
from pbem.core.sequence import phase_label
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.state import GameState
from tests.unit.reports.test_leaks import (
    AIR5,
    NEAR_COLS,
    ROUND_OF,
    ROWS,
    RULESET,
    SIDES,
    World,
    lurkers,
    own_orders,
    probes,
    worlds,
)
from tests.unit.rulesets.usn.builders import make_state, ship

from .mailworlds import COMMITMENT, Harness, masked, open_harness, subject_and_text

J, A = "japanese", "allied"
# (fog mode, optional submarines): each its own game, created with those options.
VARIANTS = (("open", False), ("double-blind", False), ("open", True), ("double-blind", True))


def game_id(mode: str, subs: bool) -> str:
    return f"{'db' if mode == 'double-blind' else 'op'}-{'subs' if subs else 'plain'}"


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    folder: Path = tmp_path_factory.mktemp("mail-noninterference")
    patch = pytest.MonkeyPatch()
    patch.setitem(rulesets._FACTORIES, "usn", lambda: RULESET)
    h, engine, public = open_harness(folder, SIDES)
    for mode, subs in VARIANTS:
        options = {"fog": mode, "subs": subs}
        h.start_game(game_id(mode, subs), "usn", "coral-sea", public, options)
    yield h
    engine.dispose()
    patch.undo()


# --- the worlds, with the submarines -------------------------------------------------


@st.composite
def sub_parts(draw: st.DrawFn, viewer: str) -> dict[str, Any]:
    """The Japanese subs (SUB.GEN, GEN.REC.C): hidden from the Allies, so for an
    Allied viewer random per world; the Japanese viewer's own are the same in both."""
    if viewer == J:
        return {"subs": {"SUB-1": {"hex": 1530, "station": False, "phases": 0}}, "sub_log": []}
    n = draw(st.integers(1, 3))
    subs = {
        f"SUB-{i}": {
            "hex": int(
                hexgrid.hex_id(draw(st.sampled_from(NEAR_COLS)), draw(st.sampled_from(ROWS)))
            ),
            "station": draw(st.booleans()),
            "phases": draw(st.integers(0, 7)),
        }
        for i in range(1, n + 1)
    }
    log = [
        {"turn": 1, "sub": uid, "hex": hexgrid.fmt(s["hex"]), "on_station": s["station"]}
        for uid, s in sorted(subs.items())
    ]
    return {"subs": subs, "sub_log": log}


@dataclass(frozen=True)
class Case:
    world: World
    subs: bool
    states: tuple[GameState, GameState]
    events: tuple[list[Event], list[Event]]
    text: str


@st.composite
def cases(draw: st.DrawFn) -> Case:
    mode, subs = draw(st.sampled_from(VARIANTS))
    world, h1, h2 = draw(worlds(mode))
    rnd = draw(st.sampled_from([ROUND_OF[world.viewer], AIR5]))
    pair = []
    lurking = []
    for h in (h1, h2):
        lurk = draw(lurkers(world))
        lurking += list(lurk)
        state = replace(world.with_hidden(h).with_units(lurk), round=rnd)
        options = {**state.options, "subs": subs}
        extra = {**state.extra, **(draw(sub_parts(world.viewer)) if subs else {})}
        pair.append(replace(state, options=options, extra=extra))
    hidden = [*h1.cargo, *h2.cargo, *lurking]
    if mode == "double-blind":
        hidden += [*h1.far_units, *h2.far_units]
    text = draw(st.one_of(probes(world, hidden, rnd == AIR5), own_orders(world)))
    events = (world.all_events(h1), world.all_events(h2))
    return Case(world, subs, (pair[0], pair[1]), events, text)


def _both(harness: Harness, case: Case, report: bool) -> list[dict[str, bytes]]:
    game = game_id(case.world.mode, case.subs)
    raw = harness.order_mail(game, case.world.viewer, case.text)
    return [
        harness.mails(game, case.world.viewer, raw, state.to_json(), list(events), report)
        for state, events in zip(case.states, case.events, strict=True)
    ]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases())
def test_hid_the_answer_mail_is_identical_in_worlds_the_side_cannot_tell_apart(
    harness: Harness, case: Case
) -> None:
    """The answer to any order mail (accepted lines, refusals with their rules, the
    receipt, notes, deadline; Subject and every header) is byte for byte the same,
    in both fog modes, with and without submarines."""
    a, b = _both(harness, case, report=False)
    subject, text = subject_and_text(a["answer"])
    assert subject == "Re: orders" and f"Game {game_id(case.world.mode, case.subs)}" in text
    event(f"{case.world.mode}, subs {case.subs}: {'refusals' if 'Refused' in text else 'none'}")
    assert len(COMMITMENT.findall(a["answer"])) == len(COMMITMENT.findall(b["answer"]))
    assert masked(a["answer"]) == masked(b["answer"])


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases())
def test_hid_the_report_mail_is_identical_in_worlds_the_side_cannot_tell_apart(
    harness: Harness, case: Case
) -> None:
    """The phase report the publisher mails the viewer (Subject, text, HTML, the map
    picture's bytes) is the same; a render takes ~1 s, hence few examples."""
    a, b = _both(harness, case, report=True)
    subject, text = subject_and_text(a["report"])
    turn, name = harness.phase
    assert subject.endswith(f"next {phase_label(turn, name)}, orders due Wed 04 Nov 12:00 UTC")
    assert f"Report for {case.world.viewer}" in text
    assert a["report"] == b["report"]


def test_the_mail_does_change_with_what_the_side_knows(harness: Harness) -> None:
    """The comparison can fail: the state put into the phase is the one the mail is
    validated and reported against. The same mail, a world where the viewer's own
    CA-1 is at sea and one where it is not: the answers differ."""
    here = int(hexgrid.hex_id(18, 12))
    there = hexgrid.neighbours(here)[0]
    states = [
        make_state(units, options={"fog": "open"}, round=ROUND_OF[A])
        for units in ([ship(A, "CA-1", here, ma=5)], [ship(A, "CA-2", here, ma=5)])
    ]
    game = game_id("open", False)
    raw = harness.order_mail(game, A, f"MOVE CA-1 {there:04d}")
    texts = [
        subject_and_text(harness.mails(game, A, raw, st_.to_json(), [], report=False)["answer"])[1]
        for st_ in states
    ]
    assert "Accepted (1)" in texts[0] and "Refused" not in texts[0]
    assert "Refused (1)" in texts[1] and "CA-1" in texts[1]
