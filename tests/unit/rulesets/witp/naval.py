"""Helpers for the naval tests: the Coral Sea game at its first Plot Segment."""

from __future__ import annotations

import copy
from typing import Any

from pbem.core.dice import SeededDice
from pbem.core.ruleset import Adjudication
from pbem.rulesets.witp.ruleset import WitpRuleset

from .conftest import SCENARIO

# The naval rules' tests play each Plot Segment as one round, both sides at once:
# the 42.3.1 gate off (ruling R70's "off"). test_intelligence_gate plays the gate.
NO_GATE = {"rulings": {"sigint-plot-gate": {"value": "off"}}}


def at_plot(witp: WitpRuleset, *, gate: bool = False) -> dict[str, Any]:
    """The state at T1-naval1-plot (the opening round played); ``gate``: the Coral
    Sea's own rulings, whose Plot Segments split (42.3.1), so T1-naval1-plot-japanese."""
    state = witp.initial_state(SCENARIO, {} if gate else {"datapack": NO_GATE})
    return past_allocation(
        witp, witp.adjudicate(state, {}, SeededDice(b"n", "g", 1, "T1-open")).state
    )


def past_allocation(witp: WitpRuleset, state: Any) -> dict[str, Any]:
    """``state`` with any pending Air Phase Allocation Segment rounds (5.0, stage 2)
    played with no strikes (PASS): the naval tests play the naval rounds."""
    state = dict(state)
    while (d := witp.pending(state)) is not None and d.phase.endswith("-allocation"):
        passes = {side: ["PASS"] for side in d.sides}
        state = dict(witp.adjudicate(state, passes, SeededDice(b"a", "g", d.turn, d.phase)).state)
    return state


def tfs(state: dict[str, Any], side: str) -> dict[str, Any]:
    out: dict[str, Any] = state["private"][side]["tfs"]
    return out


def edited(state: dict[str, Any], side: str, tf: str, **fields: Any) -> dict[str, Any]:
    """A copy of ``state`` with ``side``'s ``tf`` changed (a test's own set-up)."""
    new = copy.deepcopy(state)
    tfs(new, side)[tf].update(fields)
    return new


def blind(state: dict[str, Any], *sides: str) -> dict[str, Any]:
    """A copy of ``state`` in which ``sides`` search nothing: no land bases, no
    carrier air points, no coastwatchers (13.0, 13.8): movement alone is tested."""
    new = copy.deepcopy(state)
    for side in sides or ("japanese", "allied"):
        own = new["private"][side]
        own["air_bases"] = {}
        own["coastwatchers"] = {}
        for ship in own.get("ships", {}).values():
            ship.pop("air", None)
    return new


def play(
    witp: WitpRuleset, state: dict[str, Any], seed: bytes = b"p", **orders: str
) -> Adjudication:
    """Validate each side's orders (all must pass) and play the round (the naval
    round: an Allocation Segment's round pending first is passed)."""
    state = past_allocation(witp, state)
    d = witp.pending(state)
    assert d is not None
    accepted = {}
    for side in d.sides:
        v = witp.validate(state, side, orders.get(side, ""))
        assert not v.errors, v.errors
        accepted[side] = list(v.accepted)
    return witp.adjudicate(state, accepted, SeededDice(seed, "g", d.turn, d.phase))


def refusal(witp: WitpRuleset, state: dict[str, Any], side: str, text: str) -> tuple[str, str]:
    """(rule, message) of the single refused line of ``text`` in the next naval plot."""
    (err,) = witp.validate(past_allocation(witp, state), side, text).errors
    return str(err.rule), err.message


def executed(result: Adjudication, side: str) -> list[dict[str, Any]]:
    return [dict(e.data) for e in result.events if e.kind == "tf-executed" and e.seen_by(side)]
