"""12.0 Strike sequencing: when a strike hits an airbase (a land base or a carrier
TF) whose own APs are plotted to strike this phase, the targeted side reveals that
such a strike exists (12.0) and the striker rolls 1D6 on the Strike Sequence Table.
The result places the incoming strike against the enemy's: "before" arrives before
the target's strike launches and finds its APs on the ground; "simultaneous" and
"after enemy strike" find it launched: it counts as flown (12.2) and is aloft. A
favourable DRM is negative on one's own roll (12.3.1), so low rolls favour the
striker (ruling R95). In a carrier battle each whole multiple of 2 between the CTF
commanders' Air Ratings is a DRM of 1 for the better; a strike from carrier TFs not
located before this Air Phase takes the negative DRM (12.4). Three or more carrier
strikes are ranked by their admirals' Air Ratings (12.3.2, ``rank``); the strikes
flown at each other go before or after the rest, as the winner of an initiative roll
chooses (12.3.2 Step 2, ``reciprocal``, ``step_two``, R125).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.sides import SIDES
from pbem.rulesets.witp import draws, initiative
from pbem.rulesets.witp.air.choices import RECIPROCAL_DEFAULT
from pbem.rulesets.witp.air.strikes import AirStrike
from pbem.rulesets.witp.air.tables import SEQUENCE, SEQUENCE_DRM, Pack, value
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.work import Work

BEFORE, SIMULTANEOUS, AFTER = "before", "simultaneous", "after"


def air_rating_drm(pack: Pack, striker_air: int, target_air: int) -> int:
    """12.3.1: the DRM on the striker's roll (negative favours the striker)."""
    per = int(value(pack, SEQUENCE_DRM)["per"])
    diff = striker_air - target_air
    return -(abs(diff) // per) if diff > 0 else abs(diff) // per


def result(pack: Pack, roll: int) -> str:
    """12.1: the incoming strike relative to the target's plotted one."""
    t = value(pack, SEQUENCE)
    if roll <= int(t["before_at_most"]):
        return BEFORE
    if roll <= int(t["simultaneous_at_most"]):
        return SIMULTANEOUS
    return AFTER


def sequence(
    pack: Pack,
    dice: Dice,
    purpose: str,
    *,
    striker_air: int | None = None,
    target_air: int | None = None,
    unlocated_carriers: bool = False,
    magic_drm: int = 0,
) -> tuple[int, int, str]:
    """(1D6, total DRM, result) for one incoming strike; ``magic_drm``: a Strike
    Sequence chit's (42.4.1)."""
    roll = dice.d6(purpose)
    drm = magic_drm
    if striker_air is not None and target_air is not None:
        drm += air_rating_drm(pack, striker_air, target_air)
    if unlocated_carriers:
        drm += int(value(pack, SEQUENCE)["unlocated_carrier_drm"])
    return roll, drm, result(pack, roll + drm)


def joint_rating(ratings: Sequence[int | None]) -> float | None:
    """12.3.2 Step 1: a strike's admirals' Air Ratings averaged, the lead's (the
    first) counted twice; None: no admiral (leaderless, 8.8)."""
    known = [r for r in ratings if r is not None]
    if not known:
        return None
    lead = ratings[0] if ratings[0] is not None else 0
    return (sum(known) + lead) / (len(known) + (1 if ratings[0] is not None else 0))


def rank(
    strikes: Sequence[tuple[str, str, float | None]], dice: Dice, purpose: str
) -> list[tuple[str, str]]:
    """12.3.2 Steps 1 and 3: (side, strike) highest Air Rating first, irrespective of
    side; equal ratings in the order of a blind draw (the die of Step 3); strikes with
    no admiral last (pbem's, R115)."""
    groups: dict[float, list[tuple[str, str]]] = {}
    for side, sid, air in strikes:
        groups.setdefault(-1.0 if air is None else air, []).append((side, sid))
    out: list[tuple[str, str]] = []
    for air in sorted(groups, reverse=True):
        tied = list(groups[air])
        while tied:
            out.append(tied.pop(draws.below(dice, len(tied), purpose) if len(tied) > 1 else 0))
    return out


Strike = tuple[str, str]  # (side, strike id)


def reciprocal(plotted: Sequence[tuple[str, str, AirStrike]]) -> set[Strike]:
    """12.3.2 Step 2, R125: the carrier strikes flown at each other: a strike is
    reciprocal when an enemy carrier strike launches from its target TF at one of the
    carrier TFs it launches from."""

    def launching(strike: AirStrike) -> set[str]:
        return {p.base for p in strike.parts if p.carrier}

    out: set[Strike] = set()
    for side, sid, s in plotted:
        target = s.target.tf
        for other, oid, o in plotted:
            if other != side and target in launching(o) and o.target.tf in launching(s):
                out |= {(side, sid), (other, oid)}
    return out


def step_two(order: Sequence[Strike], mutual: Collection[Strike], choice: str) -> list[Strike]:
    """12.3.2 Step 2: the reciprocal strikes before (or after) the others, each group
    in Step 3's order."""
    first = [k for k in order if (k in mutual) == (choice == BEFORE)]
    return first + [k for k in order if k not in first]


class ReciprocalStrikes(Fact, kind="reciprocal-strikes"):
    """12.3.2 Step 2, R125: each side's 1D6 on the Day Initiative Table, the winner,
    and the choice filed that orders the strikes (told to both)."""

    rolls: tuple[tuple[int, int], ...]
    winner: str
    choice: str


def play_step_two(
    work: Work,
    plotted: Sequence[tuple[str, str, AirStrike]],
    order: Sequence[Strike],
    choices: Mapping[str, str],
    dice: Dice,
    time: str,
) -> tuple[list[Strike], list[Event]]:
    """12.3.2 Step 2, R125: with reciprocal and other carrier strikes both plotted,
    1D6 each on the Day Initiative Table (3.2's open rolls); the winner's filed
    choice (``RECIPROCAL``; none: before) orders them, told to both."""
    mutual = reciprocal(plotted)
    if not mutual or len(mutual) == len(order):
        return list(order), []  # one kind only: nothing to choose
    won = initiative.determine(dice, "12.3.2 Step 2")
    choice = choices.get(won.winner, RECIPROCAL_DEFAULT)
    fact = ReciprocalStrikes(won.rolls, won.winner, choice)
    return step_two(order, mutual, choice), [work.disclose(fact, SIDES, time, "12.3.2")]
