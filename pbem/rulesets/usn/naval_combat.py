"""Naval combat: surface engagements, naval bombardment and damage to ships.

Steps 2F-2H of each air and sea movement phase (and the damage every other
kind of fire does to ships):

* ``resolve_engagements`` - SEQ.2G / NM.SURF.1-5: the defender's escape, the
  attacker dropping slower ships, one-for-one engagement from the top of the
  stack, simultaneous fire on CRT4 then CRT5.
* bombardment (SEQ.2F, SEQ.2H) is bombardment.py's.
* ``fire`` / ``apply_damage`` - CRT3/CRT4 then CRT5, CBT.H halving, CBT.I
  sinking above forty weeks, carriers losing their aircraft.

Decisions the rules give a player in the middle of the other side's phase
come from standing orders (standing.py); fire targets, which the rules leave
to each side's choice, follow ``default_allocation`` (documented in
docs/usn-orders.md, Rulings).

Every function works on the round's ``Work`` and draws every die from the
``Dice`` passed in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, Side, enemy_of
from pbem.rulesets.usn import fog, hexgrid, world
from pbem.rulesets.usn.movement import movement_allowance, stack_of
from pbem.rulesets.usn.standing import resolve
from pbem.rulesets.usn.state import Air, GameState, Unit
from pbem.rulesets.usn.tables import Damage, UsnTables
from pbem.rulesets.usn.work import Work, destroy

SINK_ABOVE = 40  # CBT.I: more than forty weeks of damage sinks the ship
NAVAL_BASE_AA = 20  # BASE.M
FORCE_RATIO = 4  # default_allocation: fire is massed on a target up to 4-1 first

NO_DAMAGE = Damage(0)

# Scenario rules (CG1.SHOCK.NAV13 ...) change strengths for a while; they
# register a function here: (state, unit, "defense"|"sa"|"aa", value) -> (value,
# why), ``why`` the reason the report prints ("" when the value is unchanged).
StrengthModifier = Callable[[GameState, Unit, str, Fraction], tuple[Fraction, str]]
STRENGTH_MODIFIERS: list[StrengthModifier] = []

# The reasons a combat line gives for a changed strength, with the rule that
# changes it: "attack 6 (CA-1 halved: damaged [CBT.H])".
DAMAGED = "halved: damaged [CBT.H]"
UNSUPPLIED = "halved: unsupplied [SUP.E]"
ENTRENCHED = "tripled: entrenched [ENT.A]"


def tables() -> UsnTables:
    """The CRTs from the world data (scenarios/usn/tables.toml)."""
    return world.current().tables


# --- strengths ------------------------------------------------------------------


def strength_why(state: GameState, u: Unit, what: str) -> tuple[Fraction, tuple[str, ...]]:
    """CBT.H: any damage halves a ship's DEF, SA and AA (A1: exact fractions); then
    the scenario's modifiers. The value and why it differs from the printed one."""
    value = Fraction(getattr(u, what))
    why: list[str] = []
    if u.is_naval and u.damaged and value:
        value /= 2
        why.append(DAMAGED)
    for modify in STRENGTH_MODIFIERS:
        value, reason = modify(state, u, what, value)
        if reason:
            why.append(reason)
    return value, tuple(why)


def strength(state: GameState, u: Unit, what: str) -> Fraction:
    return strength_why(state, u, what)[0]


def land_defense_why(state: GameState, u: Unit) -> tuple[Fraction, tuple[str, ...]]:
    """ENT.A (tripled when entrenched) and SUP.E (halved when unsupplied; CD units
    keep theirs) for bombardment of land units, with the reasons."""
    value, why = strength_why(state, u, "defense")
    if u.entrenched:
        value *= 3
        why += (ENTRENCHED,)
    if u.kind == "land" and not u.supplied:
        value /= 2
        why += (UNSUPPLIED,)
    return value, why


def land_defense(state: GameState, u: Unit) -> Fraction:
    return land_defense_why(state, u)[0]


def named_why(pairs: Sequence[tuple[Unit, Sequence[str]]]) -> tuple[str, ...]:
    """The reasons behind a total of several units' strengths, each with its unit."""
    return tuple(f"{u.uid} {reason}" for u, why in pairs for reason in why)


