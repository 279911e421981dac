"""5.3.3 Cover CAP over an enemy-controlled airbase: it intercepts the enemy's air
strikes launching from that base (R123).

- the base's own fighters not plotted on another mission (and not aborted this
  phase) fly CAP against the cover as against a strike plotted against the base,
  once an Air Phase, when the cover first meets a launch; the bounce is rolled
  normally (5.3.3): the cover fights as a fighter strike's loose escort at its
  plotted altitude (its type's rated one if none);
- the cover left then fights each strike launching from the base there as CAP
  over a target (6.1.1), split over the strike's levels as the TF's CAP is (R92);
- the strike's APs eliminated or aborted fly no further (5.1.1); the eliminated
  leave the base.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Annotated, Any

from pbem.core.dice import Dice
from pbem.rulesets.witp.air import combat
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.strike.aircombat import LevelFight, air_stacks
from pbem.rulesets.witp.air.strike.cap import cap_levels
from pbem.rulesets.witp.air.strike.placement import LEVELS
from pbem.rulesets.witp.air.strikes import AirElement, CoverFlight, StrikePart
from pbem.rulesets.witp.air.tables import Pack, air_unit, known_type
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import FLAT

RULE = "5.3.3"


class LaunchInterception(Fact, kind="launch-interception"):
    """R123: one level's air combat over a launching base, told to both sides: the
    base's CAP against the cover (``stage`` "base CAP") or the cover against the
    launch ("launch"); the fight as the strike's air combat tells it (flat)."""

    base: str
    hex: str
    stage: str
    fight: Annotated[LevelFight, FLAT]


class LaunchIntercepted(Fact, kind="launch-intercepted"):
    """R123: a strike stopped whole at its launch from ``base`` (both saw the combat)."""

    base: str


def level_of(pack: Pack, flight: CoverFlight) -> str:
    """The cover's altitude: plotted, or its type's rated one (Medium if unrated)."""
    rated = air_unit(pack, flight.type).air.altitude
    return str(flight.alt or rated or "M")


def sweeping(pack: Pack, flight: CoverFlight, n: int) -> FlyingElement:
    """``n`` APs of the cover over the base, as the loose escort of a fighter strike
    at the cover's altitude (5.3.3)."""
    return FlyingElement.fighters(flight.type, n, level_of(pack, flight), flight.range)


def base_cap(
    pack: Pack,
    air: Mapping[str, int],
    committed: Mapping[str, int],
    grounded: Mapping[str, int],
) -> dict[str, int]:
    """5.3: the base's fighters free to fly CAP: not plotted elsewhere, not aborted."""
    out = {}
    for t, n in air.items():
        if not known_type(pack, t) or "F" not in air_unit(pack, t).roles:
            continue
        free = int(n) - int(committed.get(t, 0)) - int(grounded.get(t, 0))
        if free > 0:
            out[t] = free
    return out


def _told(
    fight: combat.Fight, stage: str, where: tuple[str, str], stacks: tuple[Any, Any, Any]
) -> LaunchInterception:
    """The fight over the base (``where``: base, hex) as both sides are told it; the
    ``stacks``: the CAP's, the escorts', the bombers'."""
    return LaunchInterception(*where, stage, LevelFight.told(fight, stacks))


def _lost(stacks: Sequence[combat.Stack]) -> dict[str, list[int]]:
    """{type: [eliminated, aborted]}."""
    out: dict[str, list[int]] = {}
    for s in stacks:
        got = out.setdefault(s.type, [0, 0])
        got[0] += s.eliminated
        got[1] += s.aborted
    return out


