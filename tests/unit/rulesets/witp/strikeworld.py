"""A carrier battle in the Coral Sea game itself, for the strike-report tests: the
scenario's state after its opening round, the carriers given air groups (the
test's own numbers), the MO Striking Force (Japanese TF2, E2114) Located 6 hexes
from Yorktown's TF3, moved to E2120; and a strike resolved by
``naval_strike.resolve`` with the open dice and the moderator's secret stream
apart, so worlds can differ in the secret one alone."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pbem.core.dice import Dice, SeededDice
from pbem.core.events import Event
from pbem.reports.context import Header, report_context
from pbem.reports.render import render
from pbem.rulesets.witp.air import naval_strike, plot
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, Knowledge
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.sides import ALLIED, JAPANESE

SCENARIO = "coral-sea-1942"
TIME = "T1/air2/strike"
STRIKE_HEX = "E2120"
STRIKE = (
    "STRIKE S1 FROM TF3 6xSBD-3/D 2xTBD-1/T TARGET TF2\nESCORT S1 FROM TF3 2xF4F-3@M CLOSE"
)
AIR = {
    "Shokaku": {"A6M2": 3, "D3A1": 3, "B5N2": 2},
    "Zuikaku": {"A6M2": 3, "D3A1": 3, "B5N2": 2},
    "Yorktown": {"F4F-3": 3, "SBD-3": 6, "TBD-1": 2},
    "Lexington": {"F4F-3": 3, "SBD-3": 6, "TBD-1": 2},
}


def opened(witp: WitpRuleset) -> dict[str, Any]:
    """The game after its opening round, carriers armed, TF2 Located."""
    state = witp.initial_state(SCENARIO, {})
    d = witp.pending(state)
    assert d is not None
    state = dict(witp.adjudicate(state, {}, SeededDice(b"s", "g", d.turn, d.phase)).state)
    state = copy.deepcopy(state)
    for side in (JAPANESE, ALLIED):
        for name, ship in state[PRIVATE][side]["ships"].items():
            ship.setdefault("damage", 0)  # attack.resolve reads it (stage 1 keeps none)
            if name in AIR:
                ship["air"] = dict(AIR[name])
    state[PRIVATE][ALLIED]["tfs"]["TF3"]["hex"] = STRIKE_HEX
    tf2 = state[PRIVATE][JAPANESE]["tfs"]["TF2"]
    state[PUBLIC].setdefault("located", {})["japanese:TF2"] = {
        "owner": JAPANESE,
        "tf": "TF2",
        "hex": tf2["hex"],
        "label": "Located 1A",
        "placed": 0,
        "time": "T1/air2/search",
        "source": "air",
    }
    return state


def strike(state: Mapping[str, Any], text: str = STRIKE, side: str = ALLIED) -> dict[str, Any]:
    p, errors = plot.judge(Knowledge.of(state, side), side, text)
    assert errors == []
    return dict(next(iter(p.strikes.values())))


def open_dice(seed: int) -> SeededDice:
    return SeededDice(bytes([seed]) * 16, "g", 1, "T1-air2")


def resolved(
    state: Mapping[str, Any],
    seed: int,
    secret: bytes = b"moderator-1",
    dice: Dice | None = None,
    **kw: Any,
) -> tuple[dict[str, Any], list[Event]]:
    """The strike resolved: ``seed`` the open dice, ``secret`` the owner's critical rolls."""
    return naval_strike.resolve(
        state,
        strike(state),
        dice or open_dice(seed),
        SecretDice(secret.ljust(12, b".")[:12], "secret"),
        TIME,
        **kw,
    )


def report(
    witp: WitpRuleset, state: Mapping[str, Any], events: list[Event], side: str | None
) -> tuple[str, str]:
    """The side's report, text and HTML, as the publisher renders it."""
    view = witp.view(state, events, side)
    audience = side or "omniscient"
    header = Header("g1", "witp", witp.title, SCENARIO, audience, side, "g1")
    ctx = report_context(header, view)
    return render("witp", "report.txt.j2", ctx), render("witp", "report.html.j2", ctx)
