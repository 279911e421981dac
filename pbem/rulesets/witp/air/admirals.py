"""8.0-8.2, 8.8 carrier admirals in the strikes: who commands a carrier TF, and his
combat ratings, rolled once when battle is joined and kept (R112).

- A TF's carrier admiral is the commander of the force its first operational carrier
  (damage 0-2, 8.2) sailed with, when the pack's Admirals Chart lists him; otherwise
  the TF is leaderless and rolls 1D6 for its Air Rating at each CC check (8.8).
- His ratings are rolled (2D6 on the chart, 8.1) the first time his TF launches a
  strike or flies CAP against one, and kept for the rest of the game (the Coral Sea
  scenario is one battle); the roll is told his own side (8.1: the combat ratings are
  not known before); the enemy sees only their effects.
- 8.1.2 Command Level (R128): the roll takes -1 for each full point (a fraction after
  the first counting whole) the TF's ships' activation points exceed his Cmd, or +1
  for each full point they fall short, at most 5 either way; the Cmd values are the
  pack's, illustrative (the Admirals Charts are not printed).
- Not yet moderated: subordinate admirals (8.2.1), promotion and demotion (8.6-8.7).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Annotated

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.rulesets.witp.air import coordination
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.ships import CARRIER_TYPES, afloat
from pbem.rulesets.witp.air.tables import ADMIRALS, Pack, value
from pbem.rulesets.witp.datapack import class_values
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import ABSENT, FLAT, OPTIONAL
from pbem.rulesets.witp.taskforces import Parts, task_forces
from pbem.rulesets.witp.work import Work

OPERATIONAL = 2  # 8.2: a carrier at damage level 0, 1 or 2
MAX_COMMAND_DRM = 5  # 8.1.2: at most 5 either way


class AdmiralRatings(Fact, kind="admiral-ratings"):
    """8.1, R112: the admiral's combat ratings, rolled for his TF ``tf`` (his own
    side's, told flat), with the Command Level and its DRM where the chart gives one
    (8.1.2)."""

    tf: str
    ratings: Annotated[Ratings, FLAT]
    command_level: Annotated[float | None, OPTIONAL] = None
    command_drm: Annotated[int | None, OPTIONAL] = None


def command_drm(cmd: float | None, cost: float) -> int:
    """8.1.2: -1 a full point of activation cost over the Command Level (a fraction
    after the first full point counts whole), +1 a full point under (fractions
    dropped), at most 5; no Cmd on the chart: none."""
    if cmd is None:
        return 0
    over = cost - float(cmd)
    if over >= 1:
        return -min(MAX_COMMAND_DRM, math.ceil(over))
    return min(MAX_COMMAND_DRM, math.floor(-over)) if over <= -1 else 0


def tf_cost(pack: Pack, parts: Parts, side: str, tf: str) -> float:
    """8.1.2: the activation points of the ships afloat in ``side``'s ``tf`` (a class
    without values counts none)."""
    total = 0.0
    entry = task_forces(parts, side).get(tf)
    for s in afloat(parts, side, entry) if entry is not None else ():
        cls = class_values(pack, s.ship_class)
        total += cls.activation_cost if cls else 0.0
    return total


def commander(pack: Pack, parts: Parts, side: str, tf: str) -> str | None:
    """The carrier admiral commanding ``side``'s ``tf`` (None: leaderless, 8.8)."""
    entry = task_forces(parts, side).get(tf)
    if entry is None or entry.dummy:
        return None
    chart = value(pack, ADMIRALS)
    for s in afloat(parts, side, entry):
        if s.type in CARRIER_TYPES and s.damage <= OPERATIONAL:
            name = _force_commander(parts, side, s.force)
            if name in chart:
                return name
    return None


def _force_commander(parts: Parts, side: str, force: str) -> str | None:
    """The commander the side's order of battle names for ``force`` (its private
    ``forces`` items, as the pack gives them), if any."""
    item = parts.part(side).order_of_battle().get(force)
    name = None if item is None else item.value.get("commander")
    return None if name is None else str(name)


def ratings(
    work: Work, side: str, tf: str, dice: Dice, time: str
) -> tuple[Ratings | None, list[Event]]:
    """The admiral's ratings for ``side``'s ``tf``, rolled the first time they are
    needed (8.1); None for a leaderless TF (it rolls at each check, 8.8)."""
    pack = work.pack
    admiral = commander(pack, work, side, tf)
    if admiral is None:
        return None, []
    kept = _kept(work)
    key = f"{side}:{admiral}"
    if key in kept:
        return kept[key], []
    cmd = value(pack, ADMIRALS)[admiral].get("cmd")
    drm = command_drm(cmd, tf_cost(pack, work, side, tf))  # 8.1.2, R128
    r = coordination.rate(pack, admiral, dice, f"{side} {admiral} combat ratings", drm)
    work.put_moderator(work.moderator().put(admiral_ratings={**kept, key: r}))
    fact = AdmiralRatings(tf, r)
    if cmd is not None:
        fact = replace(fact, command_level=cmd, command_drm=drm)
    return r, [work.disclose(fact, [side], time, "8.1")]


def _kept(work: Work) -> dict[str, Ratings]:
    """The ratings rolled so far, by "<side>:<admiral>" (the moderator's, R112; the
    record made on first look, as the stored states have it)."""
    mod = work.moderator()
    if mod.admiral_ratings is ABSENT:
        work.put_moderator(mod.put(admiral_ratings={}))
        return {}
    return dict(mod.admiral_ratings)
