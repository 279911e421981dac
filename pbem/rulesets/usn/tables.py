"""U.S.N. tables as typed lookups: CRT1-5, NAC strength charts, VP schedule and levels,
transport points, replacements, variable deployment and the turn calendar.

The values live in scenarios/usn/tables.toml (loaded by ``pbem.rulesets.usn.data``);
this module only knows their shape. Every CRT keeps the set of reconstructed cells,
so a report can say which result came from a completed cell.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

from pbem.rulesets.usn.units import Counter, NavalCounter, UnitType


class LandResult(StrEnum):
    """CRT1 results (CRT1.AX, CRT1.DX, CRT1.D1, CRT1.D2)."""

    AX = "Ax"  # all attacking units destroyed
    DX = "DX"  # all defending units destroyed
    D1 = "D1"  # Class 1: destroyed; Class 2: loses bases and CD, stays
    D2 = "D2"  # Class 1: destroyed; Class 2: retreats


Cell = tuple[int, int]  # (die, 0-based column)

# VP.SCHED.* categories by counter type; carriers score on capacity, other warships
# on defense. Engineers and airborne units are unlisted (A20: by size class).
_VP_CATEGORY = {
    UnitType.DIV: "division",
    UnitType.MAR: "marine_division",
    UnitType.BDE: "brigade",
    UnitType.RGT: "regiment",
    UnitType.PARA: "regiment",
    UnitType.SNLF: "snlf",
    UnitType.BN: "battalion",
    UnitType.ENG: "engineer",
    UnitType.ARMY: "army",
    UnitType.CD: "coastal_defense",
    UnitType.CV: "carrier",
    UnitType.CVL: "carrier",
    UnitType.CVE: "carrier",
    UnitType.TR: "transport",
    UnitType.AT: "assault_transport",
    UnitType.OIL: "oiler",
}


def vp_category(counter: Counter) -> str:
    """The Victory Point schedule line a counter falls under (VP.SCHED.*)."""
    return _VP_CATEGORY.get(counter.type, "naval")


def _check_die(die: int) -> None:
    if not 1 <= die <= 6:
        raise ValueError(f"die roll {die} is not 1..6")


@dataclass(frozen=True, slots=True)
class Crt1:
    """Combat Results Table No. 1, Land: odds columns 1-2 or less ... 10-1 or more."""

    columns: tuple[str, ...]
    rows: tuple[tuple[LandResult, ...], ...]  # rows[die - 1][column]
    reconstructed: frozenset[Cell] = frozenset()

    @staticmethod
    def column(attack: Fraction | int, defense: Fraction | int) -> int:
        """CBT.PROC: odds rounded down; anything below 1-1 is the first column."""
        if defense <= 0:
            return 10
        ratio = Fraction(attack) / Fraction(defense)
        if ratio < 1:
            return 0
        return min(int(ratio), 10)

    def result(self, column: int, die: int) -> LandResult:
        _check_die(die)
        return self.rows[die - 1][column]

    def resolve(self, attack: Fraction | int, defense: Fraction | int, die: int) -> LandResult:
        return self.result(self.column(attack, defense), die)


@dataclass(frozen=True, slots=True)
class AirLoss:
    """A CRT2 entry: aircraft aborted and destroyed (CRT2.ABORT, CRT2.DESTROY)."""

    aborted: int
    destroyed: int


@dataclass(frozen=True, slots=True)
class Crt2:
    """Combat Results Table No. 2, Air: columns by the firing AA or A2A strength."""

    bands: tuple[int, ...]  # lower bound of each column
    columns: tuple[str, ...]
    rows: tuple[tuple[AirLoss, ...], ...]
    reconstructed: frozenset[Cell] = frozenset()

    def column(self, strength: Fraction | int) -> int | None:
        """None when the strength is below the first column (nothing fires)."""
        s = int(strength)  # fractions dropped (CBT.PROC)
        col = None
        for i, low in enumerate(self.bands):
            if s >= low:
                col = i
        return col

    def resolve(self, strength: Fraction | int, die: int) -> AirLoss:
        _check_die(die)
        col = self.column(strength)
        if col is None:
            return AirLoss(0, 0)
        return self.rows[die - 1][col]


@dataclass(frozen=True, slots=True)
class Crt34:
    """Tables No. 3 (air to surface) and No. 4 (surface to surface): one body of damage
    numbers (CRT34.COLS); 0 is "-", no effect (CRT34.NONE)."""

    crt3_columns: tuple[str, ...]
    crt4_columns: tuple[str, ...]
    rows: tuple[tuple[int, ...], ...]
    reconstructed: frozenset[Cell] = frozenset()

    @staticmethod
    def crt3_column(bombardment: Fraction | int, defense: Fraction | int) -> int | None:
        """Odds bands 1-5, 6-10, ..., 36+ (A4: ratio rounded down first); None below 1-1 (A2)."""
        ratio = int(Fraction(bombardment) / Fraction(defense)) if defense > 0 else 36
        if ratio < 1:
            return None
        return min((ratio - 1) // 5, 7)

    @staticmethod
    def crt4_column(attack: Fraction | int, defense: Fraction | int) -> int | None:
        """Odds 1-1 ... 8-1; above 8-1 uses 8-1 (A3); None below 1-1 (A2)."""
        ratio = int(Fraction(attack) / Fraction(defense)) if defense > 0 else 8
        if ratio < 1:
            return None
        return min(ratio, 8) - 1

    def damage_number(self, column: int | None, die: int) -> int:
        _check_die(die)
        if column is None:
            return 0
        return self.rows[die - 1][column]


@dataclass(frozen=True, slots=True)
class Damage:
    """A CRT5 result: ``weeks`` of damage, or ``destroyed`` (X); 0 weeks is "-"."""

    weeks: int
    destroyed: bool = False

    def __str__(self) -> str:
        return "X" if self.destroyed else (str(self.weeks) if self.weeks else "-")


@dataclass(frozen=True, slots=True)
class Crt5:
    """Combat Results Table No. 5, Damage: columns are damage numbers 1-8 (CRT5.COLS)."""

    rows: tuple[tuple[Damage, ...], ...]
    reconstructed: frozenset[Cell] = frozenset()

    def damage(self, damage_number: int, die: int) -> Damage:
        _check_die(die)
        if damage_number <= 0:
            return Damage(0)
        return self.rows[die - 1][min(damage_number, 8) - 1]


@dataclass(frozen=True, slots=True)
class NacChart:
    """One side's NAC Air Unit Strength Chart (NACC.J, NACC.A), 0-10 air points."""

    side: str
    letters: str
    bombardment: tuple[int, ...]
    a2a_normal: tuple[int, ...]
    a2a_extended: tuple[int, ...]

    def _at(self, row: tuple[int, ...], points: int) -> int:
        if not 0 <= points < len(row):
            raise ValueError(f"a NAC counter holds 0..{len(row) - 1} air points, not {points}")
        return row[points]

    def bombardment_of(self, points: int) -> int:
        return self._at(self.bombardment, points)

    def a2a_of(self, points: int, extended: bool = False) -> int:
        return self._at(self.a2a_extended if extended else self.a2a_normal, points)