def total_why(
    state: GameState, units: Sequence[Unit], what: str
) -> tuple[Fraction, tuple[str, ...]]:
    """The sum of ``what`` over ``units`` and every reason it is not the printed sum."""
    parts = [(u, strength_why(state, u, what)) for u in units]
    total = sum((v for _, (v, _w) in parts), Fraction(0))
    return total, named_why([(u, why) for u, (_v, why) in parts])


def why_fields(attack_why: Sequence[str], defense_why: Sequence[str]) -> dict[str, list[str]]:
    """An event's reasons for changed strengths, only those there are."""
    out = {"attack_why": list(attack_why), "defense_why": list(defense_why)}
    return {k: v for k, v in out.items() if v}


def ship_value(u: Unit) -> int:
    """VP.SCHED.NAV (A19: printed values): the order in which fire seeks targets."""
    if u.is_carrier:
        return 10 * u.capacity
    if u.utype in ("TR", "OIL"):
        return 10 if u.side == ALLIED else 20
    if u.utype == "AT":
        return 20
    return 2 * u.defense


# --- CG1.SHOCK: the first Game-Turn of Campaign Games 1 and 3 -----------------------

_SHOCK_VALUES = {"defense": "defense", "anti_aircraft": "aa", "surface_attack": "sa"}


def shock_rule(state: GameState) -> Mapping[str, Any] | None:
    """The scenario's Shock Effect parameters while they apply (CG1.SHOCK, A11: through
    step 9 of turn 1; CG3 uses the CG1 special rules), else None."""
    sc = world.scenario_of(state)
    if sc is None:
        return None
    rule = sc.special.get("shock_turn")
    if rule is None or state.turn != int(rule.get("turn", 1)):
        return None
    return rule


def divided(value: Fraction, divisor: int, minimum: int) -> Fraction:
    """CG1.SHOCK.NAV13: a third, fractions dropped, never below one."""
    return Fraction(max(minimum, int(value / divisor)))


def _shock_strength(state: GameState, u: Unit, what: str, value: Fraction) -> tuple[Fraction, str]:
    """CG1.SHOCK.NAV13 (Allied ships' DEF, AA and, per the worked example, SA) and the
    Allied land units' DEF (CG1.SHOCK.LAND13; CD units are not affected)."""
    if u.side != ALLIED or value <= 0:
        return value, ""
    rule = shock_rule(state)
    if rule is None:
        return value, ""
    minimum = int(rule.get("divided_minimum", 1))
    if u.is_naval:
        cut = {_SHOCK_VALUES[v] for v in rule.get("allied_naval_values", ())}
        if what not in cut:
            return value, ""
        divisor, case = int(rule.get("allied_naval_divisor", 3)), "CG1.SHOCK.NAV13"
    elif u.kind == "land" and what == "defense":
        divisor, case = int(rule.get("allied_land_defense_divisor", 3)), "CG1.SHOCK.LAND13"
    else:
        return value, ""
    new = divided(value, divisor, minimum)
    why = f"divided by {divisor} (at least {minimum}): Shock turn [{case}]"
    return new, why if new != value else ""


STRENGTH_MODIFIERS.append(_shock_strength)


# --- fire on CRT3/CRT4 then CRT5 ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fire:
    """One attack on one target: odds, the dice and the damage (CRT34.*, CRT5.*)."""

    target: str  # unit key, or "base:0759" / "cd:0759"
    attack: Fraction
    defense: Fraction
    table: str  # "CRT3" or "CRT4"
    column: int | None
    die: int = 0
    number: int = 0  # damage number; 0 = "-" (CRT34.NONE)
    die5: int = 0
    damage: Damage = NO_DAMAGE
    attack_why: tuple[str, ...] = ()  # why a strength is not the printed one (CBT.H ...)
    defense_why: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        t = tables().crt34
        cols = t.crt3_columns if self.table == "CRT3" else t.crt4_columns
        out: dict[str, Any] = {
            "target": self.target.split("/")[-1],
            "attack": as_number(self.attack),
            "defense": as_number(self.defense),
            "odds": "below 1-1" if self.column is None else cols[self.column],
            "die": self.die,
            "damage_number": self.number,
            "die_crt5": self.die5,
            "result": str(self.damage),
        }
        # Only when there is a reason: the events of a combat without one stay as
        # they were recorded before reasons were given.
        if self.attack_why:
            out["attack_why"] = list(self.attack_why)
        if self.defense_why:
            out["defense_why"] = list(self.defense_why)
        return out


