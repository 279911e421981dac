"""Land combat: odds, CRT 1 by terrain class, retreats, support, amphibious
assault, base and coastal-defense capture (breakdown is movement.do_break).

Pure functions over the working state ``Work``; every die comes from the Dice
handed in. Land combat is open: its events are seen by both sides.

Support strengths come in as numbers: naval gunfire is summed here from the
GUNFIRE orders (NM.GSUP); air ground support (AM.GSO / AM.GSD) is what the
air-combat module leaves in ``state.extra["ground_support"]`` as
``{"0659": {"attack": n, "defense": n}}`` after SEQ.5J (0 when absent).

Rulings followed: A9 (every opposed-landing unit attacks), A14 (D1 destroys
the bases), A27 (a unit defending a base is public), A29 (retreat into enemy or
Class 1 hexes is allowed if supplied), A1 (exact fractions in odds).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, Side, enemy_of
from pbem.rulesets.usn import bases, fog, hexgrid, naval_combat, world
from pbem.rulesets.usn.capture import (
    capture_all,
    capture_at,
    defending,
    guards,
    set_defending,
)
from pbem.rulesets.usn.geo import CLASS1
from pbem.rulesets.usn.orders import Ground, Line, Simple
from pbem.rulesets.usn.standing import resolve
from pbem.rulesets.usn.state import Air, GameState, Unit
from pbem.rulesets.usn.tables import Crt1, LandResult
from pbem.rulesets.usn.work import Work, destroy

GUNFIRE_TYPES = frozenset({"BB", "CA", "CL", "DD"})  # NM.GSUP


def _crt1() -> Crt1:
    crt: Crt1 = world.current().tables.crt1
    return crt


# --- strengths ------------------------------------------------------------------


def attack_strength(u: Unit) -> int:
    """SEQ.5B / ENT.A / SUP.E: entrenched or unsupplied units do not attack."""
    if u.kind != "land" or u.entrenched or not u.supplied:
        return 0
    return u.attack


def attack_why(u: Unit) -> tuple[str, ...]:
    """Why a land unit's attack counts nothing (the report prints it)."""
    if u.kind != "land" or not u.attack:
        return ()
    if u.entrenched:
        return ("does not attack: entrenched [ENT.A]",)
    if not u.supplied:
        return ("does not attack: unsupplied [SUP.E]",)
    return ()


def defense_strength(state: GameState, u: Unit) -> Fraction:
    """ENT.A ×3; SUP.E: unsupplied land units (not CD) ×½ (A1: exact); the Shock
    turn's one third for Allied land units (CG1.SHOCK.LAND13) - naval_combat's
    ``land_defense``, shared with bombardment."""
    return naval_combat.land_defense(state, u)


def gunfire_strength(state: GameState, ship: Unit) -> Fraction:
    """NM.GSUP: a warship's surface attack, halved when damaged (CBT.H)."""
    if ship.utype not in GUNFIRE_TYPES:
        return Fraction(0)
    return naval_combat.strength(state, ship, "sa")


def defenders_at(w: Work, h: int, side: Side) -> list[Unit]:
    """CBT.D: every land unit of ``side`` in the hex defends together, covered cargo
    as the enemy sees it, ashore (H1; docs/usn-fog.md, *Land attacks, supply and
    capture with cargo in port*): a result that moves it puts it ashore."""
    return sorted(
        (u for u in fog.shown_in(w.state.extra, w.units, side, h) if u.kind == "land"),
        key=lambda u: u.uid,
    )


def enemy_cd_at(w: Work, h: int, side: Side) -> list[Unit]:
    return [u for u in w.units.values() if u.side != side and u.hex == h and u.kind == "cd"]


# --- who defends bases (CBT.G, ENT.E, A27) ----------------------------------------


def do_defend(w: Work, uid: str, on: bool) -> None:
    """CBT.G: DEFEND inverts a land unit to defend its hex's bases and CD (UNDEFEND
    turns it back). A27: the status is public."""
    u = w.own(uid)
    if u.kind != "land" or u.hex is None:
        raise IllegalOrderError(f"{uid} is not a land unit on the map", rule="CBT.G")
    keys = defending(w)
    if on:
        keys.add(u.key)
    else:
        keys.discard(u.key)
    set_defending(w, keys)
    w.event("defending" if on else "not-defending", "CBT.G", None, unit=uid, side=u.side)


