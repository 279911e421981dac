"""The Air Strike Plot's orders as typed values (5.0 Step 1, 5.1, 5.3, 5.10, 4.4.1),
and their one JSON codec: the shapes kept in a side's private part (``air_plot``) and
handed to the naval strike.

``to_json`` gives exactly the stored dicts (the same keys, an optional key only when
it is set); ``from_json`` reads them back: both derived from the fields (codec.py). Rulings compute new values
(``dataclasses.replace``), never edit a shared one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, Any, Self

from pbem.core.sides import Side
from pbem.rulesets.witp.records import DERIVED, OPTIONAL, Record, Wire, decode

ENTRY_KEY = "entry"  # on a plotted strike: its elite waves' entry choice

PLOT_VERSION = 1  # the stored shape below; a change of it is a new version


@dataclass(frozen=True, slots=True)
class SuppressionAsk(Record):
    """7.9: the escort's fighters asked to peel off, and the line's own id (kept when
    the escort is split, 8.1.4, 7.11)."""

    n: int
    line: str


@dataclass(frozen=True, slots=True)
class AirElement(Record):
    """n APs of one type flying one role at one altitude (5.0): a strike's bombers,
    or (role F, with a ``posture``) its escort (5.3.1). ``range``: normal, extended or
    extreme (5.15), None in a standing special order (set at launch, 5.8)."""

    type: str
    n: int
    role: str
    alt: str
    posture: Annotated[str | None, OPTIONAL] = None
    range: Annotated[str | None, OPTIONAL] = None
    suppress: Annotated[SuppressionAsk | None, OPTIONAL] = None  # 7.9: ``suppress``


@dataclass(frozen=True, slots=True)
class StrikePart(Record):
    """One base's part of a strike (5.10: a Joint Strike has several, the first its
    lead): where it launches, how far it flies (MP), its bombers and escorts.
    ``apat``: a base's successive special strike, through the APAT (5.8.2)."""

    base: str
    hex: str | None
    carrier: bool
    mp: int
    elements: tuple[AirElement, ...]
    escorts: tuple[AirElement, ...] = ()
    apat: Annotated[bool, OPTIONAL] = False


@dataclass(frozen=True, slots=True)
class StrikeTarget(Record):
    """5.0, 5.1.6: the enemy TF a strike is plotted against, at its Located hex."""

    owner: Side
    tf: str
    hex: str


@dataclass(frozen=True, slots=True)
class SequenceChit(Record):
    """42.4.1: a Strike Sequence (2) or (1) Magic chit the Allies play on the strike's
    Strike Sequence Table roll (12.1), and the DRM they chose (+/-2 or +/-1)."""

    chit: str
    drm: int


@dataclass(frozen=True, slots=True)
class PlanesOnDeck(Record):
    """42.4.3 "Planes on Deck": the attacking wave the US player nominates (1 the
    first) and the two Strike Sequence chits he plays for it."""

    wave: int
    chits: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AirStrike(Record):
    """A naval air strike (5.0, 5.1): its parts, target, ship priority (None: the
    doctrine's, R92), return base, NIGHT (14.2.2); ``special``: flown in the Naval
    Phase (5.8); ``entry``: its elite waves' entry arc choice (7.7.1, R126);
    ``sequence``, ``planes_on_deck``: the Allies' Magic chits filed with it (42.4.1,
    42.4.3)."""

    id: str
    side: Side
    target: StrikeTarget
    priority: str | None = None
    return_base: Annotated[str | None, Wire("return")] = None
    night: bool = False
    special: Annotated[bool, OPTIONAL] = False
    parts: tuple[StrikePart, ...] = ()
    entry: Annotated[str | None, Wire(ENTRY_KEY, optional=True)] = None
    sequence: Annotated[SequenceChit | None, OPTIONAL] = None
    planes_on_deck: Annotated[PlanesOnDeck | None, OPTIONAL] = None


# The CAP missions plotted over a place (5.3.2, 5.3.4, 5.3.5).
CoverKind = StrEnum(
    "CoverKind",
    {
        "COVER": "cover",
        "NAVAL_COVER": "naval-cover",
        "EMERGENCY_COVER": "emergency-cover",
        "EMERGENCY_NAVAL_COVER": "emergency-naval-cover",
    },
)


