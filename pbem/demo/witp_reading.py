"""What a scripted War in the Pacific player reads (pbem.demo.witp): a side's orders
for a mail round come from what that side was mailed, never from the game's state.
A ``Reading`` of the order form holds its round, the orders it offers, the side's
task forces as the form lists them, a line each (marker, name, hex, speed class,
fuel, active phases used, its ships by type: the carrier TFs and the oilers afloat)
and its searchers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PASS = "PASS"
ORDER_WORDS = ("PASS", "SPEED", "MOVE", "NIGHT", "FUEL", "REGP", "LINK", "TRAN", "PORT", "SEARCH")

# 18.4: the most active Naval Phases a Game-Turn, by speed class (printed).
PER_GAME_TURN = {"SC1": 1, "SC2": 2, "SC3": 3}

_HEAD = re.compile(r"^(Turn|Phase):\s*(\S+)\s*$", re.M)
_ROUND = re.compile(r"^T(?P<turn>\d+)-(?P<phase>naval\d)-(?P<segment>[a-z]+)(?:-(?P<half>\w+))?$")
_FORM_TF = re.compile(
    r"^#\s+(?P<tf>TF\d+) \((?P<name>.*?)\): (?P<hex>[A-Z]\d{4}), (?P<where>in port at .+?|at sea); "
    r"speed (?P<speed>SC\d)(?P<choose> \(to choose\))?; (?P<fuel>[^;]+); (?P<used>\d+) used; "
    r"(?P<rest>.*)$"
)
_HELD = ("entered port last phase", "UNSUPPLIED")
_FREE = re.compile(r"^# Free markers: (TF\d+)", re.M)
_DUMMIES = re.compile(r"[Dd]ummy sorties left this cycle: (\d+)")
CARRIER = re.compile(r"(?:^|, |\s)(?:CV|CVL) \S")
_OILER = re.compile(r"(?:^|, |\s)AO \S")


def offered_orders(form: str) -> frozenset[str]:
    """The order words a form offers: those its order lines and comments name."""
    return frozenset(word for word in re.findall(r"\b[A-Z]{4,6}\b", form) if word in ORDER_WORDS)


@dataclass(frozen=True, slots=True)
class TaskForce:
    """One of the side's TFs as the order form lists it (16.2)."""

    marker: str  # "TF3"
    name: str  # the scenario's name for it ("Task Force 17")
    hex: str
    in_port: bool
    speed: str  # "SC2"
    to_choose: bool  # no class chosen yet: SPEED may open the card (16.0)
    used: int  # active Naval Phases used this Game-Turn
    held: bool  # entered port last phase (18.4.1) or unsupplied (18.3)
    carrier: bool = False  # holds a CV or CVL (the report's ship types)

    @property
    def may_plot(self) -> bool:
        """16.0, 18.4: a card only while the class's active phases are not used up."""
        return not self.held and self.used < PER_GAME_TURN.get(self.speed, 0)


def _form_tfs(form: str) -> list[TaskForce]:
    out: list[TaskForce] = []
    for line in form.splitlines():
        m = _FORM_TF.match(line)
        if m:
            out.append(
                TaskForce(
                    m["tf"],
                    m["name"],
                    m["hex"],
                    m["where"] != "at sea",
                    m["speed"],
                    bool(m["choose"]),
                    int(m["used"]),
                    any(h in m["rest"] for h in _HELD),
                    bool(CARRIER.search(" " + m["rest"])),
                )
            )
    return out


def _with_type(form: str, ship_type: re.Pattern[str]) -> frozenset[str]:
    """The markers of the side's TFs holding a ship of ``ship_type`` (the form lists
    each TF's ships afloat: a ship sunk has left its TF's box, 7.8.1)."""
    return frozenset(
        m["tf"]
        for line in form.splitlines()
        if (m := _FORM_TF.match(line)) and ship_type.search(" " + m["rest"])
    )


def _search_mentions(form: str) -> str:
    """The form's lines about search (13.3): a line naming search and the comment
    lines that follow it, so a base counts as a searcher only where the form says so."""
    out: list[str] = []
    taking = False
    for line in form.splitlines():
        if "search" in line.lower():
            taking = True
        elif not line.startswith("#") or line.strip() == "#":
            taking = False
        if taking:
            out.append(line.lower().replace("_", " "))
    return "\n".join(out)


_SEARCHER = re.compile(
    r"^#\s+(?P<name>\S+) at (?P<hex>[A-Z]\d{4})(?P<carrier> \(carrier bands\))?: (?P<bands>.*)$"
)
_BAND = re.compile(r"(?P<band>[a-z]+) (?P<lo>\d+)-(?P<hi>\d+) hexes value (?P<value>\d+)")


@dataclass(frozen=True, slots=True)
class Searcher:
    """A searching base or carrier TF as the form lists it (13.1.3): its bands,
    each (first hex, last hex, search value)."""

    name: str  # as the form writes it: "Port_Moresby", "TF3"
    hex: str
    carrier: bool
    bands: tuple[tuple[int, int, int], ...]

    def value_at(self, hexes: int) -> int:
        return next((v for lo, hi, v in self.bands if lo <= hexes <= hi), 0)


def _form_searchers(form: str) -> tuple[Searcher, ...]:
    out = []
    for line in form.splitlines():
        m = _SEARCHER.match(line)
        if m:
            bands = tuple(
                (int(b["lo"]), int(b["hi"]), int(b["value"])) for b in _BAND.finditer(m["bands"])
            )
            out.append(Searcher(m["name"], m["hex"], bool(m["carrier"]), bands))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Reading:
    """What a side holds when it writes its orders: the form and the report it came with."""

    side: str
    turn: int
    round: str  # the mail round, e.g. "T1-naval1-plot" (a gate half: "...-plot-japanese")
    offered: frozenset[str]  # the order words the form offers
    tfs: tuple[TaskForce, ...] = ()  # the side's TFs, as the form lists them
    search_text: str = ""  # the form's lines about search, lower case
    searchers: tuple[Searcher, ...] = ()  # the searching bases and carrier TFs it lists
    free_marker: str | None = None  # the lowest free TF marker (16.1.1)
    dummies_left: int = 0  # dummy sorties left in this cycle's allotment (13.6)
    form: str = ""  # the order form as mailed (the Allocation Segment's is read whole)
    oilers: frozenset[str] = frozenset()  # TFs the report shows with an AO afloat (17.9)

    @property
    def phase(self) -> str:
        """The Naval Phase the round plots ("naval1"); "" for another kind of round."""
        m = _ROUND.match(self.round)
        return m["phase"] if m else ""

    @property
    def segment(self) -> str:
        """The kind of round: its segment ("plot"), whatever half of a gate it is."""
        m = _ROUND.match(self.round)
        return m["segment"] if m else self.round.rpartition("-")[2]

    def tf(self, name: str) -> TaskForce | None:
        return next((t for t in self.tfs if t.name == name), None)

    @classmethod
    def of(cls, side: str, form: str, report: str = "") -> Reading:
        """``report``: the report the form came with (all a side reads from it is in
        the form now)."""
        head = dict(_HEAD.findall(form))
        tfs = tuple(_form_tfs(form))
        return cls(
            side,
            int(head.get("Turn", "0")),
            head.get("Phase", ""),
            offered_orders(form),
            tfs,
            _search_mentions(form),
            _form_searchers(form),
            free.group(1) if (free := _FREE.search(form)) else None,
            int(left.group(1)) if (left := _DUMMIES.search(form)) else 0,
            form,
            _with_type(form, _OILER),
        )
