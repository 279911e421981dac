"""7.8.1 a wave's attack: the speed classes in its target ring (the striker's, face
down: by position, type and speed), the ship it targets (the doctrine, R92, from
what the striker was told; its identity then told, 7.2.1), the admiral's column
shift and DRM (8.1.5), 42.4.3 Planes on Deck's Naval CRT shift, 38.3.1 the in-port
surprise, and the attack itself, told to both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated

from pbem.core.events import Event
from pbem.rulesets.witp.air import attack, display, magic, port
from pbem.rulesets.witp.air.attack import ShipAttack
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.ships import set_damage
from pbem.rulesets.witp.air.strike.launch import Launch
from pbem.rulesets.witp.air.strike.placement import Display
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.air.strike.waves import Approach, Wave
from pbem.rulesets.witp.air.tables import Pack
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.located import on_map
from pbem.rulesets.witp.records import FLAT, OPTIONAL, Record, Wire


@dataclass(frozen=True, slots=True)
class Hit:
    """7.8.1: the ship a wave attacked, its damage level before and after the attack,
    and whether the wave was the first and attacked in the inner ring or the core
    (the AA at a later wave, 10.1)."""

    ship: str
    before: int
    after: int
    inner: bool

    @property
    def damaged(self) -> bool:
        return self.after > self.before


@dataclass(frozen=True, slots=True)
class Onset:
    """What bears on every wave's attack: the waves' sizes (8.1.5), whether no CAP
    attacked a bomber (7.8.1 Step 3 **), the target priority (7.3)."""

    sizes: tuple[int, ...]
    no_cap: bool
    priority: str


class InPortSurprise(Fact, kind="in-port-surprise"):
    """38.3.1: the striker's In-Port Surprise 1D6 before a wave, its DRM and the
    speed-class reduction (both told)."""

    tf: str
    wave: int
    roll: int
    drm: int
    reduction: int


@dataclass(frozen=True, slots=True)
class SpeedSeen(Record):
    """7.8.1 Step 1: a ship in the target ring as the striker is told it, face down:
    its ring and arc, type (None at night: not told) and current speed class."""

    ring: str
    arc: int
    type: Annotated[str | None, OPTIONAL] = field(default=None, kw_only=True)
    speed_class: int


class TargetRingSpeeds(Fact, kind="target-ring-speeds"):
    """7.8.1 Step 1: the ships afloat in a wave's target ring, face down (the
    striker's)."""

    tf: str
    wave: int
    ships: tuple[SpeedSeen, ...]


class ShipTargeted(Fact, kind="ship-targeted"):
    """7.2.1: the ship a wave targets, by its position, type and class: once the wave
    targets it, its identity is told to the striker, who saw it face down before."""

    tf: str
    wave: int
    ring: str
    arc: int
    ship: str
    type: str
    ship_class: Annotated[str, Wire("class")]


class AirSurfaceAttack(Fact, kind="air-surface-attack"):
    """7.8.1 Steps 2-7: one wave's attack on one ship, its every roll and result
    (flat), and the column shifts that bore on it (both told)."""

    tf: str
    attacked: Annotated[ShipAttack, FLAT]
    wave: int
    combined: bool
    no_cap: bool
    admiral: Mapping[str, int]
    surprise: int


def surprise(r: Resolution, launch: Launch, wave: Wave) -> tuple[int, Event]:
    """38.3.1: the striker's In-Port Surprise roll for ``wave``: the speed-class
    reduction, and the event that tells both (open dice)."""
    located = port.located_launcher(on_map(r.work), r.strike.side, launch.parts)
    got = port.surprise(
        r.work.pack, r.context.dice, wave.index, located, f"wave {wave.number} surprise"
    )
    fact = InPortSurprise(r.strike.tf, wave.number, got.roll, got.drm, got.reduction)
    return fact.reduction, r.tell_both(fact, "38.3.1")


