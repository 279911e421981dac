"""The two sides of the Pacific War, as both games name them (U.S.N. GEN.SIDES;
War in the Pacific 1.0): the values stored in states, orders and mail."""

from __future__ import annotations

from enum import StrEnum


class Side(StrEnum):
    """A side; a ``str``, so it is stored, compared and printed as its name."""

    JAPANESE = "japanese"
    ALLIED = "allied"

    @property
    def enemy(self) -> Side:
        return Side.ALLIED if self is Side.JAPANESE else Side.JAPANESE


JAPANESE = Side.JAPANESE
ALLIED = Side.ALLIED
SIDES: tuple[Side, ...] = (JAPANESE, ALLIED)  # in the order the rules list them


def enemy_of(side: str) -> Side:
    """The other side of ``side`` (a side's name, as mail and states carry it)."""
    return ALLIED if side == JAPANESE else JAPANESE


def side_named(name: str) -> Side | None:
    """The side called ``name`` (any case), or None: for text a player wrote."""
    try:
        return Side(name.strip().lower())
    except ValueError:
        return None
