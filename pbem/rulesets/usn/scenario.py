"""The U.S.N. scenario model: where each side's forces start, what arrives later,
which special and optional rules apply, and how the game is won.

Built and checked by ``pbem.rulesets.usn.data`` from scenarios/usn/scenarios/*.toml.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pbem.core.options import GameOption
from pbem.core.ruleset import ScenarioInfo
from pbem.core.sides import Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.units import LandCounter, Source, UnitType

# A moderator's option, not the rulebook's (pbem.rulesets.usn.fog, docs/usn-fog.md).
FOG_OPTION = GameOption(
    "fog",
    "open: the rulebook's open map; double-blind: enemy units shown only when detected",
    choices=("open", "double-blind"),
    default="open",
)

# ---------------------------------------------------------------------------
# The map, as this loader needs it (pbem.rulesets.usn.map.UsnMap fits).


class BaseLike(Protocol):
    @property
    def hex(self) -> int: ...
    @property
    def air_capacity(self) -> int: ...
    @property
    def naval(self) -> bool: ...
    @property
    def owner(self) -> Mapping[str, str | None]: ...


class MapLike(Protocol):
    @property
    def bases(self) -> Mapping[Any, BaseLike]: ...
    @property
    def regions(self) -> Mapping[str, frozenset[Any]]: ...
    @property
    def places(self) -> Mapping[str, Any]: ...
    def is_land(self, h: int) -> bool: ...
    def is_sea(self, h: int) -> bool: ...


class AreaMap(Protocol):
    @property
    def regions(self) -> Mapping[str, frozenset[Any]]: ...
    def is_land(self, h: int) -> bool: ...


class Occupant(Protocol):
    @property
    def hex(self) -> int | None: ...
    @property
    def side(self) -> Any: ...


# ---------------------------------------------------------------------------
# Entry areas of the Reinforcement Chart (REIN.ENTRYHEX, REIN.BURMA, CG2.BURMA)

AREA = "area:"  # prefix of a pending arrival's place that names an entry area
CLOSED_REGIONS = ("china", "india")  # MOV.M: no land unit enters them


def entry_spec(at: Place) -> str:
    """An arrival's entry area as kept in the state: ``;``-joined conditions, each a
    region to be in (``burma``), ``adjacent:<region>`` or ``free:<side>`` (no unit of
    that side in the hex)."""
    parts = [at.region] if at.region else []
    if at.adjacent_to_region:
        parts.append(f"adjacent:{at.adjacent_to_region}")
    if at.unoccupied_by:
        parts.append(f"free:{at.unoccupied_by}")
    return ";".join(parts)


def entry_allowed(geo: AreaMap, units: Iterable[Occupant], h: int, spec: str) -> bool:
    """Whether a hex fits an entry area (land or a naval base is the caller's check).
    With no region to be in, a hex ``adjacent:`` to a region is one outside it (and
    outside China and India)."""
    parts = spec.split(";")
    inside = [p for p in parts if ":" not in p]
    for p in inside:
        if h not in geo.regions.get(p, frozenset()):
            return False
    for p in parts:
        kind, _, arg = p.partition(":")
        if kind == "adjacent":
            region = geo.regions.get(arg, frozenset())
            if not any(n in region for n in hexgrid.neighbours(h)):
                return False
            closed = (arg, *CLOSED_REGIONS)
            if not inside and any(h in geo.regions.get(r, frozenset()) for r in closed):
                return False
        elif kind == "free" and any(u.hex == h and str(u.side) == arg for u in units):
            return False
    return True


def entry_hexes(geo: AreaMap, units: Iterable[Occupant], spec: str) -> list[int]:
    """The land hexes of an entry area, in hex order (where a counter enters)."""
    occupants = list(units)
    parts = spec.split(";")
    inside = [p for p in parts if ":" not in p]
    if inside:
        pool = set(geo.regions.get(inside[0], frozenset()))
    else:
        pool = {
            n
            for p in parts
            if p.startswith("adjacent:")
            for h in geo.regions.get(p.partition(":")[2], frozenset())
            for n in hexgrid.neighbours(h)
        }
    return sorted(h for h in pool if geo.is_land(h) and entry_allowed(geo, occupants, h, spec))


# ---------------------------------------------------------------------------
# Scenario model


@dataclass(frozen=True, slots=True)
class Place:
    """Where something is set up (SETUP.HEXSPEC, SETUP.AREA, SETUP.FREE).

    Exactly one of: ``hexes`` (one exact hex, or any of a printed pair), ``region``
    (an area, with its representative ``ref`` hex), ``any`` (a kind of location:
    "friendly-land", "friendly-naval-base", "naval-base" (within ``region`` if
    given), "base", "carrier", "carrier-or-base", "sea"), ``offmap`` ("west-coast"),
    ``unit`` (``carrier`` or ``aboard`` a transport), or ``adjacent_to_region``.
    """

    hexes: tuple[int, ...] = ()
    region: str | None = None
    ref: int | None = None
    any: str | None = None
    offmap: str | None = None
    unit: str | None = None
    adjacent_to_region: str | None = None
    unoccupied_by: str | None = None

    def describe(self) -> str:
        if self.unit:
            return f"aboard {self.unit}"
        if self.offmap:
            return self.offmap
        if self.any:
            return f"any {self.any}" + (f" in {self.region}" if self.region else "")
        if self.region:
            return self.region + (f" ({hexgrid.fmt(self.ref)})" if self.ref else "")
        if self.adjacent_to_region:
            return f"adjacent to {self.adjacent_to_region}"
        return " or ".join(hexgrid.fmt(h) for h in self.hexes)


@dataclass(frozen=True, slots=True)
class Deployment:
    """Units set up together. ``optional`` names the optional rule they need."""

    side: Side
    units: tuple[str, ...]
    at: Place
    entrenched: bool = False
    damage: int = 0
    unsupplied: bool = False
    at_sea: bool = False
    optional: str | None = None
    src: Source = Source.RULEBOOK


@dataclass(frozen=True, slots=True)
class AirDeployment:
    side: Side
    type: UnitType
    points: int
    at: Place
    optional: str | None = None
    src: Source = Source.RULEBOOK


@dataclass(frozen=True, slots=True)
class AddedBase:
    """A base a scenario adds to the printed map (e.g. MINI.SOLOMONS: Guadalcanal)."""

    side: Side
    hex: int
    air_capacity: int
    naval: bool = False


@dataclass(frozen=True, slots=True)
class Arrival:
    """One line of the Reinforcement Chart (REIN.TABLE).

    ``at`` None means the side's default entry (REIN.J.DEFAULT, REIN.A.DEFAULT,
    REIN.A.LBAC); ``aboard`` lists the carriers the air points arrive on;
    ``requires`` names an optional or special rule that must be in force.
    """

    turn: int
    side: Side
    units: tuple[str, ...] = ()
    air: Mapping[str, int] = field(default_factory=dict)
    at: Place | None = None
    aboard: tuple[str, ...] = ()
    requires: str | None = None
    src: Source = Source.RULEBOOK
    where: str = field(default="", compare=False)  # "reinforcements.toml: arrival[3]"


@dataclass(frozen=True, slots=True)
class Withdrawal:
    turn: int
    side: Side
    unit: str
    at: Place
    rule: str = ""


@dataclass(frozen=True, slots=True)
class Scenario:
    """Everything the rules engine needs to start a game of one situation."""

    name: str
    title: str
    kind: str  # "mini-game" or "campaign"
    rule: str
    first_turn: int
    game_turns: int
    bases: str  # "game1" or "game2": which printed base ownership applies
    start_line: str
    first_side: Side
    deployments: tuple[Deployment, ...]
    air: tuple[AirDeployment, ...]
    added_bases: tuple[AddedBase, ...]
    coastal_defense: Mapping[str, LandCounter]  # "<side>/CD-<hex>" -> counter
    optional_rules: Mapping[str, Mapping[str, Any]]
    special: Mapping[str, Mapping[str, Any]]
    victory: Mapping[str, Any]
    arrivals: tuple[Arrival, ...]  # the chart's rows within this game's turns
    withdrawals: tuple[Withdrawal, ...]
    sides: tuple[Side, ...] = (Side.JAPANESE, Side.ALLIED)
    source: str = ""  # the file it came from, for error messages

    @property
    def last_turn(self) -> int:
        return self.first_turn + self.game_turns - 1

    def info(self) -> ScenarioInfo:
        """For the lifecycle: the fog mode, and each optional rule as a switch (off)."""
        options = {FOG_OPTION.key: FOG_OPTION}
        for k, v in self.optional_rules.items():
            rule, note = str(v.get("rule", k)), v.get("note")
            options[k] = GameOption(k, f"{rule}: {note}" if note else rule)
        return ScenarioInfo(self.name, self.title, tuple(s.value for s in self.sides), options)

    def in_force(self, rule: str | None, optional_rules: Iterable[str] = ()) -> bool:
        """Whether a ``requires``/``optional`` key holds: no key, a chosen optional rule,
        or one of this game's special rules (e.g. "burma_reinforcement")."""
        return rule is None or rule in set(optional_rules) or rule in self.special

    def arrivals_for(self, optional_rules: Iterable[str] = ()) -> tuple[Arrival, ...]:
        """The chart's arrivals that apply under the chosen optional rules."""
        chosen = set(optional_rules)
        return tuple(a for a in self.arrivals if self.in_force(a.requires, chosen))

    def deployed(self, side: str, optional_rules: Iterable[str] = ()) -> list[str]:
        """IDs of the side's counters set up at start under the chosen optional rules."""
        chosen = set(optional_rules)
        out = [
            u
            for d in self.deployments
            if d.side == side and (d.optional is None or d.optional in chosen)
            for u in d.units
        ]
        out += [k.partition("/")[2] for k in self.coastal_defense if k.startswith(f"{side}/")]
        return out
