"""A carrier battle in the Coral Sea game itself, for the strike-report tests: the
scenario's state after its opening round, the carriers given air groups (the
test's own numbers), the MO Striking Force (Japanese TF2, E2114) and Yorktown's
TF3, moved ``hexes`` away, each Located by the other; and a strike resolved by
``naval_strike.resolve_into`` with the open dice and the moderator's secret stream
apart, so that worlds can differ in the secret stream alone (16.7), or in the
dice of one roll (``Routed``)."""

from __future__ import annotations

import copy
import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis import strategies as st

from pbem.core.dice import Dice, SeededDice
from pbem.core.events import Event
from pbem.core.sides import ALLIED, JAPANESE, SIDES, enemy_of
from pbem.reports.context import Header, report_context
from pbem.reports.render import render
from pbem.rulesets.witp.air import plot
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.strikes import AirStrike
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR, PRIVATE, PUBLIC, Fact, disclose
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.ruleset import WitpRuleset

from .journal import Told
from .test_air_world import resolve_stored

SCENARIO = "coral-sea-1942"
TIME = "T1/air2/strike"
KIDO_BUTAI_HEX = "E2114"  # TF2's set-up hex
# hexes from E2114: 36 MP (normal), 54 (extended), 78 (extreme for the dive bombers,
# 6 MP past their extended 72, 5.15)
YORKTOWN_AT = {6: "E2120", 9: "E2123", 13: "E2127"}
AIR = {
    "Shokaku": {"A6M2": 3, "D3A1": 3, "B5N2": 2},
    "Zuikaku": {"A6M2": 3, "D3A1": 3, "B5N2": 2},
    "Yorktown": {"F4F-3": 3, "SBD-3": 6, "TBD-1": 2},
    "Lexington": {"F4F-3": 3, "SBD-3": 6, "TBD-1": 2},
}
# Each side's strike at 6 hexes (torpedoes in range), at 9 (dive bombers at
# extended range, the torpedo bombers out of their torpedo range, 5.14.1) and at 13
# (dive bombers at extreme range, unescorted: 5.15).
STRIKES = {
    (ALLIED, 6): "STRIKE S1 FROM TF3 6xSBD-3/D 2xTBD-1/T TARGET TF2\n"
    "ESCORT S1 FROM TF3 2xF4F-3@M CLOSE",
    (ALLIED, 9): "STRIKE S1 FROM TF3 6xSBD-3/D TARGET TF2\nESCORT S1 FROM TF3 2xF4F-3@M LOOSE",
    (JAPANESE, 6): "STRIKE S1 FROM TF2 3xD3A1/D 2xB5N2/T TARGET TF3\n"
    "ESCORT S1 FROM TF2 2xA6M2@M CLOSE",
    (JAPANESE, 9): "STRIKE S1 FROM TF2 3xD3A1/D TARGET TF3\nESCORT S1 FROM TF2 2xA6M2@M LOOSE",
    (ALLIED, 13): "STRIKE S1 FROM TF3 6xSBD-3/D TARGET TF2",
    (JAPANESE, 13): "STRIKE S1 FROM TF2 3xD3A1/D TARGET TF3",
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


class Bases(dict[int, dict[str, Any]]):
    """The armed game by distance (``opened``), with a short repr for Hypothesis."""

    @classmethod
    def of(cls, witp: WitpRuleset) -> Bases:
        return cls({hexes: opened(witp, hexes) for hexes in YORKTOWN_AT})

    def __repr__(self) -> str:
        return f"Bases({sorted(self)} hexes apart)"


def strike(
    state: Mapping[str, Any], side: str = ALLIED, hexes: int = 6, suppress: int = 0
) -> AirStrike:
    """``side``'s strike; ``suppress``: its loose escort's SUPPRESS (7.9), if any."""
    text = STRIKES[(side, hexes)]
    if suppress and text.endswith("LOOSE"):
        text += f" SUPPRESS {suppress}"
    p, errors = plot.judge(Knowledge.of(state, side), side, text)
    assert errors == [], errors
    return next(iter(p.air_strikes.values()))


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


class RoutedSecret(SecretDice):
    """A moderator's stream whose forks labelled ``prefix``... come from ``other``:
    two worlds whose secret rolls differ in those steps alone (5.15's return roll)."""

    def __init__(self, base: SecretDice, other: SecretDice, prefix: str) -> None:
        super().__init__(b"", "routed")
        self.base, self.other, self.prefix = base, other, prefix

    def d6(self, purpose: str = "") -> int:
        return self.base.d6(purpose)

    def fork(self, label: str) -> SecretDice:
        return (self.other if label.startswith(self.prefix) else self.base).fork(label)


def resolved(
    state: Mapping[str, Any],
    seed: int,
    secret: bytes = b"moderator-1",
    *,
    side: str = ALLIED,
    hexes: int = 6,
    dice: Dice | None = None,
    secret_dice: SecretDice | None = None,
    suppress: int = 0,
    **kw: Any,
) -> tuple[dict[str, Any], list[Event]]:
    """``side``'s strike resolved: ``seed`` the open dice, ``secret`` the seed of the
    owner's critical-hit rolls (16.7) (``secret_dice``: the stream itself)."""
    return resolve_stored(
        state,
        strike(state, side, hexes, suppress),
        dice or open_dice(seed),
        secret_dice or SecretDice(secret, "secret"),
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


def strike_section(text: str) -> str:
    """The report's strike section ("" if none): of the plain text, its lines (a strike
    a line); of the HTML part, its text (each strike told in full), tags taken off."""
    if "<html" in text:
        found = re.search(r'<section id="strikes">(.*?)</section>', text, re.S)
        if not found:
            return ""
        lines = (html.unescape(re.sub(r"<[^>]+>", "", ln)) for ln in found.group(1).splitlines())
        return "\n".join(ln for ln in lines if ln.strip())
    found = re.search(r"^Naval strikes[^\n]*\n-+\n(.*?)(?:\n\n|\Z)", text, re.M | re.S)
    if found:
        return found.group(0)
    # The digest tells each strike a line; the section tells only those it left out.
    digest = re.search(r"^Digest\n-+\n(.*?)^(?:Your order form:|Full detail)", text, re.M | re.S)
    items = re.findall(
        r"^  - (T\d+/[^:\n]*strike[^:\n]*:.*?)(?=^  - |\Z)",
        digest.group(1) if digest else "",
        re.M | re.S,
    )
    return "".join(f"  - {x}" for x in items).rstrip("\n")


RATINGS = {ALLIED: Ratings("R.Adm. Fletcher", 9, 7), JAPANESE: Ratings("R.Adm. Hara", 6, 6)}


# --- two worlds a side cannot tell apart (the noninterference property) ---------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)
D6 = st.integers(1, 6)
# What the other side alone is told in a strike (its own rolls and records), well
# formed: every side's report is composed, the other side's too.
SECRET_FACTS = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.just("critical-hit-rolls"),
            "tf": st.sampled_from(("TF1", "TF2", "TF3")),
            "ship": st.sampled_from(("Shoho", "Lexington", "Myoko")),
            "rolls": st.lists(
                st.fixed_dictionaries(
                    {
                        "dice": st.lists(D6, min_size=2, max_size=2),
                        "critical": st.booleans(),
                        "doubles": st.booleans(),
                        "damage": st.integers(0, 5),
                    }
                ),
                min_size=1,
                max_size=3,
            ),
            "damage": st.integers(0, 5),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("carrier-coordination"),
            "tf": st.sampled_from(("TF1", "TF2", "TF3")),
            "air_rating": st.integers(0, 9),
            "first": st.integers(1, 100),
            "needed": st.integers(1, 100),
            "second": st.none() | st.integers(2, 12),
            "percent": st.integers(0, 100),
            "asterisk": st.booleans(),
            "cut": st.sampled_from(("none", "fighters", "bombers", "both")),
            "fighters": st.integers(0, 9),
            "bombers": st.integers(0, 9),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("extended-range-losses"),
            "type": st.sampled_from(("SBD-3", "D3A1")),
            "roll": st.integers(0, 9),
            "rating": st.integers(0, 4),
            "extra": st.integers(0, 3),
        }
    ),
    # the owner's cover over the struck TF (R110, R120-R122): launch, Army-type, APAT rolls
    st.fixed_dictionaries(
        {
            "kind": st.just("cover-availability"),
            "tf": st.sampled_from(("TF2", "TF3")),
            "cover": st.sampled_from(("C1", "C2")),
            "over": st.sampled_from(("TF2", "E2120")),
            "type": st.sampled_from(("A6M2", "P-39")),
            "mission": st.sampled_from(
                ("plotted-cover", "plotted-naval-cover", "emergency-cover", "emergency-naval-cover")
            ),
            "mp": st.integers(0, 90),
            "roll": st.integers(2, 12),
            "drm": st.integers(-10, 0),
            "percent": st.integers(0, 100),
            "available": st.integers(0, 4),
            "of": st.integers(0, 4),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("cover-coordination"),
            "tf": st.sampled_from(("TF1", "TF2", "TF3")),
            "cover": st.sampled_from(("C1", "C2")),
            "air_rating": st.integers(0, 9),
            "first": st.integers(1, 100),
            "needed": st.integers(1, 100),
            "second": st.none() | st.integers(2, 12),
            "percent": st.integers(0, 100),
            "asterisk": st.booleans(),
            "cut": st.sampled_from(("none", "fighters")),
            "fighters": st.integers(0, 9),
            "bombers": st.just(0),
        }
    ),
    st.fixed_dictionaries({"kind": st.just("army-naval-cover-roll"), "roll": st.integers(2, 12)}),
    st.fixed_dictionaries(
        {
            "kind": st.just("cover-not-flown"),
            "cover": st.sampled_from(("E1", "E2")),
            "why": st.text(max_size=8),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("extreme-range-losses"),
            "type": st.sampled_from(("SBD-3", "D3A1")),
            "column": st.sampled_from(("X+1", "X+6")),
            "roll": st.integers(2, 12),
            "percent": st.integers(0, 60),
            "returning": st.integers(0, 6),
            "lost": st.integers(0, 4),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("search-chit"),
            "tf": st.sampled_from(("TF1", "TF2")),
            "chit": st.sampled_from(("true", "false", "approx-1")),
            "cup": st.sampled_from(("cup1", "cup2")),
        }
    ),
)


