"""The two sides of U.S.N. (GEN.SIDES): their names are the values stored in states."""

from __future__ import annotations

from enum import StrEnum


class Side(StrEnum):
    JAPANESE = "japanese"
    ALLIED = "allied"

    @property
    def enemy(self) -> Side:
        return Side.ALLIED if self is Side.JAPANESE else Side.JAPANESE


JAPANESE = Side.JAPANESE
ALLIED = Side.ALLIED
SIDES: tuple[Side, ...] = (JAPANESE, ALLIED)  # in the order the rules list them


def enemy_of(side: str) -> Side:
    return ALLIED if side == JAPANESE else JAPANESE
