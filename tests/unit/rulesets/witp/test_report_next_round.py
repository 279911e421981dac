"""The report's "Next round" line (3.1 C): it names the round and, when the round is
one half of a plotting gate (the Japanese plot first, then the Allies: 42.x), the
side that plots in it."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from pbem.reports.context import Header, report_context
from pbem.reports.render import render
from pbem.rulesets.witp import play
from pbem.rulesets.witp.clock import Round, rounds
from pbem.rulesets.witp.knowledge import PUBLIC
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.state import PublicPart

from .conftest import SCENARIO


@dataclass(frozen=True, slots=True)
class GateClock(play.Clock):
    """The clock with its pending round replaced (the gate's rounds come from clock.py)."""

    gate: Round | None = None

    def pending(self) -> Round | None:
        return self.gate


def _texts(witp: WitpRuleset, gate: Round) -> tuple[str, str, dict[str, Any]]:
    state = witp.initial_state(SCENARIO, {})
    public = PublicPart.from_json(state[PUBLIC])
    clock = play.Clock.of(public.clock, public.pack)
    described = GateClock(
        at=clock.at,
        game_turns=clock.game_turns,
        turn_in_cycle=clock.turn_in_cycle,
        start_date=clock.start_date,
        gate=gate,
    )
    view = {**witp.view(state, [], "allied"), "clock": described.describe()}
    header = Header("g1", "witp", witp.title, SCENARIO, "allied", "allied", "g1")
    ctx = report_context(header, view)
    return render("witp", "report.txt.j2", ctx), render("witp", "report.html.j2", ctx), view


def _round(name: str) -> Round:
    clock = play.Clock(at=0, game_turns=3, turn_in_cycle=1, start_date="1942-05-03")
    return next(r for r in rounds(clock.slots) if r.name == name)


def test_3_1_c_next_round_of_both_sides_names_the_round(witp: WitpRuleset) -> None:
    text, html, view = _texts(witp, _round("T1-naval2-plot"))
    assert view["clock"]["plots"] == ["japanese", "allied"] and not view["clock"]["half"]
    line = re.search(r"^Next round .*", text, re.M)
    assert line and line.group(0) == (
        "Next round T1-naval2-plot: Second Naval Phase: Plot Segment."
    )
    assert "side plots)" not in html and "side plots)" not in text


def test_42_gate_half_next_round_says_which_side_plots(witp: WitpRuleset) -> None:
    base = _round("T1-naval2-plot")
    gate = replace(base, name="T1-naval2-plot-japanese", sides=("japanese",))
    text, html, view = _texts(witp, gate)
    assert view["clock"]["plots"] == ["japanese"] and view["clock"]["half"]
    words = " ".join(text.split())
    assert (
        "Next round T1-naval2-plot-japanese (the japanese side plots): Second Naval Phase: "
        "Plot Segment" in words
    )
    assert "(the <b>japanese</b> side plots)" in html