def as_number(x: Fraction) -> float | int:
    """A strength for an event (JSON): whole numbers stay whole, fractions (A1) are floats."""
    return int(x) if x.denominator == 1 else float(x)


def fire(
    dice: Dice,
    table: str,
    attack: Fraction,
    defense: Fraction,
    target: str,
    purpose: str,
    *,
    attack_why: Sequence[str] = (),
    defense_why: Sequence[str] = (),
) -> Fire:
    """CRT34.COLS: odds rounded down (A4); below 1-1 nothing happens and no die is
    rolled (A2); above the last column the last is used (A3). A damage number
    sends a second die to CRT5 (CRT34.NUM). ``*_why``: why the strengths differ
    from the printed ones, for the report."""
    t = tables()
    why: dict[str, Any] = {"attack_why": tuple(attack_why), "defense_why": tuple(defense_why)}
    if table == "CRT3":
        col = t.crt34.crt3_column(attack, defense)
    else:
        col = t.crt34.crt4_column(attack, defense)
    if col is None or attack <= 0:
        return Fire(target, attack, defense, table, None, **why)
    die = dice.d6(f"{purpose} {table}")
    number = t.crt34.damage_number(col, die)
    if number == 0:
        return Fire(target, attack, defense, table, col, die, **why)
    die5 = dice.d6(f"{purpose} CRT5")
    damage = t.crt5.damage(number, die5)
    return Fire(target, attack, defense, table, col, die, number, die5, damage, **why)


# --- damage to ships -----------------------------------------------------------------


def apply_damage(w: Work, ship: Unit, damage: Damage, by: str, rule: str) -> str:
    """CRT5.WEEKS, CRT5.X, CBT.H, CBT.I: weeks of damage accumulate; X or a total
    above forty sinks the ship. The first damage to a carrier destroys the
    aircraft aboard (CBT.H, MOV.S). Returns "sunk", "damaged" or "none"."""
    current = w.units.get(ship.key)
    if current is None:
        return "none"  # already sunk by an earlier result of the same fire
    if damage.destroyed:
        sink(w, current, by, "X result", "CRT5.X")
        return "sunk"
    if damage.weeks <= 0:
        return "none"
    total = current.damage + damage.weeks
    if total > SINK_ABOVE:
        sink(w, current, by, f"{total} weeks of damage", "CBT.I")
        return "sunk"
    w.put(replace(current, damage=total))
    w.event(
        "ship-damaged",
        rule,
        None,
        unit=current.uid,
        side=current.side,
        weeks=damage.weeks,
        total=total,
        hex=current.where(),
        by=by,
    )
    ledger(w, "damage", current, by, weeks=damage.weeks, total=total)
    if not current.damaged and current.is_carrier:
        aboard = w.air_at(current.side, current.uid)
        if aboard.total:
            w.set_air(current.side, current.uid, Air())
            for atype in ("LAC", "NAC", "LBAC"):
                if aboard.get(atype):
                    record_air_loss(w, current.side, atype, aboard.get(atype), by)
            w.event(
                "air-destroyed",
                "CBT.H",
                None,
                side=current.side,
                at=current.uid,
                points=aboard.total,
                cause="carrier damaged",
            )
    return "damaged"


def sink(w: Work, ship: Unit, by: str, cause: str, rule: str) -> None:
    """A ship destroyed by combat; its earlier damage goes into the ledger (VP.DMGSINK)."""

    ledger(w, "sunk", ship, by, prior=ship.damage)
    aboard = w.air_at(ship.side, ship.uid)
    for atype in ("LAC", "NAC", "LBAC"):
        if aboard.get(atype):
            record_air_loss(w, ship.side, atype, aboard.get(atype), by)
    destroy(w, ship, f"sunk ({cause})", rule)


