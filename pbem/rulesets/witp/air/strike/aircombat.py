"""6.x air combat over the target TF, level by level (7.1 B): the CAP against the
loose and close escorts and the bombers (6.1.1, the elements as they fight told to
both, R11); the CAP's losses fall on the TF's own fighters first (R110), its aborts
fly no later CAP this phase (5.1.1, 5.3.6); the surviving bombers go on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Annotated

from pbem.core.events import Event
from pbem.rulesets.witp.air import altitude, combat, elite, training
from pbem.rulesets.witp.air import cover as cover_rules
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.ships import ground, lose
from pbem.rulesets.witp.air.strike.cap import Cap
from pbem.rulesets.witp.air.strike.launch import Launch
from pbem.rulesets.witp.air.strike.losses import Losses
from pbem.rulesets.witp.air.strike.plotted import Resolution
from pbem.rulesets.witp.air.tables import Pack, air_unit
from pbem.rulesets.witp.knowledge import Fact
from pbem.rulesets.witp.records import FLAT, Record


@dataclass(frozen=True, slots=True)
class AirCombat:
    """6.x: the bombers that go on (each element with its part's base, hex and
    carrier), whether no CAP attacked a bomber (7.8.1 Step 3 **), and the strike's
    losses so far."""

    survivors: tuple[FlyingElement, ...]
    no_cap: bool
    losses: Losses


@dataclass(frozen=True, slots=True)
class LevelFight(Record):
    """6.1.1, R11: one level's air combat as both are told it: the routine, the
    bounce (6.2.1), each attack's dice and result (6.3.1), and the stacks that
    fought."""

    level: str
    routine: str
    bounce: combat.Bounce | None
    steps: tuple[combat.Attack, ...]
    cap: tuple[combat.ToldStack, ...]
    escorts: tuple[combat.ToldStack, ...]
    bombers: tuple[combat.ToldStack, ...]

    @classmethod
    def told(cls, fight: combat.Fight, stacks: Sequence[Sequence[combat.Stack]]) -> LevelFight:
        """The ``fight`` with its ``stacks``: the CAP's, the escorts', the bombers'."""
        cap, escorts, bombers = (tuple(s.told() for s in group) for group in stacks)
        head = (fight.level, fight.routine, fight.bounce, tuple(fight.steps))
        return cls(*head, cap, escorts, bombers)


class AirCombatAtLevel(Fact, kind="air-combat"):
    """6.1.1, R11: one level's air combat over the target TF, told to both."""

    tf: str
    fight: Annotated[LevelFight, FLAT]


def air_stacks(
    pack: Pack, group: Sequence[FlyingElement], level: str, *, bombers: bool
) -> list[combat.Stack]:
    """``group``'s APs flying at ``level`` as air combat stacks (5.2, 7.11); shared
    with air/intercept.py (R123)."""
    out = []
    for e in group:
        if e.alt != level or e.n < 1:
            continue
        t, best, green = e.type, e.elite, e.green
        air = air_unit(pack, t).air
        base = air.at(e.flown)
        base += elite.air_combat(pack, t) if best else 0  # 7.11: elite A6M +1
        if bombers:
            d = altitude.bomber_strength(
                pack,
                base,
                air.altitude,
                level,
                elite=best and elite.any_altitude(pack, t),
            )
            rf = air.return_fire
            if green:  # 58.2.1: halved, rounded up, not below 2 (return fire 1)
                d, rf = training.air_combat(d, bomber=True), training.return_fire(rf)
            out.append(combat.Stack(t, e.n, rf, d, False, elite=best, green=green))
        else:
            s = altitude.fighter_strength(pack, base, air.altitude, level)
            s = training.air_combat(s, bomber=False) if green else s  # 58.2.1
            hf = "HF" in air_unit(pack, t).roles  # 4.2.1: -1 against enemy F types
            out.append(  # 6.2.3: the AVG
                combat.Stack(t, e.n, s, s, True, elite=best, green=green, avg=e.avg, heavy=hf)
            )
    return out