# --- the attack ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attack:
    """One land combat as announced (SEQ.5B) with its support (SEQ.5C, SEQ.5J)."""

    hex: int
    attackers: tuple[Unit, ...]
    gunfire: tuple[Unit, ...] = ()
    air_attack: int = 0
    air_defense: int = 0
    amphibious: bool = False


def odds(w: Work, a: Attack) -> tuple[Fraction, Fraction]:
    """CBT.PROC: total attack (units + gunfire + air) against total defense (+ air)."""
    att, dfn, _a_why, _d_why = odds_why(w, a)
    return att, dfn


def odds_why(w: Work, a: Attack) -> tuple[Fraction, Fraction, tuple[str, ...], tuple[str, ...]]:
    """``odds`` with the reasons each total is not the printed strengths' sum."""
    side = a.attackers[0].side
    att = Fraction(sum(attack_strength(u) for u in a.attackers))
    a_why = [(u, attack_why(u)) for u in a.attackers]
    if not enemy_cd_at(w, a.hex, side):  # NM.GSUP: no gunfire support with a CD unit there
        for s in a.gunfire:
            att += gunfire_strength(w.state, s)
            if s.utype in GUNFIRE_TYPES:
                a_why.append((s, naval_combat.strength_why(w.state, s, "sa")[1]))
    att += a.air_attack
    dfn = Fraction(a.air_defense)
    d_why = []
    for u in defenders_at(w, a.hex, enemy_of(side)):
        value, why = naval_combat.land_defense_why(w.state, u)
        dfn += value
        d_why.append((u, why))
    return att, dfn, naval_combat.named_why(a_why), naval_combat.named_why(d_why)


def resolve_attack(w: Work, a: Attack, dice: Dice) -> LandResult | None:
    """SEQ.5K / CBT.PROC / CBT.ROLL / CRT1: roll, read and apply one land combat.
    None when there is nobody to attack."""
    side = a.attackers[0].side
    enemy = enemy_of(side)
    if not defenders_at(w, a.hex, enemy):
        return None
    att, dfn, a_why, d_why = odds_why(w, a)
    crt = _crt1()
    col = crt.column(att, dfn)
    roll = dice.d6(f"land combat {hexgrid.fmt(a.hex)}")
    result = crt.result(col, roll)
    w.event(
        "land-combat",
        "SEQ.5K",
        None,
        hex=hexgrid.fmt(a.hex),
        attacker=side,
        attackers=[u.uid for u in a.attackers],
        defenders=[u.uid for u in defenders_at(w, a.hex, enemy)],
        attack=str(att),
        defense=str(dfn),
        column=crt.columns[col],
        roll=roll,
        result=result.value,
        reconstructed=(roll, col) in crt.reconstructed,
        **naval_combat.why_fields(a_why, d_why),
    )
    apply_result(w, a, result)
    return result


def apply_result(w: Work, a: Attack, result: LandResult) -> None:
    """CRT1.AX, CRT1.DX, CRT1.D1, CRT1.D2 by the terrain class of the hex."""

    side = a.attackers[0].side
    enemy = enemy_of(side)
    h = a.hex
    class1 = w.geo.terrain.get(h) == CLASS1
    if result is LandResult.AX:
        for u in a.attackers:
            if u.key in w.units:
                destroy(w, w.units[u.key], "Ax", "CRT1.AX")
        return
    defenders = defenders_at(w, h, enemy)
    if result is LandResult.DX or class1:
        for u in defenders + enemy_cd_at(w, h, side):
            destroy(w, u, result.value, "CRT1.DX" if result is LandResult.DX else f"CRT1.{result}")
        return
    if result is LandResult.D1:
        guarding = [u for u in defenders if guards(w, u)]
        for b in [b for b in w.bases.values() if b.hex == h and b.owner == enemy]:
            destroy_base(w, b.hex, "CRT1.D1")
        for cd in enemy_cd_at(w, h, side):
            destroy(w, cd, "D1", "CRT1.D1")
        for u in defenders:
            if u in guarding and not u.supplied:
                destroy(w, u, "D1: unsupplied defender of a base", "CRT1.D1")
            elif u.key in w.units:
                w.put(replace(w.units[u.key], entrenched=False))
                # H1: a covered unit is shown losing it too, as it would ashore.
                w.state = replace(w.state, extra=fog.cover_disentrenched(w.state.extra, u.key))
        return
    # D2 on Class 2: retreat (ENT.D loses entrenchment); no legal hex, destroyed.
    orders = resolve(enemy, w.state.standing.get(enemy, ()))
    for u in defenders:
        to = retreat_hex(w, u, orders.retreat_hexes(u.uid))
        if to is None:
            destroy(w, u, "D2: no retreat", "CRT1.D2")
            continue
        keys = defending(w)
        keys.discard(u.key)
        set_defending(w, keys)
        if to in w.geo.closed:
            # OPT.BURMA.RETREAT: out of the game, not destroyed (no VP, no replacement).
            w.remove(u)
            w.event(
                "left-game",
                "OPT.BURMA.RETREAT",
                None,
                unit=u.uid,
                side=enemy,
                to=hexgrid.fmt(to),
            )
            continue
        w.put(replace(u, hex=to, entrenched=False))
        w.event("retreated", "CRT1.D2", None, unit=u.uid, side=enemy, to=hexgrid.fmt(to))
        capture_at(w, to, enemy)  # BASE.I: a retreat is a way of arriving too


