"""7.1 One naval strike, from launch to critical hits: (state, strike, dice) ->
(state, events). Every fact a side learns goes through ``knowledge.disclose`` with
its rule and audience (knowledge.py):

- 5.0 launch: the launching base, or a carrier's launch hex only: both sides;
- 8.1.4 carrier coordination, 9.3 joint-strike availability and 7.10.1 land-based
  torpedo arming (R127): the striker's own rolls;
- 12.0 a plotted strike at the target revealed, and the 12.1 sequence: both;
- 7.1 A the True report on the target: the striker (and owner);
- 7.3 the target priority: both;
- 7.2.1 placement, face down: ring, arc, type, "at least D2" (at night nothing but
  the arc, 14.2.2): the striker;
- 7.1 B the altitudes used and whether each is escorted, no numbers or types: the
  naval player;
- 6.2.2 the strike's exact altitude components, before the AVG fights it: the
  naval player;
- 7.1 B the owner's plotted CAP order and the CAP it placed at each level (R135):
  the owner;
- 6.x air combat, the elements as they fight (R11): both;
- 14.2.3 the PBYs' night contact rolls (R136): both;
- 7.7, 10.1.1 each wave's entry arc and target ring, and through AA its make-up: both;
- 7.8.1 speed classes in the target ring and a ship's identity once targeted: the
  striker; the attacks' dice and results: both;
- 16.7 critical hits: every roll to the owner, a doubles critical to the striker;
- 42.4.1 a Strike Sequence chit and 42.4.3 Planes on Deck, played openly: both;
- 38.3.1 a TF in port, its port and the port's AA, and each wave's surprise roll:
  both;
- 6.3.3 extended-range loss doubling: the striker's own;
- 5.15 the extreme-range return roll: the striker's own (the moderator's stream).

The owner's choices follow the doctrine (rulings.air-doctrine, R92) with each side's
standing ``air_doctrine`` over it; a striker's choice reads only what that side has
been told. Each step of the rules is a module of ``air/strike/``; this one composes
them in the rules' order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Unpack

from pbem.core.dice import Dice
from pbem.core.events import Event
from pbem.rulesets.witp.air import magic, sequencing, strikes, suppression
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.flying import aps
from pbem.rulesets.witp.air.strike.aircombat import air_combat
from pbem.rulesets.witp.air.strike.antiaircraft import aa_fire, peel_off
from pbem.rulesets.witp.air.strike.attacks import Hit, Onset, attack_wave, surprise
from pbem.rulesets.witp.air.strike.cap import raise_cap
from pbem.rulesets.witp.air.strike.contact import contact
from pbem.rulesets.witp.air.strike.damage import critical_hits
from pbem.rulesets.witp.air.strike.launch import Launch, launch
from pbem.rulesets.witp.air.strike.losses import Losses, settle
from pbem.rulesets.witp.air.strike.placement import Display, altitudes, place
from pbem.rulesets.witp.air.strike.plotted import (
    AirStrike,
    Resolution,
    StrikeContext,
    StrikeOptions,
)
from pbem.rulesets.witp.air.strike.waves import Wave, enter, form_waves, night_contact, wave_aps
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.work import Work


def resolve_into(
    work: Work,
    strike: strikes.AirStrike,
    dice: Dice,
    secret: Dice,
    time: str,
    **options: Unpack[StrikeOptions],
) -> list[Event]:
    """Resolve ``strike`` (as plotted, strikeplot.AirPlot's) against its target TF in ``work``
    itself (the round's work area, which a TF moving through a special strike still
    refers to).

    ``dice``: the open stream (every roll here is open but the critical-hit rolls);
    ``secret``: the moderator's stream for the owner's critical-hit rolls (16.7);
    ``options`` (plotted.StrikeOptions):
    ``ratings``: the CTF commanders' rolled ratings by side (none: leaderless, 8.8);
    ``target_plotted``: the target's carriers have a strike plotted this phase (12.0);
    ``cover``: Cover/Naval Cover over the TF that the APAT let through ({type, n,
    elite}, 9.2; ``elite``: how many of them are elite, 7.11);
    ``cover_losses``: filled with the cover's share of the CAP's losses by type
    ({type: [eliminated, aborted, elite eliminated]}, R110: the TF's own fighters
    take them first);
    ``committed``: the TF's fighters flying other missions this phase, by type (5.3);
    ``coastwatcher_alerted``: the TF's AA was alerted by a coastwatcher (10.1);
    ``unlocated_carriers``: 12.3's DRM for the strike sequence;
    ``cap_split``: the owner's plotted CAP shares by level (7.1 B, R135; None: R92).
    CAP aborted here is kept in the owner's ``cap_aborted`` (by TF and type) and flies
    no later CAP this phase (5.1.1, 5.3.6); the caller clears it when the phase ends."""
    context = StrikeContext.of(dice, secret, time, **options)
    return fly(Resolution(work, AirStrike.of(strike), context))


class PlottedStrikeRevealed(Fact, kind="plotted-strike-revealed"):
    """12.0: the target TF's carriers have a strike plotted this phase (both told)."""

    tf: str


class StrikeSequence(Fact, kind="strike-sequence"):
    """12.1: the striker's Strike Sequence 1D6 with the Air-rating DRM (12.2), and
    the result, the order the strikes fly in: told to both."""

    tf: str
    roll: int
    drm: int
    result: str


def sequence_strike(
    work: Work,
    strike: strikes.AirStrike,
    dice: Dice,
    time: str,
    *,
    ratings: Mapping[str, Ratings] | None = None,
    unlocated_carriers: bool = False,
) -> tuple[str, list[Event]]:
    """12.0-12.3: the target's plotted strike revealed to both, the striker's Strike
    Sequence roll with the Air-rating DRM and an Allied Strike Sequence chit's
    (42.4.1); (the result, the events)."""
    ratings = ratings or {}
    side, naval, tf_id = strike.side, strike.target.owner, strike.target.tf
    both = [side, naval]
    events = [work.disclose(PlottedStrikeRevealed(tf_id), both, time, "12.0")]
    chit, played = magic.sequence_drm(work, strike, time)  # 42.4.1
    events += played
    sa, ta = ratings.get(side), ratings.get(naval)
    roll, drm, seq = sequencing.sequence(
        work.pack,
        dice,
        f"strike sequence {tf_id}",
        striker_air=sa.air if sa else None,
        target_air=ta.air if ta else None,
        unlocated_carriers=unlocated_carriers,
        magic_drm=chit,
    )
    events.append(work.disclose(StrikeSequence(tf_id, roll, drm, seq), both, time, "12.1"))
    return seq, events


def fly(r: Resolution) -> list[Event]:
    """7.1 the strike's steps in the rules' order: launch (5.0), sequencing (12.0),
    the True report (7.1 A), placement (7.2), the altitudes (7.1 B), the CAP (5.3)
    and the suppressors (7.9), air combat (6.x), night contact (14.2.3), waves (7.5),
    AA (10.1) and attacks (7.8) wave by wave, critical hits (16.7), the losses
    (6.3.3, 5.15). The events the steps told, in order."""
    c = r.context
    launched, told = launch(r)
    if c.target_plotted:  # 12.0-12.3 against a carrier TF with its own plotted strike
        told += sequence_strike(
            r.work,
            r.strike.plot,
            c.dice,
            c.time,
            ratings=c.ratings,
            unlocated_carriers=c.unlocated_carriers,
        )[1]
    target, events = contact(r)
    board, placed = place(r, target)
    levels, flown = altitudes(r, launched)
    cap, raised = raise_cap(r, target, launched, levels)
    escorts, peeled = peel_off(r, launched, cap)
    fought, combat = air_combat(r, launched, cap, escorts.fighting, levels)
    told += [*events, *placed, flown, *raised, *peeled, *combat]
    survivors = list(fought.survivors)
    if r.strike.night:  # 14.2.3, R136: each US PBY rolls for contact before the display
        survivors, events = night_contact(r, launched, survivors)
        told += events
    waves, events = form_waves(r, survivors)
    told += events
    sizes = tuple(aps(wave) for wave in waves)
    onset = Onset(sizes, fought.no_cap, target.priority)
    escorted = suppression.attach(waves, escorts.peeled)  # 7.9.1: the suppressors' waves
    losses, damaged = fought.losses, {}
    reached_inner = False  # 10.1: a first wave reached the inner ring or the core
    for w, group in enumerate(waves):
        bombers = wave_aps(group)
        if not bombers:
            continue
        wave = Wave(w, tuple(bombers + wave_aps(escorted.get(w, []))), aps(bombers))
        losses, hit, events = _wave(r, launched, board, onset, wave, losses, reached_inner)
        told += events
        if hit is not None and hit.damaged:
            damaged[hit.ship] = hit.before
            board = board.damaged(hit.ship, hit.after)
        reached_inner |= hit is not None and hit.inner
    told += magic.planes_on_deck_unplayed(r, told)  # 42.4.3: the chits stay held
    told += critical_hits(r, board, damaged)
    return told + settle(r, launched.parts, losses)


def _wave(
    r: Resolution,
    launched: Launch,
    board: Display,
    onset: Onset,
    wave: Wave,
    losses: Losses,
    after_inner: bool,
) -> tuple[Losses, Hit | None, list[Event]]:
    """One wave: its entry (7.7.1), its surprise in port (38.3.1), the AA (10.1) and
    its attack (7.8.1). The strike's losses, the ship it attacked, the events told."""
    way, entered = enter(r, wave, board, onset.priority)
    told = [entered]
    surprised = 0
    if board.in_port:
        surprised, rolled = surprise(r, launched, wave)
        told.append(rolled)
    wave, losses, fired = aa_fire(r, wave, way, board, losses, after_inner)
    told += fired
    if not wave.aps:
        return losses, None, told
    hit, attacked = attack_wave(r, launched, wave, way, board, onset, surprised)
    return losses, hit, told + attacked
