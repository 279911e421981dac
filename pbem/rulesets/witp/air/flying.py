"""The strike in the air as typed values: ``FlyingElement``, n APs of one type flying
one role at one altitude with the marks the rules put on them on the way, and
``LaunchedPart``, one base's part of a strike as it launched (5.0, 5.10).

An element starts as the plot's ``AirElement`` (5.0, 5.3.1) and is changed with
``dataclasses.replace`` as the rules go: cut by carrier coordination (8.1.4), the
APAT (9.3) or torpedo arming (7.10.1); split into its elite (7.11), green (58.2.1)
and AVG (6.2.3) APs; peeled off to suppress AA (7.9); told which part it flew from
once its part's bombers go on alone (6.1.1); given its AA mode and attack altitude
as its wave enters the display (10.1, 7.8.1). A ``FlyingElement`` is an
``AirElement`` with marks: its JSON (``to_json``) is the plot's keys, then each mark
only when set.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Annotated, Self

from pbem.rulesets.witp.air.strikes import AirElement, StrikePart
from pbem.rulesets.witp.records import OPTIONAL

NORMAL = "normal"  # 5.15: the range most strikes fly


@dataclass(frozen=True, slots=True)
class FlyingElement(AirElement):
    """n APs of one type in the air (see the module's docstring): the plot's
    ``AirElement`` (``role`` "F" for a fighter's CAP or escort) with the marks:
    ``elite`` (7.11), ``green`` (58.2.1), ``avg`` (6.2.3), ``suppressing`` (7.9.1),
    the part it flew from (``base``, ``hex``, ``carrier``) and, in a wave, its
    ``aa_mode`` (10.1) and ``attack_alt`` (7.8.1)."""

    elite: Annotated[bool, OPTIONAL] = False
    green: Annotated[bool, OPTIONAL] = False
    avg: Annotated[bool, OPTIONAL] = False
    suppressing: Annotated[bool, OPTIONAL] = False
    base: Annotated[str | None, OPTIONAL] = None
    hex: Annotated[str | None, OPTIONAL] = None
    carrier: Annotated[bool | None, OPTIONAL] = None
    aa_mode: Annotated[str | None, OPTIONAL] = None
    attack_alt: Annotated[str | None, OPTIONAL] = None
    # 10.1.3: a level bomber attacking below its rated altitude (the AA's 1R); no
    # rule sets it yet
    below_rating: Annotated[bool, OPTIONAL] = False

    @classmethod
    def of(cls, e: AirElement) -> Self:
        """The plotted element as it takes off, unmarked."""
        plotted = AirElement.keys()
        return cls(**{name: getattr(e, name) for name in plotted})

    @classmethod
    def fighters(cls, ap_type: str, n: int, alt: str, flown: str = NORMAL) -> Self:
        """Fighters flying CAP (5.3) at ``alt``."""
        return cls(ap_type, n, "F", alt, range=flown)

    @property
    def flown(self) -> str:
        """5.15: the range it flies: normal, extended or extreme."""
        return self.range or NORMAL

    @property
    def extended(self) -> bool:
        """Beyond its normal range (6.3.3: its extended rating applies)."""
        return self.flown != NORMAL

    def from_part(self, part: LaunchedPart) -> Self:
        """This element told the part it flew from (its base, hex and carrier)."""
        return replace(self, base=part.base, hex=part.hex, carrier=part.carrier)


def aps(group: Iterable[FlyingElement]) -> int:
    """How many APs ``group`` flies."""
    return sum(e.n for e in group)


def of_type(group: Iterable[FlyingElement], ap_type: str) -> int:
    """How many APs of ``ap_type`` ``group`` flies."""
    return sum(e.n for e in group if e.type == ap_type)


@dataclass(frozen=True, slots=True)
class LaunchedPart:
    """5.0, 5.10: one base's part of a strike as it launched: the plotted part (its
    base, launch hex, carrier, MP, APAT) with the bombers and escorts that flew."""

    plotted: StrikePart
    elements: tuple[FlyingElement, ...]
    escorts: tuple[FlyingElement, ...]

    @classmethod
    def of(cls, part: StrikePart) -> LaunchedPart:
        """The plotted part, every element taking off."""
        return cls(
            part,
            tuple(FlyingElement.of(e) for e in part.elements),
            tuple(FlyingElement.of(e) for e in part.escorts),
        )

    @property
    def base(self) -> str:
        return self.plotted.base

    @property
    def hex(self) -> str | None:
        return self.plotted.hex

    @property
    def carrier(self) -> bool:
        return self.plotted.carrier

    @property
    def mp(self) -> int:
        return self.plotted.mp

    @property
    def flying(self) -> tuple[FlyingElement, ...]:
        """Its bombers, then its escorts."""
        return self.elements + self.escorts
