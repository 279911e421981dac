"""A phase is named once, the way subjects and headings name it (core.sequence.phase_label):
"turn 1 A-3-4" for a U.S.N. phase, "setup-J" for U.S.N.'s set-up (before turn 1), and
"T1-air1-allocation" for a War in the Pacific round, whose name says its own turn. The
answer's first line, the reminder and the report's "Next:" line use it; none reads
"turn 1 phase T1-air1-allocation" or "turn 1 setup-J"."""

from __future__ import annotations

import re
from typing import Any

import pytest

from pbem.core.sequence import phase_label
from pbem.lifecycle.mailroom.answer import Answer
from pbem.lifecycle.publishing import audience_view
from pbem.reports.context import Header
from pbem.reports.render import render
from pbem.reports.report import render_report
from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.ruleset import WitpRuleset

from .test_render import PHASE
from .usn_world import A, played

# (ruleset, turn, phase name, how phase_label names it)
PHASES = [
    ("usn", 1, "A-3-4", "turn 1 A-3-4"),
    ("usn", 1, "setup-J", "setup-J"),
    ("witp", 1, "T1-air1-allocation", "T1-air1-allocation"),
    ("witp", 2, "T2-naval1-plot-japanese", "T2-naval1-plot-japanese"),
]


def _once(turn: int, name: str, label: str, text: str) -> None:
    """The label is there once, with no "turn N" or "phase" doubled before the name."""
    words = " ".join(text.split())
    assert words.count(label) == 1, words
    assert f"phase {name}" not in words, words
    if label == name:
        assert f"turn {turn} {name}" not in words, words


@pytest.mark.parametrize(("ruleset", "turn", "name", "label"), PHASES)
def test_the_answers_first_line_names_the_phase_as_phase_label_does(
    ruleset: str, turn: int, name: str, label: str
) -> None:
    assert phase_label(turn, name) == label
    text = Answer(game="g1", side="allied", turn=turn, phase=name, accepted=("PASS",)).text()
    first = text.splitlines()[0]
    assert first == f"Game g1, allied, {label}"
    _once(turn, name, label, text)


@pytest.mark.parametrize(("ruleset", "turn", "name", "label"), PHASES)
def test_the_reminder_names_the_phase_as_phase_label_does(
    ruleset: str, turn: int, name: str, label: str
) -> None:
    context = {"game": "g1", "side": "allied", "turn": turn, "phase": name,
               "deadline": "Wed 04 Nov 12:00 CET", "grace_until": "", "policy": ""}  # fmt: skip
    text = render(ruleset, "reminder.txt.j2", context)
    words = " ".join(text.split())
    assert f"Game g1: orders for {label} are due from you (allied) by Wed 04 Nov" in words
    _once(turn, name, label, text)


def _next_line(text: str) -> str:
    line = re.search(r"^Next: .*", text, re.M)
    assert line, text
    return line.group(0)


@pytest.mark.parametrize("name", ["A-3-4", "setup-J"])
def test_a_usn_reports_next_line_names_the_phase_as_phase_label_does(name: str) -> None:
    label = phase_label(1, name)
    g, state = played()
    view = audience_view(g.rs, state, g.events, A)
    header = Header("g7", "usn", g.rs.title, "test", A, A, "g7", phase={**PHASE, "name": name})
    r = render_report(header, view, with_map=False)
    assert _next_line(r.text) == f"Next: {label} - {PHASE['title']}"
    assert f"<p>Next: {label} - {PHASE['title']}</p>" in r.html
    assert "turn 1 setup-J" not in r.text and " phase " + name not in r.text


def _witp_report(name: str, turn: int, audience: str) -> Any:
    witp = WitpRuleset(load_library(), load_map())
    state = witp.initial_state("coral-sea-1942", {})
    phase = {"turn": turn, "name": name, "title": "", "sides": ["allied"],
             "deadline": "Wed 04 Nov 12:00 CET", "seed_commitment": "ab" * 32}  # fmt: skip
    side = None if audience == "omniscient" else audience
    form = "Game: g1\nSide: allied\n" if side == "allied" else ""  # a form: he owes orders
    header = Header("g1", "witp", witp.title, "coral-sea-1942", audience, side, "g1",
                    phase=phase, order_form=form)  # fmt: skip
    return render_report(header, witp.view(state, [], side), with_map=False)


# What the digest says of the next round, to each reader (text, HTML).
DUE = {
    "allied": ("DUE FROM YOU by Wed 04 Nov 12:00 CET: orders for {label} (the form", None),
    "japanese": ("Nothing is due from you: allied plot(s) {label} by Wed 04 Nov",
                 "<p>Nothing is due from you: allied plot(s) {label} by Wed 04 Nov"),
    "omniscient": ("Next: {label}, orders due from allied by Wed 04 Nov",
                   "<p>Next: {label}, orders due from allied by Wed 04 Nov"),
}  # fmt: skip


@pytest.mark.parametrize("audience", list(DUE))
@pytest.mark.parametrize(("turn", "name"), [(1, "T1-air1-allocation"), (2, "T2-naval1-plot")])
def test_a_witp_reports_digest_names_the_next_round_once(
    turn: int, name: str, audience: str
) -> None:
    label = phase_label(turn, name)
    assert label == name
    r = _witp_report(name, turn, audience)
    text, html = DUE[audience]
    assert text.format(label=label) in " ".join(r.text.split())
    if html:
        assert html.format(label=label) in " ".join(r.html.split())
    assert f"turn {turn} {name}" not in r.text + r.html
    assert f"phase {name}" not in r.text + r.html
