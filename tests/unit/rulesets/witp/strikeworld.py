"""A carrier battle in the Coral Sea game itself, for the strike-report tests: the
scenario's state after its opening round, the carriers given air groups (the
test's own numbers), the MO Striking Force (Japanese TF2, E2114) and Yorktown's
TF3, moved ``hexes`` away, each Located by the other; and a strike resolved by
``naval_strike.resolve`` with the open dice and the moderator's secret stream
apart, so that worlds can differ in the secret stream alone (16.7), or in the
dice of one roll (``Routed``)."""

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
KIDO_BUTAI_HEX = "E2114"  # TF2's set-up hex
YORKTOWN_AT = {6: "E2120", 9: "E2123"}  # hexes from E2114: 36 MP (normal), 54 (extended)
AIR = {
    "Shokaku": {"A6M2": 3, "D3A1": 3, "B5N2": 2},
    "Zuikaku": {"A6M2": 3, "D3A1": 3, "B5N2": 2},
    "Yorktown": {"F4F-3": 3, "SBD-3": 6, "TBD-1": 2},
    "Lexington": {"F4F-3": 3, "SBD-3": 6, "TBD-1": 2},
}
# Each side's strike at 6 hexes (torpedoes in range) and at 9 (dive bombers at
# extended range, the torpedo bombers out of their torpedo range, 5.14.1).
STRIKES = {
    (ALLIED, 6): "STRIKE S1 FROM TF3 6xSBD-3/D 2xTBD-1/T TARGET TF2\n"
    "ESCORT S1 FROM TF3 2xF4F-3@M CLOSE",
    (ALLIED, 9): "STRIKE S1 FROM TF3 6xSBD-3/D TARGET TF2\nESCORT S1 FROM TF3 2xF4F-3@M LOOSE",
    (JAPANESE, 6): "STRIKE S1 FROM TF2 3xD3A1/D 2xB5N2/T TARGET TF3\n"
    "ESCORT S1 FROM TF2 2xA6M2@M CLOSE",
    (JAPANESE, 9): "STRIKE S1 FROM TF2 3xD3A1/D TARGET TF3\nESCORT S1 FROM TF2 2xA6M2@M LOOSE",
}


def _located(owner: str, tf: str, hexid: str) -> dict[str, Any]:
    return {
        "owner": owner,
        "tf": tf,
        "hex": hexid,
        "label": "Located 1A",
        "placed": 0,
        "time": "T1/air2/search",
        "source": "air",
    }


def armed(state: Mapping[str, Any], hexes: int = 6) -> dict[str, Any]:
    """``state`` (the Coral Sea game) with the carriers' air groups and both carrier
    TFs ``hexes`` apart, each Located by the other."""
    out = copy.deepcopy(dict(state))
    for side in (JAPANESE, ALLIED):
        for name, ship in out[PRIVATE][side]["ships"].items():
            ship.setdefault("damage", 0)  # attack.resolve reads it (stage 1 keeps none)
            if name in AIR:
                ship["air"] = dict(AIR[name])
    out[PRIVATE][ALLIED]["tfs"]["TF3"]["hex"] = YORKTOWN_AT[hexes]
    out[PRIVATE][JAPANESE]["tfs"]["TF2"]["hex"] = KIDO_BUTAI_HEX
    markers = out[PUBLIC].setdefault("located", {})
    markers["japanese:TF2"] = _located(JAPANESE, "TF2", KIDO_BUTAI_HEX)
    markers["allied:TF3"] = _located(ALLIED, "TF3", YORKTOWN_AT[hexes])
    return out


def opened(witp: WitpRuleset, hexes: int = 6) -> dict[str, Any]:
    """The game after its opening round (its first open phase), armed."""
    state = witp.initial_state(SCENARIO, {})
    d = witp.pending(state)
    assert d is not None
    return armed(witp.adjudicate(state, {}, SeededDice(b"s", "g", d.turn, d.phase)).state, hexes)


def strike(state: Mapping[str, Any], side: str = ALLIED, hexes: int = 6) -> dict[str, Any]:
    p, errors = plot.judge(Knowledge.of(state, side), side, STRIKES[(side, hexes)])
    assert errors == [], errors
    return dict(next(iter(p.strikes.values())))


def open_dice(seed: int) -> SeededDice:
    return SeededDice(seed.to_bytes(4, "big") * 4, "g", 1, "T1-air2")


class Routed:
    """Open dice whose rolls for purposes starting ``prefix`` come from ``other``:
    two worlds whose dice differ in those rolls alone."""

    def __init__(self, base: Dice, other: Dice, prefix: str) -> None:
        self.base, self.other, self.prefix = base, other, prefix

    def d6(self, purpose: str = "") -> int:
        return (self.other if purpose.startswith(self.prefix) else self.base).d6(purpose)

    def rolls(self) -> list[tuple[int, str]]:
        return self.base.rolls()


def resolved(
    state: Mapping[str, Any],
    seed: int,
    secret: bytes = b"moderator-1",
    *,
    side: str = ALLIED,
    hexes: int = 6,
    dice: Dice | None = None,
    **kw: Any,
) -> tuple[dict[str, Any], list[Event]]:
    """``side``'s strike resolved: ``seed`` the open dice, ``secret`` the seed of the
    owner's critical-hit rolls (16.7)."""
    return naval_strike.resolve(
        state,
        strike(state, side, hexes),
        dice or open_dice(seed),
        SecretDice(secret, "secret"),
        TIME,
        **kw,
    )


def report(
    witp: WitpRuleset, state: Mapping[str, Any], events: list[Event], side: str | None
) -> tuple[str, str]:
    """The side's report, text and HTML, as the publisher renders it."""
    view = witp.view(state, events, side)
    header = Header("g1", "witp", witp.title, SCENARIO, side or "omniscient", side, "g1")
    ctx = report_context(header, view)
    return render("witp", "report.txt.j2", ctx), render("witp", "report.html.j2", ctx)


HEADINGS = (
    "Air searches (",
    "Contacts: ",
    "Latest report ",
    "Enemy TFs Located",
    "Your TFs found",
    "Your TFs Located",
    "Dummies revealed",
    "Your standing orders",
    "Told to you alone",
    "Where this report rests",
)


def strike_section(text: str) -> str:
    """The report's strike section ("" if none)."""
    start = text.find("\nNaval strikes (")
    if start < 0:
        return ""
    ends = [i for h in HEADINGS if (i := text.find(f"\n\n{h}", start)) > 0]
    return text[start : min(ends, default=len(text))]
