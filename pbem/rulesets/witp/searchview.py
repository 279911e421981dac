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
- ``map``: the enemy's Located markers for the report map ("TF2?" at its hex);
- ``brief``: the round's searches, contacts and finds for the plain-text report, by
  game time: a searcher that found something with its band's initial and value
  (S, M, L, X: short, medium, long, extended) and what it found, a line for each
  side's searchers that found nothing in the round (the hexes and rolls are in the
  sections above), a contact, a TF of the side's found with the chit it drew and
  what the enemy was told.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from pbem.rulesets.witp.coastwatchers import IslandGivenAway
from pbem.rulesets.witp.dummies import DummyRevealed
from pbem.rulesets.witp.knowledge import Disclosure, Fact
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.located import Located, LocatedMoved
from pbem.rulesets.witp.records import ABSENT
from pbem.rulesets.witp.search import (
    AirSearch,
    AirSearchEmpty,
    DeceptionRefused,
    IntensiveSearchLoss,
    NoSearchTookPlace,
    SearchChit,
    VsSearchHit,
)
from pbem.rulesets.witp.searchfacts import SearchReport
from pbem.rulesets.witp.searchplay import SearchNotFlown

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


def _searcher(d: Disclosure, f: AirSearch | AirSearchEmpty) -> tuple[str, ...]:
    """What one searcher's searches in a band share: the line they are told on."""
    intensive = "intensive" if f.intensive else ""
    return (d.time, d.rule, str(f.searcher), f.origin, f.band, str(f.value), intensive)


def _search_head(key: tuple[str, ...]) -> str:
    time, _rule, searcher, origin, band, value, intensive = key
    extra = ", intensive: Cup 1" if intensive else ""
    who = searcher.capitalize()
    return f"{time}: {who} from {origin} ({band} band, value {value}{extra})"


def _search_result(f: AirSearch | AirSearchEmpty) -> str:
    """One searched hex of a searcher's line (13.3): what it found, roll/needed."""
    if isinstance(f, AirSearchEmpty):
        return f"{f.hex} empty"
    what = f"{f.hex} {f.tf}" if f.tf else f"{f.hex}"
    if f.needed is None:
        return f"{what} {f.roll}/- missed (no roll finds it)"
    return f"{what} {f.roll}/{f.needed} {'found' if f.contact else 'missed'}"


BAND_LETTER = {"short": "S", "medium": "M", "long": "L", "extended": "X"}  # X: not a hex's E


@dataclass
class _Find:
    """A TF a searcher found as its report tells it: told on the searcher's line when
    one of the round's names it (13.5.7), else on a line of its own (``line``)."""

    tf: str
    hex: str
    told: str  # what the line adds after the TF and hex
    own: bool  # the side's own TF, found by the enemy
    line: str
    air: bool = True  # found by air search, so a searcher's line names it
    chit: bool = False  # tells the chit the side's TF drew (13.5.7), told to it alone


@dataclass
class _Searcher:
    """A searcher's line that found something: what it found, how many hexes it missed."""

    key: tuple[str, ...]
    results: list[AirSearch | AirSearchEmpty]
    told: dict[int, str] = field(default_factory=dict)  # a found result -> its report

    def found(self) -> list[tuple[int, AirSearch]]:
        return [
            (i, f) for i, f in enumerate(self.results) if isinstance(f, AirSearch) and f.contact
        ]

    def take(self, find: _Find) -> bool:
        """Tell ``find`` on this line if it names the TF at that hex and is not told yet."""
        for i, f in self.found():
            if i not in self.told and f.tf == find.tf and f.hex == find.hex:
                self.told[i] = find.told
                return True
        return False

    def __str__(self) -> str:
        _time, _rule, searcher, origin, band, value, intensive = self.key
        found = [
            f"{f.tf} {f.hex}" + (f" ({self.told[i]})" if i in self.told else "")
            for i, f in self.found()
        ]
        rest = len(self.results) - len(found)
        extra = " intensive" if intensive else ""
        missed = f" (nothing in {rest} more)" if rest else ""
        letter = BAND_LETTER.get(band, band)
        head = f"{searcher.capitalize()} {origin} {letter}{value}{extra}"
        return f"{head}: found {', '.join(found)}{missed}"