def against_base_cap(
    pack: Pack,
    cover: Sequence[FlyingElement],
    cap: Mapping[str, int],
    dice: Dice,
    where: tuple[str, str],
) -> tuple[dict[str, list[int]], dict[str, list[int]], list[LaunchInterception]]:
    """The base's CAP against the covering flights (``sweeping``) as a fighter
    strike's loose escort over ``where`` (base, hex); (cover losses, CAP losses, the
    fights as told)."""
    fights: list[LaunchInterception] = []
    cover_lost: dict[str, list[int]] = {}
    cap_lost: dict[str, list[int]] = {}
    for lv in [lv for lv in LEVELS if any(c.alt == lv for c in cover)]:
        sweep = air_stacks(pack, cover, lv, bombers=False)
        free = {t: n - sum(cap_lost.get(t, [0, 0])) for t, n in cap.items()}
        cs = air_stacks(pack, cap_levels(pack, free, [lv]), lv, bombers=False)
        if not cs:
            continue
        fight = combat.resolve_level(pack, lv, cs, sweep, [], [], dice)
        fights.append(_told(fight, "base CAP", where, (cs, sweep, [])))
        _add(cover_lost, _lost(sweep))
        _add(cap_lost, _lost(cs))
    return cover_lost, cap_lost, fights


def against_launch(
    pack: Pack,
    cover: Mapping[str, int],
    part: StrikePart,
    dice: Dice,
) -> tuple[StrikePart, dict[str, list[int]], dict[str, list[int]], list[LaunchInterception]]:
    """The cover (APs by type) as CAP against one launching part of a strike: (the
    part with its survivors, the cover's losses, the part's losses, the fights)."""
    where = (part.base, str(part.hex))
    bombers = [FlyingElement.of(e) for e in part.elements]
    escorts = [FlyingElement.of(e) for e in part.escorts]
    levels = [lv for lv in LEVELS if any(e.alt == lv for e in bombers)]
    cap = _stacks_by_level(pack, cover, levels)
    fights: list[LaunchInterception] = []
    cover_lost: dict[str, list[int]] = {}
    part_lost: dict[str, list[int]] = {}
    for lv in levels:
        cs = cap.get(lv, [])
        loose = air_stacks(pack, [e for e in escorts if e.posture == "loose"], lv, bombers=False)
        close = air_stacks(pack, [e for e in escorts if e.posture == "close"], lv, bombers=False)
        bs = air_stacks(pack, bombers, lv, bombers=True)
        if not cs:
            continue
        fight = combat.resolve_level(pack, lv, cs, loose, close, bs, dice)
        fights.append(_told(fight, "launch", where, (cs, loose + close, bs)))
        _add(cover_lost, _lost(cs))
        lost = _lost(loose + close + bs)
        _add(part_lost, lost)
        bombers = _cut(bombers, lv, _lost(bs))
        escorts = _cut(escorts, lv, _lost(loose + close))
    out = replace(part, elements=_survivors(part.elements, bombers))
    return replace(out, escorts=_survivors(part.escorts, escorts)), cover_lost, part_lost, fights


def _survivors(
    plotted: Sequence[AirElement], flown: Sequence[FlyingElement]
) -> tuple[AirElement, ...]:
    """The plotted elements with the APs left of each after the combat."""
    return tuple(replace(e, n=f.n) for e, f in zip(plotted, flown, strict=True) if f.n > 0)


def _stacks_by_level(
    pack: Pack, cover: Mapping[str, int], levels: Sequence[str]
) -> dict[str, list[combat.Stack]]:
    """R92: the cover split over the strike's levels as a TF's CAP."""
    spread = cap_levels(pack, cover, levels)
    return {lv: air_stacks(pack, spread, lv, bombers=False) for lv in levels}


def _add(into: dict[str, list[int]], more: Mapping[str, list[int]]) -> None:
    for t, (e, a) in more.items():
        was = into.setdefault(t, [0, 0])
        was[0] += e
        was[1] += a


def _cut(
    group: Sequence[FlyingElement], level: str, lost: Mapping[str, list[int]]
) -> list[FlyingElement]:
    """The elements with each type's losses at ``level`` taken off those there."""
    left = {t: e + a for t, (e, a) in lost.items()}
    out = []
    for e in group:
        k = min(e.n, left.get(e.type, 0)) if e.alt == level else 0
        left[e.type] = left.get(e.type, 0) - k
        out.append(replace(e, n=e.n - k))
    return out