def ledger(w: Work, kind: str, u: Unit, by: str, **data: Any) -> None:
    """The combat ledger in ``extra["combat_ledger"]`` (GEN.REC.A), this Game-Turn's
    losses as they happened: one entry per damage, sinking or air loss."""
    entry = {"turn": w.state.turn, "kind": kind, "side": u.side, "unit": u.uid, "type": u.utype}
    entry.update(by=by, **data)
    _append_ledger(w, entry)


def record_air_loss(w: Work, side: Side, atype: str, points: int, by: str) -> None:
    if points > 0:
        _append_ledger(
            w,
            {"turn": w.state.turn, "kind": "air", "side": side, "type": atype, "points": points}
            | {"by": by},
        )


def _append_ledger(w: Work, entry: dict[str, Any]) -> None:
    # Only the current Game-Turn is kept: an audit trail for reports, not a
    # growing record (victory.account scores from the state itself).
    turn = w.state.turn
    old = [e for e in w.state.extra.get("combat_ledger", ()) if e.get("turn") == turn]
    w.state = replace(w.state, extra={**w.state.extra, "combat_ledger": [*old, entry]})


# --- surface engagement ------------------------------------------------------------------

Allocation = Mapping[str, str]  # firer uid -> target uid (per firing side)


def resolve_engagements(
    w: Work, dice: Dice, allocations: Mapping[str, Allocation] | None = None
) -> None:
    """SEQ.2G: every hex the phasing side's ships entered holding enemy ships at
    sea is fought out (NM.SURF.TRIGGER, STK.D), hex by hex in number order."""
    hexes = sorted(set(w.engaged_at.values()))
    for h in hexes:
        attackers = [
            w.units[k]
            for k, at in sorted(w.engaged_at.items())
            if at == h and k in w.units and w.units[k].hex == h
        ]
        defenders = w.enemy_ships_at_sea(h)
        if attackers and defenders:
            _resolve_hex(w, h, attackers, defenders, dice, allocations or {})
    w.engaged_at.clear()


def entry_hexes(w: Work, ships: Iterable[Unit]) -> dict[str, int]:
    """NM.SURF.1: the hex each attacker entered the engagement hex from (its
    last step this phase, else where it began the round)."""
    out: dict[str, int] = {}
    for s in ships:
        for e in reversed(w.events):
            if e.kind == "moved" and e.data.get("unit") == s.uid and e.data.get("side") == s.side:
                path = [int(p) for p in e.data.get("path", ())]
                if len(path) >= 2:
                    out[s.key] = path[-2]
                break
        if s.key not in out:
            start = w.state.units.get(s.key)
            if start is not None and start.hex is not None:
                out[s.key] = start.hex
    return out


def escape_hex(w: Work, h: int, entries: Iterable[int], attacker: str) -> int | None:
    """NM.SURF.2: preferably one of the hexes not adjacent to any hex the attackers
    came from; otherwise another adjacent hex; never an entry hex, one the ships
    cannot sail into, or one holding enemy units. Lowest hex number first."""
    entry = set(entries)
    blocked = {u.hex for u in w.units.values() if u.side == attacker and u.hex is not None}
    free = [n for n in w.geo.naval_nbrs[h] if n not in blocked and n not in entry]
    far = [n for n in free if not any(hexgrid.adjacent(n, e) for e in entry)]
    choice = sorted(far) or sorted(free)
    return choice[0] if choice else None


