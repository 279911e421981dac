"""3.2 Determining Initiative, for the Air Phases' Strike Segments and the Naval
Phases' Execution Segments.

"Both sides roll 1D6. The side with the higher DR has the choice of moving first
or second. In the case of ties, roll again." The rolls are open. The winner's
choice comes from the game's ruling (docs/witp-rulings.md R3, kept in data) until
players file it as a standing order; Magic (42.4.3) may later take it over.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbem.core.dice import Dice
from pbem.core.errors import AdjudicationError
from pbem.core.sides import SIDES, Side, enemy_of
from pbem.rulesets.witp.knowledge import Fact

FIRST, SECOND = "first", "second"
MAX_TIES = 100  # a run of 100 ties has probability 6^-100: a broken Dice, not luck


@dataclass(frozen=True, slots=True)
class Initiative:
    winner: Side  # the side with the higher DR
    rolls: tuple[tuple[int, int], ...]  # (japanese, allied), ties first
    choice: str  # FIRST or SECOND: what the winner chose
    first: Side  # the side that moves (or strikes) first


class InitiativeDetermined(Fact, kind="initiative"):
    """3.2: a segment's open initiative dice and what they decided, told to both sides."""

    segment: str  # the segment's title, e.g. "Strike Segment"
    winner: Side
    rolls: tuple[tuple[int, int], ...]
    choice: str
    first: Side

    @classmethod
    def of(cls, segment: str, result: Initiative) -> InitiativeDetermined:
        return cls(segment, result.winner, result.rolls, result.choice, result.first)


def determine(dice: Dice, purpose: str, choice: str = SECOND) -> Initiative:
    """Roll 3.2's dice for ``purpose`` (the segment, for the audit trail) and apply
    the winner's ``choice``."""
    if choice not in (FIRST, SECOND):
        raise ValueError(f"initiative choice must be {FIRST} or {SECOND}, not {choice!r}")
    rolls: list[tuple[int, int]] = []
    for _ in range(MAX_TIES):
        j, a = (dice.d6(f"initiative {purpose} {side}") for side in SIDES)
        rolls.append((j, a))
        if j != a:
            winner = SIDES[0] if j > a else SIDES[1]
            first = winner if choice == FIRST else enemy_of(winner)
            return Initiative(winner, tuple(rolls), choice, first)
    raise AdjudicationError(f"initiative {purpose}: {MAX_TIES} ties in a row")
