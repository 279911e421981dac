"""The U.S.N. order language: plain text, one order per line.

``parse_orders`` turns an order sheet into typed orders and collects every
syntax error (it never stops at the first). Legality against the state is
judged later by the movement/supply modules; this module only knows the
grammar and which steps each verb belongs to (SEQ.STRICT).

Blank lines and lines starting with ``#`` are ignored. Verbs and IDs are
case-insensitive; hexes are written as on the map (``0759`` or ``759``). The
player's reference is docs/usn-orders.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pbem.core.errors import IllegalOrderError, OrderSyntaxError
from pbem.core.refusals import line_error
from pbem.core.ruleset import LineError
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.sequence import StepKind
from pbem.rulesets.usn.state import AIR_TYPES, normalise_id

OFF_MAP = "OFF"  # last token of a naval path that leaves the map (OFF.*)


@dataclass(frozen=True, slots=True)
class AirCargo:
    """``5 LAC``: air points as cargo or as a mission's strength."""

    points: int
    atype: str

    def text(self) -> str:
        return f"{self.points} {self.atype}"


Cargo = str | AirCargo


@dataclass(frozen=True, slots=True)
class Move:
    """MOVE (SEQ.2C, SEQ.3A) and CONTINUE (SEQ.2I): units along a hex path."""

    units: tuple[str, ...]
    path: tuple[str, ...]  # hex numbers as "0759", optionally ending in "OFF"
    second: bool = False

    def canonical(self) -> str:
        verb = "CONTINUE" if self.second else "MOVE"
        return f"{verb} {' '.join(self.units)} {' '.join(self.path)}"


@dataclass(frozen=True, slots=True)
class Sail:
    """SAIL ship EDGE-HEX: leave the West Coast for the map through the east-edge boxes (OFF.BOX)."""

    units: tuple[str, ...]
    entry: int

    def canonical(self) -> str:
        return f"SAIL {' '.join(self.units)} {hexgrid.fmt(self.entry)}"


@dataclass(frozen=True, slots=True)
class Transfer:
    """TRANSFER n TYPE FROM TO (SEQ.2A, AM.TRANSFER); FROM/TO are hexes, ship IDs or WC."""

    air: AirCargo
    source: Location
    dest: Location

    def canonical(self) -> str:
        return f"TRANSFER {self.air.text()} {self.source} TO {self.dest}"


@dataclass(frozen=True, slots=True)
class Drop:
    """DROP unit HEX (SEQ.2B, PARA.DROP)."""

    unit: str
    hex: int

    def canonical(self) -> str:
        return f"DROP {self.unit} {hexgrid.fmt(self.hex)}"


@dataclass(frozen=True, slots=True)
class Embark:
    """EMBARK / DEBARK transport cargo... (SEQ.2D, NM.TRANS)."""

    transport: str
    cargo: tuple[Cargo, ...]
    debark: bool = False

    def canonical(self) -> str:
        verb = "DEBARK" if self.debark else "EMBARK"
        items = " ".join(c.text() if isinstance(c, AirCargo) else c for c in self.cargo)
        return f"{verb} {self.transport} {items}".rstrip()


@dataclass(frozen=True, slots=True)
class Emergency:
    """EMERGENCY ship UNIT... |SUPPLY HEX (SEQ.2E, NM.EMERG, SUP.F)."""

    ship: str
    cargo: tuple[str, ...]  # empty: a supply run
    dest: int

    def canonical(self) -> str:
        what = " ".join(self.cargo) or "SUPPLY"
        return f"EMERGENCY {self.ship} {what} {hexgrid.fmt(self.dest)}"


@dataclass(frozen=True, slots=True)
class Stack:
    """STACK HEX ship ship ... top to bottom (SEQ.2I, STK.G)."""

    hex: int
    units: tuple[str, ...]

    def canonical(self) -> str:
        return f"STACK {hexgrid.fmt(self.hex)} {' '.join(self.units)}"