def retreat_hex(w: Work, u: Unit, preferred: Sequence[int] = ()) -> int | None:
    """CRT1.D2 (A29): an adjacent land hex across a hexside that is not all sea, and
    in supply for the retreating side; the owner's standing RETREAT order picks first.
    OPT.BURMA.RETREAT: an Allied unit may also retreat into China or India (no
    supply needed: it leaves the game), but only when named or when nothing else is left.
    MOV.G: a unit out of supply is not "permitted to retreat" at all."""
    assert u.hex is not None
    if not u.supplied:
        return None
    options = [n for n in w.geo.land_nbrs.get(u.hex, ()) if n not in w.geo.closed]
    sup = w.supply(u.side)
    legal = [n for n in options if sup.supplied(n)]
    exits = exile_hexes(w, u)
    for p in preferred:
        if p in legal or p in exits:
            return p
    if legal:
        return min(legal)
    return min(exits) if exits else None


def exile_hexes(w: Work, u: Unit) -> list[int]:
    """OPT.BURMA.RETREAT: the China and India hexes next to an Allied unit (the
    Burma option only); China and India stay closed to everything else (MOV.M)."""
    if u.side != ALLIED or not w.state.options.get("burma") or u.hex is None:
        return []
    return [n for n in w.geo.land_nbrs.get(u.hex, ()) if n in w.geo.closed]


def destroy_base(w: Work, h: int, rule: str) -> None:
    """A14: a base lost to D1 is destroyed, with the aircraft on it (BASE.PROC.DESTROYED);
    ships in its port are at sea (BASE.L)."""
    b = w.bases.get(h)
    if b is None:
        return
    lost = w.air_at(b.owner, hexgrid.fmt(h))
    if lost.total:
        w.set_air(b.owner, hexgrid.fmt(h), Air())
        w.event("air-destroyed", rule, None, side=b.owner, at=hexgrid.fmt(h), points=lost.total)
    w.bases[h] = replace(b, air_capacity=0, naval_destroyed=True)
    _ships_to_sea(w, h, b.owner)
    w.event("base-destroyed", rule, None, hex=hexgrid.fmt(h), side=b.owner)


def _ships_to_sea(w: Work, h: int, side: Side) -> None:
    for s in [u for u in w.units.values() if u.side == side and u.hex == h and u.in_base]:
        w.put(replace(s, in_base=False))


# --- capture (BASE.I, ERR.BASE.I, CBT.F, CBT.G, BASE.H, BASE.L, BASE.A-C) ----------------


def capture(w: Work) -> None:
    """The one capture path (``capture.capture_all``): a base or CD unit falls to a
    land unit of the phasing side in its hex unless an enemy land unit there
    defends it (inverted or entrenched)."""
    capture_all(w)


def check_ground(w: Work, verb: str, h: int, uids: Sequence[str]) -> None:
    """Validation of ATTACK and GUNFIRE beyond ownership and place: CBT.GEN (someone
    to attack), SUP.E (unsupplied land units do not attack), NM.GSUP (no gunfire
    support with an enemy CD unit in the hex)."""
    if verb == "GUNFIRE":
        if enemy_cd_at(w, h, w.side):
            raise IllegalOrderError(
                f"an enemy coastal defense unit is in {hexgrid.fmt(h)}: no gunfire support",
                rule="NM.GSUP",
            )
        return
    if not defenders_at(w, h, enemy_of(w.side)):
        raise IllegalOrderError(
            f"there are no enemy land units in {hexgrid.fmt(h)} to attack", rule="CBT.GEN"
        )
    for uid in uids:
        u = w.own(uid)
        if not u.supplied:  # the unit's supply as the rules keep it (supply.py)
            raise IllegalOrderError(f"{uid} is out of supply and may not attack", rule="SUP.E")


