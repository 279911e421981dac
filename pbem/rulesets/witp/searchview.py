"""The report's search section (13.3-13.8), built from a side's Knowledge only.

A report tells what happened in the round it reports (``recent``: the game times of
the events the side saw in it), so a long game's report does not repeat every search
since the first Game-Turn; what stays true is given as it stands now (``latest``,
``located``, ``own_located``, ``standing``).

- ``searches``: every announced search (13.3: value, band, open roll), bluff
  admissions (13.3.3), US VS hits (13.4.1), searches not flown (the side's own);
- ``contacts``: the reports the side gained on enemy TFs (13.5.7, 13.8): the
  owner's composed report, never the truth, with the hex of its Located chit;
- ``latest``: the last report gained on each enemy TF, whenever it came;
- ``located``: enemy TFs holding a Located chit, with hex and whether a strike may
  be plotted on them (5.1.6, 13.6.4, 13.8);
- ``found``: the side's own TFs found, the chit it drew (told to it alone) and what
  was reported of them; its own Located chits;
- ``revealed``: dummies definitively revealed (13.6.3); coastwatcher islands (13.8);
- ``standing``: the side's standing search, deception and coastwatcher orders;
- ``map``: the enemy's Located markers for the report map ("TF2?" at its hex).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from typing import Any

from pbem.rulesets.witp import located
from pbem.rulesets.witp.knowledge import Disclosure, Knowledge

STANDING = "standing"

# The disclosures these sections tell; the report's event list leaves them out.
SECTIONED = frozenset(
    {
        "air-search",
        "air-search-empty",
        "no-search-took-place",
        "vs-search-hit",
        "search-not-flown",
        "intensive-search-loss",
        "located",
        "located-moved",
        "search-report",
        "search-chit",
        "deception-refused",
        "dummy-revealed",
        "coastwatcher-island",
    }
)


def _searcher(d: Disclosure) -> tuple[str, ...]:
    """What one searcher's searches in a band share: the line they are told on."""
    f = d.fact
    return (
        d.time,
        d.rule,
        str(f.get("searcher", "?")),
        str(f.get("from", "?")),
        str(f.get("band", "?")),
        str(f.get("value", "?")),
        "intensive" if f.get("intensive") else "",
    )


def _search_head(key: tuple[str, ...]) -> str:
    time, rule, searcher, origin, band, value, intensive = key
    extra = " (intensive, Cup 1)" if intensive else ""
    return (
        f"{time} [{rule}]: {searcher} from {origin}, {band} range, value {value}{extra}, "
        "rolled/needed"
    )


def _search_result(d: Disclosure) -> str:
    """One searched hex of a searcher's line (13.3): what it found, roll/needed."""
    f: Mapping[str, Any] = defaultdict(lambda: "?", d.fact)
    if f["kind"] == "air-search-empty":
        return f"{f['hex']} no task force there"
    what = f"{f['tf']} in {f['hex']}" if f.get("tf") else f"{f['hex']}"
    if f.get("needed") is None:
        return f"{what} {f['roll']}/- (cannot succeed) no contact"
    return f"{what} {f['roll']}/{f['needed']} {'contact' if f.get('contact') else 'no contact'}"


class _Searches:
    """The round's searches, one line a searcher and band (13.3: its value shared
    over the hexes it searched), each searched hex's result on it, in the order told."""

    def __init__(self) -> None:
        self.lines: list[str | tuple[str, ...]] = []
        self.results: dict[tuple[str, ...], list[str]] = {}

    def search(self, d: Disclosure) -> None:
        key = _searcher(d)
        if key not in self.results:
            self.results[key] = []
            self.lines.append(key)
        self.results[key].append(_search_result(d))

    def line(self, text: str) -> None:
        self.lines.append(text)

    def told(self) -> list[str]:
        return [
            x if isinstance(x, str) else f"{_search_head(x)}: {'; '.join(self.results[x])}"
            for x in self.lines
        ]


