"""Dice beyond the six-sided die: 2D10 percentile rolls, blind draws from a cup,
and the moderator's secret stream.

The kernel's ``Dice`` rolls only 1D6 (pbem.core.dice). Air search reads 2D10 as
a percentile ("00" = 100, 13.3); a chit is drawn blindly from a cup (13.5.3).
Both are built here from six-sided dice without bias (rejection sampling).

Secret rolls (chit draws, the owner's report, coastwatcher rolls, Sigint) must
not shift the open rolls that follow them: with one stream, a side could tell
from the next open search roll how many secret draws were made before it. So a
round takes ``SecretDice.from_dice`` once, at its start: exactly twelve 1D6 of
the open stream seed a second stream (SHA-256 over seed, purpose and index) that
only the moderator's steps use. Anyone holding the revealed phase seed can
recompute both.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from pbem.core.dice import Dice, Draw
from pbem.rulesets.witp.moderatorrecords import RoundSeed
from pbem.rulesets.witp.records import ABSENT

if TYPE_CHECKING:
    from pbem.rulesets.witp.work import Work

SEED_DICE = 12  # 6**12 > 2**31 seeds


def d10(dice: Dice, purpose: str) -> int:
    """One ten-sided die, 1-10, from pairs of 1D6 (36 outcomes, 30 kept)."""
    while True:
        v = (dice.d6(purpose) - 1) * 6 + dice.d6(purpose) - 1
        if v < 30:
            return v % 10 + 1


def percentile(dice: Dice, purpose: str) -> int:
    """2D10 read as tens and units, "00" as 100 (13.3): 1-100."""
    tens, units = d10(dice, f"{purpose} tens") % 10, d10(dice, f"{purpose} units") % 10
    return 100 if tens == units == 0 else tens * 10 + units


def below(dice: Dice, n: int, purpose: str) -> int:
    """A uniform whole number 0..n-1 (a blind draw among ``n``)."""
    if n < 1:
        raise ValueError("nothing to draw from")
    span, digits = 1, 0
    while span < n:
        span, digits = span * 6, digits + 1
    limit = span - span % n
    while True:
        v = 0
        for _ in range(digits):
            v = v * 6 + dice.d6(purpose) - 1
        if v < limit:
            return v % n


class SecretDice:
    """The moderator's stream for secret rolls: a Dice that never touches the open
    stream after its seed is taken."""

    def __init__(self, seed: bytes, label: str) -> None:
        self._seed = seed
        self._label = label
        self._rolls: list[Draw] = []

    @classmethod
    def from_dice(cls, dice: Dice, label: str) -> SecretDice:
        """Seeded from exactly SEED_DICE open 1D6 (constant, whatever follows)."""
        faces = bytes(dice.d6(f"secret stream seed {label}") for _ in range(SEED_DICE))
        return cls(faces, label)

    def d6(self, purpose: str = "") -> int:
        attempt = 0
        while True:
            msg = f"{self._label}|{len(self._rolls)}|{attempt}".encode()
            for byte in hashlib.sha256(self._seed + msg).digest():
                if byte < 252:
                    value = byte % 6 + 1
                    self._rolls.append(Draw(value, purpose))
                    return value
            attempt += 1

    @property
    def rolls(self) -> list[Draw]:
        return list(self._rolls)

    def fork(self, label: str) -> SecretDice:
        """An independent stream for one secret step: its rolls never shift this
        stream's, so a roll that discloses nothing (a coastwatcher that fails)
        cannot change a later draw that is told to a side."""
        return SecretDice(self._seed, f"{self._label}/{label}")


def fork(secret: Dice, label: str) -> Dice:
    """``secret.fork(label)`` for the moderator's stream; any other Dice (a test's
    fixed dice) is used as it is."""
    return secret.fork(label) if isinstance(secret, SecretDice) else secret


def round_seed(work: Work) -> RoundSeed | None:
    """The seed the round took (kept in the moderator's part), if it took one."""
    seed = work.moderator().secret_seed
    return None if seed is ABSENT else seed


def keep_round_seed(work: Work, seed: RoundSeed) -> None:
    work.put_moderator(work.moderator().put(secret_seed=seed))


def take_round_seed(work: Work, dice: Dice, round_name: str) -> None:
    """At a round's start, always: SEED_DICE open 1D6 seed the round's secret stream,
    kept in the moderator's part (the same count of open dice whatever follows)."""
    faces = bytes(dice.d6(f"secret stream seed {round_name}") for _ in range(SEED_DICE))
    keep_round_seed(work, RoundSeed(round_name, faces))


def round_secret(work: Work, label: str) -> SecretDice:
    """The round's secret stream for one step (``label``: the slot's game time), so
    each segment's secret draws are independent of every other's."""
    seed = round_seed(work)
    if seed is None:
        raise KeyError("no secret stream seeded this round")
    return SecretDice(seed.seed, f"{seed.round}/{label}")
