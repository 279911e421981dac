"""10.1 Task Force AA fire against one wave on the Air/Surface display.

A wave's components are its approach modes (L, M, H and DB for dive-bombers and
fighter-bombers, 10.1, 10.1.1). Every ship on the wave's path (7.7.4) adds the
AA value the AA Matrix gives against each component (halved at D2 or worse, per the
Naval Damage Levels Effects); 2D6 a component on the AA Table, with the 10.1.1
column shifts and DRMs. Aborts and losses fall on the component's APs at random
(10.1). Elite APs (7.11, marked ``elite`` by elite.split) bring 10.1.1's two elite
DRMs: a combined attack at least half elite (fighters excluded), and a component
of one elite AP. At night (14.2.2) only the ships of the target ring and the ring it
overflies fire, at half value (rounded down); against an Outer Ring target none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pbem.core.dice import Dice
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air.flying import FlyingElement, aps
from pbem.rulesets.witp.air.tables import (
    AA_ELITE_COMBINED,
    AA_MATRIX,
    AA_MODS,
    Pack,
    aa_fire,
    damage_effect,
    shift,
    value,
)
from pbem.rulesets.witp.records import Record
from pbem.rulesets.witp.taskforces import Ship, ship_class


def ship_aa(pack: Pack, ship: Ship, mode: str) -> int:
    """One ship's AA against an approach mode (AA Matrix; halved when damaged)."""
    field = value(pack, AA_MATRIX)[mode]
    aa = ship_class(pack, ship).aa(field)
    level = ship.damage
    if damage_effect(pack, level).aa_half:
        aa //= 2
    return aa


def strength(pack: Pack, ships: Sequence[Ship], mode: str, *, night: bool = False) -> int:
    total = sum(ship_aa(pack, s, mode) for s in ships)
    return total // 2 if night else total  # 14.2.2: half, rounded down


def night_firers(
    positions: Mapping[str, tuple[str, int]], arcs: Sequence[tuple[str, int]], ring: str
) -> list[str]:
    """14.2.2: core target: core and overflown inner ring; inner: inner and outer; outer: none."""
    rings = {"core": ("core", "inner"), "inner": ("inner", "outer"), "outer": ()}[ring]
    return sorted(n for n, p in positions.items() if p in arcs and p[0] in rings)


def modifiers(
    pack: Pack,
    wave: Sequence[FlyingElement],
    component: Sequence[FlyingElement],
    *,
    night: bool,
    later_wave_after_inner: bool,
    coastwatcher_alerted: bool = False,
    small_first_wave_drm: int = 0,
) -> tuple[int, int, list[str]]:
    """10.1.1: (column shift, DRM, the reasons) against one component."""
    t = value(pack, AA_MODS)
    cols, drm, why = 0, 0, []
    modes = {a.aa_mode for a in wave if a.n > 0}
    combined = len(modes) > 1 and any(a.aa_mode == "L" and a.n > 0 for a in wave)
    if combined:
        cols += shift(t["combined_low"])
        why.append(f"combined {t['combined_low']}")
    if combined and _elite_half(wave):
        d = int(value(pack, AA_ELITE_COMBINED)["drm"])
        drm += d
        why.append(f"combined attack at least half elite {d}")
    if aps(component) == 1 and any(a.elite and a.n > 0 for a in component):
        drm += int(t["single_elite_drm"])
        why.append(f"a single elite AP {t['single_elite_drm']}")
    if night:
        cols += shift(t["night"])
        why.append(f"night {t['night']}")
    if any(a.role == "B" and a.below_rating for a in component):
        cols += shift(t["level_bomber_below_rating"])
        why.append(f"level bombers below their rating {t['level_bomber_below_rating']}")
    if later_wave_after_inner:
        cols += shift(t["after_first_wave_reached_inner"])
        why.append(
            f"a wave before reached the inner ring or core {t['after_first_wave_reached_inner']}"
        )
    if coastwatcher_alerted:
        drm += int(t["coastwatcher_alerted_drm"])
        why.append(f"coastwatcher-alerted +{t['coastwatcher_alerted_drm']}")
    if small_first_wave_drm:
        drm += small_first_wave_drm
        why.append(f"first wave of 1-2 APs {small_first_wave_drm}")
    return cols, drm, why


def _elite_half(wave: Sequence[FlyingElement]) -> bool:
    """10.1.1: at least half the wave's APs, fighters excluded, are elite (7.11)."""
    bombers = [a for a in wave if a.role != "F" and a.n > 0]
    total = aps(bombers)
    best = aps(a for a in bombers if a.elite)
    return total > 0 and 2 * best >= total


def small_first_wave(dice: Dice, purpose: str) -> tuple[tuple[int, int], int]:
    """10.1.1: a first wave of 1 or 2 APs: 2D6, minus half the differential (down)."""
    a, b = dice.d6(purpose), dice.d6(purpose)
    return (a, b), -(abs(a - b) // 2)


def pick(component: Sequence[FlyingElement], hits: int, dice: Dice, purpose: str) -> dict[str, int]:
    """10.1: ``hits`` APs of the component chosen at random (open dice)."""
    pool = [a.type for a in component for _ in range(a.n)]
    out: dict[str, int] = {}
    for _ in range(min(hits, len(pool))):
        t = pool.pop(draws.below(dice, len(pool), purpose))
        out[t] = out.get(t, 0) + 1
    return out


@dataclass(frozen=True, slots=True)
class Fired(Record):
    """10.1: the AA at one component: its strength, column shifts and DRM, the 2D6,
    and the APs eliminated and aborted by type."""

    aa: int
    columns: int
    drm: int
    roll: int
    eliminated: Mapping[str, int]
    aborted: Mapping[str, int]


def fire(
    pack: Pack,
    aa: int,
    component: Sequence[FlyingElement],
    cols: int,
    drm: int,
    dice: Dice,
    purpose: str,
) -> Fired:
    """One component under fire: the roll, the result and the APs hit by type."""
    roll = dice.d6(purpose) + dice.d6(purpose)
    aborted, eliminated = aa_fire(pack, aa, cols, roll + drm)
    size = aps(component)
    eliminated = min(eliminated, size)
    aborted = min(aborted, size - eliminated)
    lost = pick(component, eliminated, dice, f"{purpose} losses")
    rest = [replace(a, n=a.n - lost.get(a.type, 0)) for a in component]
    turned = pick(rest, aborted, dice, f"{purpose} aborts")
    return Fired(aa, cols, drm, roll, lost, turned)