@dataclass(frozen=True)
class Hidden:
    """What the viewer may not know of one world: the other side's plots, its CAP
    grounded over another TF (5.3.6), the moderator's part, facts told to the other
    side alone, and the dice of the rolls only the other side is told: the owner's
    critical hits (16.7, the secret stream) when the viewer struck, the striker's
    extended-range doubling (6.3.3) and extreme-range return roll (5.15, its own
    fork of the secret stream, seeded by ``extended``) when the viewer was struck; the
    striker's secret SUPPRESS on its loose escort (7.9) when the viewer was struck;
    and, when the viewer struck, the struck side's CAP order at the levels the strike
    does not fly (R135: 6.1.1 shows the striker only the CAP that fights);
    ``green``: green APs (58.1) on the other side's ships that take no part."""

    plots: Any
    grounded: int
    moderator: Any
    told_other: list[dict[str, Any]]
    secret: bytes
    extended: int
    suppress: int = 0
    cap_unused: dict[str, int] = field(default_factory=dict)  # R135: where no strike flies
    green: int = 0


hidden = st.builds(
    Hidden,
    JSON,
    st.integers(0, 3),
    JSON,
    st.lists(SECRET_FACTS, max_size=3),
    st.binary(min_size=4, max_size=8),
    st.integers(0, 2**16),
    st.integers(0, 2),
    st.fixed_dictionaries({lv: st.integers(0, 9) for lv in ("L", "M", "H")}),
    st.integers(0, 3),
)
SHARES = st.none() | st.fixed_dictionaries({lv: st.integers(0, 3) for lv in ("L", "M", "H")})


