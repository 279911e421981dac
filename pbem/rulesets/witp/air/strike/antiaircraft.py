"""7.9 AA suppression and 10.1 AA fire at a wave: the loose escorts in excess of the
CAP peel off to suppress AA as plotted (the striker's own), fly with the first wave
from their hex and fire before any AA (7.9.1, told to both); then the TF's ships on
the wave's path (and the port's, R131) fire at each AA component (told to both)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated

from pbem.core.events import Event
from pbem.rulesets.witp.air import aa, display, port, suppression
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.strike.cap import Cap
from pbem.rulesets.witp.air.strike.launch import Launch
from pbem.rulesets.witp.air.strike.losses import Losses
from pbem.rulesets.witp.air.strike.placement import Display
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.air.strike.waves import Approach, Wave
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import FLAT
from pbem.rulesets.witp.taskforces import Ship

AA_MODES = ("L", "M", "H", "DB")  # 10.1: the components the AA fires at, in order


class AaSuppression(Fact, kind="aa-suppression"):
    """7.9.1: a wave's suppressors' 2D6 on the Air-to-Air CRT in its target ring: the
    Low and High AA taken off (both told, flat)."""

    tf: str
    wave: int
    rolled: Annotated[suppression.Suppression, FLAT]


class AaFire(Fact, kind="aa-fire"):
    """10.1: the AA at one component of a wave: its strength, column shifts, DRM (and
    why), the 2D6, and the APs eliminated and aborted by type (both told)."""

    tf: str
    wave: int
    component: str
    why: tuple[str, ...]
    fired: Annotated[aa.Fired, FLAT]


@dataclass(frozen=True, slots=True)
class Escorts:
    """7.9: the escorts that fight the CAP, and those peeled off to suppress AA."""

    fighting: tuple[FlyingElement, ...]
    peeled: tuple[FlyingElement, ...]


@dataclass(frozen=True, slots=True)
class Fire:
    """10.1: what holds for every AA component of one wave: the ships that fire, the
    7.9.1 suppression, the small-first-wave DRM and the later-wave note."""

    ships: tuple[Ship, ...]
    suppressed: suppression.Suppression | None
    small_first_wave: int
    after_inner: bool


def peel_off(r: Resolution, launch: Launch, cap: Cap) -> tuple[Escorts, list[Event]]:
    """7.9: loose escorts in excess of the CAP peel off to suppress AA, as plotted;
    the striker told."""
    escorts, peeled, asked = suppression.peel_off(launch.parts, cap.aps)
    ask = replace(asked, tf=r.strike.tf) if asked else None  # the target, now named
    told = [r.tell(ask, [r.strike.side], "7.9")] if ask else []
    return Escorts(tuple(escorts), tuple(peeled)), told


def aa_fire(
    r: Resolution, wave: Wave, way: Approach, board: Display, losses: Losses, after_inner: bool
) -> tuple[Wave, Losses, list[Event]]:
    """10.1 at each component of ``wave`` (7.9.1: the suppressors roll first); the
    wave left to attack (the suppressors attack no ship, 7.9.1, R117), the strike's
    losses with the AA's, and the events told. ``after_inner``: an earlier first
    wave reached the inner ring or the core."""
    pack, night, dice = r.work.pack, r.strike.night, r.context.dice
    if night:
        firers = aa.night_firers(board.positions, way.arcs, way.ring)
    else:
        firers = display.on_path(board.positions, way.arcs)
    small = 0
    if wave.index == 0 and wave.bombers <= 2:
        _pair, small = aa.small_first_wave(dice, "small first wave")
    escorts = [a for a in wave.aps if a.suppressing]
    suppressed, told = None, []
    if escorts:  # 7.9.1: the suppressors fire before any AA
        purpose = f"wave {wave.number} AA suppression"
        suppressed = suppression.roll(pack, escorts, way.ring, dice, purpose)
        fact = AaSuppression(r.strike.tf, wave.number, suppressed)
        told.append(r.tell_both(fact, "7.9.1"))
    ships = tuple(board.ships[n] for n in board.afloat(firers))
    fire = Fire(ships, suppressed, small, after_inner and wave.index > 0)
    aps = list(wave.aps)
    for mode in AA_MODES:
        if any(a.aa_mode == mode and a.n > 0 for a in aps):
            aps, losses, fired = _fire_at(r, wave, mode, aps, fire, board.in_port, losses)
            told.append(fired)
    left = tuple(a for a in aps if a.n > 0 and not a.suppressing)
    return replace(wave, aps=left), losses, told


def _fire_at(
    r: Resolution,
    wave: Wave,
    mode: str,
    aps: list[FlyingElement],
    fire: Fire,
    in_port: str | None,
    losses: Losses,
) -> tuple[list[FlyingElement], Losses, Event]:
    """10.1: the AA at one component; the wave's APs after it, the strike's losses
    and the event that tells both."""
    pack, night = r.work.pack, r.strike.night
    comp = [a for a in aps if a.aa_mode == mode and a.n > 0]
    cols, drm, why = aa.modifiers(
        pack,
        [a for a in aps if not a.suppressing],
        comp,
        night=night,
        later_wave_after_inner=fire.after_inner,
        coastwatcher_alerted=r.context.coastwatcher_alerted,
        small_first_wave_drm=fire.small_first_wave,
    )
    fuse, fused = suppression.proximity(pack, fire.ships, mode)  # 10.1.1
    cut = suppression.reduction(pack, mode, fire.suppressed)
    why += ([fused] if fused else []) + ([f"AA suppressed -{cut}"] if cut else [])
    res = aa.fire(
        pack,
        max(0, aa.strength(pack, fire.ships, mode, night=night) - cut)
        + port.port_fire(pack, in_port, night=night),  # R131: not suppressed
        comp,
        cols,
        drm + fuse,
        r.context.dice,
        f"wave {wave.number} AA {mode}",
    )
    fact = AaFire(r.strike.tf, wave.number, mode, tuple(why), res)
    aps, losses = _aa_losses(aps, mode, res, losses)
    return aps, losses, r.tell_both(fact, "10.1")


def _aa_losses(
    aps: Sequence[FlyingElement], mode: str, res: aa.Fired, losses: Losses
) -> tuple[list[FlyingElement], Losses]:
    """The AA's eliminations and aborts, by type, taken from the component's APs in
    order; the wave's APs after them, and the strike's losses."""
    lost_by, back_by = dict(res.eliminated), dict(res.aborted)
    out = []
    for a in aps:
        if a.aa_mode != mode:
            out.append(a)
            continue
        t = a.type
        lost = min(a.n, lost_by.get(t, 0))
        back = min(a.n - lost, back_by.get(t, 0))
        lost_by[t], back_by[t] = lost_by.get(t, 0) - lost, back_by.get(t, 0) - back
        out.append(replace(a, n=a.n - lost - back))
        losses = losses.add(t, lost, elite=a.elite, green=a.green)
    return out, losses
