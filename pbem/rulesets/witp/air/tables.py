"""The stage-2 tables of the game's pack (packs/tables-stage2.toml) and their lookups.

Every lookup reads the game's public pack (``Work.pack``, or ``public_pack`` of a
Knowledge's public part), so a moderator's own pack replaces any table for one game.
The unit values are read typed (``AirUnit``, datapack's ``ShipClass``), as is a
damage level's effect (``DamageEffect``). Dice are rolled by the callers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pbem.core.errors import DataError
from pbem.rulesets.witp.datapack import Pack as Pack

# the pack's one reader is the TF rules'; the air rules reach it here
from pbem.rulesets.witp.taskforces import value as value

LEVELS = "tables/altitude-levels"
APPROACH = "tables/approach-modes"
ROLES = "tables/strike-roles"
APAT_COLUMNS, APAT = "tables/apat-columns", "tables/apat"
BOUNCE = "tables/bounce"
A2A = "tables/air-to-air-crt"
CC1, CC2, CC_SPLIT = "tables/cc-check-1", "tables/cc-check-2", "tables/cc-component-split"
CARRIER_POINTS = "tables/carrier-points"
ADMIRALS = "tables/carrier-admirals"
SEQUENCE, SEQUENCE_DRM = "tables/strike-sequence", "tables/air-rating-sequence-drm"
DISPLAY = "tables/air-surface-display"
PRIORITY = "tables/general-target-priority"
AA_MATRIX, AA_TABLE, AA_MODS = "tables/aa-matrix", "tables/aa-table", "tables/aa-modifiers"
AA_ELITE_COMBINED = "tables/aa-elite-combined"
COMBINED_B = "tables/combined-attack-level-bombers"
MAP_START = "scenario/map-start"
DAMAGE, NAVAL_CRT = "tables/air-surface-damage", "tables/naval-crt"
CRITICAL, EFFECTS = "tables/critical-hit", "tables/naval-damage-effects"
TORPEDO, PBY_NIGHT = "tables/land-based-torpedo", "tables/pby-night-contact"
EXTREME = "tables/extreme-range"
ARMY_FIGHTERS = "tables/army-type-fighters"
DOCTRINE = "rulings/air-doctrine"


def map_start(pack: Pack) -> str:
    """The scenario's first month ("may1942"), which dated rules count from."""
    item = pack.get(MAP_START)
    return "may1942" if item is None else str(item.value)


@dataclass(frozen=True, slots=True)
class AirRatings:
    """An AP type's air combat values (Air Point Chart): its strength at normal and at
    extended range (5.0, 6.3.3), its rated altitude (5.2; None: unrated) and a
    bomber's return fire (6.2)."""

    normal: int
    extended: int
    altitude: str | None = None
    return_fire: int = 0

    def at(self, reach: str) -> int:
        """The strength flying at ``reach`` ("normal"; anything else is extended)."""
        return self.normal if reach == "normal" else self.extended


@dataclass(frozen=True, slots=True)
class StrikeRange:
    """An AP type's strike range in MP (5.0, 5.15): normal and extended (0: none)."""

    normal: int
    extended: int = 0

    def at(self, reach: str) -> int:
        return self.normal if reach == "normal" else self.extended

    @property
    def farthest(self) -> int:
        return self.extended or self.normal


@dataclass(frozen=True, slots=True)
class AirUnit:
    """An AP type's Air Point Chart values: its roles (4.2) and strike ranges
    (``units/ap-<type>``, stage 1) with its strike values (``units/air-<type>``): air
    combat, anti-ship by role at normal and extended range (7.8.1 Step 2), torpedo
    range (5.14.1), transfer range (4.4), night rating (14.2.2) and whether it rolls
    for night contact (14.2.3)."""

    roles: tuple[str, ...]
    range: StrikeRange
    air: AirRatings
    anti_ship: Mapping[str, tuple[int, int]]
    torpedo_range: int = 0
    transfer_range: int = 0
    night_rated: bool = False
    night_contact: bool = False

    def anti_ship_at(self, role: str, reach: str) -> int:
        """The anti-ship value flying as ``role`` at ``reach`` (0: not rated)."""
        normal, extended = self.anti_ship.get(role, (0, 0))
        return normal if reach == "normal" else extended

    @classmethod
    def from_json(cls, base: Mapping[str, Any], strike: Mapping[str, Any]) -> AirUnit:
        """The type's values from its two items' values (``strike``'s over ``base``'s)."""
        raw = {**base, **strike}
        air, rng = raw["air"], raw["range"]
        rated = air.get("altitude")
        anti_ship = {str(r): (int(v[0]), int(v[1])) for r, v in raw.get("anti_ship", {}).items()}
        return cls(
            roles=tuple(str(r) for r in raw["roles"]),
            range=StrikeRange(int(rng["normal"]), int(rng.get("extended") or 0)),
            air=AirRatings(
                int(air["normal"]),
                int(air["extended"]),
                None if rated is None else str(rated),
                int(air.get("return_fire", 0)),
            ),
            anti_ship=MappingProxyType(anti_ship),
            torpedo_range=int(raw.get("torpedo_range", 0)),
            transfer_range=int(raw.get("transfer_range", 0)),
            night_rated=bool(raw.get("night_rated")),
            night_contact=bool(raw.get("night_contact")),
        )