def _resolve_hex(
    w: Work,
    h: int,
    attackers: list[Unit],
    defenders: list[Unit],
    dice: Dice,
    allocations: Mapping[str, Allocation],
) -> None:
    side = attackers[0].side
    enemy = enemy_of(side)
    orders = resolve(enemy, w.state.standing.get(enemy, ()))
    entries = entry_hexes(w, attackers)
    top_ma = max(movement_allowance(a) for a in attackers)
    refuge = escape_hex(w, h, entries.values(), side)
    fleeing, fighting, staying = [], [], []
    for d in stack_of(defenders):
        can_flee = refuge is not None and movement_allowance(d) >= top_ma
        choice = orders.surface_choice(d.uid)
        if choice == "FLEE" and can_flee:
            fleeing.append(d)
        elif choice == "FIGHT" and not can_flee:
            fighting.append(d)  # NM.SURF.2: a cornered ship may turn on the attackers
        else:
            staying.append(d)
    if fleeing and refuge is not None:
        for d in fleeing:  # NM.SURF.4: the fleeing stack keeps its order
            w.put(replace(d, hex=refuge, in_base=False))
            w.escaped.add(d.key)
        w.event(
            "escaped",
            "NM.SURF.2",
            None,
            side=enemy,
            units=[d.uid for d in fleeing],
            hex=hexgrid.fmt(h),
            to=hexgrid.fmt(refuge),
            attacker=side,
        )
    remaining = list(attackers)
    if fighting:
        groups: dict[int, list[Unit]] = {}
        for a in attackers:
            groups.setdefault(entries.get(a.key, h), []).append(a)
        # The defender turns on one entry group only: the weakest (A30).
        came_from, group = min(
            groups.items(), key=lambda kv: (sum(strength(w.state, a, "sa") for a in kv[1]), kv[0])
        )
        # A30: step 3 again, roles reversed: ships slower than that whole group cannot
        # turn on it; they stay where they are and are engaged there.
        low = min(movement_allowance(a) for a in group)
        turning = [d for d in fighting if movement_allowance(d) >= low]
        staying = stack_of(staying + [d for d in fighting if d not in turning])
        if turning:
            w.event(
                "turned-to-fight",
                "NM.SURF.2",
                None,
                side=enemy,
                units=[d.uid for d in turning],
                hex=hexgrid.fmt(h),
                against=[a.uid for a in group],
                attacker=enemy,
            )
            engage(w, h, turning, group, dice, allocations)
            for d in turning:  # NM.SURF.EX: they end where the engaged group came from
                cur = w.units.get(d.key)
                if cur is not None:
                    w.put(replace(cur, hex=came_from, in_base=False))
            remaining = [a for a in attackers if a not in group]
    if staying and remaining:
        engage(w, h, remaining, staying, dice, allocations)


def engage(
    w: Work,
    h: int,
    attackers: Sequence[Unit],
    defenders: Sequence[Unit],
    dice: Dice,
    allocations: Mapping[str, Allocation] | None = None,
) -> list[Fire]:
    """NM.SURF.3-5 between ``attackers`` (the side now attacking) and ``defenders``."""
    side = attackers[0].side
    defenders = stack_of(list(defenders))
    low = min(movement_allowance(d) for d in defenders)
    usable = [a for a in stack_of(list(attackers)) if movement_allowance(a) >= low]
    dropped = [a for a in attackers if a not in usable]
    if dropped:  # NM.SURF.3: slower ships are simply out of combat
        w.event(
            "out-of-combat",
            "NM.SURF.3",
            None,
            side=side,
            units=[a.uid for a in dropped],
            hex=hexgrid.fmt(h),
            attacker=side,
        )
    if not usable:
        return []
    n = min(len(usable), len(defenders))
    engaged_def = defenders[:n]  # NM.SURF.4: from the top of the stack
    engaged_att = usable
    if len(usable) > n:  # he need only engage as many ships: his strongest
        engaged_att = sorted(usable, key=lambda a: -strength(w.state, a, "sa"))[:n]
        engaged_att = stack_of(engaged_att)
    allocations = allocations or {}
    fires: list[tuple[Side, Fire]] = []
    for firing, targets in ((engaged_att, engaged_def), (engaged_def, engaged_att)):
        fside = firing[0].side
        plan = _plan(w.state, firing, targets, allocations.get(fside))
        for tgt in targets:
            group = plan.get(tgt.key, [])
            if not group:
                continue
            attack, a_why = total_why(w.state, group, "sa")
            defense, d_why = strength_why(w.state, tgt, "defense")
            purpose = f"surface fire {fside} {'+'.join(f.uid for f in group)} at {tgt.uid}"
            shot = fire(
                dice, "CRT4", attack, defense, tgt.key, purpose, attack_why=a_why, defense_why=d_why
            )
            fires.append((fside, shot))
    w.event(
        "surface-engagement",
        "NM.SURF.5",
        None,
        hex=hexgrid.fmt(h),
        attacker=side,
        engaged={
            side: [a.uid for a in engaged_att],
            enemy_of(side): [d.uid for d in engaged_def],
        },
        fire=[{"side": s, **f.to_json()} for s, f in fires],
    )
    for fside, f in fires:  # NM.SURF.5: both sides fire before losses are taken
        target = w.units.get(f.target)
        if target is not None:
            apply_damage(w, target, f.damage, fside, "NM.SURF.5")
    return [f for _s, f in fires]


