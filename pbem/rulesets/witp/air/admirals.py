"""8.0-8.2, 8.8 carrier admirals in the strikes: who commands a carrier TF, and his
combat ratings, rolled once when battle is joined and kept (R112).

- A TF's carrier admiral is the commander of the force its first operational carrier
  (damage 0-2, 8.2) sailed with, when the pack's Admirals Chart lists him; otherwise
  the TF is leaderless and rolls 1D6 for its Air Rating at each CC check (8.8).
- His ratings are rolled (2D6 on the chart, 8.1) the first time his TF launches a
  strike or flies CAP against one, and kept for the rest of the game (the Coral Sea
  scenario is one battle); the roll is told his own side (8.1: the combat ratings are
  not known before); the enemy sees only their effects.
- Not yet moderated: the Command Level DRM (8.1.2: the chart has no Cmd values),
  subordinate admirals (8.2.1), promotion and demotion (8.6-8.7).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.rulesets.witp.air import coordination
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.ships import CARRIER_TYPES, ships_of
from pbem.rulesets.witp.air.tables import ADMIRALS, value
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, PUBLIC, disclose

KEY = "admiral_ratings"  # moderator: {"side:admiral": Ratings.to_json()}
OPERATIONAL = 2  # 8.2: a carrier at damage level 0, 1 or 2


def commander(public: Mapping[str, Any], own: Mapping[str, Any], tf: str) -> str | None:
    """The carrier admiral commanding ``tf`` (None: leaderless, 8.8)."""
    entry = own.get("tfs", {}).get(tf)
    if entry is None or entry.get("dummy"):
        return None
    chart = value(public, ADMIRALS)
    for s in ships_of(own, entry):
        if s.get("type") in CARRIER_TYPES and int(s.get("damage", 0)) <= OPERATIONAL:
            force = own.get("forces", {}).get(str(s.get("force", "")), {})
            name = force.get("value", {}).get("commander")
            if name in chart:
                return str(name)
    return None


def ratings(
    state: dict[str, Any], side: str, tf: str, dice: Dice, time: str
) -> tuple[Ratings | None, list[Event]]:
    """The admiral's ratings for ``side``'s ``tf``, rolled the first time they are
    needed (8.1); None for a leaderless TF (it rolls at each check, 8.8)."""
    public, own = state[PUBLIC], state[PRIVATE][side]
    admiral = commander(public, own, tf)
    if admiral is None:
        return None, []
    kept = state.setdefault(MODERATOR, {}).setdefault(KEY, {})
    key = f"{side}:{admiral}"
    if key in kept:
        return Ratings(**kept[key]), []
    r = coordination.rate(public, admiral, dice, f"{side} {admiral} combat ratings")
    kept[key] = r.to_json()
    fact = {"kind": "admiral-ratings", "tf": tf, **r.to_json()}
    return r, [disclose(state, fact, [side], time, "8.1")]
