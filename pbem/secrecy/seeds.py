"""Phase seeds for the verifiable dice: drawn at phase open, committed, revealed after.

The seed is sealed with the plot key (so a database reader cannot predict the
dice) and its SHA-256 goes out in the phase announcement.
"""

from __future__ import annotations

import os

from pbem.core.dice import seed_commitment
from pbem.secrecy.plots import seal, unseal

SEED_BYTES = 32


def new_seed() -> bytes:
    return os.urandom(SEED_BYTES)


def seal_seed(key: bytes, seed: bytes, *, game: str, phase_id: int) -> bytes:
    return seal(key, seed, game=game, phase_id=phase_id, side="#seed")


def unseal_seed(key: bytes, blob: bytes, *, game: str, phase_id: int) -> bytes:
    return unseal(key, blob, game=game, phase_id=phase_id, side="#seed")


__all__ = ["SEED_BYTES", "new_seed", "seal_seed", "seed_commitment", "unseal_seed"]
