"""5.0 the launch: what reaches the target from each plotted part, after 8.1.4 carrier
coordination, 9.3 joint-strike availability (5.10, 5.8.2), 7.10.1 torpedo arming,
and the elite (7.11), green (58.2.1) and AVG (6.2.3) marks the air combat reads."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated

from pbem.core.events import Event
from pbem.core.sides import SIDES, Side
from pbem.rulesets.witp.air import availability, avg, coordination, elite, torpedo, training
from pbem.rulesets.witp.air.flying import FlyingElement, LaunchedPart, aps
from pbem.rulesets.witp.air.ships import holdings, tf_ships
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import FLAT, OPTIONAL, Wire


@dataclass(frozen=True, slots=True)
class Launch:
    """5.0: the strike's parts that reach the target, each a plotted part (its base,
    hex, carrier, MP) with the ``elements`` (bombers) and ``escorts`` that flew."""

    parts: tuple[LaunchedPart, ...]

    @property
    def bombers(self) -> list[FlyingElement]:
        return [e for p in self.parts for e in p.elements]

    @property
    def escorts(self) -> list[FlyingElement]:
        return [e for p in self.parts for e in p.escorts]


class StrikeLaunched(Fact, kind="strike-launched"):
    """5.0: a strike launched, from its air base or, a carrier's, from its launch hex
    only (both told: not the TF)."""

    side: Side
    origin: Annotated[str, Wire("from")]
    carrier: bool


class CarrierCoordination(Fact, kind="carrier-coordination"):
    """8.1.4: a carrier TF's launch check (its side's own roll): the strike's, or
    (``cap`` True) the CAP's; the first 2D10 against what it needed, the 2D6 if it
    failed, and what launched (told flat)."""

    tf: str
    air_rating: int
    cap: Annotated[bool | None, OPTIONAL]
    launch: Annotated[coordination.Launch, FLAT]

    @classmethod
    def of(
        cls, tf: str, air_rating: int, cc: coordination.Launch, *, cap: bool | None = None
    ) -> CarrierCoordination:
        """The check's fact from its result (coordination.Launch)."""
        return cls(tf, air_rating, cap, cc)


class JointAvailability(Fact, kind="joint-availability"):
    """9.3, 5.8.2: a type's APAT roll at a Joint Strike's following base, or a base's
    successive special strike, and the APs available (the striker's own)."""

    base: str
    type: str
    roll: int
    percent: int
    available: int
    of: int


def shares(counts: Sequence[int], keep: int) -> list[int]:
    """``keep`` of the APs counted in ``counts``, each count cut in proportion
    (rounded up, in order)."""
    total = sum(counts)
    out, left = [], keep
    for n in counts:
        k = min(left, math.ceil(n * keep / total)) if total else 0
        left -= k
        out.append(k)
    return out


def shrink(stacks: Sequence[FlyingElement], keep: int) -> list[FlyingElement]:
    """``keep`` of the stacks' APs, each type cut in proportion (rounded up, in order)."""
    cut = shares([s.n for s in stacks], keep)
    return [replace(s, n=k) for s, k in zip(stacks, cut, strict=True) if k > 0]


def launch(r: Resolution) -> tuple[Launch, list[Event]]:
    """5.0, 8.1.4, 5.10: each part's launch; the parts that reach the target, and
    the events told."""
    parts, told = [], []
    for i, part in enumerate(r.strike.plot.parts):
        launched, events = _part(r, i, LaunchedPart.of(part))
        parts.append(launched)
        told += events
    return Launch(tuple(parts)), told


def _part(r: Resolution, i: int, part: LaunchedPart) -> tuple[LaunchedPart, list[Event]]:
    side, base, dice = r.strike.side, part.base, r.context.dice
    where = part.hex if part.carrier else part.base
    told = [r.tell(StrikeLaunched(side, str(where), part.carrier), SIDES, "5.0")]
    purpose = f"{side} {part.base} 7.10"
    armed, arming = torpedo.at_launch(r.work.pack, r.work, side, part, dice, purpose)
    if arming:  # 7.10.1, R127: the launching side's own roll
        told.append(r.tell(arming, [side], "7.10.1"))
    bombers, escorts = list(armed), list(part.escorts)
    if part.carrier:
        bombers, escorts, told_cc = _carrier_coordination(r, part, bombers, escorts)
        told += told_cc
    if i > 0 or part.plotted.apat:  # a Joint Strike's following base (5.10, 9.3), a
        # base's successive special strike (5.8.2): the APAT, at the range flown
        bombers, escorts, told_apat = _joint_availability(r, part, bombers, escorts)
        told += told_apat
    day = not r.strike.night  # 7.11.5: the night elite's bonuses at night only
    holders = holdings(r.work, side, base)
    bombers = elite.split(holders, bombers, day)  # 7.11
    escorts = elite.split(holders, escorts, day)
    bombers = training.split(holders, bombers)  # 58.2.1
    if not part.carrier:
        escorts = avg.mark(r.work.pack, base, escorts)  # 6.2.3
    escorts = training.split(holders, escorts)
    return replace(part, elements=tuple(bombers), escorts=tuple(escorts)), told


Flown = list[FlyingElement]


def _carrier_coordination(
    r: Resolution, part: LaunchedPart, bombers: Flown, escorts: Flown
) -> tuple[Flown, Flown, list[Event]]:
    """8.1.4: the carrier TF's launch check cuts fighters and bombers in proportion."""
    side, dice = r.strike.side, r.context.dice
    rating = r.context.ratings.get(side) or coordination.rate(
        r.work.pack, None, dice, f"{side} CTF"
    )
    _tf, ships = tf_ships(r.work, side, part.base)
    f, b = aps(escorts), aps(bombers)
    cc = coordination.launch(r.work.pack, ships, rating, f, b, dice, f"{side} {part.base} CC")
    told = r.tell(CarrierCoordination.of(part.base, rating.air, cc), [side], "8.1.4")
    return shrink(bombers, cc.bombers), shrink(escorts, cc.fighters), [told]


def _joint_availability(
    r: Resolution, part: LaunchedPart, bombers: Flown, escorts: Flown
) -> tuple[Flown, Flown, list[Event]]:
    """9.3: each type's APAT roll at the range flown; the striker's own."""
    side, dice = r.strike.side, r.context.dice
    kept, told = [], []
    for e in [*bombers, *escorts]:
        n, roll, pct = availability.available(
            r.work.pack, e.n, part.mp, "joint-following", dice, f"{side} joint {e.type}"
        )
        fact = JointAvailability(part.base, e.type, roll, pct, n, e.n)
        told.append(r.tell(fact, [side], "9.3"))
        kept.append(replace(e, n=n))
    nb = len(bombers)
    return [e for e in kept[:nb] if e.n], [e for e in kept[nb:] if e.n], told
