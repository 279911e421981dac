"""Naval bombardment (SEQ.2F, SEQ.2H) and what a bombardment does to a base.

* ``bombard`` - SEQ.2F (NM.BOMBLAND, NM.BOMBBASE) and SEQ.2H (NM.BOMBCD), after
  ``check_bombard`` has judged the order against the round's state.
* ``base_hit`` - a base's damage and neutralization from bombardment by ships or
  aircraft (NM.BOMBBASE, AM.BASE.RESOLVE), with the aircraft it loses.
* ``cut_off_by_bombing``, ``gunfire_support`` - what bombardment does for land combat.

The fire itself and the damage to ships are naval_combat's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.sides import Side, enemy_of
from pbem.rulesets.usn import fog, hexgrid
from pbem.rulesets.usn.bases import BASE_DEFENSE
from pbem.rulesets.usn.capture import awaiting, set_awaiting
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.naval_combat import (
    apply_damage,
    as_number,
    fire,
    land_defense,
    land_defense_why,
    record_air_loss,
    ship_value,
    strength,
    strength_why,
    tables,
    total_why,
    why_fields,
)
from pbem.rulesets.usn.standing import resolve
from pbem.rulesets.usn.state import Unit
from pbem.rulesets.usn.tables import Damage
from pbem.rulesets.usn.work import Work, destroy

BOMBARDING_TYPES = frozenset({"BB", "CA", "CL", "DD"})  # NM.BOMBLAND/BOMBCD/BOMBBASE/GSUP
NEUTRALIZE_FROM = 20  # NM.BOMBBASE, AM.BASE.RESOLVE: results "20" through "40" (and X)
CD_KILL_NUMBER = 2  # NM.BOMBCD, AM.BOMBCD: a damage number of 2 or more destroys a CD


def check_bombard(
    w: Work, h: int, target: str, uids: Sequence[str], at: str | None = None
) -> list[Unit]:
    """SEQ.2F / SEQ.2H: the ships must be the side's BB, CA, CL or DD in ``h``,
    and the target must be there; land units and bases may not be bombarded
    past an undestroyed CD unit or enemy ships (SEQ.2F, NM.BOMBBASE.CD)."""
    ships = [w.own(uid) for uid in uids]
    for s in ships:
        if s.utype not in BOMBARDING_TYPES:
            raise IllegalOrderError(
                f"{s.uid} cannot bombard: only BB, CA, CL and DD do", rule="NM.BOMBLAND"
            )
        if s.hex != h:
            where = s.where()
            raise IllegalOrderError(
                f"{s.uid} is not in {hexgrid.fmt(h)} (it is at {where})", rule="SEQ.2F"
            )
    enemy = enemy_of(w.side)
    here = fog.shown_in(w.state.extra, w.units, enemy, h)  # H1: covered cargo ashore
    cds = [u for u in here if u.kind == "cd"]
    if target == "CD":
        if not cds:
            raise IllegalOrderError(
                f"there is no enemy coastal defense unit in {hexgrid.fmt(h)}", rule="NM.BOMBCD"
            )
        return ships
    if cds:
        raise IllegalOrderError(
            f"{hexgrid.fmt(h)} holds an enemy coastal defense unit: bombard it first (SEQ.2H)",
            rule="NM.BOMBBASE.CD" if target != "LAND" else "NM.BOMBLAND",
        )
    if any(u.is_naval for u in here):
        raise IllegalOrderError(
            f"enemy ships are in {hexgrid.fmt(h)}: no bombardment there", rule="SEQ.2F"
        )
    if target == "LAND":
        if not any(u.kind == "land" for u in here):
            raise IllegalOrderError(
                f"there are no enemy land units in {hexgrid.fmt(h)}", rule="NM.BOMBLAND"
            )
        if at is not None and not any(u.kind == "land" and u.uid == at for u in here):
            raise IllegalOrderError(
                f"{at} is not an enemy land unit in {hexgrid.fmt(h)}", rule="NM.BOMBLAND"
            )
        return ships
    base = w.bases.get(h)
    if base is None or base.owner != enemy:
        raise IllegalOrderError(f"there is no enemy base in {hexgrid.fmt(h)}", rule="NM.BOMBBASE")
    if target == "AIRBASE" and not base.has_air:
        raise IllegalOrderError(f"the enemy base in {hexgrid.fmt(h)} has no air base", rule="CBT.B")
    if target == "NAVALBASE" and not base.has_naval:
        raise IllegalOrderError(
            f"the enemy base in {hexgrid.fmt(h)} has no naval base", rule="CBT.B"
        )
    return ships


def bombard(
    w: Work, h: int, target: str, uids: Sequence[str], dice: Dice, at: str | None = None
) -> None:
    """One bombardment order, checked again at its step (the state may have moved on)."""
    ships = check_bombard(w, h, target, uids, at)
    if target == "CD":
        _bombard_cd(w, h, ships, dice)
    elif target == "LAND":
        _bombard_land(w, h, ships, dice, at)
    else:
        _bombard_base(w, h, ships, target, dice)


def _bombard_land(w: Work, h: int, ships: list[Unit], dice: Dice, at: str | None) -> None:
    """NM.BOMBLAND: total SA against the DEF of "any one" land unit - the one the
    bombarding player names (``AT``), else the weakest - on CRT1; only DX counts: the
    unit is out of supply for one full Game-Turn."""
    enemy = enemy_of(w.side)
    units = [u for u in fog.shown_in(w.state.extra, w.units, enemy, h) if u.kind == "land"]
    named = [u for u in units if u.uid == at]
    tgt = named[0] if named else min(units, key=lambda u: (land_defense(w.state, u), u.uid))
    attack, a_why = total_why(w.state, ships, "sa")
    cut_off_by_bombing(w, tgt, attack, dice, "NM.BOMBLAND", [s.uid for s in ships], a_why)


def cut_off_by_bombing(
    w: Work,
    tgt: Unit,
    attack: Fraction,
    dice: Dice,
    rule: str,
    by: list[str],
    attack_why: Sequence[str] = (),
) -> bool:
    """NM.BOMBLAND / AM.BOMBLAND: CRT1, only DX applies (unsupplied a full turn).
    The cut-off lasts until this step next Game-Turn (``extra["cut_off"]``)."""
    crt1 = tables().crt1
    defense, d_why = land_defense_why(w.state, tgt)
    die = dice.d6(f"bombardment of {tgt.side} {tgt.uid} CRT1")
    result = crt1.resolve(attack, defense, die)
    hit = result.value == "DX"
    if hit:
        cut = dict(w.state.extra.get("cut_off", {}))
        cut[tgt.key] = w.state.turn + 1
        w.state = replace(w.state, extra={**w.state.extra, "cut_off": cut})
        # ``tgt`` may be covered cargo as seen ashore (H1): the unit itself stays aboard.
        w.put(replace(w.units.get(tgt.key, tgt), supplied=False))
    w.event(
        "bombardment",
        rule,
        None,
        hex=tgt.where(),
        attacker=enemy_of(tgt.side),
        by=by,
        target=tgt.uid,
        attack=as_number(attack),
        defense=as_number(defense),
        die=die,
        result=result.value,
        cut_off=hit,
        **why_fields(attack_why, d_why),
    )
    return hit


def _bombard_base(w: Work, h: int, ships: list[Unit], target: str, dice: Dice) -> None:
    """NM.BOMBBASE: total SA against DEF 10 on CRT4 then CRT5."""
    attack, a_why = total_why(w.state, ships, "sa")
    f = fire(
        dice,
        "CRT4",
        attack,
        Fraction(BASE_DEFENSE),
        f"base:{hexgrid.fmt(h)}",
        f"bombard {hexgrid.fmt(h)}",
        attack_why=a_why,
    )
    _ships_fired(w, "NM.BOMBBASE", h, ships, target, fire=f.to_json())
    base_hit(w, h, target, f.damage, w.side, "NM.BOMBBASE", grounded_only=False)


def _ships_fired(
    w: Work, rule: str, h: int, ships: list[Unit], target: str, **results: Any
) -> None:
    """The bombardment event of the moving side's ships at ``target`` in ``h``, with
    what their fire (and any counter-fire) did."""
    w.event(
        "bombardment",
        rule,
        None,
        hex=hexgrid.fmt(h),
        attacker=w.side,
        by=[s.uid for s in ships],
        target=target,
        **results,
    )


def base_hit(
    w: Work, h: int, target: str, damage: Damage, by: str, rule: str, grounded_only: bool
) -> None:
    """NM.BOMBBASE / AM.BASE.RESOLVE: 20-40 weeks neutralise the base for one full
    Game-Turn; X neutralises it and costs five capacity (an air base) or destroys
    it (a naval base, BASE.DESTROY). Aircraft on a bombarded air base are lost by
    the result (NM.BOMBBASE.AIRLOSS); from the air only grounded ones are
    (AM.BASE.GROUNDED, ``grounded_only``: the base was already neutralised)."""
    base = w.bases.get(h)
    if base is None:
        return
    turn = w.state.turn
    was_neutral = base.neutralized(turn)
    new = base
    if damage.destroyed or damage.weeks >= NEUTRALIZE_FROM:
        new = replace(new, neutralized_until=max(base.neutralized_until, turn + 1))
        rec = awaiting(w.state.extra, h)
        if rec is not None:  # a captured base not yet usable keeps the hit for its release
            set_awaiting(w, h, {**rec, "was": max(int(rec.get("was", 0)), turn + 1)})
    if damage.destroyed:
        if target == "AIRBASE":
            new = replace(new, air_capacity=max(0, base.air_capacity - 5))
        else:
            new = replace(new, naval_destroyed=True)
    if new != base:
        w.bases[h] = new
        w.event(
            "base-hit",
            rule,
            None,
            hex=hexgrid.fmt(h),
            base=target,
            result=str(damage),
            neutralized_until=new.neutralized_until,
            air_capacity=new.air_capacity,
            naval_destroyed=new.naval_destroyed,
            side=base.owner,
        )
    if target == "NAVALBASE" and new.naval_destroyed:
        for u in list(w.units.values()):  # BASE.L: ships in a destroyed base are at sea
            if u.side == base.owner and u.hex == h and u.in_base:
                w.put(replace(u, in_base=False))
    if target != "AIRBASE":
        return
    loc = hexgrid.fmt(h)
    on_base = w.air_at(base.owner, loc)
    if not on_base.total or (grounded_only and not was_neutral):
        if new.air and new.air_capacity == 0 and on_base.total:
            lose_air(w, base.owner, loc, on_base.total, by, "BASE.DESTROY.AIR0")
        return
    percent = air_loss_percent(damage)
    if new.air_capacity == 0:
        percent = 100  # CBT.J: a destroyed base takes its aircraft with it
    lost = on_base.total * percent // 100
    if lost:
        lose_air(w, base.owner, loc, lost, by, "NM.BOMBBASE.AIRLOSS" if not grounded_only else rule)


def air_loss_percent(damage: Damage) -> int:
    """NM.BOMBBASE.AIRLOSS: 10-15 -> 25%, 20-30 -> 50%, 35-40 -> 75%, X -> 100%
    (the printed 12 falls in the first band)."""
    if damage.destroyed:
        return 100
    w = damage.weeks
    if w >= 35:
        return 75
    if w >= 20:
        return 50
    if w >= 10:
        return 25
    return 0


def lose_air(w: Work, side: Side, loc: Location, points: int, by: str, rule: str) -> dict[str, int]:
    """Remove ``points`` air points from ``loc``, the owner's AIRLOSS order
    choosing the types (NM.BOMBBASE.AIRLOSS: the defender chooses)."""
    order = resolve(side, w.state.standing.get(side, ())).airloss
    have = w.air_at(side, loc)
    left = points
    lost: dict[str, int] = {}
    for atype in order:
        n = min(left, have.get(atype))
        if n:
            have = have.add(atype, -n)
            lost[atype] = n
            left -= n
    if have.nac_new > have.nac:
        have = replace(have, nac_new=have.nac)
    w.set_air(side, loc, have)
    for atype, n in lost.items():
        record_air_loss(w, side, atype, n, by)
    if lost:
        w.event("air-losses", rule, None, side=side, at=loc, losses=lost, by=by)
    return lost


def _bombard_cd(w: Work, h: int, ships: list[Unit], dice: Dice) -> None:
    """NM.BOMBCD: ships and the CD unit fire at once on CRT4; a damage number of 2
    or more destroys the CD; the CD fires back at the ships firing at it (the
    weakest, to make its fire count) and its results go through CRT5. Losses are
    taken after both have fired."""
    enemy = enemy_of(w.side)
    cd = next(u for u in w.units.values() if u.side == enemy and u.hex == h and u.kind == "cd")
    attack, a_why = total_why(w.state, ships, "sa")
    cd_def, cd_def_why = strength_why(w.state, cd, "defense")
    f_ships = fire(
        dice, "CRT4", attack, cd_def, cd.key, "bombard CD", attack_why=a_why, defense_why=cd_def_why
    )
    target = min(
        ships, key=lambda s: (strength(w.state, s, "defense"), -ship_value(s), s.stack, s.uid)
    )
    cd_sa, cd_sa_why = strength_why(w.state, cd, "sa")
    t_def, t_def_why = strength_why(w.state, target, "defense")
    f_cd = fire(
        dice,
        "CRT4",
        cd_sa,
        t_def,
        target.key,
        f"{cd.uid} counter-fire at {target.uid}",
        attack_why=cd_sa_why,
        defense_why=t_def_why,
    )
    killed = f_ships.number >= CD_KILL_NUMBER
    _ships_fired(
        w,
        "NM.BOMBCD",
        h,
        ships,
        cd.uid,
        fire=f_ships.to_json(),
        counter_fire=f_cd.to_json(),
        cd_destroyed=killed,
    )
    if killed:
        destroy(w, cd, "bombarded", "NM.BOMBCD")
    apply_damage(w, target, f_cd.damage, enemy, "NM.BOMBCD")


def cd_present(w: Work, h: int, side: Side) -> bool:
    """NM.GSUP / AMP.CD: an undestroyed CD unit of ``side`` in ``h``."""
    return any(u.kind == "cd" and u.side == side and u.hex == h for u in w.units.values())


def gunfire_support(w: Work, h: int, ships: Sequence[str]) -> Fraction:
    """NM.GSUP, for the land-combat rules: the SA the phasing side's named BB, CA,
    CL and DD in ``h`` add to its attack there; nothing if an enemy CD unit is
    in the hex."""
    if cd_present(w, h, enemy_of(w.side)):
        return Fraction(0)
    total = Fraction(0)
    for uid in ships:
        u = w.units.get(f"{w.side}/{uid}")
        if u is not None and u.hex == h and u.utype in BOMBARDING_TYPES:
            total += strength(w.state, u, "sa")
    return total
