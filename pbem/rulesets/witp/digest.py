"""A report's digest: what changed for a side in the rounds reported, in a few lines.

Built from what the side's view already holds (the events it saw, its strike
blocks, its search sections), so it can say no more than the view: each strike's
title and result, the enemy TFs it found and the reports on them, its own TFs the
enemy found, its TFs' moves in one line, and the facts that change its position
(a TF sunk, unsupplied, deactivated; a dummy revealed; intelligence) as their
sentences. At most ``MOST`` lines: the rest is in the full detail that follows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pbem.core.events import Event
from pbem.rulesets.witp.sentences import sentence, tf

MOST = 22  # news lines; with the due line, clock and wrapping, about 40 lines

# The facts told in the digest as their own sentence: what changes the side's position.
NEWS = frozenset(
    {
        "turn-ended",
        "cycle-ended",
        "tf-sunk",
        "tf-unsupplied",
        "tf-deactivated",
        "dummy-revealed",
        "dummy-allotment",
        "vs-search-hit",
        "strike-not-flown",
        "strike-found-nothing",
        "special-strike",
        "search-not-flown",
        "deception-refused",
        "intensive-search-loss",
        "coastwatcher-island",
        "si-capabilities",
        "sigint",
        "sigint-event",
        "sigint-ruse",
        "magic-drawn",
        "magic-played",
        "magic-reveal-named",
        "magic-reveal-tf",
        "magic-card-backs",
        "jn25-counters",
        "jn25-committed",
        "jn25-played",
        "dummy-sortie-burnt",
        "intelligence-lapsed",
        "magic-not-played",
    }
)


def _strikes(blocks: Sequence[Mapping[str, Any]]) -> list[str]:
    """A strike a line: who struck what, and what came of it."""
    return [f"{b.get('title')}: {b.get('summary')}." for b in blocks]


def _contacts(side: str | None, seen: Sequence[Event]) -> list[str]:
    """The TFs reported in the rounds (a TF once: its last report), the enemy's as
    contacts, the side's own as found by the enemy, with where each is Located."""
    where: dict[tuple[str, str], str] = {}
    reports: dict[tuple[str, str], str] = {}
    for e in seen:
        d = e.data
        key = (str(d.get("owner")), str(d.get("tf")))
        if e.kind in ("located", "located-moved"):
            where[key] = str(d.get("hex"))
        elif e.kind == "search-report":
            reports.pop(key, None)
            reports[key] = str(d.get("report"))
    out = []
    for (owner, name), report in reports.items():
        at = f" at {where[(owner, name)]}" if (owner, name) in where else ""
        if owner == side:
            out.append(f"The enemy found {tf(owner, name, side)}{at} and was told: {report}.")
        else:
            out.append(f"Contact: {tf(owner, name, side)}{at}: {report}.")
    return out


def _moves(side: str | None, seen: Sequence[Event]) -> list[str]:
    """The side's own TFs' moves in the rounds, one line: where each ended."""
    ended: dict[str, str] = {}
    for e in seen:
        if e.kind == "tf-executed" and e.data.get("hexes"):
            ended[str(e.data.get("tf"))] = str(e.data.get("to"))
    if not ended:
        return []
    moves = ", ".join(f"{name} to {at}" for name, at in ended.items())
    return [f"{'Your TFs' if side else 'TFs'} moved: {moves}."]


LOCATED = re.compile(r"^\S+ (?P<tf>\S+) at (?P<hex>\S+): Located (?P<chit>.+?); (?P<strike>.+)$")
STRIKABLE = "may be struck"


def _located(located: Sequence[str]) -> list[str]:
    """The enemy TFs Located now, in one line: those that may be struck, then each
    that may not with why (5.1.6, 13.8); each with its hex and chit."""
    if not located:
        return []
    may: list[str] = []
    not_: list[str] = []
    for x in located:
        m = LOCATED.match(x)
        if m is None:
            not_.append(x.split(" ", 1)[-1])
        elif m["strike"] == STRIKABLE:
            may.append(f"{m['tf']} {m['hex']} {m['chit']}")
        else:
            not_.append(f"{m['tf']} {m['hex']} {m['chit']}: {m['strike']}")
    parts = ([f"may be struck: {', '.join(may)}"] if may else []) + not_
    return ["Enemy TFs Located, " + "; ".join(parts) + "."]


def build(
    side: str | None,
    seen: Sequence[Event],
    strikes: Sequence[Mapping[str, Any]],
    search: Mapping[str, Any],
) -> list[str]:
    """The digest's news lines for ``side`` (None: the omniscient view's)."""
    news: list[str] = []
    for e in seen:
        if e.kind in NEWS:
            line = sentence(e.kind, e.data, side, e.rule)
            if line not in news:
                news.append(line)
    lines = [
        *_strikes(strikes),
        *_contacts(side, seen),
        *_moves(side, seen),
        *news,
        *_located(search.get("located", ())),
    ]
    if len(lines) > MOST:
        more = len(lines) - MOST + 1
        lines = [*lines[: MOST - 1], f"... and {more} more: see the full detail below."]
    return lines
