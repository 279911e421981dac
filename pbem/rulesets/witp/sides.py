"""The two sides of War in the Pacific: the names stored in states and mail."""

from __future__ import annotations

JAPANESE = "japanese"
ALLIED = "allied"
SIDES: tuple[str, ...] = (JAPANESE, ALLIED)  # in the order the rules list them


def enemy_of(side: str) -> str:
    return ALLIED if side == JAPANESE else JAPANESE
