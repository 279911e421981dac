"""The U.S.N. counter model: land, naval and air units with their printed values.

Unit IDs (see docs/usn-data.md): the printed designation, unique within a side
("BB-3", "CV-7", "TR-1", "OIL-2", "SUB-1", "NAC-C"). Both sides print the same
designations, so the global key is ``"<side>/<ID>"`` ("japanese/BB-3"); players
type the bare ID, which always means their own unit. Land counters have no printed
number, so they are numbered per type and side ("DIV-7", "RGT-12", "MAR-1");
coastal defense units never move (MOV.H) and are named by their hex ("CD-116").

Typing is forgiving (``canonical_id``): case does not matter, the hyphen may be
left out ("cv7"), and the rulebook's long forms are understood ("Transport-1",
"Oiler-2", "Oil-2", "Sub-Flot-1", "CD-0116").

Every value carries its provenance (UNIT.* values in the rulebook text are few:
see scenarios/usn/units.toml).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from pbem.core.sides import Side


class UnitClass(StrEnum):
    LAND = "land"
    NAVAL = "naval"
    AIR = "air"


class UnitType(StrEnum):
    """Counter types (UNIT.LAND.*, UNIT.NAV.TYPES, UNIT.TR.TYPES, UNIT.AIR.TYPES)."""

    # land
    DIV = "DIV"  # infantry division (XX)
    BDE = "BDE"  # brigade (X), Japanese
    RGT = "RGT"  # infantry regiment (III)
    BN = "BN"  # defense battalion (II), Allied
    SNLF = "SNLF"  # Special Naval Landing Force regiment, Japanese
    PARA = "PARA"  # airborne (parachute) regiment, Japanese
    MAR = "MAR"  # Marine division, Allied
    MRGT = "MRGT"  # Marine regiment, Allied: a Marine division's parts (BRK.A.MAR)
    ENG = "ENG"  # engineer regiment
    ARMY = "ARMY"  # Chinese army (Burma option), Allied
    CD = "CD"  # coastal defense
    # naval
    BB = "BB"
    CA = "CA"
    CL = "CL"
    DD = "DD"
    CV = "CV"
    CVL = "CVL"
    CVE = "CVE"
    OIL = "OIL"
    TR = "TR"
    AT = "AT"  # Allied assault transport
    SUB = "SUB"  # Japanese submarine flotilla: a paper unit (optional)
    # air
    LAC = "LAC"
    NAC = "NAC"
    LBAC = "LBAC"


LAND_TYPES = frozenset(
    {
        UnitType.DIV,
        UnitType.BDE,
        UnitType.RGT,
        UnitType.BN,
        UnitType.SNLF,
        UnitType.PARA,
        UnitType.MAR,
        UnitType.MRGT,
        UnitType.ENG,
        UnitType.ARMY,
        UnitType.CD,
    }
)
AIR_TYPES = frozenset({UnitType.LAC, UnitType.NAC, UnitType.LBAC})
NAVAL_TYPES = frozenset(set(UnitType) - LAND_TYPES - AIR_TYPES)
CARRIER_TYPES = frozenset({UnitType.CV, UnitType.CVL, UnitType.CVE})
TRANSPORT_TYPES = frozenset({UnitType.TR, UnitType.AT})


def unit_class(t: UnitType) -> UnitClass:
    if t in LAND_TYPES:
        return UnitClass.LAND
    if t in AIR_TYPES:
        return UnitClass.AIR
    return UnitClass.NAVAL


class Size(StrEnum):
    """UNIT.LAND.SIZE, plus the Chinese armies of the Burma option."""

    BATTALION = "battalion"
    REGIMENT = "regiment"
    BRIGADE = "brigade"
    DIVISION = "division"
    ARMY = "army"


class Source(StrEnum):
    """Where a value comes from. ``moderator``: a per-game override."""

    RULEBOOK = "rulebook"
    ERRATA = "errata"
    RECONSTRUCTED = "reconstructed"
    MODERATOR = "moderator"


@dataclass(frozen=True, slots=True)
class Provenance:
    src: Source
    fields: Mapping[str, Source] = field(default_factory=dict)
    why: str = ""

    def of(self, name: str) -> Source:
        """The source of one field's value."""
        return self.fields.get(name, self.src)


