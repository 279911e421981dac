"""The strike's losses as it returns: 6.3.3 extended range may double the
eliminations (the striker's own roll), 5.15 the extreme-range return roll (the
moderator's stream, the striker's own); the APs lost leave their parts' bases,
with their elite (7.11.2) and green (58.2.1) counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pbem.core.events import Event
from pbem.core.sides import Side
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air import elite, extreme, training
from pbem.rulesets.witp.air.flying import LaunchedPart, aps, of_type
from pbem.rulesets.witp.air.ships import holdings, lose
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.air.tables import air_unit
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.work import Work


@dataclass(frozen=True, slots=True)
class Losses:
    """The strike's APs eliminated by type, in air combat (6.3) and by AA (10.1):
    all of them, the elite among them (7.11.2) and the green (58.2.1)."""

    eliminated: Mapping[str, int] = field(default_factory=dict)
    elite: Mapping[str, int] = field(default_factory=dict)
    green: Mapping[str, int] = field(default_factory=dict)

    def add(self, ap_type: str, n: int, *, elite: bool, green: bool) -> Losses:
        """These losses and ``n`` more APs of ``ap_type`` eliminated."""
        return Losses(
            _plus(self.eliminated, ap_type, n),
            _plus(self.elite, ap_type, n) if elite else self.elite,
            _plus(self.green, ap_type, n) if green else self.green,
        )


class ExtendedRangeLosses(Fact, kind="extended-range-losses"):
    """6.3.3: a type's 1D10 against its extended-range rating, and the APs it lost
    over it (the striker's own)."""

    type: str
    roll: int
    rating: int
    extra: int


def _plus(by_type: Mapping[str, int], ap_type: str, n: int) -> dict[str, int]:
    return {**by_type, ap_type: by_type.get(ap_type, 0) + n}


def settle(r: Resolution, parts: Sequence[LaunchedPart], losses: Losses) -> list[Event]:
    """6.3.3 extended range: eliminations may double on return; then 5.15's return
    roll, and the losses leave the parts' bases. The events told."""
    doubled, told = _extended(r, parts, losses.eliminated)
    eliminated = losses.eliminated
    gone = {t: eliminated.get(t, 0) + doubled.get(t, 0) for t in set(eliminated) | set(doubled)}
    plot = r.strike.plot
    c = r.context
    told += extreme.losses(r.work, plot.side, plot.target.tf, parts, gone, c.secret, c.time)
    elite_losses(r.work, r.strike.side, parts, losses.elite)
    green_losses(r.work, r.strike.side, parts, losses.green)
    return told


def _extended(
    r: Resolution, parts: Sequence[LaunchedPart], eliminated: Mapping[str, int]
) -> tuple[dict[str, int], list[Event]]:
    """6.3.3: each type that lost APs and flew at extended range rolls 1D10 against
    its rating; over it, its losses double. The losses leave the parts' bases in
    order. The extra APs lost by type, and the striker's rolls told."""
    doubled: dict[str, int] = {}
    told: list[Event] = []
    for t, lost in sorted(eliminated.items()):
        if lost < 1:
            continue
        flown = [e for p in parts for e in p.flying if e.type == t]
        extra = 0
        if any(e.extended for e in flown):
            roll = draws.d10(r.context.dice, f"extended range {t}") % 10  # 0 reads zero
            rating = air_unit(r.work.pack, t).air.extended
            if roll > rating:
                extra = min(lost, aps(flown) - lost)
            fact = ExtendedRangeLosses(t, roll, rating, extra)
            told.append(r.tell(fact, [r.strike.side], "6.3.3"))
        doubled[t] = extra
        left = lost + extra
        for p in parts:
            left -= lose(r.work, r.strike.side, p.base, t, min(left, of_type(p.flying, t)))
    return doubled, told


def elite_losses(
    work: Work, side: Side, parts: Sequence[LaunchedPart], lost: Mapping[str, int]
) -> None:
    """7.11.2: the elite APs eliminated leave their bases' elite counts."""
    for t, n in lost.items():
        for p in parts:
            k = min(n, of_type(p.flying, t))
            k = min(k, elite.held(holdings(work, side, p.base), t))
            elite.lose(work, side, p.base, t, k)
            n -= k


def green_losses(
    work: Work, side: Side, parts: Sequence[LaunchedPart], lost: Mapping[str, int]
) -> None:
    """58.2.1: the green APs eliminated leave their bases' green counts."""
    for t, n in lost.items():
        for p in parts:
            k = min(n, training.held(holdings(work, side, p.base), t))
            training.lose(work, side, p.base, t, k)
            n -= k