def air_combat(
    r: Resolution,
    launch: Launch,
    cap: Cap,
    escorts: Sequence[FlyingElement],
    levels: Sequence[str],
) -> tuple[AirCombat, list[Event]]:
    """6.x at each level the bombers fly, the lowest first; ``escorts``: those that
    fight (7.9: not the peeled-off suppressors). The events told."""
    losses, bombers_hit = Losses(), False
    survivors: list[FlyingElement] = []
    own_left, told = dict(cap.own), []
    for lv in levels:
        fought, event = _level(r, lv, cap, escorts, launch.bombers)
        told += [event] if event is not None else []
        bombers_hit |= fought.bombers_hit
        for s in fought.escorts + fought.bombers:
            losses = losses.add(s.type, s.eliminated, elite=s.elite, green=s.green)
        own_left = _cap_losses(r, fought.cap, own_left)
        survivors += _going_on(launch, fought.bombers, lv)
    return AirCombat(tuple(survivors), not bombers_hit, losses), told


@dataclass(frozen=True, slots=True)
class LevelCombat:
    """6.1.1: the stacks that fought at one level, with their losses; whether the
    CAP attacked the bombers there."""

    cap: tuple[combat.Stack, ...]
    escorts: tuple[combat.Stack, ...]  # loose, then close
    bombers: tuple[combat.Stack, ...]
    bombers_hit: bool


def _level(
    r: Resolution,
    lv: str,
    cap: Cap,
    escorts: Sequence[FlyingElement],
    bombers: Sequence[FlyingElement],
) -> tuple[LevelCombat, Event | None]:
    """One level's air combat (6.1.1); the event that tells both, when anyone fought."""
    pack, ratings = r.work.pack, r.context.ratings
    side, naval = r.strike.side, r.strike.owner
    cs = air_stacks(pack, cap.elements, lv, bombers=False)
    loose = air_stacks(pack, [e for e in escorts if e.posture == "loose"], lv, bombers=False)
    close = air_stacks(pack, [e for e in escorts if e.posture == "close"], lv, bombers=False)
    bs = air_stacks(pack, bombers, lv, bombers=True)
    fight = combat.resolve_level(
        pack,
        lv,
        cs,
        loose,
        close,
        bs,
        r.context.dice,
        striker_bonus=ratings[side].bounce if side in ratings else 0,
        cap_bonus=ratings[naval].bounce if naval in ratings else 0,
        cap_choice=cap.cap_attacks,
        green_strike=cap.green_strike,
    )
    told = None
    if fight.routine != "none":
        fact = AirCombatAtLevel(r.strike.tf, LevelFight.told(fight, (cs, loose + close, bs)))
        told = r.tell_both(fact, "6.1.1")
    hit = any(s.attacker == "cap" and s.defender == "bombers" for s in fight.steps)
    return LevelCombat(tuple(cs), tuple(loose + close), tuple(bs), hit), told


def _cap_losses(
    r: Resolution, cs: Sequence[combat.Stack], own_left: Mapping[str, int]
) -> dict[str, int]:
    """R110: the CAP's losses, the TF's own fighters first (the elite first, 7.11.2;
    the green, 58.2.1), its aborts grounded for the phase (5.3.6); the cover's share
    kept for the caller. The TF's own fighters left, by type."""
    work, owner, tf_id = r.work, r.strike.owner, r.strike.tf
    spent_by, left = r.context.cover_losses, dict(own_left)
    for s in sorted(cs, key=lambda s: not s.elite):  # the elite are the TF's own first
        have = left.get(s.type, 0)
        e_own, a_own, e_cover, a_cover = cover_rules.own_first(have, s.eliminated, s.aborted)
        left[s.type] = have - e_own - a_own
        if s.elite and e_own:
            elite.lose(work, owner, tf_id, s.type, e_own)  # 7.11.2
        if s.green and e_own:
            training.lose(work, owner, tf_id, s.type, e_own)  # 58.2.1
        lose(work, owner, tf_id, s.type, e_own)
        if a_own:
            ground(work, owner, tf_id, s.type, a_own)
        if spent_by is not None and (e_cover or a_cover):
            spent = spent_by.setdefault(s.type, [0, 0, 0])
            spent[0] += e_cover
            spent[1] += a_cover
            spent[2] += e_cover if s.elite else 0  # 7.11.2: elite lost by the cover
    return left


def _going_on(launch: Launch, bs: Sequence[combat.Stack], lv: str) -> list[FlyingElement]:
    """6.1.1: the surviving bombers at ``lv``, each element with the part it came from."""
    out: list[FlyingElement] = []
    for s in bs:
        left = s.surviving
        for p in launch.parts:
            for e in p.elements:
                same = e.type == s.type and e.elite == s.elite and e.green == s.green
                if same and e.alt == lv and left > 0:
                    k = min(left, e.n)
                    out.append(replace(e, n=k).from_part(p))
                    left -= k
    return out
