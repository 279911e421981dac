"""The Air Strike Plot's orders as typed values (5.0 Step 1, 5.1, 5.3, 5.10, 4.4.1),
and their one JSON codec: the shapes kept in a side's private part (``air_plot``) and
handed to the naval strike.

``to_json`` gives exactly the stored dicts (the same keys, an optional key only when
it is set); ``from_json`` reads them back. Rulings compute new values
(``dataclasses.replace``), never edit a shared one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pbem.core.sides import Side
from pbem.rulesets.witp.air.suppression import ASK

ENTRY_KEY = "entry"  # on a plotted strike: its elite waves' entry choice

PLOT_VERSION = 1  # the stored shape below; a change of it is a new version


@dataclass(frozen=True, slots=True)
class SuppressionAsk:
    """7.9: the escort's fighters asked to peel off, and the line's own id (kept when
    the escort is split, 8.1.4, 7.11)."""

    n: int
    line: str

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "line": self.line}


@dataclass(frozen=True, slots=True)
class AirElement:
    """n APs of one type flying one role at one altitude (5.0): a strike's bombers,
    or (role F, with a ``posture``) its escort (5.3.1). ``range``: normal, extended or
    extreme (5.15), None in a standing special order (set at launch, 5.8)."""

    type: str
    n: int
    role: str
    alt: str
    posture: str | None = None
    range: str | None = None
    suppress: SuppressionAsk | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "n": self.n, "role": self.role, "alt": self.alt}
        if self.posture is not None:
            out["posture"] = self.posture
        if self.range is not None:
            out["range"] = self.range
        if self.suppress is not None:
            out[ASK] = self.suppress.to_json()
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AirElement:
        ask = d.get(ASK)
        return cls(
            type=str(d["type"]),
            n=int(d["n"]),
            role=str(d["role"]),
            alt=str(d["alt"]),
            posture=d.get("posture"),
            range=d.get("range"),
            suppress=SuppressionAsk(int(ask["n"]), str(ask["line"])) if ask else None,
        )


def _elements(ds: Any) -> tuple[AirElement, ...]:
    return tuple(AirElement.from_json(d) for d in ds)


@dataclass(frozen=True, slots=True)
class StrikePart:
    """One base's part of a strike (5.10: a Joint Strike has several, the first its
    lead): where it launches, how far it flies (MP), its bombers and escorts.
    ``apat``: a base's successive special strike, through the APAT (5.8.2)."""

    base: str
    hex: str | None
    carrier: bool
    mp: int
    elements: tuple[AirElement, ...]
    escorts: tuple[AirElement, ...] = ()
    apat: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "base": self.base,
            "hex": self.hex,
            "carrier": self.carrier,
            "mp": self.mp,
            "elements": [e.to_json() for e in self.elements],
            "escorts": [e.to_json() for e in self.escorts],
        }
        if self.apat:
            out["apat"] = True
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StrikePart:
        return cls(
            base=str(d["base"]),
            hex=d["hex"],
            carrier=bool(d["carrier"]),
            mp=int(d["mp"]),
            elements=_elements(d["elements"]),
            escorts=_elements(d["escorts"]),
            apat=bool(d.get("apat")),
        )


@dataclass(frozen=True, slots=True)
class StrikeTarget:
    """5.0, 5.1.6: the enemy TF a strike is plotted against, at its Located hex."""

    owner: Side
    tf: str
    hex: str

    def to_json(self) -> dict[str, Any]:
        return {"owner": self.owner, "tf": self.tf, "hex": self.hex}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StrikeTarget:
        return cls(Side(d["owner"]), str(d["tf"]), str(d["hex"]))


@dataclass(frozen=True, slots=True)
class AirStrike:
    """A naval air strike (5.0, 5.1): its parts, target, ship priority (None: the
    doctrine's, R92), return base, NIGHT (14.2.2); ``special``: flown in the Naval
    Phase (5.8); ``entry``: its elite waves' entry arc choice (7.7.1, R126)."""

    id: str
    side: Side
    target: StrikeTarget
    parts: tuple[StrikePart, ...]
    priority: str | None = None
    return_base: str | None = None
    night: bool = False
    special: bool = False
    entry: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "side": self.side,
            "target": self.target.to_json(),
            "priority": self.priority,
            "return": self.return_base,
            "night": self.night,
        }
        if self.special:
            out["special"] = True
        out["parts"] = [p.to_json() for p in self.parts]
        if self.entry is not None:
            out[ENTRY_KEY] = self.entry
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AirStrike:
        return cls(
            id=str(d["id"]),
            side=Side(d["side"]),
            target=StrikeTarget.from_json(d["target"]),
            parts=tuple(StrikePart.from_json(p) for p in d["parts"]),
            priority=d.get("priority"),
            return_base=d.get("return"),
            night=bool(d.get("night")),
            special=bool(d.get("special")),
            entry=d.get(ENTRY_KEY),
        )


class CoverKind(StrEnum):
    """The CAP missions plotted over a place (5.3.2, 5.3.4, 5.3.5)."""

    COVER = "cover"
    NAVAL_COVER = "naval-cover"
    EMERGENCY_COVER = "emergency-cover"
    EMERGENCY_NAVAL_COVER = "emergency-naval-cover"


@dataclass(frozen=True, slots=True)
class CoverFlight:
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
    aloft: bool = False  # R124: kept over its TF (then ``up`` is written, even None)
    up: int | None = None
    plotted: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind.value,
            "base": self.base,
            "hex": self.hex,
            "carrier": self.carrier,
            "type": self.type,
            "n": self.n,
            "alt": self.alt,
            "over": self.over,
            "over_hex": self.over_hex,
            "mp": self.mp,
            "range": self.range,
        }
        if self.aloft:
            out["up"] = self.up
        if self.plotted is not None:
            out["plotted"] = self.plotted
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> CoverFlight:
        up = d.get("up")
        return cls(
            id=str(d["id"]),
            kind=CoverKind(d["kind"]),
            base=str(d["base"]),
            hex=d["hex"],
            carrier=bool(d["carrier"]),
            type=str(d["type"]),
            n=int(d["n"]),
            alt=d["alt"],
            over=str(d["over"]),
            over_hex=str(d["over_hex"]),
            mp=int(d["mp"]),
            range=str(d["range"]),
            aloft="up" in d,
            up=None if up is None else int(up),
            plotted=d.get("plotted"),
        )


@dataclass(frozen=True, slots=True)
class AirTransfer:
    """4.4.1: APs moved from one base to another (a carrier TF's: ``to_carrier``)."""

    id: str
    type: str
    n: int
    origin: str
    to: str
    mp: int
    to_carrier: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "n": self.n,
            "from": self.origin,
            "to": self.to,
            "mp": self.mp,
            "to_carrier": self.to_carrier,
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AirTransfer:
        return cls(
            str(d["id"]),
            str(d["type"]),
            int(d["n"]),
            str(d["from"]),
            str(d["to"]),
            int(d["mp"]),
            bool(d["to_carrier"]),
        )


def _by_id(values: Any) -> dict[str, Any]:
    return {v.id: v.to_json() for v in values}


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
            "strikes": _by_id(self.strikes),
            "covers": _by_id(self.covers),
            "transfers": _by_id(self.transfers),
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
