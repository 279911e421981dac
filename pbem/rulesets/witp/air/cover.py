"""5.3.2-5.3.6 plotted Cover CAP and Naval Cover over a strike's target: which
flights cover it, their one Air Point Availability roll an Air Phase, and which
flight the CAP's losses fall on (R110).

- Cover CAP over a hex intercepts every enemy strike plotted against that hex
  (5.3.2), so at any of the owner's TFs there; Naval Cover only its own TF (5.3);
- the APAT roll is made once an Air Phase a mission, before its first combat,
  whatever the number of strikes (5.3.3; Naval Cover "the same", 5.3.4), with no
  shift for Cover CAP and 2R for Naval Cover (the pack's apat shifts);
- a type's CAP losses fall on the TF's own fighters first, then on the covering
  flights in the order plotted (R110: the text leaves the choice open); a covering
  AP eliminated or aborted flies no more cover that Air Phase (5.3.6);
- cover launched from a carrier TF first passes its carrier coordination check
  (5.3.6 "eligible via the carrier coordination (8.1.4) process", R120);
- Army-type fighters on Naval Cover take a negative DRM: one 2D6 a side an Air
  Phase, its shortfall under each type's number in the pack (5.3.4, R121);
- plotted Cover CAP over a hex held solely by the enemy is rolled as non-plotted
  cover, 2R (5.3.3, R122);
- Naval Cover not eliminated nor aborted accompanies its TF through the following
  Naval Phase, within its extended range of its base (5.3.4, 9.2, R124);
- emergency cover (``EMERGENCY`` lines) flies only over the owner's TF or hex when
  a strike comes, rolled at each strike as if it were the first, 2R over a hex and
  4R over a TF (5.3.5, 5.3.6, R122).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pbem.core.dice import Dice
from pbem.rulesets.witp.air import availability
from pbem.rulesets.witp.air.coordination import Launch
from pbem.rulesets.witp.air.strikes import CoverFlight, CoverKind
from pbem.rulesets.witp.air.tables import ARMY_FIGHTERS, Pack, air_unit, value
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import FLAT, OPTIONAL

MISSION = {
    "cover": "plotted-cover",
    "naval-cover": "plotted-naval-cover",
    "emergency-cover": "emergency-cover",  # 5.3.5: 2R
    "emergency-naval-cover": "emergency-naval-cover",  # 5.3.5: 4R
}
RULE = {
    "cover": "5.3.3",
    "naval-cover": "5.3.4",
    "emergency-cover": "5.3.5",
    "emergency-naval-cover": "5.3.5",
}
NAVAL = frozenset({"naval-cover", "emergency-naval-cover"})
EMERGENCY = frozenset({"emergency-cover", "emergency-naval-cover"})


class CoverAvailability(Fact, kind="cover-availability"):
    """5.3.3-5.3.5: one flight's APAT roll, told its owner: ``of`` APs launched,
    ``available`` over the target; ``tf`` the TF it covers (None: over a base, R123)."""

    tf: Annotated[str | None, OPTIONAL]
    cover: str
    over: str
    type: str
    mission: str
    mp: int
    roll: int
    drm: int
    percent: int
    available: int
    of: int


class CoverCoordination(Fact, kind="cover-coordination"):
    """5.3.6, 8.1.4, R120: a carrier TF's cover through its coordination check (the
    check's rolls and what launched, told flat), told its owner."""

    tf: str
    cover: str
    air_rating: int
    launch: Annotated[Launch, FLAT]

    @classmethod
    def of(cls, tf: str, cover: str, air_rating: int, cc: Launch) -> CoverCoordination:
        return cls(tf, cover, air_rating, cc)


class ArmyNavalCoverRoll(Fact, kind="army-naval-cover-roll"):
    """5.3.4, R121: the side's one 2D6 an Air Phase for its Army-type Naval Cover."""

    roll: int


class CoverNotFlown(Fact, kind="cover-not-flown"):
    """5.3.3, R122: a covering flight that did not fly, and why."""

    cover: str
    why: str


def over(flight: CoverFlight, tf: str, hexid: str) -> bool:
    """Does the plotted ``flight`` cover the owner's TF ``tf`` standing in ``hexid``?"""
    if flight.kind in NAVAL:
        return flight.over == tf
    return flight.over_hex == hexid


def emergency(flight: CoverFlight) -> bool:
    """5.3.5, R122: emergency cover, rolled anew at each strike it meets."""
    return flight.kind in EMERGENCY


ENEMY_HELD = "emergency-cover"  # 5.3.3: over a solely enemy-held hex, the non-plotted 2R


def mission_of(flight: CoverFlight, enemy_held: bool) -> str:
    """The APAT shift key of a plotted flight: Cover CAP over a hex held solely by
    the enemy uses the non-plotted procedure (5.3.3, R122)."""
    if flight.kind == CoverKind.COVER and enemy_held:
        return ENEMY_HELD
    return MISSION[flight.kind]


def army_number(pack: Pack, ap_type: str) -> int | None:
    """5.3.4: an Army-type fighter's Naval Cover number (the pack's); None: not Army-type."""
    got = value(pack, ARMY_FIGHTERS).get(ap_type)
    return None if got is None else int(got)


def army_drm(number: int, roll: int) -> int:
    """5.3.4, R121: the side's one 2D6 short of the type's number, as a negative DRM."""
    return -max(0, number - roll)


def roll(
    pack: Pack,
    flight: CoverFlight,
    dice: Dice,
    *,
    n: int | None = None,
    mission: str | None = None,
    drm: int = 0,
) -> tuple[int, CoverAvailability]:
    """(APs over the target, the roll as its owner is told it, over no TF yet) for one
    plotted flight; ``n``: the APs launched (a carrier's coordination may cut them, R120)."""
    kind = flight.kind.value
    mission = mission or MISSION[kind]
    launched = flight.n if n is None else n
    got, dr, pct = availability.available(
        pack, launched, flight.mp, mission, dice, f"{kind} {flight.id}", drm
    )
    told = CoverAvailability(
        None, flight.id, flight.over, flight.type, mission, flight.mp, dr, drm, pct, got, launched
    )
    return got, told


def split(lost: int, flights: Sequence[int]) -> list[int]:
    """``lost`` APs of one type spread over the covering flights (APs each), in order."""
    out = []
    for n in flights:
        k = min(n, lost)
        out.append(k)
        lost -= k
    return out


def own_first(own: int, eliminated: int, aborted: int) -> tuple[int, int, int, int]:
    """One CAP stack's losses: (own eliminated, own aborted, cover eliminated, cover
    aborted), the TF's own ``own`` fighters taking them first (R110)."""
    e_own = min(own, eliminated)
    a_own = min(own - e_own, aborted)
    return e_own, a_own, eliminated - e_own, aborted - a_own


def accompanies(pack: Pack, flight: CoverFlight, mp: int) -> bool:
    """5.3.4, R124: Naval Cover stays over its moving TF up to its extended range,
    ``mp`` the distance from its base to the TF's hex."""
    return mp <= air_unit(pack, flight.type).range.extended
