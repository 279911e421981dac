"""5.3, 7.1 B the Combat Air Patrol over the target TF: its fighters not flying other
missions (5.3) nor aborted earlier this phase (5.1.1, 5.3.6), checked by 8.1.4
carrier coordination, with the cover the APAT let through (9.2), dealt over the
levels the strike uses by the owner's plotted order (R135) or the doctrine (R92),
the elite (7.11, R111), green (58.2.1) and AVG (6.2.3) marked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pbem.core.events import Event
from pbem.rulesets.witp.air import altitude, avg, capsplit, coordination, elite, training
from pbem.rulesets.witp.air.flying import FlyingElement, aps
from pbem.rulesets.witp.air.ships import (
    CARRIER_TYPES,
    air_of,
    cap_aborted,
    holdings,
    mark_by_type,
)
from pbem.rulesets.witp.air.strike.contact import Target
from pbem.rulesets.witp.air.strike.launch import CarrierCoordination, Launch, shares
from pbem.rulesets.witp.air.strike.plotted import Resolution, doctrine
from pbem.rulesets.witp.air.tables import ROLES, Pack, air_unit, known_type, value
from pbem.rulesets.witp.knowledge import Fact


@dataclass(frozen=True, slots=True)
class Cap:
    """5.3, 7.1 B: the CAP over the target TF, element by element ({type, n, alt,
    range} and its marks), the TF's own fighters among it (R110: they take the
    CAP's losses first), what the owner chose to attack (R92) and whether the strike
    bounces as green fighters may (58.2.1)."""

    elements: tuple[FlyingElement, ...]
    own: Mapping[str, int]
    cap_attacks: str
    green_strike: bool

    @property
    def aps(self) -> int:
        return aps(self.elements)


class AvgStrikeComposition(Fact, kind="avg-strike-composition"):
    """6.2.2: the strike's make-up at each altitude, told to the owner before the AVG
    fights it: {level: {"bombers": {type: n}, "escorts": {"type posture": n}}}."""

    tf: str
    levels: Mapping[str, Mapping[str, Mapping[str, int]]]


class CapAllotted(Fact, kind="cap-allotted"):
    """R135: the owner's plotted CAP order over the TF, and the CAP it placed at each
    level by type (his alone)."""

    tf: str
    order: str
    levels: Mapping[str, Mapping[str, int]]


def cap_levels(
    pack: Pack,
    cap: Mapping[str, int],
    levels: Sequence[str],
    shares: Mapping[str, int] | None = None,
) -> list[FlyingElement]:
    """The owner's plotted ``CAP`` shares over the levels used (7.1 B, R135), else the
    doctrine (R92): the CAP split evenly over the levels used, the lowest first;
    each AP only where it may fly (5.2.3)."""
    out: list[FlyingElement] = []
    for t, n in sorted(cap.items()):
        air = air_unit(pack, t).air
        ok = [lv for lv in levels if altitude.may_fly(pack, air.normal, air.altitude, lv)]
        dealt = capsplit.deal(n, ok, shares or {})
        for k, lv in enumerate(ok):
            share = n // len(ok) + (1 if k < n % len(ok) else 0)
            share = dealt.get(lv, 0) if dealt else share
            if share:
                out.append(FlyingElement.fighters(t, share, lv))
    return out


def elite_first(cap: Sequence[FlyingElement], best: Mapping[str, int]) -> list[FlyingElement]:
    """7.11: each type's ``best`` elite CAP APs marked, level by level, lowest first."""
    return mark_by_type(cap, best, lambda e: replace(e, elite=True))