@dataclass(frozen=True, slots=True)
class CoverFlight(Record):
    """Fighters plotted as Cover CAP over a hex (5.3.2), Naval Cover over an own TF
    (5.3.4), or emergency cover (5.3.5, R122). ``over``: the hex or TF, ``over_hex``
    its hex. Once over its TF past the Air Phase (R124): ``up``, the APs aloft (None:
    not yet rolled), and ``plotted`` "naval" if the naval plot filed it (R138)."""

    id: str
    kind: CoverKind
    base: str
    hex: str | None
    carrier: bool
    type: str
    n: int
    alt: str | None
    over: str
    over_hex: str
    mp: int
    range: str
    aloft: Annotated[bool, DERIVED] = False  # R124: kept over its TF (then ``up`` is written)
    up: Annotated[int | None, DERIVED] = None
    plotted: Annotated[str | None, OPTIONAL] = None

    def to_json(self) -> dict[str, Any]:
        out = Record.to_json(self)
        if not self.aloft:
            return out
        plotted = {k: out.pop(k) for k in ("plotted",) if k in out}
        return {**out, "up": self.up, **plotted}  # the stored order: up before plotted

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        flight = decode(cls, obj)
        return replace(flight, aloft=True, up=obj["up"]) if "up" in obj else flight


@dataclass(frozen=True, slots=True)
class AirTransfer(Record):
    """4.4.1: APs moved from one base to another (a carrier TF's: ``to_carrier``)."""

    id: str
    type: str
    n: int
    origin: Annotated[str, Wire("from")]
    to: str
    mp: int
    to_carrier: bool


@dataclass(frozen=True, slots=True)
class FiledPlot:
    """A side's accepted Air Strike Plot for this Air Phase (5.0 Step 1), kept in its
    private part until the phase ends: ``time`` the slot it was filed in; ``caps``
    the CAP's altitude shares by TF (7.1 B, R135); ``choices`` RECIPROCAL (R125)."""

    strikes: tuple[AirStrike, ...] = ()
    covers: tuple[CoverFlight, ...] = ()
    transfers: tuple[AirTransfer, ...] = ()
    caps: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    choices: tuple[tuple[str, str], ...] = ()
    time: str | None = None

    def strike(self, sid: str) -> AirStrike:
        return next(s for s in self.strikes if s.id == sid)

    def cap_shares(self, tf: str) -> dict[str, int] | None:
        """7.1 B, R135: the CAP's shares by altitude over ``tf``, if plotted."""
        return next((dict(shares) for t, shares in self.caps if t == tf), None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.time is None else {"time": self.time}
        out |= {
            "strikes": {v.id: v.to_json() for v in self.strikes},
            "covers": {v.id: v.to_json() for v in self.covers},
            "transfers": {v.id: v.to_json() for v in self.transfers},
        }
        if self.choices:
            out["choices"] = dict(self.choices)
        if self.caps:
            out["caps"] = {tf: dict(shares) for tf, shares in self.caps}
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any] | None) -> FiledPlot:
        """The stored plot; none filed (None or {}): an empty one."""
        d = d or {}
        return cls(
            strikes=tuple(AirStrike.from_json(s) for s in d.get("strikes", {}).values()),
            covers=tuple(CoverFlight.from_json(c) for c in d.get("covers", {}).values()),
            transfers=tuple(AirTransfer.from_json(t) for t in d.get("transfers", {}).values()),
            caps=tuple((tf, tuple(s.items())) for tf, s in d.get("caps", {}).items()),
            choices=tuple(d.get("choices", {}).items()),
            time=d.get("time"),
        )


@dataclass(frozen=True, slots=True)
class SpecialOrder(Record):
    """5.8, R105: a standing special strike from ``base`` (a carrier TF's: ``carrier``):
    its bombers and escorts (no range yet: set at launch), the ship types reported in
    a TF that call it (``against``, or ANY), how far it flies (``range``), and NIGHT:
    flown only at a TF moving at night (14.2.2, R113)."""

    id: str
    base: str
    carrier: bool
    elements: tuple[AirElement, ...] = ()
    escorts: tuple[AirElement, ...] = ()
    against: tuple[str, ...] = ("ANY",)
    range: str = "extended"
    night: Annotated[bool, OPTIONAL] = False