@dataclass(frozen=True, slots=True)
class VpEntry:
    """One line of the Victory Point schedule (VP.SCHED.*).

    ``receiver`` is the side that scores ("both" for either); ``per`` is what the
    points multiply: "unit", "air_point", "air_capacity" or "defense".
    """

    receiver: str
    category: str
    points: Fraction
    per: str


@dataclass(frozen=True, slots=True)
class VictoryLevel:
    level: str
    ratio_at_least: Fraction
    strictly_greater: bool = False


@dataclass(frozen=True, slots=True)
class GeoObjective:
    """A campaign area (VP.GEO.TABLE): by map region, hexes, or naval bases in a region."""

    area: str
    points: int
    required: bool
    region: str | None = None
    hexes: tuple[int, ...] = ()
    any_naval_base_in: str | None = None
    place: str | None = None  # a named map place (Mandalay)
    automatic_with: str | None = None  # a special rule that awards it to the Japanese
    allied_scores_built_bases: bool = True  # ERR.VP.AUSBASES


@dataclass(frozen=True, slots=True)
class Replacement:
    """RPL.*: ``type`` returns ``after`` Game-Turns after destruction (or heavy damage)."""

    rule: str
    side: str
    type: str
    after: int
    trigger: str
    damage_weeks: int | None = None


