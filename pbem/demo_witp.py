"""Scripted War in the Pacific players for the demonstration (``pbem demo --ruleset
witp``): Coral Sea, May 1942 (coral-sea-1942), played to its end by mail.

A side's orders for a mail round come from what that side was mailed, never from
the game's state: a ``Reading`` of the order form (its Turn and Phase, the orders it
offers) and of the report that came with it (the side's own forces, where the report
puts them). One function per side turns a Reading into the round's order lines, by
the kind of round (its segment: ``T1-naval1-plot`` is a naval Plot Segment).

Stage 0 moderates the clock only: its forms offer PASS alone, so every round is
answered PASS. What each force means to do is kept as data (``INTENTS``: Operation MO
for the Japanese, Fletcher's counter for the Allies); once the forms offer mission
cards (stage 1, 16.3) ``plot_orders`` writes them from these intents, and a search
round (13.3) gets its own entry in ``ROUNDS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

J, A = "japanese", "allied"
PASS = "PASS"
ORDER_WORDS = ("PASS", "TF", "MOVE", "REGP", "LINK", "FUEL", "TRAN", "REAC", "SEARCH")

_HEAD = re.compile(r"^(Turn|Phase):\s*(\S+)\s*$", re.M)
_SECTION = re.compile(r"^Your forces\n-+\n(.*?)(?:\n\n|\Z)", re.M | re.S)
_FORCE = re.compile(r"^(?P<name>\S.*?) \((?P<commander>[^)]*)\) at (?P<at>.+?) \[", re.M)


def offered_orders(form: str) -> frozenset[str]:
    """The order words an order form offers: those its lines (or commented examples) begin with."""
    return frozenset(
        word
        for line in form.splitlines()
        if (words := line.lstrip("#").split()) and (word := words[0].upper()) in ORDER_WORDS
    )


@dataclass(frozen=True, slots=True)
class Reading:
    """What a side holds when it writes its orders: the form and the report it came with."""

    side: str
    turn: int
    round: str  # the mail round, e.g. "T1-naval1-plot"
    offered: frozenset[str]  # the order words the form offers (stage 0: PASS)
    forces: Mapping[str, str]  # the side's own forces as the report lists them: name -> at

    @property
    def segment(self) -> str:
        """The kind of round: the segment its name ends with ("plot", "search"); the
        Japanese half of a Plot Segment (``T1-naval1-plot-japanese``, 42.3.1) is a plot."""
        return self.round.removesuffix("-japanese").rpartition("-")[2]

    @classmethod
    def of(cls, side: str, form: str, report: str) -> Reading:
        head = dict(_HEAD.findall(form))
        section = _SECTION.search(report)
        found = _FORCE.finditer(section.group(1) if section else "")
        return cls(
            side,
            int(head.get("Turn", "0")),
            head.get("Phase", ""),
            offered_orders(form),
            {m["name"]: m["at"] for m in found},
        )


@dataclass(frozen=True, slots=True)
class Intent:
    """What a force means to do in a Game-Turn: the mission card (16.3) and where to."""

    card: str
    to: str


# Operation MO and the Allied answer, by force name (as the scenario names them) and
# Game-Turn: the history of the first week, kept for stage 1's mission cards.
INTENTS: Mapping[str, Mapping[str, Mapping[int, Intent]]] = {
    J: {
        "Port Moresby Invasion Force": {
            1: Intent("MOVE", "Jomard"),
            2: Intent("MOVE", "Port Moresby"),
        },
        "MO Main Force": {1: Intent("MOVE", "Deboyne"), 2: Intent("MOVE", "Misima")},
        "MO Striking Force": {1: Intent("MOVE", "Tulagi"), 2: Intent("MOVE", "Rennell")},
    },
    A: {
        "Task Force 17": {1: Intent("MOVE", "Tulagi"), 2: Intent("MOVE", "Rossel")},
        "Task Force 44": {1: Intent("MOVE", "Rossel"), 2: Intent("MOVE", "Jomard")},
        "Fuelling Group": {1: Intent("FUEL", "Rennell")},
    },
}


def plot_orders(r: Reading) -> list[str]:
    """A naval Plot Segment (16.3): a mission card for each own force the report
    shows, if the form offers that card; else PASS (no mission plotted)."""
    cards = []
    for name in sorted(r.forces):
        intent = INTENTS.get(r.side, {}).get(name, {}).get(r.turn)
        if intent is not None and intent.card in r.offered:
            cards.append(f"{intent.card} {name} TO {intent.to}")
    return cards or ([PASS] if PASS in r.offered else [])


# The order lines for each kind of round; a kind not listed sends the form as it came.
ROUNDS: Mapping[str, Callable[[Reading], list[str]]] = {"plot": plot_orders}


def japanese(r: Reading) -> list[str]:
    """Operation MO: the Invasion Force for Port Moresby under the Main Force's cover,
    the Striking Force round the Solomons into the Coral Sea."""
    plan = ROUNDS.get(r.segment)
    return plan(r) if plan else []


def allied(r: Reading) -> list[str]:
    """Fletcher waits in the Coral Sea for the invasion, Crace guards the Jomard
    Passage, the fuelling group stays south."""
    plan = ROUNDS.get(r.segment)
    return plan(r) if plan else []


SIDES: Mapping[str, Callable[[Reading], list[str]]] = {J: japanese, A: allied}


def strategy(side: str, scenario: str) -> Callable[[str, str], str]:
    """``orders_from_form`` for a scripted WitP player: the form's header and
    comments, then the side's lines for the round (the form's own order lines
    dropped: the side writes its orders afresh)."""
    plan = SIDES[side]

    def orders_from_form(form: str, report: str) -> str:
        lines = plan(Reading.of(side, form, report))
        kept = [ln for ln in form.splitlines() if not ln.strip() or ":" in ln or ln.startswith("#")]
        return "\n".join([*kept, *lines]) + "\n"

    return orders_from_form