RULEBOOK = Provenance(Source.RULEBOOK)


@dataclass(frozen=True, slots=True)
class LandCounter:
    """A land or coastal defense counter: attack-defense-movement (UNIT.LAND.LAYOUT).

    A CD counter's attack is its ``surface_attack`` (UNIT.CD.LAYOUT), ``attack`` 0.
    ``transport_points`` is None for units that cannot be transported (CD).
    """

    id: str
    side: Side
    type: UnitType
    size: Size | None
    attack: int
    defense: int
    movement: int
    transport_points: int | None
    surface_attack: int = 0
    airborne: bool = False
    name: str = ""
    provenance: Provenance = RULEBOOK

    @property
    def key(self) -> str:
        return unit_key(self.side, self.id)

    @property
    def unit_class(self) -> UnitClass:
        return UnitClass.LAND


@dataclass(frozen=True, slots=True)
class NavalCounter:
    """A naval counter (UNIT.NAV.LAYOUT, UNIT.CV.LAYOUT, UNIT.TR.LAYOUT).

    ``air_capacity`` for carriers, ``transport_capacity`` for TR/AT,
    ``emergency_capacity`` for ships that may run Emergency Transport (NM.EMERG.CAP).
    ``optional`` names the optional rule that brings the unit in (e.g. "subs").
    """

    id: str
    side: Side
    type: UnitType
    defense: int
    anti_aircraft: int
    surface_attack: int
    movement: int
    air_capacity: int = 0
    transport_capacity: int = 0
    emergency_capacity: int = 0
    name: str = ""
    optional: str | None = None
    provenance: Provenance = RULEBOOK

    @property
    def key(self) -> str:
        return unit_key(self.side, self.id)

    @property
    def unit_class(self) -> UnitClass:
        return UnitClass.NAVAL

    @property
    def is_carrier(self) -> bool:
        return self.type in CARRIER_TYPES

    @property
    def is_transport(self) -> bool:
        return self.type in TRANSPORT_TYPES


Counter = LandCounter | NavalCounter


@dataclass(frozen=True, slots=True)
class CoastalDefenseClass:
    """A CD template ("50-20"); a scenario makes one counter per hex, ID "CD-<hex>"."""

    side: Side
    strength: str
    surface_attack: int
    defense: int
    movement: int = 0
    provenance: Provenance = RULEBOOK

    def counter(self, hex_: int) -> LandCounter:
        return LandCounter(
            id=f"CD-{hex_}",
            side=self.side,
            type=UnitType.CD,
            size=None,
            attack=0,
            defense=self.defense,
            movement=self.movement,
            transport_points=None,
            surface_attack=self.surface_attack,
            name=f"{self.strength} Coastal Defense",
            provenance=self.provenance,
        )


@dataclass(frozen=True, slots=True)
class AirType:
    """An air type's values per air point (UNIT.AIR.POINTS, UNIT.AIR.LAYOUT).

    ``bombardment_naval`` is the strength against naval units (Allied LAC halved,
    SEQ.5F.3c; LBAC one point per air point, SEQ.5F.2c). ``range_extended`` is None
    where range may not be extended (LBAC, MOV.V). ``transport_points`` per air point
    when an Allied transport carries it (NM.TRANS.AIR), None if not carried.
    """

    side: Side
    type: UnitType
    a2a_normal: int
    a2a_extended: int | None
    bombardment: int
    bombardment_naval: int
    range_normal: int
    range_extended: int | None
    transport_points: int | None = None
    provenance: Provenance = RULEBOOK

    @property
    def key(self) -> str:
        return unit_key(self.side, self.type.value)