@dataclass(frozen=True, slots=True)
class VariableDeployment:
    """OPT.AVD: die roll -> Allied units placed in Pearl Harbor at start."""

    hex: int
    rows: Mapping[int, tuple[str, ...]]

    def units_for(self, die: int) -> tuple[str, ...]:
        _check_die(die)
        return self.rows[die]


@dataclass(frozen=True, slots=True)
class Calendar:
    """REIN.DATE: Game-Turn -> "month/week" (a week belongs to the month of its Thursday)."""

    first_monday: dt.date
    last_turn: int
    printed: Mapping[int, str] = field(default_factory=dict)

    def monday(self, turn: int) -> dt.date:
        if turn < 1:
            raise ValueError(f"Game-Turn {turn} is before the chart begins")
        return self.first_monday + dt.timedelta(weeks=turn - 1)

    def label(self, turn: int) -> str:
        thursday = self.monday(turn) + dt.timedelta(days=3)
        return f"{thursday.month}/{(thursday.day - 1) // 7 + 1}"


@dataclass(frozen=True, slots=True)
class UsnTables:
    crt1: Crt1
    crt2: Crt2
    crt34: Crt34
    crt5: Crt5
    nac_charts: Mapping[str, NacChart]
    transport_points: Mapping[tuple[str, str], int]  # (side or "both", unit) -> TP
    emergency_capacity: Mapping[str, Mapping[str, int]]  # side -> ship type -> TP
    endurance: Mapping[str, int]  # ship type or "default" -> Game-Turns at sea
    victory_points: tuple[VpEntry, ...]
    victory_levels: tuple[VictoryLevel, ...]
    geographic: tuple[GeoObjective, ...]
    replacements: tuple[Replacement, ...]
    variable_deployment: VariableDeployment
    breakdown: tuple[tuple[str, str, str, int], ...]  # (side, parent, part, count)
    calendar: Calendar

    def endurance_of(self, ship_type: str) -> int:
        """SUP.G: complete Game-Turns a ship may stay at sea without refuelling."""
        return self.endurance.get(ship_type, self.endurance["default"])

    def vp_entry(self, receiver: str, category: str) -> VpEntry | None:
        """The schedule line for ``category`` as scored by ``receiver``; the side's own
        line replaces the generic one (A20)."""
        generic = None
        for e in self.victory_points:
            if e.category != category:
                continue
            if e.receiver == receiver:
                return e
            if e.receiver == "both":
                generic = e
        return generic

    def unit_points(self, receiver: str, counter: Counter) -> Fraction:
        """VP.SCHED.*: what ``receiver`` scores for destroying ``counter`` (printed
        values: A19 scores naval units on their printed defense)."""
        entry = self.vp_entry(receiver, vp_category(counter))
        if entry is None:
            return Fraction(0)
        if entry.per == "air_capacity" and isinstance(counter, NavalCounter):
            return entry.points * counter.air_capacity
        if entry.per == "defense":
            return entry.points * counter.defense
        return entry.points

    def air_points(self, receiver: str, air_type: str, points: int = 1) -> Fraction:
        """VP.SCHED.AIR: what ``receiver`` scores for destroying enemy air points."""
        entry = self.vp_entry(receiver, air_type)
        return entry.points * points if entry is not None else Fraction(0)

    @staticmethod
    def damage_points(full_value: Fraction, weeks: int) -> Fraction:
        """VP.DAMAGE: the full value times weeks of damage / 100."""
        return full_value * Fraction(weeks, 100)

    def victory_level(self, higher: Fraction | int, lower: Fraction | int) -> str | None:
        """VP.LEVELS: the level of the higher score over the lower; None for a tie.
        A18: a loser with 0 against a winner with more is Decisive."""
        if higher <= lower:
            return None
        ratio = Fraction(higher) / Fraction(lower) if lower > 0 else None
        best = None
        for lv in sorted(self.victory_levels, key=lambda v: v.ratio_at_least):
            if (
                ratio is None
                or ratio > lv.ratio_at_least
                or (ratio == lv.ratio_at_least and not lv.strictly_greater)
            ):
                best = lv.level
        return best