def _found_any(results: list[AirSearch | AirSearchEmpty]) -> bool:
    return any(isinstance(f, AirSearch) and f.contact for f in results)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _brief_misses(keys: list[tuple[str, ...]], searched: int) -> str:
    """One side's searchers of a round that found nothing, on one line (13.3)."""
    origins = list(dict.fromkeys(k[3] for k in keys))
    bands = [BAND_LETTER[b] for b in BAND_LETTER if any(k[4] == b for k in keys)]
    plural = "es" if searched != 1 else ""
    return (
        f"{keys[0][2].capitalize()}: {searched} search{plural} from {_and(origins)}"
        f" ({', '.join(bands)}) found nothing"
    )


class _Searches:
    """The round's searches, one line a searcher and band (13.3: its value shared
    over the hexes it searched), each searched hex's result on it, in the order told."""

    def __init__(self) -> None:
        self.lines: list[str | tuple[str, ...]] = []
        self.results: dict[tuple[str, ...], list[str]] = {}
        self.facts: dict[tuple[str, ...], list[AirSearch | AirSearchEmpty]] = {}

    def search(self, d: Disclosure, f: AirSearch | AirSearchEmpty) -> tuple[str, ...] | None:
        """File the search on its searcher's line; the line's key when it is new."""
        key = _searcher(d, f)
        new = key not in self.results
        if new:
            self.results[key] = []
            self.facts[key] = []
            self.lines.append(key)
        self.results[key].append(_search_result(f))
        self.facts[key].append(f)
        return key if new else None

    def line(self, text: str) -> None:
        self.lines.append(text)

    def told(self) -> list[str]:
        return [
            x if isinstance(x, str) else f"{_search_head(x)}: {', '.join(self.results[x])}"
            for x in self.lines
        ]