def _plan(
    state: GameState, firers: Sequence[Unit], targets: Sequence[Unit], explicit: Allocation | None
) -> dict[str, list[Unit]]:
    """The firing side's FIRE orders where they name an engaged target; its other
    ships fire by ``default_allocation`` (and may join an ordered target)."""
    by_uid = {t.uid: t for t in targets}
    plan: dict[str, list[Unit]] = {}
    free: list[Unit] = []
    for f in firers:
        tgt = by_uid.get((explicit or {}).get(f.uid, ""))
        if tgt is not None and f.sa > 0:
            plan.setdefault(tgt.key, []).append(f)
        else:
            free.append(f)
    for key, group in default_allocation(state, free, targets).items():
        plan.setdefault(key, []).extend(group)
    return plan


def default_allocation(
    state: GameState, firers: Sequence[Unit], targets: Sequence[Unit]
) -> dict[str, list[Unit]]:
    """NM.SURF.5 fire choice by default (the rules leave it to each side): the
    most valuable targets first (VP.SCHED.NAV), each given the strongest free
    ships until the odds reach 4-1, a target out of reach (below 1-1 even with
    every free ship) skipped; ships left over join the first targets up to 8-1.
    No ship splits its fire and each target is attacked once (NM.SURF.5)."""
    free = sorted(
        (f for f in firers if strength(state, f, "sa") > 0),
        key=lambda f: (-strength(state, f, "sa"), f.stack, f.uid),
    )
    order = sorted(targets, key=lambda t: (-ship_value(t), t.stack, t.uid))
    plan: dict[str, list[Unit]] = {}
    for t in order:
        defense = strength(state, t, "defense")
        if sum((strength(state, f, "sa") for f in free), Fraction(0)) < defense:
            continue
        got: list[Unit] = []
        while free and sum((strength(state, f, "sa") for f in got), Fraction(0)) < (
            FORCE_RATIO * defense
        ):
            got.append(free.pop(0))
        plan[t.key] = got
    for t in order:
        if not free:
            break
        if t.key in plan:
            defense = strength(state, t, "defense")
            while free and sum((strength(state, f, "sa") for f in plan[t.key]), Fraction(0)) < (
                8 * defense
            ):
                plan[t.key].append(free.pop(0))
    return plan


def check_fire(w: Work, uids: Sequence[str], target: str) -> None:
    """NM.SURF.5: FIRE names the side's own gun-armed ships and one enemy ship; it
    counts if both end up engaged with each other this phase."""
    for uid in uids:
        s = w.own(uid)
        if not s.is_naval or s.sa <= 0:
            raise IllegalOrderError(
                f"{uid} has no surface attack strength to fire", rule="NM.SURF.5"
            )
    enemy = w.units.get(f"{enemy_of(w.side)}/{target}")
    if not fog.sees_unit(w.snapshot(), w.side, enemy):
        return  # double-blind: a ship out of sight; the order counts only if it is engaged
    if enemy is None or not enemy.is_naval or enemy.hex is None:
        raise IllegalOrderError(f"{target} is not an enemy ship on the map", rule="NM.SURF.5")


__all__ = [
    "Fire",
    "apply_damage",
    "default_allocation",
    "engage",
    "fire",
    "resolve_engagements",
    "strength",
    "strength_why",
    "total_why",
    "why_fields",
]
