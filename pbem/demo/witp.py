"""Scripted War in the Pacific players for the demonstration (``pbem demo --ruleset
witp``): Coral Sea, May 1942 (coral-sea-1942), played to its end by mail.

A side writes its orders from a ``Reading`` of the order form and report it was
mailed (witp_reading.py). The printed map is the only other thing a player holds:
``BASES`` gives the hexes of the searching bases as it prints them.

What each force means to do is data: ``INTENTS`` (witp-intents.toml) holds Operation
MO for the Japanese and Fletcher's counter for the Allies, a mission card (16.3,
17.x) per force for each Naval Phase, by the force's name (the form shows which
marker carries it). ``plot_orders`` writes the cards the form allows: a force whose
active phases are used up (16.0, 18.4), which entered port last phase (18.4.1) or
is unsupplied (18.3) is left alone; SPEED goes first on a card only while the
form says the class is still "to choose" (16.0); a LINK only between TFs in one
hex (17.10). Where the form offers SEARCH (13.3), each searching base and carrier
TF the form lists searches the hexes where the enemy is expected (``EXPECTED``)
that its bands reach with a value, split over two hexes only while the value
shares out (13.3.1); a form that lists no searchers leaves the bases it names under
search and the carrier TFs, one hex each within the Medium band (``SEARCH_REACH``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pbem.core.sides import ALLIED, JAPANESE
from pbem.demo.witp_reading import CARRIER, PASS, Reading, Searcher
from pbem.rulesets.witp.hexgrid import distance

J, A = JAPANESE, ALLIED

# 13.1.3 (the pack's illustrative bands): the farthest hex searched, kept to the
# Medium band, where every searching aircraft of the scenario has a value.
SEARCH_REACH = {"base": 13, "carrier": 8}
SEARCH_HEXES = 2  # a search split over at most two hexes (13.3.1: the value is shared)


@dataclass(frozen=True, slots=True)
class Card:
    """What a force means to do in one Naval Phase: its mission card (16.3, 17.x)."""

    force: str  # the force's name, as the form lists it
    why: str  # the history behind it (a comment on the orders)
    speed: int | None = None  # SPEED, written while the class is still to choose (16.0)
    move: str | None = None  # MOVE: a hex or a place of the map (Port_Moresby)
    ev: int = 0  # 17.16.5; at most 4 with carriers, transports or oilers (16.4.7)
    night_after: int | None = None  # 16.6: NIGHT AFTER n (n no more than the hexes moved)
    fuel_from: str | None = None  # 17.9: FUEL FROM the TF of the force named
    fuel_first: bool = False  # fuel where it is, before the move
    link: str | None = None  # 17.10: LINK to the TF of the force named (nothing else)
    port: bool = False  # 18.4.1: PORT where the move ends
    dummy: bool = False  # 17.11, 13.6: REGP DUMMY where the TF starts, if one is left


Intents = Mapping[str, Mapping[tuple[int, str], tuple[Card, ...]]]


def load_intents(text: str) -> Intents:
    """The cards of a TOML plan: ``[[<side>.<Game-Turn>.<phase>]]`` tables, one a
    card, in the order the TFs execute (17.13.6)."""
    plan: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = tomllib.loads(text)
    return {
        side: {
            (int(turn), phase): tuple(Card(**card) for card in cards)
            for turn, phases in turns.items()
            for phase, cards in phases.items()
        }
        for side, turns in plan.items()
    }


# Operation MO and the Allied answer, Game-Turn 1 to 3 (witp-intents.toml says more).
INTENTS: Intents = load_intents(
    resources.files("pbem.demo").joinpath("witp-intents.toml").read_text(encoding="utf-8")
)

# The searching bases, at their hexes on the printed map (Section E).
BASES: Mapping[str, Mapping[str, str]] = {
    J: {"Rabaul": "E1613"},
    A: {"Port Moresby": "E1018", "Townsville": "E1028", "Cairns": "E0926", "Noumea": "E3231"},
}

# Where each side expects the enemy, by Game-Turn (the intelligence of the day:
# the Allies had broken MO's plan; the Japanese looked for the carriers to the south).
EXPECTED: Mapping[str, Mapping[int, tuple[str, ...]]] = {
    J: {1: ("E2223", "E2320", "E2021", "E2124"), 2: ("E1922", "E2125", "E2027"), 3: ("E2429",)},
    A: {1: ("E1719", "E1818", "E1720", "E2521", "E2022"), 2: ("E1921", "E1816", "E1915"), 3: ()},
}


def _word(place: str) -> str:
    return place.replace(" ", "_")


def card_lines(r: Reading, card: Card, dummy: str | None = None) -> list[str]:
    """A force's card as order lines, as far as the form allows it (16.0, 17.10);
    ``dummy``: the free marker a REGP DUMMY takes (None: no dummy is left, 13.6)."""
    tf = r.tf(card.force)
    if tf is None or not tf.may_plot:
        return []
    if card.link is not None:  # 17.10: the same start hex, nothing else on the card
        leader = r.tf(card.link)
        if leader is None or leader.hex != tf.hex or not leader.may_plot:
            return []
        return [f"{tf.marker} LINK {leader.marker}"]
    out = [f"# {tf.marker} {tf.name}: {card.why}"]
    if card.speed is not None and tf.to_choose:
        out.append(f"{tf.marker} SPEED {card.speed}")
    if card.dummy and dummy is not None:
        out.append(f"{tf.marker} REGP DUMMY {dummy}")
    source = r.tf(card.fuel_from) if card.fuel_from else None
    if source is not None and source.marker not in r.oilers:
        source = None  # 17.9: its oilers are sunk (the report no longer lists an AO)
    fuel = [f"{tf.marker} FUEL FROM {source.marker}"] if source is not None else []
    if card.fuel_first:
        out += fuel
    if card.move is not None and card.move != tf.hex:
        out.append(f"{tf.marker} MOVE {_word(card.move)} EV {card.ev}")
        if card.night_after is not None:
            out.append(f"{tf.marker} NIGHT AFTER {card.night_after}")
    if not card.fuel_first:
        out += fuel
    if card.port:
        out.append(f"{tf.marker} PORT")
    return out if len(out) > 1 else []


def _fallback_searchers(r: Reading) -> list[Searcher]:
    """Searchers when the form lists none with its bands: the bases the form names
    under search, and the carrier TFs, to the Medium band (``SEARCH_REACH``)."""
    out = [
        Searcher(_word(base), at, False, ((1, SEARCH_REACH["base"], 1),))
        for base, at in BASES.get(r.side, {}).items()
        if base.lower() in r.search_text
    ]
    out += [
        Searcher(t.marker, t.hex, True, ((1, SEARCH_REACH["carrier"], 1),))
        for t in r.tfs
        if t.carrier
    ]
    return out


def search_lines(r: Reading) -> list[str]:
    """13.3.1: each searcher the form lists (else ``_fallback_searchers``) searches the
    hexes where the enemy is expected that it reaches with a search value, at most
    ``SEARCH_HEXES`` of them and no more than its value shares out (fractions dropped)."""
    expected = EXPECTED.get(r.side, {}).get(r.turn, ())
    out = []
    for s in r.searchers or _fallback_searchers(r):
        hexes: list[str] = []
        for h in expected:
            d = distance(s.hex, h) if h[0] == s.hex[0] else 0
            n = len(hexes) + 1
            if (
                d > 0
                and n <= SEARCH_HEXES
                and all(s.value_at(distance(s.hex, x)) // n >= 1 for x in [*hexes, h])
            ):
                hexes.append(h)
        if hexes:
            out.append(" ".join(["SEARCH", s.name, *hexes]))
    return out


def plot_orders(r: Reading) -> list[str]:
    """A naval Plot Segment (16.3): the phase's cards the form allows, then the
    searches if the form offers SEARCH; PASS if nothing is plotted."""
    lines: list[str] = []
    dummy = r.free_marker if r.dummies_left > 0 else None
    for card in INTENTS.get(r.side, {}).get((r.turn, r.phase), ()):
        written = card_lines(r, card, dummy)
        if any(" REGP DUMMY " in ln for ln in written):
            dummy = None  # one marker: one dummy a plot
        lines += written
    if "SEARCH" in r.offered:
        lines += search_lines(r)
    orders = [ln for ln in lines if not ln.startswith("#")]
    return lines if orders else ([PASS] if PASS in r.offered else [])


# -- the Allocation Segment (5.0): strikes at the Located enemy carriers -------------

_AIR_BASE = re.compile(
    r"^#\s+(?P<name>\S+)(?P<carrier> \(carrier TF\))? at (?P<hex>[A-Z]\d{4}): (?P<aps>\d+x\S+(?:, \d+x\S+)*)$"
)
_AIR_TYPE = re.compile(
    r"(?P<type>[^\s;:]+) (?P<normal>\d+)/(?P<extended>\d+)/(?P<torpedo>\d+) (?P<roles>[A-Z/]+)"
)
_TARGET = re.compile(
    r"^#\s+(?P<tf>TF\d+) at (?P<hex>[A-Z]\d{4}): target; last report: (?P<report>.*)$"
)
STRIKE_ROLES = ("D", "T", "B")  # 5.6: the roles that strike ships, in the order tried
MP_PER_HEX = 6  # 2.1.4: the Coral Sea is Tropical


def _role(roles: list[str], mp: int, normal: int, torpedo: int) -> str | None:
    """The first striking role the AP may fly at ``mp`` (normal range; torpedoes theirs)."""
    for role in STRIKE_ROLES:
        if role in roles and mp <= normal and (role != "T" or mp <= torpedo):
            return role
    return None


def strike_orders(form: str) -> list[str]:
    """5.0 Step 1: every air base and carrier TF the form lists strikes the nearest
    Located enemy TF it reaches whose last report shows carriers, else any it may
    strike, with every AP that reaches it at normal range (torpedoes within torpedo
    range, 5.14.1); the fighters stay home for CAP. PASS if nothing reaches."""
    lines = form.splitlines()
    types = {
        m["type"]: m
        for ln in lines
        if ln.startswith("# Air types")
        for m in _AIR_TYPE.finditer(ln.partition("): ")[2])
    }
    targets = [m for ln in lines if (m := _TARGET.match(ln))]
    out: list[str] = []
    n = 0
    for ln in lines:
        base = _AIR_BASE.match(ln)
        if not base or not targets:
            continue
        aps = [(int(c), t) for c, _, t in (a.partition("x") for a in base["aps"].split(", "))]
        ranked = sorted(
            targets,
            key=lambda m: (not CARRIER.search(" " + m["report"]), distance(base["hex"], m["hex"])),
        )
        for target in ranked:
            mp = distance(base["hex"], target["hex"]) * MP_PER_HEX
            elements = []
            for count, t in aps:
                info = types.get(t)
                if info is None:
                    continue
                role = _role(
                    info["roles"].split("/"), mp, int(info["normal"]), int(info["torpedo"])
                )
                if role is not None:
                    elements.append(f"{count}x{t}/{role}")
            if elements:
                n += 1
                out.append(
                    f"STRIKE S{n} FROM {base['name']} {' '.join(elements)} TARGET {target['tf']}"
                )
                break
    return out or [PASS]


def allocation_orders(r: Reading) -> list[str]:
    return strike_orders(r.form)


# The order lines for each kind of round; a kind not listed sends the form as it came.
ROUNDS: Mapping[str, Callable[[Reading], list[str]]] = {
    "plot": plot_orders,
    "allocation": allocation_orders,
}


def japanese(r: Reading) -> list[str]:
    """Operation MO: the Invasion Force for Port Moresby under the Main Force's cover,
    the Striking Force round the Solomons into the Coral Sea."""
    plan = ROUNDS.get(r.segment)
    return plan(r) if plan else []


def allied(r: Reading) -> list[str]:
    """Fletcher fuels, strikes Tulagi and meets the invasion in the Coral Sea, Crace
    guards the Jomard Passage, the fuelling group keeps to the south."""
    plan = ROUNDS.get(r.segment)
    return plan(r) if plan else []


SIDES: Mapping[str, Callable[[Reading], list[str]]] = {J: japanese, A: allied}


def strategy(side: str, scenario: str) -> Callable[[str, str], str]:
    """``orders_from_form`` for a scripted WitP player: the form's header and
    comments, then the side's lines for the round (the form's own order lines
    dropped: the side writes its orders afresh). A Naval Phase is plotted once: if
    a second round of the same phase reaches the side (a gate's other half), it
    plots no mission there."""
    plan = SIDES[side]
    plotted: set[tuple[int, str]] = set()

    def orders_from_form(form: str, report: str) -> str:
        reading = Reading.of(side, form, report)
        key = (reading.turn, reading.phase)
        if reading.phase and key in plotted:
            lines = [PASS] if PASS in reading.offered else []
        else:
            lines = plan(reading)
            plotted.add(key)
        kept = [ln for ln in form.splitlines() if not ln.strip() or ":" in ln or ln.startswith("#")]
        return "\n".join([*kept, *lines]) + "\n"

    return orders_from_form
