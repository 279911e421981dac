"""Dice: every random number a ruleset uses comes from a ``Dice`` it is handed.

``SeededDice`` derives roll *n* of a phase as HMAC-SHA256(seed, game|turn|phase|n),
mapped onto 1..6 by rejection sampling (no modulo bias). The seed is committed
(its SHA-256 published) before orders are in and revealed after adjudication,
so anyone can recompute every roll (GEN.DIE: one six-sided die).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from typing import NamedTuple, Protocol


class Draw(NamedTuple):
    """One die rolled: its value and what it was rolled for (the audit trail's
    line). A tuple, so the record stores it as ``[value, purpose]``."""

    value: int
    purpose: str


class Dice(Protocol):
    def d6(self, purpose: str = "") -> int:
        """Roll one six-sided die. ``purpose`` is recorded for the audit trail."""
        ...

    @property
    def rolls(self) -> list[Draw]:
        """Every roll so far, in order, as (value, purpose)."""
        ...


def seed_commitment(seed: bytes) -> str:
    """What is published before the phase: SHA-256 of the secret seed, hex."""
    return hashlib.sha256(seed).hexdigest()


def derive_roll(seed: bytes, game: str, turn: int, phase: str, index: int) -> int:
    """Roll number ``index`` (0-based) of a phase, 1..6, recomputable by anyone."""
    attempt = 0
    while True:
        msg = f"pbem-dice-v1|{game}|{turn}|{phase}|{index}|{attempt}".encode()
        digest = hmac.new(seed, msg, hashlib.sha256).digest()
        for byte in digest:
            if byte < 252:  # 252 = 6 * 42: uniform over 0..251
                return byte % 6 + 1
        attempt += 1


class SeededDice:
    """Deterministic, verifiable dice for one phase of one game."""

    def __init__(self, seed: bytes, game: str, turn: int, phase: str) -> None:
        self._seed = seed
        self._game = game
        self._turn = turn
        self._phase = phase
        self._rolls: list[Draw] = []

    def d6(self, purpose: str = "") -> int:
        value = derive_roll(self._seed, self._game, self._turn, self._phase, len(self._rolls))
        self._rolls.append(Draw(value, purpose))
        return value

    @property
    def rolls(self) -> list[Draw]:
        return list(self._rolls)


class ScriptedDice:
    """Dice that return given values in order: for tests and rulebook examples."""

    def __init__(self, values: Iterable[int]) -> None:
        self._values = list(values)
        self._rolls: list[Draw] = []

    def d6(self, purpose: str = "") -> int:
        if len(self._rolls) >= len(self._values):
            raise IndexError(f"ScriptedDice ran out after {len(self._rolls)} rolls ({purpose})")
        value = self._values[len(self._rolls)]
        if not 1 <= value <= 6:
            raise ValueError(f"scripted die value {value} is not 1..6")
        self._rolls.append(Draw(value, purpose))
        return value

    @property
    def rolls(self) -> list[Draw]:
        return list(self._rolls)