@dataclass(frozen=True, slots=True)
class Simple:
    """One-verb orders on units: BASE, SEA (BASE.K), REFUEL (SUP.H), ENTRENCH,
    DISENTRENCH (ENT)."""

    verb: str
    units: tuple[str, ...]

    def canonical(self) -> str:
        return f"{self.verb} {' '.join(self.units)}"


@dataclass(frozen=True, slots=True)
class SubMove:
    """SUB sub HEX HEX ...: a submarine moves on the secret log (SUB.PROC)."""

    sub: str
    path: tuple[str, ...]

    def canonical(self) -> str:
        return f"SUB {self.sub} {' '.join(self.path)}"


@dataclass(frozen=True, slots=True)
class Place:
    """PLACE unit-or-air HEX: where this turn's arrivals enter (SEQ.1, REIN.*), or
    where a free unit or free air points set up (SETUP.FREE, SETUP.AIRANY: air points
    may set up aboard a ``carrier``, then ``hex`` is 0)."""

    what: Cargo
    hex: int
    carrier: str = ""

    def canonical(self) -> str:
        what = self.what.text() if isinstance(self.what, AirCargo) else self.what
        return f"PLACE {what} {self.carrier or hexgrid.fmt(self.hex)}"


@dataclass(frozen=True, slots=True)
class Mission:
    """Air-strike round orders, resolved by the combat modules (SEQ.5E, AMAC).

    ``kind`` is CAP, STRIKE or SUPPORT; ``target`` is SHIPS, PORT, LAND, CD,
    AIRBASE, NAVALBASE, STRAFE (STRIKE) or ATTACK/DEFEND (SUPPORT). ``at``: the
    land unit a LAND strike bombs (AM.BOMBLAND "any of the land units").
    """

    kind: str
    air: AirCargo
    source: Location
    dest: int | None = None
    target: str = ""
    group: int = 0
    at: str | None = None

    def canonical(self) -> str:
        parts = [self.kind, self.air.text(), self.source]
        if self.dest is not None:
            parts.append(hexgrid.fmt(self.dest))
        if self.target:
            parts.append(self.target)
        if self.group:
            parts.append(str(self.group))
        if self.at:
            parts += ["AT", self.at]
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Ground:
    """ATTACK HEX units (SEQ.5B), GUNFIRE HEX ships (SEQ.5C), LAND transport units (SEQ.5A)."""

    verb: str
    where: str
    units: tuple[str, ...]

    def canonical(self) -> str:
        return f"{self.verb} {self.where} {' '.join(self.units)}"


@dataclass(frozen=True, slots=True)
class Bombard:
    """BOMBARD HEX LAND|AIRBASE|NAVALBASE|CD ships... [AT land unit] (SEQ.2F, SEQ.2H;
    naval_combat.py). ``at``: the land unit bombarded (NM.BOMBLAND "any one")."""

    hex: int
    target: str
    units: tuple[str, ...]
    at: str | None = None

    def canonical(self) -> str:
        tail = f" AT {self.at}" if self.at else ""
        return f"BOMBARD {hexgrid.fmt(self.hex)} {self.target} {' '.join(self.units)}{tail}"


@dataclass(frozen=True, slots=True)
class FireAt:
    """FIRE ships... AT enemy-ship: surface fire targets (NM.SURF.5; naval_combat.py)."""

    units: tuple[str, ...]
    target: str

    def canonical(self) -> str:
        return f"FIRE {' '.join(self.units)} AT {self.target}"


@dataclass(frozen=True, slots=True)
class Standing:
    """STANDING topic args...: the side's decisions in the other side's phase (INT)."""

    topic: str
    args: tuple[str, ...]

    def canonical(self) -> str:
        return f"STANDING {self.topic} {' '.join(self.args)}".rstrip()


Order = (
    Move
    | Sail
    | Transfer
    | Drop
    | Embark
    | Emergency
    | Stack
    | Simple
    | Place
    | Mission
    | Ground
    | Bombard
    | FireAt
    | Standing
    | SubMove
)


