"""Scripted War in the Pacific players for the demonstration (``pbem demo --ruleset
witp``): Coral Sea, May 1942 (coral-sea-1942), played to its end by mail.

A side's orders for a mail round come from what that side was mailed, never from
the game's state: a ``Reading`` of the order form (its round, the orders it offers,
the side's task forces as the form lists them: marker, name, hex, speed class,
fuel, active phases used) and of the report that came with it (the ships' types,
to know the carrier TFs). The printed map is the only other thing a player holds:
``BASES`` gives the hexes of the searching bases as it prints them.

What each force means to do is data: ``INTENTS`` holds Operation MO for the
Japanese and Fletcher's counter for the Allies, a mission card (16.3, 17.x) per
force for each Naval Phase, by the force's name (the form shows which marker
carries it). ``plot_orders`` writes the cards the form allows: a force whose
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from pbem.rulesets.witp.hexgrid import distance

J, A = "japanese", "allied"
PASS = "PASS"
ORDER_WORDS = ("PASS", "SPEED", "MOVE", "NIGHT", "FUEL", "REGP", "LINK", "TRAN", "PORT", "SEARCH")

# 18.4: the most active Naval Phases a Game-Turn, by speed class (printed).
PER_GAME_TURN = {"SC1": 1, "SC2": 2, "SC3": 3}
# 13.1.3 (the pack's illustrative bands): the farthest hex searched, kept to the
# Medium band, where every searching aircraft of the scenario has a value.
SEARCH_REACH = {"base": 13, "carrier": 8}
SEARCH_HEXES = 2  # a search split over at most two hexes (13.3.1: the value is shared)

_HEAD = re.compile(r"^(Turn|Phase):\s*(\S+)\s*$", re.M)
_ROUND = re.compile(r"^T(?P<turn>\d+)-(?P<phase>naval\d)-(?P<segment>[a-z]+)(?:-(?P<half>\w+))?$")
_FORM_TF = re.compile(
    r"^#\s+(?P<tf>TF\d+) \((?P<name>.*)\): (?P<hex>[A-Z]\d{4}), (?P<where>in port at .+?|at sea);"
)
_FORM_STATUS = re.compile(
    r"^#\s+speed (?P<speed>SC\d)(?P<choose> \(to choose\))?; (?P<fuel>[^;]+); "
    r"(?P<used>\d+) active phase"
)
_HELD = ("entered port last phase", "UNSUPPLIED")
_FREE = re.compile(r"^# Free markers: (TF\d+)", re.M)
_DUMMIES = re.compile(r"^# Dummy sorties left this cycle: (\d+)", re.M)
_SECTION = re.compile(r"^Your forces\n-+\n(.*?)(?:\n\n|\Z)", re.M | re.S)
_REPORT_TF = re.compile(r"^(TF\d+) ", re.M)
_CARRIER = re.compile(r"(?:^|, |\s)(?:CV|CVL) \S")
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
    lines = form.splitlines()
    for i, line in enumerate(lines):
        m = _FORM_TF.match(line)
        if not m:
            continue
        status = _FORM_STATUS.match(lines[i + 1]) if i + 1 < len(lines) else None
        if status is None:
            continue
        flags = []
        for more in lines[i + 2 :]:
            if _FORM_TF.match(more) or not more.startswith("#    "):
                break
            flags.append(more)
        out.append(
            TaskForce(
                m["tf"],
                m["name"],
                m["hex"],
                m["where"] != "at sea",
                status["speed"],
                bool(status["choose"]),
                int(status["used"]),
                any(h in f for f in flags for h in _HELD),
            )
        )
    return out


def _carriers(report: str) -> frozenset[str]:
    """The markers of the side's TFs with a carrier, from the report's ship types."""
    return _with_type(report, _CARRIER)


def _with_type(report: str, ship_type: re.Pattern[str]) -> frozenset[str]:
    """The markers of the side's TFs holding a ship of ``ship_type`` (its report's
    forces: a ship sunk has left its TF's box, 7.8.1)."""
    section = _SECTION.search(report)
    if not section:
        return frozenset()
    blocks = re.split(r"(?m)^(?=TF\d+ )", section.group(1))
    return frozenset(
        m.group(1) for b in blocks if (m := _REPORT_TF.match(b)) and ship_type.search(b)
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
    def of(cls, side: str, form: str, report: str) -> Reading:
        head = dict(_HEAD.findall(form))
        carriers = _carriers(report)
        tfs = tuple(replace(t, carrier=t.marker in carriers) for t in _form_tfs(form))
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
            _with_type(report, _OILER),
        )


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