@dataclass(frozen=True)
class Case:
    viewer: str
    striker: str
    hexes: int
    seed: int
    plotted: bool
    worlds: tuple[Hidden, Hidden]
    cap_used: dict[str, int] | None = None  # R135: shares at the levels flown; None: no order


@st.composite
def cases(draw: st.DrawFn) -> Case:
    viewer, striker = draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES))
    h1, h2 = draw(hidden), draw(hidden)
    # the striker sees its own extended-range and extreme-range rolls; the owner every
    # critical-hit roll and its own SUPPRESS (7.9); the owner his own CAP order (R135)
    same: dict[str, Any] = (
        {"extended": h1.extended, "suppress": h1.suppress}
        if viewer == striker
        else {"secret": h1.secret, "cap_unused": h1.cap_unused}
    )
    h2 = replace(h2, **same)
    return Case(
        viewer,
        striker,
        draw(st.sampled_from((9, 6, 13))),
        draw(st.integers(0, 2**16)),
        draw(st.booleans()),
        (h1, h2),
        draw(SHARES),
    )


def cap_order(state: Mapping[str, Any], case: Case, h: Hidden) -> dict[str, int] | None:
    """R135: the struck side's CAP order: the case's shares at the levels the strike
    flies (the striker sees what fights there, 6.1.1), the world's elsewhere."""
    if case.cap_used is None:
        return None
    flown = {e.alt for p in strike(state, case.striker, case.hexes).parts for e in p.elements}
    return {lv: (case.cap_used if lv in flown else h.cap_unused)[lv] for lv in ("L", "M", "H")}