# --- amphibious assault (SEQ.5A, AMP.*, ERR.AMP) ---------------------------------------


def check_landing(w: Work, transport: Unit, units: Sequence[str]) -> None:
    """AMP.CD: never onto an undestroyed enemy CD unit; the transport must be on the map."""
    if transport.hex is None:
        raise IllegalOrderError(f"{transport.uid} is not on the map", rule="SEQ.5A")
    if enemy_cd_at(w, transport.hex, transport.side):
        raise IllegalOrderError(
            f"{hexgrid.fmt(transport.hex)} holds an enemy coastal defense unit: no landing there",
            rule="AMP.CD",
        )
    if not w.geo.is_land(transport.hex):
        raise IllegalOrderError(
            f"{hexgrid.fmt(transport.hex)} has no land to land on", rule="TER.ISLAND"
        )
    if transport.utype == "TR" and defenders_at(w, transport.hex, enemy_of(transport.side)):
        # NM.TRANS.OPPOSED: the TR's movement point is paid in the naval phase (DEBARK
        # onto the enemy, transport._prepare_landing); an AT pays nothing (NM.TRANS).
        ready = w.state.extra.get("landings", {}).get(transport.key)
        if (
            ready is None
            or ready.get("hex") != transport.hex
            or not set(units) <= set(ready.get("units", ()))
        ):
            raise IllegalOrderError(
                f"{transport.uid} must pay its movement point for the landing in the naval "
                f"phase: DEBARK {transport.uid} {' '.join(units)} there first",
                rule="NM.TRANS.OPPOSED",
            )


def land_assault(
    w: Work, transport: Unit, uids: Sequence[str], support: Attack | None, dice: Dice
) -> None:
    """SEQ.5A / AMP.C1 / AMP.C2 / CBT.E: the landing force comes ashore and every
    landing unit attacks (A9); on Class 1 land it must destroy the defenders or go
    back aboard at once (ERR.AMP)."""
    check_landing(w, transport, uids)
    h = transport.hex
    assert h is not None
    landers = [w.units[f"{transport.side}/{u}"] for u in uids]
    for u in landers:
        w.put(replace(u, hex=h, carried_by=None))
    w.event("landed", "SEQ.5A", None, side=transport.side, hex=hexgrid.fmt(h), units=list(uids))
    w.refresh_supply()  # ZOC.INSTANT: the landing force traces its line from the beach
    ashore = tuple(w.units[u.key] for u in landers)
    if not defenders_at(w, h, enemy_of(transport.side)):
        return
    a = Attack(
        h,
        ashore,
        support.gunfire if support else (),
        support.air_attack if support else 0,
        support.air_defense if support else 0,
        amphibious=True,
    )
    resolve_attack(w, a, dice)
    if w.geo.terrain.get(h) == CLASS1 and defenders_at(w, h, enemy_of(transport.side)):
        back = [w.units[u.key] for u in landers if u.key in w.units]
        for u in back:
            w.put(replace(u, hex=None, carried_by=transport.uid))
        if back:
            w.event(
                "re-embarked",
                "AMP.C1",
                None,
                side=transport.side,
                units=[u.uid for u in back],
                transport=transport.uid,
            )


# --- the step hooks -----------------------------------------------------------------


def ground_support(w: Work, h: int) -> tuple[int, int]:
    gs = w.state.extra.get("ground_support", {}).get(hexgrid.fmt(h), {})
    return int(gs.get("attack", 0)), int(gs.get("defense", 0))


