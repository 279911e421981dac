"""Typed U.S.N. game state and its JSON codec.

The lifecycle stores the state as plain JSON (``GameState.to_json``); the
ruleset decodes it once per call into these frozen dataclasses. Counter values
needed by the rules (MA, capacities, transport points, strengths) are copied
into each ``Unit`` at set-up, so adjudication never re-reads the world data.

Unit keys are ``"<side>/<id>"`` because both sides print the same IDs (each
has a CV-3); players write bare IDs, which always mean their own units.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any

from pbem.core.sides import Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.hexgrid import Location

STATE_VERSION = 1

# Counter classes (UNIT.NAV.TYPES, UNIT.TR.TYPES, UNIT.LAND.*).
CARRIERS = frozenset({"CV", "CVL", "CVE"})
WARSHIPS = frozenset({"BB", "CA", "CL", "DD"}) | CARRIERS
TRANSPORTS = frozenset({"TR", "AT"})
OILERS = frozenset({"OIL"})
NAVAL_TYPES = WARSHIPS | TRANSPORTS | OILERS
AIR_TYPES = ("LAC", "NAC", "LBAC")

# Locations that are not map hexes (OFF.*): the U.S. West Coast and the
# east-edge boxes, written "WC" and "E<n>" (n = naval phases to the West Coast).
WEST_COAST = "WC"


def unit_key(side: str, uid: str) -> str:
    return f"{side}/{uid}"


def normalise_id(text: str) -> str:
    """Unit IDs as players write them: case-insensitive, 'CV3' = 'CV-3'."""
    s = text.strip().upper()
    if "-" not in s:
        i = len(s)
        while i > 0 and s[i - 1].isdigit():
            i -= 1
        if 0 < i < len(s):
            s = f"{s[:i]}-{s[i:]}"
    return s


@dataclass(frozen=True, slots=True)
class Unit:
    """One counter on (or off) the map.

    ``kind`` is "naval", "land" or "cd"; ``utype`` the printed type (CV, BB,
    TR, AT, OIL, DIV, RGT, BDE, BN, ENG, SNLF, PARA, MAR, ARMY, CD ...).
    ``hex`` is None while the unit is carried (``carried_by``) or off the map
    (``box``). ``capacity`` is TP capacity for transports and emergency
    transports, air capacity for carriers. ``tp`` is what a land unit needs.
    """

    uid: str
    side: Side
    kind: str
    utype: str
    ma: int
    hex: int | None
    attack: int = 0
    defense: int = 0
    aa: int = 0
    sa: int = 0
    capacity: int = 0
    tp: int = 0
    box: str | None = None
    heading: str | None = None  # "in" (to the map) or "out" (to the West Coast)
    carried_by: str | None = None
    damage: int = 0
    fuel: int = 0  # SUP.G: complete Game-Turns at sea since last refuelling
    refuelled_step: int = 0  # turn*100+step of the last refuelling
    oiler_full: bool = True
    in_base: bool = False
    entrenched: bool = False
    supplied: bool = True
    emergency_supply_turn: int = 0  # SUP.F: supplied by emergency run this turn
    training: int = 0  # CVJ.EMBARK: own naval phases still to sit idle
    wait: int = 0  # NM.TRANS.ALLIEDWAIT: own naval phases spent stationary here
    arrived_turn: int = 0  # REIN: turn of arrival (placement orders)
    stack: int = 0  # STK.G: position in its hex's naval stack, 0 = top

    @property
    def key(self) -> str:
        return unit_key(self.side, self.uid)

    @property
    def is_naval(self) -> bool:
        return self.kind == "naval"

    @property
    def is_land(self) -> bool:
        return self.kind in ("land", "cd")

    @property
    def is_carrier(self) -> bool:
        return self.utype in CARRIERS

    @property
    def is_transport(self) -> bool:
        return self.utype in TRANSPORTS

    @property
    def damaged(self) -> bool:
        return self.damage > 0

    @property
    def on_map(self) -> bool:
        return self.hex is not None

    def where(self) -> str:
        if self.hex is not None:
            return hexgrid.fmt(self.hex)
        if self.carried_by is not None:
            return f"aboard {self.carried_by}"
        return self.box or "?"


@dataclass(frozen=True, slots=True)
class Air:
    """Air points at one location (UNIT.AIR.POINTS: fungible, like change).

    ``nac_new``: NAC points that have never been aboard a carrier (CVJ.EMBARK).
    """

    lac: int = 0
    nac: int = 0
    lbac: int = 0
    nac_new: int = 0

    @property
    def total(self) -> int:
        return self.lac + self.nac + self.lbac

    def get(self, atype: str) -> int:
        return int(getattr(self, atype.lower()))

    def add(self, atype: str, n: int) -> Air:
        return replace(self, **{atype.lower(): self.get(atype) + n})


@dataclass(frozen=True, slots=True)
class Base:
    """The changing state of one base hex (the map gives the printed base).

    STK.C: at most one air and one naval base per hex, never of both sides.
    ``air_capacity`` 0 with ``air`` True means destroyed (BASE.DESTROY.AIR0).
    """

    hex: int
    owner: Side
    air: bool
    naval: bool
    air_capacity: int
    neutralized_until: int = 0  # last turn it is neutralized (NM.BOMBBASE.NEUT)
    naval_destroyed: bool = False
    supplied: bool = True
    name: str = ""

    def neutralized(self, turn: int) -> bool:
        return turn <= self.neutralized_until

    @property
    def has_air(self) -> bool:
        return self.air and self.air_capacity > 0

    @property
    def has_naval(self) -> bool:
        return self.naval and not self.naval_destroyed


@dataclass(frozen=True, slots=True)
class Pending:
    """A reinforcement or replacement due at Step 1 of ``turn`` (REIN.*, RPL.*)."""

    turn: int
    side: Side
    unit: Unit | None = None  # a counter to place
    air_type: str | None = None  # or air points
    air_points: int = 0
    place: Location | None = None  # hex "0311", "WC", or None for the default


@dataclass(frozen=True, slots=True)
class GameState:
    scenario: str
    turn: int
    last_turn: int
    round: int  # index into sequence.rounds_for(state); -1 once the game is over
    units: Mapping[str, Unit]
    air: Mapping[str, Mapping[str, Air]]  # side -> location ("0759" or ship ID) -> points
    bases: Mapping[int, Base]
    standing: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    escaped: tuple[str, ...] = ()  # MOV.O / NM.SURF.ESC: unit keys that escaped this phase
    pending: tuple[Pending, ...] = ()
    destroyed: tuple[tuple[str, int, str], ...] = ()  # (unit key, turn, cause)
    options: Mapping[str, Any] = field(default_factory=dict)
    vp: Mapping[str, float] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)  # room for issue-6 modules
    # The decoded pending tuple and its JSON, reused by to_json while unchanged.
    _pending_json: tuple[Any, list[Any]] | None = field(default=None, compare=False, repr=False)

    # --- queries -------------------------------------------------------
    def unit(self, side: str, uid: str) -> Unit | None:
        return self.units.get(unit_key(side, uid))

    def side_units(self, side: str) -> Iterator[Unit]:
        return (u for u in self.units.values() if u.side == side)

    def units_at(self, h: int) -> list[Unit]:
        return [u for u in self.units.values() if u.hex == h]

    def cargo_of(self, carrier: Unit) -> list[Unit]:
        return [
            u for u in self.units.values() if u.side == carrier.side and u.carried_by == carrier.uid
        ]

    def air_at(self, side: str, loc: Location) -> Air:
        return self.air.get(side, {}).get(loc, Air())

    def base(self, h: int) -> Base | None:
        return self.bases.get(h)

    @property
    def over(self) -> bool:
        return self.round < 0

    # --- updates -------------------------------------------------------
    def with_units(self, changed: Iterable[Unit], removed: Iterable[str] = ()) -> GameState:
        units = dict(self.units)
        for k in removed:
            units.pop(k, None)
        for u in changed:
            units[u.key] = u
        return replace(self, units=units)

    def with_air(self, side: Side, loc: Location, air: Air) -> GameState:
        allair = {s: dict(v) for s, v in self.air.items()}
        mine = allair.setdefault(side, {})
        if air.total == 0 and air.nac_new == 0:
            mine.pop(loc, None)
        else:
            mine[loc] = air
        return replace(self, air=allair)

    # --- JSON ----------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "scenario": self.scenario,
            "turn": self.turn,
            "last_turn": self.last_turn,
            "round": self.round,
            "units": [_fields(u, _UNIT_NAMES, _UNIT_DEFAULTS) for u in self.units.values()],
            "air": {
                s: {loc: _fields(a, _AIR_NAMES, _AIR_DEFAULTS) for loc, a in locs.items()}
                for s, locs in self.air.items()
            },
            "bases": [_fields(b, _BASE_NAMES, {}) for b in self.bases.values()],
            "standing": {s: list(v) for s, v in self.standing.items()},
            "escaped": list(self.escaped),
            "pending": (
                self._pending_json[1]
                if self._pending_json is not None and self._pending_json[0] is self.pending
                else [_pending_json(p) for p in self.pending]
            ),
            "destroyed": [list(d) for d in self.destroyed],
            "options": dict(self.options),
            "vp": dict(self.vp),
            "extra": dict(self.extra),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> GameState:
        if obj.get("version") != STATE_VERSION:
            raise ValueError(f"U.S.N. state version {obj.get('version')!r} is not {STATE_VERSION}")
        raw_pending = list(obj.get("pending", ()))
        pending = tuple(_pending_from(p) for p in raw_pending)
        units = {}
        for raw in obj["units"]:
            u = _unit_from(raw)
            units[u.key] = u
        return cls(
            scenario=obj["scenario"],
            turn=obj["turn"],
            last_turn=obj["last_turn"],
            round=obj["round"],
            units=units,
            air={s: {loc: Air(**a) for loc, a in locs.items()} for s, locs in obj["air"].items()},
            bases={b["hex"]: Base(**{**b, "owner": Side(b["owner"])}) for b in obj["bases"]},
            standing={s: tuple(v) for s, v in obj.get("standing", {}).items()},
            escaped=tuple(obj.get("escaped", ())),
            pending=pending,
            destroyed=tuple((d[0], d[1], d[2]) for d in obj.get("destroyed", ())),
            options=dict(obj.get("options", {})),
            vp=dict(obj.get("vp", {})),
            extra=dict(obj.get("extra", {})),
            _pending_json=(pending, raw_pending),
        )


_UNIT_DEFAULTS = {f.name: f.default for f in fields(Unit) if f.default is not MISSING}
_AIR_DEFAULTS = {f.name: f.default for f in fields(Air) if f.default is not MISSING}


_UNIT_NAMES = tuple(f.name for f in fields(Unit))
_AIR_NAMES = tuple(f.name for f in fields(Air))
_BASE_NAMES = tuple(f.name for f in fields(Base))
_MISSING = object()


def _fields(obj: Any, names: tuple[str, ...], defaults: Mapping[str, Any]) -> dict[str, Any]:
    # Flat records only (no asdict deep copy); default-valued fields are left out.
    out = {}
    for name in names:
        v = getattr(obj, name)
        if defaults.get(name, _MISSING) != v:
            out[name] = v
    return out


def encode_unit(u: Unit) -> dict[str, Any]:
    """One unit as a compact JSON record (default-valued fields left out)."""
    return _fields(u, _UNIT_NAMES, _UNIT_DEFAULTS)


def _pending_json(p: Pending) -> dict[str, Any]:
    d = {f.name: getattr(p, f.name) for f in fields(Pending)}
    if p.unit is not None:
        d["unit"] = _fields(p.unit, _UNIT_NAMES, _UNIT_DEFAULTS)
    return d


def _pending_from(d: Mapping[str, Any]) -> Pending:
    raw = dict(d)
    u = raw.pop("unit", None)
    raw["side"] = Side(raw["side"])
    return Pending(unit=None if u is None else _unit_from(u), **raw)


def _unit_from(raw: Mapping[str, Any]) -> Unit:
    return Unit(**{**raw, "side": Side(raw["side"])})


def decode(state: Mapping[str, Any] | GameState) -> GameState:
    if isinstance(state, GameState):
        return state
    return GameState.from_json(state)


__all__ = [
    "AIR_TYPES",
    "CARRIERS",
    "NAVAL_TYPES",
    "TRANSPORTS",
    "WARSHIPS",
    "WEST_COAST",
    "Air",
    "Base",
    "GameState",
    "Pending",
    "Unit",
    "decode",
    "normalise_id",
    "unit_key",
]


def unit_from_counter(c: Any) -> Unit:
    """A unit as its counter in the catalogue prints it (not yet placed)."""
    side = Side(c.side)
    utype = str(getattr(c.type, "value", c.type))
    if hasattr(c, "anti_aircraft"):  # a naval counter
        capacity = c.air_capacity or c.transport_capacity or c.emergency_capacity
        return Unit(
            uid=c.id,
            side=side,
            kind="naval",
            utype=utype,
            ma=c.movement,
            hex=None,
            defense=c.defense,
            aa=c.anti_aircraft,
            sa=c.surface_attack,
            capacity=capacity,
        )
    kind = "cd" if utype == "CD" else "land"
    return Unit(
        uid=c.id,
        side=side,
        kind=kind,
        utype=utype,
        ma=c.movement,
        hex=None,
        attack=c.attack,
        defense=c.defense,
        sa=c.surface_attack,
        tp=c.transport_points or 0,
    )