@dataclass(frozen=True, slots=True)
class Line:
    """A parsed order with the sheet line it came from."""

    number: int
    text: str
    order: Order


# Which step kinds each verb belongs to (SEQ.STRICT), and its rule for errors.
_AIR_SEA = frozenset({StepKind.AIR_SEA})
_LAND = frozenset({StepKind.LAND_MOVE})
_STRIKE = frozenset({StepKind.STRIKE})
_ANY = frozenset(StepKind)

VERB_STEPS: dict[str, tuple[frozenset[StepKind], str]] = {
    "MOVE": (_AIR_SEA | _LAND, "MOV.GEN"),
    "CONTINUE": (_AIR_SEA, "SEQ.2I"),
    "SAIL": (_AIR_SEA, "OFF.BOX"),
    "TRANSFER": (_AIR_SEA, "SEQ.2A"),
    "DROP": (_AIR_SEA, "SEQ.2B"),
    "EMBARK": (_AIR_SEA, "SEQ.2D"),
    "DEBARK": (_AIR_SEA, "SEQ.2D"),
    "EMERGENCY": (_AIR_SEA, "SEQ.2E"),
    "STACK": (_AIR_SEA, "STK.G"),
    "BASE": (_AIR_SEA, "BASE.K"),
    "SEA": (_AIR_SEA, "BASE.K"),
    "REFUEL": (_AIR_SEA, "SEQ.2J"),
    "BOMBARD": (_AIR_SEA, "SEQ.2F"),
    "FIRE": (_AIR_SEA, "NM.SURF.5"),
    "ENTRENCH": (_LAND, "SEQ.3B"),
    "DISENTRENCH": (_LAND, "ENT.B"),
    "DEFEND": (_LAND, "CBT.G"),
    "UNDEFEND": (_LAND, "CBT.G"),
    "BUILD": (_LAND, "SEQ.3C"),
    "SABOTAGE": (_LAND, "BASE.J"),
    "BREAK": (_LAND, "BRK.WHEN"),
    "COMBINE": (_LAND, "BRK.REBUILD"),
    "PLACE": (_ANY, "SEQ.1"),
    "CAP": (_STRIKE, "SEQ.5E"),
    "STRIKE": (_STRIKE, "SEQ.5E"),
    "SUPPORT": (_STRIKE, "SEQ.5J"),
    "ATTACK": (_STRIKE, "SEQ.5B"),
    "GUNFIRE": (_STRIKE, "SEQ.5C"),
    "LAND": (_STRIKE, "SEQ.5A"),
    "STANDING": (_ANY, "GEN.SPIRIT"),
    "SUB": (_AIR_SEA, "SUB.PROC"),
    "STATION": (_AIR_SEA, "SUB.A"),
}

STRIKE_TARGETS = ("SHIPS", "PORT", "LAND", "CD", "AIRBASE", "NAVALBASE", "STRAFE")
SUPPORT_TARGETS = ("ATTACK", "DEFEND")
BOMBARD_TARGETS = ("LAND", "AIRBASE", "NAVALBASE", "CD")
STANDING_TOPICS = ("SURFACE", "CAP", "AIRKILL", "AIRLOSS", "RETREAT", "SUBTARGET", "SUBREDUCE")


def _hex(tok: str) -> int:
    try:
        return int(hexgrid.parse_hex(tok))
    except ValueError as e:
        raise OrderSyntaxError(str(e)) from None


def _is_hex_token(tok: str) -> bool:
    return hexgrid.hex_of(tok) is not None


def _unit_id(tok: str) -> str:
    if _is_hex_token(tok):
        raise OrderSyntaxError(f"{tok!r} is a hex number where a unit ID was expected")
    return normalise_id(tok)


