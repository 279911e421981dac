"""5.0, 7.1: a naval strike as plotted, the phase around it, and the resolution the
strike's steps share (the round's working state, every fact told through
``knowledge.disclose``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.core.sides import Side
from pbem.rulesets.witp.air import strikes
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.tables import DOCTRINE, value
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.located import on_map
from pbem.rulesets.witp.markers import LocatedChit
from pbem.rulesets.witp.records import ABSENT, Record
from pbem.rulesets.witp.standingplay import standing
from pbem.rulesets.witp.work import Work


@dataclass(frozen=True)
class AirDoctrine(Record):
    """R92 (rulings.air-doctrine): how a side's air choices are made for it, each
    within the rules it stands for."""

    target_priority: str  # 7.3
    waves: str  # 7.5, 7.6
    target_ring: str  # 10.1.1
    cap_altitudes: str  # 6.1.1
    cap_attacks: str  # 6.1.1
    allocate: str  # 7.8
    deploy: str  # 7.2.1-7.2.4
    cancel_second_cc: bool  # 8.1.4


def doctrine(work: Work, side: str) -> AirDoctrine:
    """The air doctrine (rulings.air-doctrine, R92) with ``side``'s standing
    ``air_doctrine`` over it: how that side's choices are made for it."""
    base = value(work.pack, DOCTRINE)
    chosen = standing(work, Side(side)).air_doctrine
    return AirDoctrine.from_json(base if chosen is ABSENT else {**base, **chosen})


@dataclass(frozen=True, slots=True)
class AirStrike:
    """A naval strike as plotted (5.0, 7.1): the striker, its target TF and the
    plotted strike (air/strikes.py) the air rules read."""

    side: Side
    owner: Side  # the target TF's: the naval player
    tf: str
    hex: HexId
    night: bool  # 14.2
    priority: str | None  # 7.3: plotted, or None (the doctrine chooses, R92)
    plot: strikes.AirStrike

    @classmethod
    def of(cls, plot: strikes.AirStrike) -> AirStrike:
        target = plot.target
        return cls(
            side=plot.side,
            owner=target.owner,
            tf=target.tf,
            hex=HexId(target.hex),
            night=plot.night,
            priority=plot.priority,
            plot=plot,
        )

    @property
    def both(self) -> list[Side]:
        """The striker and the naval player: the audience of what both see."""
        return [self.side, self.owner]


@dataclass(frozen=True, slots=True)
class Covering:
    """A covering flight over the strike's target (9.2, R110): its APs of one type
    up, of them the elite (7.11), and whether they are the AVG's P-40s (6.2.3)."""

    type: str
    n: int
    elite: int = 0
    avg: bool = False


class StrikeOptions(TypedDict, total=False):
    """What a caller may bring to one strike (``naval_strike.resolve_into`` says what)."""

    ratings: Mapping[str, Ratings] | None
    target_plotted: bool
    cover: Sequence[Covering]
    cover_losses: dict[str, list[int]] | None
    committed: Mapping[str, int] | None
    coastwatcher_alerted: bool
    unlocated_carriers: bool
    cap_split: Mapping[str, int] | None


@dataclass(frozen=True, slots=True)
class StrikeContext:
    """The phase around one strike: the dice, and what the air rules of the round
    bring to it (``naval_strike.resolve_into`` says what each is)."""

    dice: Dice  # the open stream
    secret: Dice  # the moderator's stream (16.7, 5.15)
    time: str
    ratings: Mapping[str, Ratings] = field(default_factory=dict)  # 8.1, 8.8
    target_plotted: bool = False  # 12.0
    cover: Sequence[Covering] = ()  # 9.2, 7.11
    cover_losses: dict[str, list[int]] | None = None  # R110: filled for the caller
    committed: Mapping[str, int] = field(default_factory=dict)  # 5.3
    coastwatcher_alerted: bool = False
    unlocated_carriers: bool = False  # 12.3
    cap_split: Mapping[str, int] | None = None  # 7.1 B, R135

    @classmethod
    def of(
        cls, dice: Dice, secret: Dice, time: str, **options: Unpack[StrikeOptions]
    ) -> StrikeContext:
        """The context of a strike from a caller's options (None: none given)."""
        return cls(
            dice,
            secret,
            time,
            ratings=options.get("ratings") or {},
            target_plotted=options.get("target_plotted", False),
            cover=tuple(options.get("cover", ())),
            cover_losses=options.get("cover_losses"),
            committed=options.get("committed") or {},
            coastwatcher_alerted=options.get("coastwatcher_alerted", False),
            unlocated_carriers=options.get("unlocated_carriers", False),
            cap_split=options.get("cap_split"),
        )


@dataclass(frozen=True, slots=True)
class Resolution:
    """One strike being resolved on ``work``, the round's work area the caller
    owns. Each step returns the events it told with its result; ``fly`` composes
    them in the rules' order."""

    work: Work
    strike: AirStrike
    context: StrikeContext

    @property
    def located(self) -> dict[str, LocatedChit]:
        """The Located chits on the map (13.7.5), by "<owner>:<tf>"."""
        return on_map(self.work)

    def tell(self, fact: Fact, audience: Sequence[str], rule: str) -> Event:
        """Disclose ``fact`` to ``audience`` under ``rule`` at the strike's time: the
        event that tells it."""
        return self.work.disclose(fact, audience, self.context.time, rule)

    def tell_both(self, fact: Fact, rule: str) -> Event:
        return self.tell(fact, self.strike.both, rule)