def admiral(r: Ratings | None, w: int, sizes: Sequence[int], launch: Launch) -> tuple[int, int]:
    """8.1.5: a column shift and a + DRM for the first wave (the doctrine); a
    negative DRM falls on the largest wave. Carrier strikes only."""
    if r is None or not any(p.carrier for p in launch.parts):
        return 0, 0
    largest = sizes.index(max(sizes)) if sizes else 0
    column = r.column if w == 0 else 0
    drm = r.drm if (r.drm > 0 and w == 0) or (r.drm < 0 and w == largest) else 0
    return column, drm


def choose_target(pack: Pack, seen: Sequence[SpeedSeen]) -> SpeedSeen:
    """The doctrine (R92) from what the striker was told: the type first in 7.3.2's
    order, then the slowest, then the first position."""
    return min(
        seen,
        key=lambda s: (
            display.priority_rank(pack, s.type or "?"),
            s.speed_class,
            s.ring,
            s.arc,
        ),
    )


def attack_wave(
    r: Resolution,
    launch: Launch,
    wave: Wave,
    way: Approach,
    board: Display,
    onset: Onset,
    surprised: int,
) -> tuple[Hit | None, list[Event]]:
    """7.8.1: the wave's attack on the ship it targets in its ring (None when its
    ring on the path holds no ship afloat), and the events told; the ship's damage
    after it is written back to the owner's record."""
    in_ring = board.afloat(display.in_ring(board.positions, way.arcs, way.ring))
    if not in_ring:
        return None, []
    name, told = _target(r, wave, board, in_ring)
    ship, aps, pack = board.ships[name], list(wave.aps), r.work.pack
    column, drm = admiral(r.context.ratings.get(r.strike.side), wave.index, onset.sizes, launch)
    on_deck, told_magic = magic.planes_on_deck(r, wave.number, ship)  # 42.4.3
    told += told_magic
    combined = attack.combined(aps, pack)
    rec = attack.resolve(
        pack,
        ship,
        aps,
        r.context.dice,
        f"wave {wave.number} attack on {name}",
        is_combined=combined,
        no_cap=onset.no_cap,
        column=column,
        drm=drm,
        crt_shift=on_deck,
        surprise=surprised,
        in_port=board.in_port is not None,
    )
    if rec.damage != ship.damage:
        set_damage(r.work, r.strike.owner, r.strike.tf, name, rec.damage)
    shift = {"column": column, "drm": drm}
    fact = AirSurfaceAttack(r.strike.tf, rec, wave.number, combined, onset.no_cap, shift, surprised)
    told.append(r.tell_both(fact, "7.8.1"))
    inner = wave.index == 0 and way.ring in ("inner", "core")
    return Hit(name, ship.damage, rec.damage, inner), told


def _target(
    r: Resolution, wave: Wave, board: Display, in_ring: Sequence[str]
) -> tuple[str, list[Event]]:
    """7.8.1 Step 1: the target ring's speed classes told to the striker, face down;
    the ship the doctrine targets (R92), its identity then told (7.2.1). The ship's
    name and the events told."""
    night, pack, by_name, positions = r.strike.night, r.work.pack, board.ships, board.positions
    named = [
        (
            SpeedSeen(
                positions[n][0],
                positions[n][1],
                type=by_name[n].type,
                speed_class=attack.current_speed_class(pack, by_name[n], 0),
            ),
            n,
        )
        for n in in_ring
    ]
    # face down: told by position, type and speed; the names stay hidden
    named.sort(key=lambda t: (t[0].ring, t[0].arc, str(t[0].type), t[0].speed_class, t[1]))
    seen = [t if not night else replace(t, type=None) for t, _n in named]
    speeds = TargetRingSpeeds(r.strike.tf, wave.number, tuple(seen))
    told = [r.tell(speeds, [r.strike.side], "7.8.1")]
    pick = choose_target(pack, seen)
    name = next(n for t, n in named if t == pick or (night and replace(t, type=None) == pick))
    ship = by_name[name]
    ring, arc = positions[name]
    fact = ShipTargeted(r.strike.tf, wave.number, ring, arc, name, ship.type, ship.ship_class)
    told.append(r.tell(fact, [r.strike.side], "7.2.1"))
    return name, told
