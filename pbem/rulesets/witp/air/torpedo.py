"""7.10 Land-based torpedo arming: at launch, 1D10 a block (0 = ten) x 10% of the
torpedo-capable APs of that block present at the base within torpedo range may
carry torpedoes, rounded to the nearest (.5 up); the chart's DRMs are the pack's.
Trained carrier-based APs are always armed (7.10 note). At launch (``arm``, R127)
a land base's torpedo bombers beyond the APs it may arm fly as level bombers; an elite
majority among the base's torpedo-capable APs takes the chart's DRM (7.11.5: the
night elite count too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from pbem.core.dice import Dice
from pbem.core.sides import Side
from pbem.rulesets.witp import draws
from pbem.rulesets.witp.air import elite
from pbem.rulesets.witp.air.flying import FlyingElement, LaunchedPart
from pbem.rulesets.witp.air.ships import air_at, holdings
from pbem.rulesets.witp.air.tables import TORPEDO, Pack, air_unit, known_type, rounded, value
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.work import Work


def armed(
    pack: Pack,
    present: int,
    dice: Dice,
    purpose: str,
    conditions: tuple[str, ...] = (),
) -> tuple[int, int, int]:
    """(APs that may carry torpedoes, the 1D10, the DRM) for one block at one base."""
    drms = value(pack, TORPEDO)["drms"]
    drm = sum(int(drms.get(c, 0)) for c in conditions)
    roll = draws.d10(dice, purpose)
    pct = 10 * min(10, max(1, roll + drm))
    return min(present, rounded(present * pct / 100)), roll, drm


def capable(pack: Pack, ap_type: str) -> bool:
    """A type that may carry torpedoes (a T anti-ship rating)."""
    return known_type(pack, ap_type) and "T" in air_unit(pack, ap_type).anti_ship


def _present(pack: Pack, air: Mapping[str, int], mp: int) -> dict[str, int]:
    """7.10.1 Notes: the base's torpedo-capable APs within torpedo range, by type
    (whether or not they fly in the strike)."""
    return {
        t: int(n)
        for t, n in air.items()
        if int(n) > 0 and capable(pack, t) and mp <= air_unit(pack, t).torpedo_range
    }


def elite_majority(present: Mapping[str, int], best: Mapping[str, int]) -> bool:
    """7.10, 7.11.5, R127: more than half the APs present are elite (the chart's
    "percentage of elite"; half is no majority, as R114)."""
    total = sum(present.values())
    return 2 * sum(min(n, int(best.get(t, 0))) for t, n in present.items()) > total


class TorpedoArming(Fact, kind="torpedo-arming"):
    """7.10.1, R127: a land base's torpedo arming roll at launch, the striker's own:
    of ``plotted`` torpedo APs, ``armed`` carry torpedoes."""

    base: str
    present: int
    elite_majority: bool
    roll: int
    drm: int
    may_arm: int
    plotted: int
    armed: int


def arm(
    pack: Pack,
    air: Mapping[str, int],
    best: Mapping[str, int],
    part: LaunchedPart,
    dice: Dice,
    purpose: str,
) -> tuple[tuple[FlyingElement, ...], TorpedoArming | None]:
    """7.10.1 at launch from a land base (R127): the part's torpedo (T) elements cut to
    the APs the block may arm, in plot order; the rest fly as level bombers (the
    default of 7.10.1) at their rated altitude. ``air``: the base's APs by type,
    ``best``: its elite. None: no torpedoes plotted, nothing rolled."""
    plotted = sum(e.n for e in part.elements if e.role == "T")
    if part.carrier or not plotted:
        return part.elements, None  # 7.10 note: trained carrier groups always carry them
    present = _present(pack, air, part.mp)
    majority = elite_majority(present, best)
    conditions = ("elite_majority",) if majority else ()
    allowed, roll, drm = armed(pack, sum(present.values()), dice, purpose, conditions)
    out, left = [], allowed
    for e in part.elements:
        k = min(e.n, left) if e.role == "T" else e.n
        left -= k if e.role == "T" else 0
        if k:
            out.append(replace(e, n=k))
        if e.n - k:
            rated = air_unit(pack, e.type).air.altitude or e.alt
            out.append(replace(e, n=e.n - k, role="B", alt=rated))
    fact = TorpedoArming(
        part.base,
        sum(present.values()),
        majority,
        roll,
        drm,
        allowed,
        plotted,
        min(allowed, plotted),
    )
    return tuple(out), fact


def at_launch(
    pack: Pack, work: Work, side: Side, part: LaunchedPart, dice: Dice, purpose: str
) -> tuple[tuple[FlyingElement, ...], TorpedoArming | None]:
    """``arm`` for a part launching from ``side``'s base, with its APs and elite."""
    if part.carrier:
        return part.elements, None
    air = air_at(work, side, part.base)
    holders = holdings(work, side, part.base)
    best = {t: elite.held(holders, t) for t in air}
    return arm(pack, air, best, part, dice, purpose)
