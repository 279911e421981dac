"""6.0 Air combat between a strike and the CAP over its target, one altitude level
at a time (6.1: only APs at the same level fight).

Routines A-E of 6.1.1 by the strike's escort at the level: none (A), close (B),
loose with the CAP's bounce (C) or the escort's (D), loose and close (E). The bounce
is rolled by the striker on 1D6 when loose escorts are present (6.2.1), with the
admirals' Bounce bonuses (8.1.6). An attack totals the attackers' strengths and
counts them (6.3.1); the Air-to-Air CRT gives aborted/eliminated strength points,
spent by the attacker on defending APs whose strength they reach (doctrine: the
strongest first, ruling R96); bombers return fire with their bracketed strengths,
including those just hit, and may eliminate no more fighters than the bombers those
fighters eliminated or aborted (6.3.2). "Surviving" is neither destroyed nor aborted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated

from pbem.core.dice import Dice
from pbem.rulesets.witp.air import avg
from pbem.rulesets.witp.air.tables import BOUNCE, Pack, air_to_air, value
from pbem.rulesets.witp.records import OPTIONAL, Record


@dataclass(frozen=True, slots=True)
class ToldStack(Record):
    """6.1.1, R11: a stack that fought as both sides are told it: its APs and those
    eliminated and aborted; ``elite`` (7.11) and ``green`` (58.2.1) when set."""

    type: str
    n: int
    eliminated: int
    aborted: int
    elite: Annotated[bool, OPTIONAL] = False
    green: Annotated[bool, OPTIONAL] = False


@dataclass(frozen=True, slots=True)
class Bounce(Record):
    """6.2.1: who attacks first where loose escorts fly (``to``: "cap" or "escort"):
    the striker's 1D6 and the admirals' DRM (8.1.6); unrolled (``roll`` None) when the
    strike's green fighters give it to the CAP (``green``, 58.2.1) or the AVG takes it
    (``avg``, 6.2.3)."""

    roll: int | None
    drm: int
    to: str
    green: Annotated[bool, OPTIONAL] = False
    avg: Annotated[bool, OPTIONAL] = False


@dataclass(frozen=True, slots=True)
class Attack(Record):
    """6.3.1: one attack as told: the attackers' total strength and APs, their 2D6
    (``drm``: the AVG's +1, 6.2.3), the CRT's aborted/eliminated strength points, and
    the defenders' APs they eliminated and aborted, by type."""

    strength: int
    aps: int
    roll: int
    aborted_points: int
    eliminated_points: int
    drm: Annotated[int, OPTIONAL] = field(default=0, kw_only=True)
    attacker: str
    defender: str
    eliminated: Mapping[str, int] = field(default_factory=dict)
    aborted: Mapping[str, int] = field(default_factory=dict)


@dataclass
class Stack:
    """APs of one type at one level: ``attack`` per AP when they attack (a bomber's
    return fire), ``defence`` per AP when attacked."""

    type: str
    n: int
    attack: int
    defence: int
    fighter: bool
    eliminated: int = 0
    aborted: int = 0
    elite: bool = False  # 7.11: its ratings already carry the bonus; told when set
    green: bool = False  # 58.2.1: untrained, its ratings already halved; hit first
    avg: bool = False  # 6.2.3: the AVG's P-40s: the bounce, +1 to their attacks' rolls
    heavy: bool = False  # 4.2.1: an HF type, -1 in combat with enemy F types

    def rating(self, value: int, against: list[Stack]) -> int:
        """4.2.1: an HF's rating, 1 less in combat with any enemy F type."""
        return max(0, value - 1) if self.heavy and f_types(against) else value

    @property
    def surviving(self) -> int:
        return self.n - self.eliminated - self.aborted

    def told(self) -> ToldStack:
        """The stack as a report tells it (6.1.1)."""
        return ToldStack(
            self.type, self.n, self.eliminated, self.aborted, elite=self.elite, green=self.green
        )


def f_types(group: list[Stack]) -> bool:
    """Any "F" (not HF) fighters among ``group`` (4.2.1)."""
    return any(s.fighter and not s.heavy and s.n > 0 for s in group)


@dataclass
class Fight:
    """The record of one level's air combat: each attack, as a side may be told."""

    level: str
    routine: str
    bounce: Bounce | None = None
    steps: list[Attack] = field(default_factory=list)


def _total(
    stacks: list[Stack], *, everyone: bool = False, against: list[Stack] | None = None
) -> tuple[int, int]:
    """(strength, APs) attacking: survivors, or all (return fire, 6.1.1 A step 2)."""
    aps = sum(s.n if everyone else s.surviving for s in stacks)
    strength = sum(
        (s.n if everyone else s.surviving) * s.rating(s.attack, against or []) for s in stacks
    )
    return strength, aps


def _spend(
    points: int, stacks: list[Stack], cap: int | None = None, against: list[Stack] | None = None
) -> dict[str, int]:
    """Spend strength points on surviving defenders, strongest affordable first;
    at most ``cap`` APs (6.3.2); ``against``: the attackers (4.2.1). Returns APs hit
    by type."""
    hit: dict[str, int] = {}
    live = {id(s): s.surviving for s in stacks}
    cost = {id(s): max(1, s.rating(s.defence, against or [])) for s in stacks}
    while cap is None or sum(hit.values()) < cap:
        choices = [s for s in stacks if live[id(s)] > 0 and cost[id(s)] <= points]
        if any(live[id(s)] > 0 and s.green for s in stacks):  # 6.3.1: the green first
            choices = [s for s in choices if s.green]
        if not choices:
            break
        s = max(choices, key=lambda x: (cost[id(x)], x.surviving))
        live[id(s)] -= 1
        points -= cost[id(s)]
        hit[s.type] = hit.get(s.type, 0) + 1
    return hit


def _apply(stacks: list[Stack], hit: Mapping[str, int], kind: str) -> None:
    for s in sorted(stacks, key=lambda s: not s.green):  # 6.3.1: a type's green first
        k = min(hit.get(s.type, 0), s.surviving)
        if kind == "eliminated":
            s.eliminated += k
        else:
            s.aborted += k
        if k:
            hit = {**hit, s.type: hit[s.type] - k}


def _roll(
    pack: Pack,
    who: tuple[str, str],
    attackers: list[Stack],
    defenders: list[Stack],
    dice: Dice,
    purpose: str,
    *,
    everyone: bool = False,
) -> Attack | None:
    """``who`` (attacker, defender) rolls on the Air-to-Air CRT (6.3.1); None when
    nobody attacks or nobody is left to attack."""
    strength, aps = _total(attackers, everyone=everyone, against=defenders)
    if aps == 0 or not any(d.surviving for d in defenders):
        return None
    roll = dice.d6(purpose) + dice.d6(purpose)
    live = [s for s in attackers if (s.n if everyone else s.surviving) > 0]
    drm = avg.drm(pack) if any(s.avg for s in live) else 0  # 6.2.3: the AVG attacks
    ab_pts, el_pts = air_to_air(pack, strength, aps, roll + drm)
    return Attack(strength, aps, roll, ab_pts, el_pts, *who, drm=drm)


def _attack(
    pack: Pack,
    fight: Fight,
    name: str,
    attackers: list[Stack],
    defenders: list[Stack],
    target: str,
    dice: Dice,
) -> None:
    """One attack, its results applied at once."""
    purpose = f"air combat {fight.level} {name}"
    step = _roll(pack, (name, target), attackers, defenders, dice, purpose)
    if step is None:
        return
    killed = _spend(step.eliminated_points, defenders, against=attackers)
    _apply(defenders, killed, "eliminated")
    aborted = _spend(step.aborted_points, defenders, against=attackers)
    _apply(defenders, aborted, "aborted")
    fight.steps.append(replace(step, eliminated=killed, aborted=aborted))


def _not_yet_eliminated(bombers: list[Stack], killed: Mapping[str, int]) -> list[Stack]:
    """The bombers as if ``killed`` were applied: aborts are spent on those not
    eliminated, counted before either result applies (6.1.1 A)."""
    return [
        Stack(
            s.type,
            s.n,
            s.attack,
            s.defence,
            s.fighter,
            s.eliminated + killed.get(s.type, 0),
            s.aborted,
            green=s.green,
        )
        for s in bombers
    ]


def _bombers_and_return(
    pack: Pack, fight: Fight, cap: list[Stack], bombers: list[Stack], dice: Dice
) -> None:
    """CAP attacks the bombers; the bombers, those just hit included, return fire;
    both results apply together (6.1.1 A steps 1-2); 6.3.2 caps the fighters lost."""
    if not any(s.surviving for s in cap) or not any(s.surviving for s in bombers):
        return
    purpose = f"air combat {fight.level} cap"
    on_bombers = _roll(pack, ("cap", "bombers"), cap, bombers, dice, purpose)
    killed: dict[str, int] = {}
    aborted: dict[str, int] = {}
    if on_bombers is not None:
        killed = _spend(on_bombers.eliminated_points, bombers, against=cap)
        aborted = _spend(on_bombers.aborted_points, _not_yet_eliminated(bombers, killed))
        fight.steps.append(replace(on_bombers, eliminated=killed, aborted=aborted))
    hits_on_bombers = sum(killed.values()) + sum(aborted.values())
    rf = [Stack(s.type, s.n, s.attack, s.defence, False) for s in bombers if s.attack > 0]
    purpose = f"air combat {fight.level} return fire"
    back = _roll(pack, ("bombers", "cap"), rf, cap, dice, purpose, everyone=True)
    _apply(bombers, killed, "eliminated")
    _apply(bombers, aborted, "aborted")
    if back is not None:
        cap_killed = _spend(back.eliminated_points, cap, cap=hits_on_bombers)  # 6.3.2
        _apply(cap, cap_killed, "eliminated")
        cap_aborted = _spend(back.aborted_points, cap)
        _apply(cap, cap_aborted, "aborted")
        fight.steps.append(replace(back, eliminated=cap_killed, aborted=cap_aborted))


def bounce(
    pack: Pack, dice: Dice, purpose: str, striker_bonus: int = 0, cap_bonus: int = 0
) -> tuple[int, int, str]:
    """6.2.1, 8.1.6: (1D6, DRM, "cap" or "escort") for the loose escort's bounce; the
    striker's admiral's bonus raises the roll, the CAP's lowers it."""
    roll = dice.d6(purpose)
    drm = striker_bonus - cap_bonus
    who = "cap" if roll + drm <= int(value(pack, BOUNCE)["cap_if_at_most"]) else "escort"
    return roll, drm, who


def resolve_level(
    pack: Pack,
    level: str,
    cap: list[Stack],
    loose: list[Stack],
    close: list[Stack],
    bombers: list[Stack],
    dice: Dice,
    *,
    striker_bonus: int = 0,
    cap_bonus: int = 0,
    cap_choice: str = "bombers-first",
    green_strike: bool = False,
) -> Fight:
    """One altitude level's air combat (6.1.1 A-E); the stacks are updated.
    ``green_strike``: the strike has green fighters and the CAP none (58.2.1): the
    CAP has the bounce, unrolled. The AVG's P-40s (6.2.3) take it unrolled on their
    side."""
    has_loose, has_close = any(s.n for s in loose), any(s.n for s in close)
    routine = "E" if has_loose and has_close else "B" if has_close else "A" if not has_loose else ""
    fight = Fight(level, routine)
    if not any(s.n for s in cap):
        fight.routine = "none"
        return fight
    who = ""
    if has_loose and green_strike:
        who = "cap"
        fight.bounce = Bounce(None, 0, who, green=True)
        if not has_close:
            routine = fight.routine = "C"
    elif has_loose and any(s.avg for s in cap + loose):  # 6.2.3: the AVG's bounce
        who = "cap" if any(s.avg for s in cap) else "escort"
        fight.bounce = Bounce(None, 0, who, avg=True)
        if not has_close:
            routine = fight.routine = "C" if who == "cap" else "D"
    elif has_loose:
        r, drm, who = bounce(pack, dice, f"bounce {level}", striker_bonus, cap_bonus)
        fight.bounce = Bounce(r, drm, who)
        if not has_close:
            routine = fight.routine = "C" if who == "cap" else "D"
    bombers_first = cap_choice == "bombers-first"
    if routine == "A":
        _bombers_and_return(pack, fight, cap, bombers, dice)
    elif routine == "B":
        _attack(pack, fight, "cap", cap, close, "close escort", dice)
        _attack(pack, fight, "close escort", close, cap, "cap", dice)
        _bombers_and_return(pack, fight, cap, bombers, dice)
    elif routine == "C":
        if bombers_first:
            _bombers_and_return(pack, fight, cap, bombers, dice)
            _attack(pack, fight, "cap", cap, loose, "loose escort", dice)
            _attack(pack, fight, "loose escort", loose, cap, "cap", dice)
        else:
            _attack(pack, fight, "cap", cap, loose, "loose escort", dice)
            _attack(pack, fight, "loose escort", loose, cap, "cap", dice)
            _bombers_and_return(pack, fight, cap, bombers, dice)
    elif routine == "D":
        _attack(pack, fight, "loose escort", loose, cap, "cap", dice)
        if bombers_first:
            _bombers_and_return(pack, fight, cap, bombers, dice)
        else:
            _attack(pack, fight, "cap", cap, loose, "loose escort", dice)
        _attack(pack, fight, "loose escort", loose, cap, "cap", dice)
    elif who == "cap":  # E, the CAP's bounce: 2a-6a
        _attack(pack, fight, "cap", cap, loose, "loose escort", dice)
        _attack(pack, fight, "loose escort", loose, cap, "cap", dice)
        if bombers_first:
            _bombers_and_return(pack, fight, cap, bombers, dice)
        else:
            _attack(pack, fight, "cap", cap, close, "close escort", dice)
            _attack(pack, fight, "close escort", close, cap, "cap", dice)
    else:  # E, the loose escort's bounce: 2b-7b
        _attack(pack, fight, "loose escort", loose, cap, "cap", dice)
        _attack(pack, fight, "cap", cap, loose, "loose escort", dice)
        _attack(pack, fight, "close escort", close, cap, "cap", dice)
        if bombers_first:
            _bombers_and_return(pack, fight, cap, bombers, dice)
        else:
            _attack(pack, fight, "cap", cap, close, "close escort", dice)
    return fight