@dataclass
class _Told:
    """What a side was told of the searches, section by section, as it reads."""

    side: str | None
    searches: _Searches = field(default_factory=_Searches)
    contacts: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)
    revealed: list[str] = field(default_factory=list)
    latest: dict[tuple[str, str], str] = field(default_factory=dict)  # in report order
    where_now: dict[tuple[str, str], str] = field(default_factory=dict)  # latest Located hex
    # The plain-text lines by game time: a text, a searcher's key (its line once
    # filed), or a TF found (on its searcher's line when that names it).
    brief: list[tuple[str, str | tuple[str, ...] | _Find]] = field(default_factory=list)
    drawn: dict[str, _Find] = field(default_factory=dict)  # own TF -> its chit's find

    def _say(self, time: str, line: str | _Find) -> None:
        self.brief.append((time, line))

    def briefly(self) -> list[dict[str, Any]]:
        """The brief lines grouped by game time, in the order told: a line for each
        searcher that found something, what it found told on it, one for each side's
        searchers that found nothing (at the first of them), and the rest a line each."""
        out: list[dict[str, Any]] = []
        misses: dict[tuple[str, str], list[tuple[str, ...]]] = {}
        for time, x in self.brief:
            if not out or out[-1]["time"] != time:
                out.append({"time": time, "lines": []})
            lines: list[str | tuple[str, str] | _Searcher | _Find] = out[-1]["lines"]
            line: str | tuple[str, str] | _Searcher | _Find
            if isinstance(x, str | _Find):
                line = x
            elif _found_any(self.searches.facts[x]):
                line = _Searcher(x, self.searches.facts[x])
                if any(isinstance(y, _Searcher) and y.key == x for y in lines):
                    continue
            else:
                line = (time, x[2])
                misses.setdefault(line, []).append(x)
            if line not in lines:  # a report told by two searchers: once
                lines.append(line)
        # The digest tells each TF's last report of the rounds: a report by no
        # searcher (a strike's, a coastwatcher's) is not told here again when last.
        last = {(x.own, x.tf): x for _t, x in self.brief if isinstance(x, _Find)}
        told = {id(x) for x in last.values() if not (x.air or x.chit)}
        for group in out:
            group["lines"] = [
                self._misses(x) if isinstance(x, list) else str(x)
                for x in self._merge(group["lines"], misses, told)
            ]
        return out

    def _merge(
        self,
        lines: list[Any],
        misses: dict[tuple[str, str], list[tuple[str, ...]]],
        digested: set[int],
    ) -> list[Any]:
        """The finds told on their searchers' lines: an enemy's searcher's line tells
        the side's TFs it found with the chit drawn and what the enemy was told, the
        side's own searcher's the reports it made. The misses' keys, as their lists."""
        searchers = [x for x in lines if isinstance(x, _Searcher)]
        out: list[Any] = []
        for x in lines:
            if isinstance(x, _Find):
                by = [y for y in searchers if (y.key[2] == self.side) != x.own]
                if self.side is not None and x.air and any(y.take(x) for y in by):
                    continue
                if self.side is not None and id(x) in digested:
                    continue
                out.append(x.line)
            elif isinstance(x, tuple):
                out.append(misses[x])
            else:
                out.append(x)
        return out

    def _misses(self, keys: list[tuple[str, ...]]) -> str:
        return _brief_misses(keys, sum(len(self.searches.facts[k]) for k in keys))

    def track(self, d: Disclosure) -> None:
        """What stays true whenever it was told: where each TF was last Located, and
        the last report on each enemy TF."""
        f = d.fact
        if isinstance(f, Located | LocatedMoved):
            self.where_now[(str(f.owner), f.tf)] = f.hex
        elif isinstance(f, SearchReport) and f.owner != self.side:
            key = (str(f.owner), f.tf)
            self.latest.pop(key, None)
            at = self.where_now.get(key, "?")
            self.latest[key] = f"{key[0]} {key[1]} at {at} ({d.time}, {f.source}): {f.report}"

    def tell(self, d: Disclosure) -> None:
        """A disclosure of the round reported, onto its section."""
        f, at = d.fact, f"{d.time} [{d.rule}]"
        if f.kind in (AirSearch.KIND, AirSearchEmpty.KIND):
            key = self.searches.search(d, _air_search(f))
            if key is not None:
                self.brief.append((d.time, key))
            return
        if isinstance(f, NoSearchTookPlace):
            said = f"{f.searcher} announces that no search took place at {f.hex} (a bluff)"
        elif isinstance(f, VsSearchHit):
            said = (
                f"US VS search hit on {f.owner} {f.tf} (roll {f.roll}): a strike at "
                f"anti-ship {f.anti_ship} is owed"
            )
        elif isinstance(f, SearchNotFlown):
            said = f"your line {f.line!r} was not flown: {f.why}"
        elif isinstance(f, IntensiveSearchLoss):
            said = (
                f"intensive search from {f.base}: 1D6 {f.roll}, "
                f"{f.air_points_lost} air point(s) lost"
            )
        else:
            self._tell_found(d)
            return
        self.searches.line(f"{at}: {said}")
        self._say(d.time, f"{said} [{d.rule}]")

    def _tell_found(self, d: Disclosure) -> None:
        """The contacts, the side's own TFs found, and the dummies and islands revealed."""
        f, at = d.fact, f"{d.time} [{d.rule}]"
        if isinstance(f, SearchReport):
            where = self.where_now.get((str(f.owner), f.tf), "?")
            what = f"{f.owner} {f.tf} at {where} ({f.source}): {f.report}"
            line = f"{at}: {what}"
            if f.owner == self.side:
                self.found.append(f"{line} (reported to the enemy)")
                chit = self.drawn.pop(f.tf, None)
                told = f"{where} ({f.source}): {f.report}"
                if chit is not None and any(t == d.time and x is chit for t, x in self.brief):
                    chit.hex, chit.air = where, f.source == "air"
                    chit.told = f"{chit.told}, enemy told: {f.report}"
                    chit.line = f"{chit.line}, enemy told: {told}"
                else:
                    said = f"The enemy was told: {f.tf} at {told}"
                    self._say(d.time, _Find(f.tf, where, f.report, True, said, air=False))
            else:
                self.contacts.append(line)
                contact = f"Contact: {f.tf} at {where} ({f.source}): {f.report}"
                self._say(d.time, _Find(f.tf, where, f.report, False, contact, f.source == "air"))
        elif isinstance(f, SearchChit):
            self.found.append(f"{at}: {f.tf} drew {f.chit} from {f.cup}")
            # its cup: the section above
            self.drawn[f.tf] = _Find(
                f.tf, "?", f"drew {f.chit}", True, f"Your {f.tf} drew {f.chit}", chit=True
            )
            self._say(d.time, self.drawn[f.tf])
        elif isinstance(f, DeceptionRefused):
            self.found.append(f"{at}: {f.tf}: {f.why}")
            self._say(d.time, f"{f.tf}: {f.why} [{d.rule}]")
        elif isinstance(f, DummyRevealed):
            self.revealed.append(f"{at}: {f.owner} {f.tf} was a dummy ({f.by})")
            self._say(d.time, f"{f.owner} {f.tf} was a dummy ({f.by}) [{d.rule}]")
        elif isinstance(f, IslandGivenAway):
            self.revealed.append(f"{at}: a coastwatcher on {f.island} reported {f.tf}")
            self._say(d.time, f"a coastwatcher on {f.island} reported {f.tf} [{d.rule}]")