def _air(points: str, atype: str) -> AirCargo:
    if not points.isdigit() or int(points) <= 0:
        raise OrderSyntaxError(f"{points!r} is not a number of air points")
    t = atype.upper()
    if t not in AIR_TYPES:
        raise OrderSyntaxError(
            f"{atype!r} is not an air type (LAC, NAC or LBAC)", rule="UNIT.AIR.TYPES"
        )
    return AirCargo(int(points), t)


def _location(tok: str) -> str:
    """An air unit's base: a hex (``0759``), a ship ID or WC (the U.S. West Coast)."""
    if _is_hex_token(tok):
        return hexgrid.fmt(_hex(tok))
    if tok.upper() == "WC":
        return "WC"
    return normalise_id(tok)


def _cargo(tokens: list[str]) -> tuple[Cargo, ...]:
    out: list[Cargo] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.isdigit() and i + 1 < len(tokens) and tokens[i + 1].upper() in AIR_TYPES:
            out.append(_air(tok, tokens[i + 1]))
            i += 2
        else:
            out.append(_unit_id(tok))
            i += 1
    return tuple(out)


def _split_units_path(tokens: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    units: list[str] = []
    i = 0
    while i < len(tokens) and not _is_hex_token(tokens[i]) and tokens[i].upper() != OFF_MAP:
        units.append(_unit_id(tokens[i]))
        i += 1
    path: list[str] = []
    for j, tok in enumerate(tokens[i:], start=i):
        if tok.upper() == OFF_MAP:
            if j != len(tokens) - 1:
                raise OrderSyntaxError(
                    "OFF may only end a path (the unit leaves the map)", rule="OFF.EAST"
                )
            path.append(OFF_MAP)
        else:
            path.append(hexgrid.fmt(_hex(tok)))
    if not units:
        raise OrderSyntaxError("name at least one unit before the path")
    if not path:
        raise OrderSyntaxError("give the path hex by hex, e.g. MOVE CV-3 0755 0756")
    return tuple(units), tuple(path)


def _need(tokens: list[str], n: int, usage: str) -> None:
    if len(tokens) < n:
        raise OrderSyntaxError(f"too short; write: {usage}")


def parse_line(text: str) -> Order:
    """Parse one order line; raises ``OrderSyntaxError`` (collected by ``parse_orders``)."""
    tokens = text.replace(",", " ").split()
    parser = _PARSERS.get(tokens[0].upper())
    if parser is None:
        raise OrderSyntaxError(
            f"unknown order {tokens[0]!r}; see the order reference of the player's docs (usn-orders)"
        )
    return parser(tokens[0].upper(), tokens[1:])


def _move(verb: str, args: list[str]) -> Order:
    units, path = _split_units_path(args)
    return Move(units, path, second=verb == "CONTINUE")


def _sail(verb: str, args: list[str]) -> Order:
    _need(args, 2, "SAIL <ship> [<ship>...] <east-edge hex>")
    return Sail(tuple(_unit_id(t) for t in args[:-1]), _hex(args[-1]))


def _transfer(verb: str, args: list[str]) -> Order:
    usage = "TRANSFER <points> <LAC|NAC|LBAC> <from> TO <to>"
    _need(args, 5, usage)
    if args[3].upper() != "TO" or len(args) != 5:
        raise OrderSyntaxError(f"write: {usage}")
    return Transfer(_air(args[0], args[1]), _location(args[2]), _location(args[4]))


def _drop(verb: str, args: list[str]) -> Order:
    _need(args, 2, "DROP <parachute unit> <hex>")
    return Drop(_unit_id(args[0]), _hex(args[1]))


def _embark(verb: str, args: list[str]) -> Order:
    _need(args, 2, f"{verb} <transport> <unit or 'n LAC'> ...")
    return Embark(_unit_id(args[0]), _cargo(args[1:]), debark=verb == "DEBARK")


def _emergency(verb: str, args: list[str]) -> Order:
    usage = "EMERGENCY <DD or CL> <unit> [<unit> ...]|SUPPLY <hex>"
    _need(args, 3, usage)
    middle = args[1:-1]
    if any(a.upper() == "SUPPLY" for a in middle) and len(middle) != 1:
        raise OrderSyntaxError(f"write: {usage}", rule="NM.EMERG.SUPPLY")
    cargo = () if middle[0].upper() == "SUPPLY" else tuple(_unit_id(a) for a in middle)
    return Emergency(_unit_id(args[0]), cargo, _hex(args[-1]))


def _stack(verb: str, args: list[str]) -> Order:
    _need(args, 2, "STACK <hex> <top ship> <next ship> ...")
    return Stack(_hex(args[0]), tuple(_unit_id(t) for t in args[1:]))


def _break(verb: str, args: list[str]) -> Order:
    if len(args) != 2:
        raise OrderSyntaxError("write: BREAK <division> <BDE|RGT>", rule="BRK.WHEN")
    return Simple(verb, (_unit_id(args[0]), args[1].upper()))


def _works(verb: str, args: list[str]) -> Order:
    return _works_order(verb, args)


def _simple(verb: str, args: list[str]) -> Order:
    _need(args, 1, f"{verb} <unit> ...")
    return Simple(verb, tuple(_unit_id(t) for t in args))


def _place(verb: str, args: list[str]) -> Order:
    _need(args, 2, "PLACE <unit | n TYPE> <hex|carrier>")
    where = args[-1]
    what_tokens = args[:-1]
    what: Cargo
    if len(what_tokens) == 2:
        what = _air(what_tokens[0], what_tokens[1])
        if not _is_hex_token(where):  # SETUP.AIRANY: free air points aboard a carrier
            return Place(what, 0, carrier=normalise_id(where))
    elif len(what_tokens) == 1:
        what = _unit_id(what_tokens[0])
    else:
        raise OrderSyntaxError("write: PLACE <unit | n TYPE> <hex|carrier>")
    return Place(what, _hex(where))


def _mission_order(verb: str, args: list[str]) -> Order:
    return _mission(verb, args)


def _ground_attack(verb: str, args: list[str]) -> Order:
    _need(args, 2, f"{verb} <hex> <unit> ...")
    return Ground(verb, hexgrid.fmt(_hex(args[0])), tuple(_unit_id(t) for t in args[1:]))


def _land(verb: str, args: list[str]) -> Order:
    _need(args, 2, "LAND <transport> <unit> ...")
    return Ground(verb, _unit_id(args[0]), tuple(_unit_id(t) for t in args[1:]))


def _fire(verb: str, args: list[str]) -> Order:
    usage = "FIRE <ship> [<ship> ...] AT <enemy ship>"
    upper = [a.upper() for a in args]
    if "AT" not in upper or upper.index("AT") == 0 or upper.index("AT") != len(args) - 2:
        raise OrderSyntaxError(f"write: {usage}", rule="NM.SURF.5")
    return FireAt(tuple(_unit_id(t) for t in args[:-2]), _unit_id(args[-1]))


def _bombard(verb: str, args: list[str]) -> Order:
    usage = "BOMBARD <hex> LAND|AIRBASE|NAVALBASE|CD <ship> ... [AT <land unit>]"
    _need(args, 3, usage)
    target = args[1].upper()
    if target not in BOMBARD_TARGETS:
        raise OrderSyntaxError(
            f"unknown bombardment target {args[1]!r}; write: {usage}", rule="CBT.B"
        )
    ships, at = args[2:], None
    upper = [a.upper() for a in ships]
    if "AT" in upper:
        i = upper.index("AT")
        if target != "LAND" or i == 0 or i != len(ships) - 2:
            raise OrderSyntaxError(f"write: {usage} (AT only for LAND)", rule="NM.BOMBLAND")
        ships, at = ships[:i], _unit_id(ships[-1])
    return Bombard(_hex(args[0]), target, tuple(_unit_id(t) for t in ships), at)


def _standing_order(verb: str, args: list[str]) -> Order:
    return _standing(args)


def _sub(verb: str, args: list[str]) -> Order:
    units, path = _split_units_path(args)
    if len(units) != 1:
        raise OrderSyntaxError("write: SUB <sub> <hex> [<hex>] (one sub per line)", rule="SUB.PROC")
    return SubMove(units[0], path)


def _station(verb: str, args: list[str]) -> Order:
    if len(args) != 1:
        raise OrderSyntaxError("write: STATION <sub>", rule="SUB.A")
    return Simple(verb, (_unit_id(args[0]),))


_PARSERS: dict[str, Callable[[str, list[str]], Order]] = {
    "MOVE": _move,
    "CONTINUE": _move,
    "SAIL": _sail,
    "TRANSFER": _transfer,
    "DROP": _drop,
    "EMBARK": _embark,
    "DEBARK": _embark,
    "EMERGENCY": _emergency,
    "STACK": _stack,
    "BREAK": _break,
    "BUILD": _works,
    "SABOTAGE": _works,
    "BASE": _simple,
    "SEA": _simple,
    "REFUEL": _simple,
    "ENTRENCH": _simple,
    "DISENTRENCH": _simple,
    "COMBINE": _simple,
    "DEFEND": _simple,
    "UNDEFEND": _simple,
    "PLACE": _place,
    "CAP": _mission_order,
    "STRIKE": _mission_order,
    "SUPPORT": _mission_order,
    "ATTACK": _ground_attack,
    "GUNFIRE": _ground_attack,
    "LAND": _land,
    "FIRE": _fire,
    "BOMBARD": _bombard,
    "STANDING": _standing_order,
    "SUB": _sub,
    "STATION": _station,
}


def _works_order(verb: str, args: list[str]) -> Simple:
    """BUILD engineer AIR|NAVAL (BASE.D), SABOTAGE unit AIR|NAVAL (BASE.J)."""
    if len(args) != 2 or args[1].upper() not in ("AIR", "NAVAL"):
        rule = "BUILD.PROC" if verb == "BUILD" else "BASE.J"
        raise OrderSyntaxError(f"write: {verb} <unit> AIR|NAVAL", rule=rule)
    return Simple(verb, (_unit_id(args[0]), args[1].upper()))


def _mission(verb: str, args: list[str]) -> Mission:
    if verb == "CAP":
        _need(args, 3, "CAP <points> <type> <base hex or carrier>")
        if len(args) != 3:
            raise OrderSyntaxError(
                "CAP flies over its own hex only: CAP <points> <type> <base>", rule="AM.CAP.HEX"
            )
        return Mission("CAP", _air(args[0], args[1]), _location(args[2]))
    if verb == "STRIKE":
        usage = (
            "STRIKE <points> <type> <from> <target hex>"
            " <SHIPS n|PORT|LAND [AT <land unit>]|CD|AIRBASE|NAVALBASE|STRAFE>"
        )
        _need(args, 5, usage)
        target = args[4].upper()
        if target not in STRIKE_TARGETS:
            raise OrderSyntaxError(f"unknown target {args[4]!r}; write: {usage}", rule="CBT.B")
        group, at = 0, None
        if len(args) > 5 and args[5].upper() == "AT":
            if target != "LAND" or len(args) != 7:
                raise OrderSyntaxError(f"write: {usage} (AT only for LAND)", rule="AM.BOMBLAND")
            at = _unit_id(args[6])
        elif target == "SHIPS":
            if len(args) != 6 or not args[5].isdigit() or int(args[5]) < 1:
                raise OrderSyntaxError(
                    "name the ship group: SHIPS 1 = the top two ships", rule="AMAC.B"
                )
            group = int(args[5])
        elif len(args) != 5:
            raise OrderSyntaxError(f"write: {usage}")
        return Mission(
            "STRIKE", _air(args[0], args[1]), _location(args[2]), _hex(args[3]), target, group, at
        )
    usage = "SUPPORT <points> <type> <from> <hex> ATTACK|DEFEND"
    _need(args, 5, usage)
    target = args[4].upper()
    if target not in SUPPORT_TARGETS or len(args) != 5:
        raise OrderSyntaxError(f"write: {usage}", rule="SEQ.5J")
    return Mission("SUPPORT", _air(args[0], args[1]), _location(args[2]), _hex(args[3]), target)


def _standing(args: list[str]) -> Standing:
    if not args:
        raise OrderSyntaxError(f"STANDING needs a topic: {', '.join(STANDING_TOPICS)} or CLEAR")
    topic = args[0].upper()
    rest = tuple(a.upper() for a in args[1:])
    if topic == "CLEAR":
        return Standing("CLEAR", ())
    if topic not in STANDING_TOPICS:
        raise OrderSyntaxError(
            f"unknown standing order {args[0]!r}; topics: {', '.join(STANDING_TOPICS)}"
        )
    if topic == "SURFACE":
        if not rest or rest[0] not in ("FLEE", "STAY", "FIGHT"):
            raise OrderSyntaxError(
                "write: STANDING SURFACE FLEE|STAY|FIGHT [<ship>...]", rule="NM.SURF.2"
            )
        return Standing(topic, (rest[0], *(normalise_id(u) for u in rest[1:])))
    if topic == "CAP":
        if rest not in (("ENGAGE",), ("DECLINE",)):
            raise OrderSyntaxError("write: STANDING CAP ENGAGE|DECLINE", rule="AM.CAP.OPTIONAL")
        return Standing(topic, rest)
    if topic in ("AIRKILL", "AIRLOSS"):
        if sorted(rest) != sorted(AIR_TYPES):
            raise OrderSyntaxError(
                f"list the three air types in order, e.g. STANDING {topic} LBAC NAC LAC"
            )
        return Standing(topic, rest)
    if topic == "RETREAT":
        if len(rest) < 2:
            raise OrderSyntaxError(
                "write: STANDING RETREAT <unit> <hex> [<hex>...]", rule="CRT1.D2"
            )
        return Standing(topic, (normalise_id(rest[0]), *(hexgrid.fmt(_hex(h)) for h in rest[1:])))
    if topic == "SUBTARGET":
        if not rest:
            raise OrderSyntaxError(
                "write: STANDING SUBTARGET CV CVL BB ... (types in order)", rule="SUB.H"
            )
        return Standing(topic, rest)
    if rest not in (("SPREAD",), ("FIRST",)):
        raise OrderSyntaxError("write: STANDING SUBREDUCE SPREAD|FIRST", rule="SUB.H")
    return Standing(topic, rest)


def verb_of(order: Order) -> str:
    return order.canonical().split(" ", 1)[0]


def parse_orders(text: str, kinds: frozenset[StepKind]) -> tuple[list[Line], list[LineError]]:
    """Parse an order sheet for a round whose steps are of ``kinds``.

    Every line is judged on its own: a bad line becomes a LineError and the
    others are still parsed. Orders for steps outside this round are refused
    (SEQ.STRICT).
    """
    lines: list[Line] = []
    errors: list[LineError] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.split("#", 1)[0].strip()
        if not stripped:
            continue
        try:
            order = parse_line(stripped)
        except OrderSyntaxError as e:
            errors.append(line_error(number, raw.strip(), e))
            continue
        verb = verb_of(order)
        allowed, _rule = VERB_STEPS[verb]
        if not allowed & kinds:
            wrong_round = IllegalOrderError(
                f"{verb} is not an order of this round; it belongs to "
                f"{', '.join(sorted(k.value for k in allowed))} steps",
                rule="SEQ.STRICT",
            )
            errors.append(line_error(number, raw.strip(), wrong_round))
            continue
        lines.append(Line(number, raw.strip(), order))
    return lines, errors