@dataclass(frozen=True, slots=True)
class NacCounter:
    """A lettered NAC counter (UNIT.NAC.CODED): its level lives on the NAC chart."""

    id: str  # "NAC-A"
    side: Side
    letter: str
    provenance: Provenance = RULEBOOK

    @property
    def key(self) -> str:
        return unit_key(self.side, self.id)


def unit_key(side: str, uid: str) -> str:
    return f"{side}/{uid}"


def split_key(key: str) -> tuple[Side, str]:
    """``"japanese/BB-3"`` -> (Side.JAPANESE, "BB-3")."""
    side, sep, uid = key.partition("/")
    if not sep:
        raise ValueError(f"{key!r} is not a unit key (want '<side>/<ID>')")
    return Side(side), canonical_id(uid)


# The rulebook's long forms of designations, as they appear in the orders of battle.
_ALIASES = {
    "TRANSPORT": "TR",
    "OILER": "OIL",
    "SUBFLOT": "SUB",
    "SUB-FLOT": "SUB",
}
_ID = re.compile(r"^([A-Z]+(?:-FLOT)?)-?(\d+)$")


def canonical_id(text: str) -> str:
    """'cv7', 'CV 7', 'Transport-1', 'Sub-Flot-1', 'CD-0116' -> 'CV-7', 'TR-1', 'SUB-1', 'CD-116'.

    IDs without a number (an air type "LAC", a letter counter "NAC-A") come back
    upper-cased. Raises ValueError on an empty string.
    """
    s = re.sub(r"[\s-]+", "-", text.strip().upper())
    if not s:
        raise ValueError("empty unit ID")
    m = _ID.match(s)
    if not m:
        return s
    prefix, number = m.groups()
    prefix = _ALIASES.get(prefix, prefix)
    return f"{prefix}-{int(number)}"


def expand_ids(spec: str) -> list[str]:
    """'DIV-1..4' -> ['DIV-1', 'DIV-2', 'DIV-3', 'DIV-4']; 'BB-3' -> ['BB-3']."""
    head, sep, last = spec.partition("..")
    if not sep:
        return [canonical_id(spec)]
    prefix, _, first = canonical_id(head).rpartition("-")
    if not (first.isdigit() and last.strip().isdigit()):
        raise ValueError(f"{spec!r} is not a range like 'DIV-1..4'")
    lo, hi = int(first), int(last)
    if hi < lo:
        raise ValueError(f"{spec!r}: range runs backwards")
    return [f"{prefix}-{n}" for n in range(lo, hi + 1)]


@dataclass(frozen=True, slots=True)
class Catalogue:
    """Every counter, keyed ``"<side>/<ID>"``; air types keyed ``"<side>/<LAC|NAC|LBAC>"``."""

    counters: Mapping[str, Counter]
    coastal_defense: Mapping[str, CoastalDefenseClass]  # "<side>/<strength>"
    air: Mapping[str, AirType]
    nac: Mapping[str, NacCounter]

    def get(self, side: str, text: str) -> Counter:
        """The counter a player of ``side`` means by ``text``; KeyError if none."""
        key = unit_key(side, canonical_id(text))
        try:
            return self.counters[key]
        except KeyError:
            raise KeyError(f"{side} has no unit {text!r}") from None

    def has(self, side: str, text: str) -> bool:
        try:
            return unit_key(side, canonical_id(text)) in self.counters
        except ValueError:
            return False

    def side_counters(self, side: str) -> Iterator[Counter]:
        return (c for c in self.counters.values() if c.side == side)

    def air_type(self, side: str, type_: str) -> AirType:
        return self.air[unit_key(side, type_.upper())]

    def cd_class(self, side: str, strength: str) -> CoastalDefenseClass:
        return self.coastal_defense[unit_key(side, strength)]