def world(base: Mapping[str, Any], case: Case, h: Hidden) -> tuple[dict[str, Any], list[Event]]:
    """``base`` with ``h`` put in, the strike resolved; the events of the round."""
    other = enemy_of(case.viewer)
    state = copy.deepcopy(dict(base))
    # the other side's plot: lines (a plot's shape, sidepart.SidePart) holding anything
    state[PRIVATE][other]["plots"] = {"T1/air2/plot": [json.dumps(h.plots)]}
    if h.grounded:
        state[PRIVATE][other]["cap_aborted"] = {
            "TF1": {"A6M2" if other == JAPANESE else "F4F-3": h.grounded}
        }
    # a moderator's record no side is told (42.3.1's Sigint log), holding the secret
    state[MODERATOR] = {"sigint": [{"time": json.dumps(h.moderator), "seen": []}]}
    for name, ship in state[PRIVATE][other]["ships"].items():
        if name not in AIR and h.green:  # 58.1: green APs away from the fight
            ship["green"] = {"A6M2" if other == JAPANESE else "F4F-3": h.green}
    events = [disclose(Told(state), Fact.from_json(f), [other], TIME, "16.7") for f in h.told_other]
    dice = Routed(open_dice(case.seed), open_dice(h.extended), "extended range")
    extreme = SecretDice(h.extended.to_bytes(4, "big"), "secret")
    secret = RoutedSecret(SecretDice(h.secret, "secret"), extreme, "extreme range")
    after, more = resolved(
        state,
        case.seed,
        side=case.striker,
        hexes=case.hexes,
        dice=dice,
        secret_dice=secret,
        suppress=h.suppress,
        ratings=RATINGS,
        target_plotted=case.plotted,
        cap_split=cap_order(state, case, h),
    )
    return after, events + more


def doubles_told(state: Mapping[str, Any], side: str) -> list[Any]:
    """The critical hits ``side`` was told (16.7: doubles only, if it struck)."""
    return [
        d["fact"]
        for d in state[DISCLOSURES]
        if side in d["audience"] and d["fact"]["kind"] == "critical-hit"
    ]


def peeled(state: Mapping[str, Any]) -> list[Any]:
    """The fighters that peeled off to suppress AA (7.9), as the striker was told
    (none when none did): once flown, the naval player sees them in the waves."""
    return [
        d["fact"]["peeled"]
        for d in state[DISCLOSURES]
        if d["fact"]["kind"] == "aa-suppressors" and d["fact"]["peeled"]
    ]
