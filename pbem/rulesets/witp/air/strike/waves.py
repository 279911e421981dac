"""7.5-7.7 the waves: one a launching hex, the primary's joined by another hex's when
7.6.2 allows (the doctrine, R92), at night one AP a wave (14.2.2), after the PBYs'
night contact rolls (14.2.3, R136); each wave's entry arc and target ring (7.7.1,
10.1.1), told to both with its make-up."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated

from pbem.core.events import Event
from pbem.core.sides import JAPANESE
from pbem.rulesets.witp.air import altitude, attack, display
from pbem.rulesets.witp.air import entry as entry_arc
from pbem.rulesets.witp.air import night as night_rules
from pbem.rulesets.witp.air.display import Position
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.ships import lose
from pbem.rulesets.witp.air.strike.launch import Launch
from pbem.rulesets.witp.air.strike.placement import Display
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.hexgrid import distance
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import OPTIONAL, Record, Wire


@dataclass(frozen=True, slots=True)
class Wave:
    """7.5: one wave, ``index`` from 0: its APs, each with its AA mode (10.1) and
    attack altitude (7.8.1), the bombers first, then the suppressors that fly with
    it (7.9.1); ``bombers``: how many of its APs are bombers."""

    index: int
    aps: tuple[FlyingElement, ...]
    bombers: int

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass(frozen=True, slots=True)
class Approach:
    """7.7: the outer arc a wave enters at, its target ring and the arcs on its path."""

    entry: int
    ring: str
    arcs: tuple[Position, ...]


class NightContact(Fact, kind="night-contact"):
    """14.2.3, R136: the PBYs' night contact rolls and those destroyed by type (both told, open dice)."""

    tf: str
    rolls: tuple[night_rules.ContactRoll, ...]
    destroyed: Mapping[str, int]


class WaveCoordination(Fact, kind="wave-coordination"):
    """7.6.2: whether the APs from hex ``origin`` join the primary hex's wave: the
    hexes between them, the primary's distance from the target, the 1D6 if rolled
    (the striker's own)."""

    origin: Annotated[str, Wire("from")]  # a keyword in Python
    primary: str
    between: int
    distance: int
    roll: int | None
    combined: bool


@dataclass(frozen=True, slots=True)
class WaveAps(Record):
    """7.7.1: a wave's element as both are told it: type, APs, role and AA mode."""

    type: str
    n: int
    role: str
    mode: str


class WaveEntry(Fact, kind="wave-entry"):
    """7.7.1, 10.1.1: a wave's entry arc (``rolled``: the 1D6 when its elite chose
    the arc instead), its target ring and its APs ({type, n, role, mode}), both told."""

    tf: str
    wave: int
    entry_arc: int
    rolled: Annotated[int | None, OPTIONAL]
    target_ring: str
    aps: tuple[WaveAps, ...]


def wave_aps(stacks: Sequence[FlyingElement]) -> list[FlyingElement]:
    """The APs of ``stacks`` with their AA mode and attack altitude (7.1 B, 7.8.1)."""
    return [
        replace(
            e,
            aa_mode=altitude.aa_mode(e.role, e.alt),
            attack_alt=altitude.attack_altitude(e.role, e.alt),
        )
        for e in stacks
        if e.n >= 1
    ]


def night_contact(
    r: Resolution, launch: Launch, survivors: Sequence[FlyingElement]
) -> tuple[list[FlyingElement], list[Event]]:
    """14.2.3: the PBYs' contact rolls, told to both (open dice); those destroyed
    leave their base (not air combat nor AA losses: no 6.3.3 doubling). The APs that
    go on, and the events told."""
    mp_of = {p.base: p.mp for p in launch.parts}
    c = night_rules.contact(r.work.pack, survivors, mp_of, r.context.dice)
    if not c.rolls:
        return list(survivors), []
    for roll in c.rolls:
        if roll.result == night_rules.DESTROYED:
            lose(r.work, r.strike.side, roll.base, roll.type, 1)
    fact = NightContact(r.strike.tf, c.rolls, c.destroyed)
    return list(c.going_on), [r.tell_both(fact, "14.2.3")]


def form_waves(
    r: Resolution, survivors: Sequence[FlyingElement]
) -> tuple[list[list[FlyingElement]], list[Event]]:
    """7.5, 7.6 and the doctrine (R92): one wave a launching hex, the primary's
    joined by another hex's when 7.6.2 allows; at night one AP a wave (14.2.2).
    The waves, and the striker's coordination rolls told."""
    if r.strike.night:
        return [[replace(a, n=1)] for a in survivors for _ in range(a.n)], []
    by_hex: dict[str, list[FlyingElement]] = {}
    for a in survivors:
        by_hex.setdefault(str(a.hex), []).append(a)
    if len(by_hex) < 2:
        return list(by_hex.values()), []
    target = str(r.strike.hex)
    order = sorted(by_hex, key=lambda h: (distance(h, target), h))
    primary, waves = order[0], [by_hex[order[0]]]
    a_hexes, told = distance(primary, target), []
    for h in order[1:]:
        b = distance(h, primary)
        roll = r.context.dice.d6(f"coordination {h}") if b > a_hexes else None
        ok = attack.may_combine(a_hexes, b, roll)
        fact = WaveCoordination(h, primary, b, a_hexes, roll, ok)
        told.append(r.tell(fact, [r.strike.side], "7.6.2"))
        if ok:
            waves[0] = waves[0] + by_hex[h]
        else:
            waves.append(by_hex[h])
    return waves, told


def enter(r: Resolution, wave: Wave, board: Display, priority: str) -> tuple[Approach, Event]:
    """7.7.1: the wave's entry arc (1D6, or the elite's choice), its target ring
    (10.1.1) and path (7.7.3); the event that tells both, with the wave's make-up."""
    pack, side, aps = r.work.pack, r.strike.side, list(wave.aps)
    rolled = r.context.dice.d6(f"wave {wave.number} entry")
    entry = entry_arc.choose(
        pack, board.positions, rolled, priority, side, r.strike.plot.entry, aps
    )
    ring = display.target_ring(board.positions, entry, pack, priority)
    arcs = display.path(pack, entry, ring)
    chose = entry_arc.elite_majority(aps) and side == JAPANESE
    made = tuple(WaveAps(a.type, a.n, a.role, str(a.aa_mode)) for a in aps)
    fact = WaveEntry(r.strike.tf, wave.number, entry, rolled if chose else None, ring, made)
    return Approach(entry, ring, tuple(arcs)), r.tell_both(fact, "7.7.1")