def air_unit(pack: Pack, ap_type: str) -> AirUnit:
    """An AP type's strike values (units.air-<type>) with its roles and ranges
    (units.ap-<type>, stage 1)."""
    strike = pack.get(f"units/air-{ap_type}")
    base = pack.get(f"units/ap-{ap_type}")
    if strike is None or base is None:
        raise DataError(f"units.air-{ap_type}", "no Air Point Chart values for this type")
    return AirUnit.from_json(base.value, strike.value)


def known_type(pack: Pack, ap_type: str) -> bool:
    return f"units/air-{ap_type}" in pack and f"units/ap-{ap_type}" in pack


@dataclass(frozen=True, slots=True)
class DamageEffect:
    """16.8.1: a damage level's effects on the ship's printed values (the pack's Naval
    Damage Levels Effects): speed class and defence added, AA halved."""

    speed_class: int = 0
    defence: int = 0
    aa_half: bool = False

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> DamageEffect:
        return cls(
            int(raw.get("speed_class", 0)), int(raw.get("defence", 0)), bool(raw.get("aa_half"))
        )


def damage_effect(pack: Pack, level: int) -> DamageEffect:
    """The effects of damage level ``level`` (D4 for any worse; none undamaged)."""
    if level < 1:
        return DamageEffect()
    return DamageEffect.from_json(value(pack, EFFECTS)[f"D{min(level, 4)}"])


def rounded(x: float) -> int:
    """Nearest whole number, .5 up (9.0, 7.10.1)."""
    return math.floor(x + 0.5)


def band(bands: Sequence[Sequence[int]], n: int) -> int:
    """The index of the band holding ``n`` (the last for anything above)."""
    for i, (lo, hi) in enumerate(bands):
        if lo <= n <= hi:
            return i
    return 0 if n < bands[0][0] else len(bands) - 1


def split(result: str) -> tuple[int, int]:
    """'3/1' -> (aborted 3, eliminated 1)."""
    a, e = result.split("/")
    return int(a), int(e)


def shift(text: str) -> int:
    """'2L' -> -2, '1R' -> +1 (column shifts)."""
    n, way = int(text[:-1]), text[-1].upper()
    return -n if way == "L" else n


def air_to_air(pack: Pack, strength: int, aps: int, roll: int) -> tuple[int, int]:
    """6.3.1: (aborted, eliminated) strength points for 2D6 ``roll``; the row of the
    number of attacking APs is a DRM here."""
    t = value(pack, A2A)
    drm = next((int(r["drm"]) for r in t["ap_rows"] if r["aps"][0] <= aps <= r["aps"][1]), 0)
    if strength < 1:
        return 0, 0
    col = band(t["columns"], strength)
    return split(t["results"][col][min(12, max(2, roll + drm)) - 2])


def aa_fire(pack: Pack, strength: int, columns: int, roll: int) -> tuple[int, int]:
    """10.1: (aborted, eliminated) APs for 2D6 ``roll`` (modified) with ``columns``
    shifts; a shift left of the first column leaves no fire, right of the last a +DRM."""
    t = value(pack, AA_TABLE)
    if strength < 1:
        return 0, 0
    last = len(t["columns"]) - 1
    col = max(0, band(t["columns"], strength) + columns)
    over = max(0, col - last)  # 9.0's rule for shifts past the last column, here too
    return split(t["results"][min(col, last)][min(12, max(2, roll + over)) - 2])


def damage_points(pack: Pack, anti_ship: int, speed_class: int, roll: int, drm: int = 0) -> int:
    """7.8.1 Step 5: damage points, anti-ship total against the current speed class."""
    t = value(pack, DAMAGE)
    sc = str(min(3, max(0, speed_class)))
    face = min(6, max(1, roll + drm))
    return math.floor(anti_ship * float(t["multipliers"][sc][face - 1]))


def odds_column(points: int, defence: int) -> int:
    """7.8.1 Step 6: the odds, rounded down, as a Naval CRT column (0: under 1:1)."""
    return min(5, points // max(1, defence))


def naval_crt(pack: Pack, column: int, roll: int) -> str:
    """7.8.1 Step 7: '-', 'D1'..'D4' or 'S' (sunk)."""
    return str(value(pack, NAVAL_CRT)["results"][column][min(6, max(1, roll)) - 1])