def _air_search(f: Fact) -> AirSearch | AirSearchEmpty:
    """An announced search, typed (its stored ``from`` key keeps it raw in the record)."""
    return AirSearchEmpty.read(f) if f.kind == AirSearchEmpty.KIND else AirSearch.read(f)


def _located(k: Knowledge) -> tuple[list[str], list[str], list[dict[str, str]]]:
    """The Located chits on the map: the enemy's (may each be struck?), the side's
    own, and the enemy's markers for the report map ("TF2?" at its hex)."""
    side = k.side
    enemy_located, own_located = [], []
    on_map: list[dict[str, str]] = []
    for _key, m in sorted(k.located.items()):
        line = f"{m.owner} {m.tf} at {m.hex}: {m.label} ({m.source})"
        if m.owner == side:
            own_located.append(line)
            continue
        if side is not None:
            on_map.append({"side": str(m.owner), "id": f"{m.tf}?", "hex": str(m.hex)})
        problem = k.strike_target_problem(m.owner, m.tf) if side else None
        enemy_located.append(
            f"{line}; " + (f"no strike: {problem}" if problem else "may be struck")
        )
    return enemy_located, own_located, on_map


def _standing(k: Knowledge) -> list[str]:
    """Each side's standing search, deception and coastwatcher orders it may see."""
    standing: list[str] = []
    for who in k.sides():
        s = k.standing(who)
        head = "" if k.side else f"{who}: "
        standing += [head + line for line in s.searches()]
        standing += [head + (p.line or "") for p in s.policies().values()]
        if s.coastwatcher_delay is not ABSENT:
            delay = s.coastwatcher_delay
            standing.append(head + f"COASTWATCHERS DELAY {'END' if delay is None else delay}")
    return standing


def _once(lines: list[str]) -> list[str]:
    """Each line once (a strike's True report is told by every strike that meets it)."""
    return list(dict.fromkeys(lines))


def build(k: Knowledge, recent: Collection[str] | None = None) -> dict[str, Any]:
    """``recent``: the game times of the round reported (None: the whole game)."""
    told = _Told(k.side)
    for d in k.disclosed:
        told.track(d)
        if recent is None or d.time in recent:
            told.tell(d)
    enemy_located, own_located, on_map = _located(k)
    return {
        "searches": told.searches.told(),
        "contacts": told.contacts,
        "latest": sorted(told.latest.values()),
        "located": enemy_located,
        "found": _once(told.found),
        "own_located": own_located,
        "revealed": told.revealed,
        "standing": _standing(k),
        "map": on_map,
        "brief": told.briefly(),
    }