def build(k: Knowledge, recent: Collection[str] | None = None) -> dict[str, Any]:
    """``recent``: the game times of the round reported (None: the whole game)."""
    side = k.side
    searches = _Searches()
    contacts: list[str] = []
    found: list[str] = []
    revealed: list[str] = []
    latest: dict[tuple[str, str], str] = {}  # each enemy TF's last report, in report order
    where_now: dict[tuple[str, str], str] = {}  # the hex of each TF's latest Located chit
    for d in k.disclosed:
        kind = d.fact.get("kind")
        f: Mapping[str, Any] = defaultdict(lambda: "?", d.fact)  # a fact lacking a field
        if kind in ("located", "located-moved"):
            where_now[(str(f["owner"]), str(f["tf"]))] = str(f["hex"])
        elif kind == "search-report" and f["owner"] != side:
            key = (str(f["owner"]), str(f["tf"]))
            latest.pop(key, None)
            at = where_now.get(key, "?")
            latest[key] = f"{key[0]} {key[1]} at {at} ({d.time}, {f['source']}): {f['report']}"
        if recent is not None and d.time not in recent:
            continue
        if kind in ("air-search", "air-search-empty"):
            searches.search(d)
        elif kind == "no-search-took-place":
            searches.line(
                f"{d.time} [{d.rule}]: {f['searcher']} announces that no search took place "
                f"at {f['hex']} (a bluff)"
            )
        elif kind == "vs-search-hit":
            searches.line(
                f"{d.time} [{d.rule}]: US VS search hit on {f['owner']} {f['tf']} (roll "
                f"{f['roll']}): a strike at anti-ship {f['anti_ship']} is owed"
            )
        elif kind == "search-not-flown":
            searches.line(f"{d.time} [{d.rule}]: your line {f['line']!r} was not flown: {f['why']}")
        elif kind == "intensive-search-loss":
            searches.line(
                f"{d.time} [{d.rule}]: intensive search from {f['base']}: 1D6 {f['roll']}, "
                f"{f['air_points_lost']} air point(s) lost"
            )
        elif kind == "search-report":
            where = where_now.get((str(f["owner"]), str(f["tf"])), "?")
            line = f"{d.time} [{d.rule}]: {f['owner']} {f['tf']} at {where} ({f['source']}): {f['report']}"
            if f["owner"] == side:
                found.append(f"{line} (reported to the enemy)")
            else:
                contacts.append(line)
        elif kind == "search-chit":
            found.append(f"{d.time} [{d.rule}]: {f['tf']} drew {f['chit']} from {f['cup']}")
        elif kind == "deception-refused":
            found.append(f"{d.time} [{d.rule}]: {f['tf']}: {f['why']}")
        elif kind == "dummy-revealed":
            revealed.append(f"{d.time} [{d.rule}]: {f['owner']} {f['tf']} was a dummy ({f['by']})")
        elif kind == "coastwatcher-island":
            revealed.append(
                f"{d.time} [{d.rule}]: a coastwatcher on {f['island']} reported {f['tf']}"
            )
    markers: Mapping[str, Any] = k.public.get(located.KEY, {})
    enemy_located, own_located = [], []
    on_map: list[dict[str, str]] = []  # enemy Located markers for the report map
    for _key, m in sorted(markers.items()):
        line = f"{m['owner']} {m['tf']} at {m['hex']}: {m['label']} ({m['source']})"
        if m["owner"] == side:
            own_located.append(line)
        else:
            if side is not None:
                on_map.append({"side": str(m["owner"]), "id": f"{m['tf']}?", "hex": str(m["hex"])})
            problem = located.strike_target_problem(k, m["owner"], m["tf"]) if side else None
            enemy_located.append(
                f"{line}; " + (f"no strike: {problem}" if problem else "may be struck")
            )
    standing: list[str] = []
    for who, part in sorted(k.private.items()):
        s = part.get(STANDING, {})
        head = "" if side else f"{who}: "
        standing += [head + line for line in s.get("search", ())]
        standing += [head + str(p.get("line", "")) for p in s.get("deception", {}).values()]
        if "coastwatcher_delay" in s:
            delay = s["coastwatcher_delay"]
            standing.append(head + f"COASTWATCHERS DELAY {'END' if delay is None else delay}")
    return {
        "searches": searches.told(),
        "contacts": contacts,
        "latest": sorted(latest.values()),
        "located": enemy_located,
        "found": found,
        "own_located": own_located,
        "revealed": revealed,
        "standing": standing,
        "map": on_map,
    }