def raise_cap(
    r: Resolution, target: Target, launch: Launch, levels: Sequence[str]
) -> tuple[Cap, list[Event]]:
    """The CAP that meets the strike, dealt over ``levels``; the owner told of the AVG
    (6.2.2) and of what his plotted order made (R135). The events told."""
    owner, tf_id, busy = r.strike.owner, r.strike.tf, r.context.committed
    holders = holdings(r.work, owner, tf_id)
    fighters, told = _fighters(r, target)
    own_left = dict(fighters)  # R110: the TF's own fighters take the CAP's losses first
    # 7.11, R111: the CAP's elite; a strike flies its base's elite first, so the TF's
    # elite left for CAP are those its committed strikes did not take
    best = {t: min(n, max(0, elite.held(holders, t) - busy.get(t, 0))) for t, n in fighters.items()}
    avg_cap: dict[str, int] = {}  # 6.2.3: the AVG's P-40s among the cover
    for c in r.context.cover:
        if c.avg:
            avg_cap[c.type] = avg_cap.get(c.type, 0) + c.n
        fighters[c.type] = fighters.get(c.type, 0) + c.n
        best[c.type] = best.get(c.type, 0) + c.elite
    theirs = doctrine(r.work, owner)
    cap = elite_first(cap_levels(r.work.pack, fighters, levels, r.context.cap_split), best)
    green_cap = {  # 58.2.1: the TF's green its strikes did not take
        t: training.cap_green(holders, t, n, busy.get(t, 0)) for t, n in own_left.items()
    }
    cap = training.mark(cap, green_cap)
    green_strike = training.strike_has_green_fighters(launch.escorts) and not any(
        green_cap.values()
    )
    cap = avg.mark_cap(cap, avg_cap)
    if any(e.avg for e in cap):  # 6.2.2: told the strike before the AVG fights
        composition = avg.composition(launch.bombers, launch.escorts)
        told.append(r.tell(AvgStrikeComposition(tf_id, composition), [owner], "6.2.2"))
    if r.context.cap_split and cap:
        told.append(_allotted(r, cap, levels, r.context.cap_split))
    return Cap(tuple(cap), own_left, theirs.cap_attacks, green_strike), told


def _fighters(r: Resolution, target: Target) -> tuple[dict[str, int], list[Event]]:
    """5.3: the TF's F and HF types (4.2.1) free to fly CAP, by type; at a carrier
    TF, as many as its 8.1.4 carrier coordination lets up (the owner's own roll,
    its event told)."""
    pack, owner, tf_id = r.work.pack, r.strike.owner, r.strike.tf
    busy, gone = r.context.committed, cap_aborted(r.work, owner, tf_id)
    cap_air = {
        t: n - busy.get(t, 0) - int(gone.get(t, 0))
        for t, n in air_of(target.ships).items()
        if known_type(pack, t)  # F and HF fly CAP (4.2.1); floatplanes: none
        and set(air_unit(pack, t).roles) & set(value(pack, ROLES)["cap"])
    }
    cap_air = {t: n for t, n in cap_air.items() if n > 0}
    if r.strike.night:
        return {}, []  # 14.0: only night fighters fly CAP at night (none in 1942)
    if not cap_air or not any(s.type in CARRIER_TYPES for s in target.ships):
        return cap_air, []
    dice = r.context.dice
    rating = r.context.ratings.get(owner) or coordination.rate(pack, None, dice, f"{owner} CTF")
    cc = coordination.launch(
        pack,
        list(target.ships),
        rating,
        sum(cap_air.values()),
        0,
        dice,
        f"{owner} {tf_id} CAP CC",
    )
    types = sorted(cap_air)
    kept = shares([cap_air[t] for t in types], cc.fighters)
    told = r.tell(CarrierCoordination.of(tf_id, rating.air, cc, cap=True), [owner], "8.1.4")
    return {t: k for t, k in zip(types, kept, strict=True) if k > 0}, [told]


def _allotted(
    r: Resolution, cap: Sequence[FlyingElement], levels: Sequence[str], order: Mapping[str, int]
) -> Event:
    """R135: the owner's plotted CAP order and what it made, his alone."""
    dealt: dict[str, dict[str, int]] = {lv: {} for lv in levels}
    for e in cap:  # an elite stack and a regular of one type: counted together
        at = dealt[e.alt]
        at[e.type] = at.get(e.type, 0) + e.n
    fact = CapAllotted(r.strike.tf, capsplit.text(order), dealt)
    return r.tell(fact, [r.strike.owner], "7.1")