def strike_landings(w: Work, lines: Mapping[Side, list[Line]], dice: Dice) -> set[str]:
    """SEQ.5A: opposed landings of the phasing side; returns the unit keys that landed."""
    side = w.side
    landed: set[str] = set()
    gunfire = _gunfire_by_hex(w, lines.get(side, []))
    for ln in lines.get(side, []):
        o = ln.order
        if not isinstance(o, Ground) or o.verb != "LAND":
            continue
        tr = w.units.get(f"{side}/{o.where}")
        if tr is None or tr.hex is None:
            w.event("order-failed", "SEQ.5A", (side,), order=o.canonical(), reason="no transport")
            continue
        aboard = [
            u for u in o.units if (x := w.units.get(f"{side}/{u}")) and x.carried_by == tr.uid
        ]
        try:
            att, dfn = ground_support(w, tr.hex)
            land_assault(
                w, tr, aboard, Attack(tr.hex, (), tuple(gunfire.get(tr.hex, ())), att, dfn), dice
            )
        except IllegalOrderError as e:
            w.event("order-failed", e.rule, (side,), order=o.canonical(), reason=e.message)
            continue
        landed |= {f"{side}/{u}" for u in aboard}
    capture(w)
    return landed


def strike_attacks(
    w: Work, lines: Mapping[Side, list[Line]], dice: Dice, landed: set[str] | None = None
) -> None:
    """SEQ.5B-C, SEQ.5K: the phasing side's announced attacks, resolved in order."""
    side = w.side
    gunfire = _gunfire_by_hex(w, lines.get(side, []))
    for ln in lines.get(side, []):
        o = ln.order
        if not isinstance(o, Ground) or o.verb != "ATTACK":
            continue
        h = int(o.where)
        w.refresh_supply()  # ZOC.INSTANT: air strikes and earlier attacks (SUP.E)
        units = [w.units.get(f"{side}/{u}") for u in o.units]
        attackers = tuple(
            u for u in units if u is not None and u.hex == h and u.key not in (landed or set())
        )
        if not attackers:
            w.event(
                "order-failed", "SEQ.5B", (side,), order=o.canonical(), reason="no attackers left"
            )
            continue
        att, dfn = ground_support(w, h)
        resolve_attack(w, Attack(h, attackers, tuple(gunfire.get(h, ())), att, dfn), dice)
    capture(w)
    extra = dict(w.state.extra)
    extra.pop("ground_support", None)
    w.state = replace(w.state, extra=extra)


def _gunfire_by_hex(w: Work, lines: Iterable[Line]) -> dict[int, list[Unit]]:
    out: dict[int, list[Unit]] = {}
    for ln in lines:
        o = ln.order
        if isinstance(o, Ground) and o.verb == "GUNFIRE":
            h = int(o.where)
            for uid in o.units:
                s = w.units.get(f"{w.side}/{uid}")
                if s is not None and s.hex == h and s.utype in GUNFIRE_TYPES:
                    out.setdefault(h, []).append(s)
    return out


def land_order(w: Work, o: Simple) -> None:
    """SEQ.3: DEFEND / UNDEFEND (CBT.G) of the phasing side."""
    for uid in o.units:
        do_defend(w, uid, o.verb == "DEFEND")


# Hooks for phases.COMBAT_HOOKS: (work, step, accepted lines by side, dice).


def hook_land_phase(w: Work, st: Any, lines: Mapping[Side, list[Line]], dice: Dice | None) -> None:
    """SEQ.3C: after land movement, undefended bases and CD units in hexes entered by
    enemy land units are captured (BASE.I, CBT.F)."""
    capture(w)


def hook_landings(w: Work, st: Any, lines: Mapping[Side, list[Line]], dice: Dice | None) -> None:
    """SEQ.5A: opposed landings."""
    assert dice is not None
    landed = strike_landings(w, lines, dice)
    w.state = replace(w.state, extra={**w.state.extra, "landed": sorted(landed)})


def hook_attacks(w: Work, st: Any, lines: Mapping[Side, list[Line]], dice: Dice | None) -> None:
    """SEQ.5K: land combat, after the air strikes and ground support (SEQ.5F-J)."""
    assert dice is not None
    extra = dict(w.state.extra)
    landed = set(extra.pop("landed", ()))
    w.state = replace(w.state, extra=extra)
    strike_attacks(w, lines, dice, landed)
    bases.after_land_attack(w)  # BASE.B: captured bases usable after this phase
    # NM.TRANS.OPPOSED: a landing paid for and not made lapses with the phase.
    extra = dict(w.state.extra)
    ready = {k: v for k, v in extra.pop("landings", {}).items() if not k.startswith(w.side)}
    if ready:
        extra["landings"] = ready
    w.state = replace(w.state, extra=extra)