# Operation MO and the Allied answer: the cards of each Naval Phase, by Game-Turn and
# phase, in the order the TFs execute (17.13.6). Game-Turn 1 is the week of 3 May:
# the Tulagi landing, the Invasion Force's sortie, the carriers' fuelling and the
# battle; Game-Turn 2 the withdrawal after MO was postponed (8 May); Game-Turn 3
# the return to port. Hexes are the printed map's (Section E).
INTENTS: Mapping[str, Mapping[tuple[int, str], tuple[Card, ...]]] = {
    J: {
        (1, "naval1"): (
            Card(
                "Tulagi Invasion Force",
                "back to the Shortlands after the landing (4 May)",
                speed=1,
                move="Shortland",
                port=True,
            ),
            Card(
                "MO Main Force",
                "Goto covers the invasion from north of the Louisiades",
                speed=2,
                move="E1818",
                ev=4,
            ),
            Card(
                "MO Striking Force",
                "Takagi rounds the eastern Solomons (5 May), a dummy left in the north",
                dummy=True,
                speed=2,
                move="E2521",
                ev=4,
            ),
        ),
        (1, "naval2"): (
            Card(
                "Port Moresby Invasion Force",
                "Kajioka sails from Rabaul for the Jomard Passage",
                speed=1,
                move="E1719",
                ev=1,
                night_after=3,
            ),
            Card(
                "MO Support Force (seaplane tender group)",
                "Marumo sets up at Deboyne (6 May)",
                speed=2,
                move="Deboyne",
                ev=1,
            ),
            Card("MO Main Force", "Goto closes Misima", move="E1720", ev=4),
            Card(
                "MO Striking Force",
                "fuels from Toho Maru, then into the Coral Sea (6-7 May)",
                fuel_from="MO Striking Force",
                fuel_first=True,
                move="E2022",
                ev=4,
            ),
        ),
        (2, "naval1"): (
            Card(
                "Port Moresby Invasion Force",
                "recalled to Rabaul (8 May)",
                move="Rabaul",
                ev=1,
                port=True,
            ),
            Card(
                "MO Support Force (seaplane tender group)",
                "back to the Shortlands",
                move="Shortland",
                port=True,
            ),
            Card("MO Main Force", "withdraws north", move="E1816", ev=4),
            Card(
                "MO Striking Force",
                "the carrier battle south of the Louisiades (8 May)",
                move="E1921",
                ev=4,
            ),
        ),
        (2, "naval2"): (
            Card("MO Main Force", "into Rabaul", move="Rabaul", port=True),
            Card("MO Striking Force", "retires north past Bougainville", move="E1915", ev=4),
        ),
        (3, "naval1"): (
            Card("MO Striking Force", "into Rabaul, MO given up", move="Rabaul", port=True),
        ),
    },
    A: {
        (1, "naval1"): (
            Card(
                "Fuelling Group", "Neosho and Tippecanoe at the rendezvous", speed=2, move="E2223"
            ),
            Card("Task Force 11", "Fitch to the rendezvous", speed=3, move="E2223", ev=4),
            Card(
                "Task Force 17",
                "Fletcher runs north to strike Tulagi (4 May)",
                speed=3,
                move="E2320",
                ev=4,
            ),
            Card("Task Force 44", "Crace joins Fletcher", speed=2, move="E2223", ev=8),
        ),
        (1, "naval2"): (
            Card(
                "Task Force 11", "Fitch fuels from Tippecanoe (5 May)", fuel_from="Fuelling Group"
            ),
            Card(
                "Task Force 17",
                "back to the rendezvous; fuels from Neosho (5-6 May)",
                move="E2223",
                ev=4,
                fuel_from="Fuelling Group",
            ),
        ),
        (1, "naval3"): (
            Card("Task Force 17", "towards the Louisiades (7 May)", move="E2021", ev=4),
            Card("Task Force 11", "Lexington sails with Yorktown", link="Task Force 17"),
            Card(
                "Task Force 44",
                "Crace detached to the Jomard Passage (7 May)",
                move="E1721",
                ev=8,
                night_after=2,
            ),
        ),
        (2, "naval1"): (
            Card("Fuelling Group", "a new fuelling point to the south", move="E2125"),
            Card("Task Force 17", "the carrier battle (8 May)", move="E1922", ev=4),
            Card("Task Force 11", "with Task Force 17", link="Task Force 17"),
            Card(
                "Task Force 44",
                "Crace falls back on Townsville, a dummy left off the Jomard Passage",
                dummy=True,
                move="Townsville",
                port=True,
            ),
        ),
        (2, "naval2"): (
            Card(
                "Task Force 17",
                "retires south and fuels",
                move="E2125",
                ev=4,
                fuel_from="Fuelling Group",
            ),
            Card("Task Force 11", "with Task Force 17", link="Task Force 17"),
        ),
        (2, "naval3"): (
            Card("Task Force 17", "south for Noumea", move="E2027", ev=4),
            Card("Task Force 11", "with Task Force 17", link="Task Force 17"),
        ),
        (3, "naval1"): (
            Card("Fuelling Group", "to Noumea, its oilers nearly empty", move="Noumea", port=True),
            Card("Task Force 17", "south for Noumea", move="E2429", ev=4),
            Card("Task Force 11", "with Task Force 17", link="Task Force 17"),
        ),
        (3, "naval2"): (
            Card("Task Force 17", "into Noumea", move="Noumea", port=True),
            Card("Task Force 11", "with Task Force 17", link="Task Force 17"),
        ),
    },
}

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
    r"^#\s+(?P<type>\S+): (?P<normal>\d+)/(?P<extended>\d+) MP, torpedo (?P<torpedo>\d+) MP, "
    r"roles (?P<roles>\S+)$"
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
    types = {m["type"]: m for ln in lines if (m := _AIR_TYPE.match(ln))}
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
            key=lambda m: (not _CARRIER.search(" " + m["report"]), distance(base["hex"], m["hex"])),
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
