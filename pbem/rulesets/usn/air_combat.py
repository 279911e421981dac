"""Air missions and air combat of the mutual air-strike steps (SEQ.5D-J, SEQ.5L).

``hook_strikes`` runs steps 5/9 D-J from both sides' sealed plots (ruling A12:
CAP is plotted blind with the strikes):

* F/G - strikes on ships at sea by two-ship groups, each air type in turn
  LBAC, LAC, NAC, each through CAP combat, the group's AA and the attack
  (AM.BOMBNAV.*), the Allies first;
* H/I - strikes on ships in port, land units, CD units, bases and aircraft on
  the ground, all types together by target, the Allies first (AM.BASE.*,
  AM.BOMBLAND, AM.BOMBCD, AM.STRAFE.*);
* J - ground support: after a fight with the enemy CAP still up, the
  survivors' bombardment is left in ``state.extra["ground_support"]`` as
  ``{"0659": {"attack": n, "defense": n}}`` for the land combat of SEQ.5K.

SEQ.5L, where every surviving aircraft lands within range or is lost, is
air_return.py's; between the two the flights wait in ``extra["aloft"]``.

Choices the rules leave to a player in the other side's phase follow the
standing orders (CAP ENGAGE/DECLINE, AIRKILL, AIRLOSS); where an attacker
splits bombardment between the two ships of a group, ``split_on_group`` is the
default (docs/usn-orders.md, Rulings).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from typing import Any

from pbem.core.dice import Dice
from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, JAPANESE, Side, enemy_of
from pbem.rulesets.usn import bombardment, fog, hexgrid, movement, naval_combat, world
from pbem.rulesets.usn.bases import BASE_DEFENSE
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.hooks import FERRY_CHECK, FERRY_RECORD, HOOKS, LAUNCH
from pbem.rulesets.usn.movement import stack_of
from pbem.rulesets.usn.naval_combat import (
    NAVAL_BASE_AA,
    apply_damage,
    fire,
    land_defense,
    record_air_loss,
    ship_value,
    strength,
    tables,
)
from pbem.rulesets.usn.orders import Line, Mission
from pbem.rulesets.usn.sequence import Step
from pbem.rulesets.usn.standing import resolve
from pbem.rulesets.usn.state import AIR_TYPES, Air, Base, GameState, Unit
from pbem.rulesets.usn.tables import AirLoss
from pbem.rulesets.usn.work import Work, destroy

SHIP_ORDER = ("LBAC", "LAC", "NAC")  # AM.BOMBNAV.ORDER
LAND_TARGETS = ("PORT", "LAND", "CD", "AIRBASE", "NAVALBASE", "STRAFE")  # SEQ.5H.1

# Scenario rules change bombardment per air point (CG1.SHOCK.JNAC10):
# (state, side, air type, value per point, against ships) -> value per point.
BombardmentModifier = Callable[[GameState, Side, str, int, bool], int]
BOMBARDMENT_MODIFIERS: list[BombardmentModifier] = []
# ... and a base's AA (CG1 Shock: Allied bases at a third): (state, base, AA) -> AA.
BaseAaModifier = Callable[[GameState, Base, Fraction], Fraction]
BASE_AA_MODIFIERS: list[BaseAaModifier] = []


def _shock_bombardment(state: GameState, side: Side, atype: str, per: int, naval: bool) -> int:
    """CG1.SHOCK.JNAC10: Japanese NAC bombard at ten per air point in the Shock turn."""
    if side == JAPANESE and atype == "NAC":
        rule = naval_combat.shock_rule(state)
        if rule is not None and rule.get("japanese_nac_bombardment_per_point"):
            return int(rule["japanese_nac_bombardment_per_point"])
    return per


def _shock_base_aa(state: GameState, base: Base, aa: Fraction) -> Fraction:
    """CG1.SHOCK: Allied bases' AA at a third in the Shock turn."""
    rule = naval_combat.shock_rule(state) if base.owner == ALLIED else None
    if rule is None or aa <= 0:
        return aa
    divisor = int(rule.get("allied_base_aa_divisor", 3))
    return naval_combat.divided(aa, divisor, int(rule.get("divided_minimum", 1)))


BOMBARDMENT_MODIFIERS.append(_shock_bombardment)
BASE_AA_MODIFIERS.append(_shock_base_aa)


@dataclass(frozen=True, slots=True)
class AirValues:
    a2a_normal: int
    a2a_extended: int
    bombardment: int
    bombardment_naval: int
    range_normal: int
    range_extended: int


def air_values(side: Side, atype: str) -> AirValues:
    """Per-air-point values from the world data (UNIT.AIR.LAYOUT, NACC, MOV.V)."""
    t = world.current().catalogue.air.get(f"{side}/{atype}")
    if t is None:
        return AirValues(0, 0, 0, 0, 0, 0)
    ext = t.range_extended or t.range_normal
    a2a_ext = t.a2a_extended if t.a2a_extended is not None else t.a2a_normal
    return AirValues(t.a2a_normal, a2a_ext, t.bombardment, t.bombardment_naval, t.range_normal, ext)


@dataclass(slots=True)
class Flight:
    """One line of the Air Mission Allocation Chart (AMAC.A/B), as it fares."""

    side: Side
    atype: str
    points: int  # still flying (not lost, not aborted)
    source: Location  # base hex "0759" or carrier ID
    origin: int  # the hex it took off from
    kind: str  # CAP, STRIKE, SUPPORT
    dest: int  # target hex (CAP: its own hex)
    target: str = ""
    group: int = 0
    extended: bool = False
    aborted: int = 0
    lost: int = 0
    auto: bool = False  # AM.BASE.TARGET / AM.STRAFE.CAP: rose by itself
    at: str = ""  # AM.BOMBLAND: the land unit the player named (STRIKE ... LAND AT <unit>)

    def a2a(self) -> int:
        v = air_values(self.side, self.atype)
        return self.points * (v.a2a_extended if self.extended else v.a2a_normal)

    def bombardment(self, state: GameState, naval: bool) -> int:
        v = air_values(self.side, self.atype)
        per = v.bombardment_naval if naval else v.bombardment
        for modify in BOMBARDMENT_MODIFIERS:
            per = modify(state, self.side, self.atype, per, naval)
        return self.points * per

    def label(self) -> str:
        return f"{self.points} {self.atype} from {self.source}"


# --- validation (called by phases._step_strike) ------------------------------------------


def check_mission_target(w: Work, m: Mission, phasing: str) -> None:
    """SEQ.5E / AMAC.B / CBT.B: the mission's base or carrier, and its target,
    must be there: CAP only from the side's own air base or carrier
    (AM.CAP.HEX), a ship group that exists (AMAC.B), ships in port, land or
    CD units, the named base (CBT.B); ground support only for the phasing side's
    attack or the other side's defense, over its own land units (SEQ.5J)."""
    side = w.side
    rule = naval_combat.shock_rule(w.state)
    if (
        side == ALLIED
        and w.step == 9
        and rule is not None
        and not rule.get("allied_air_missions_second_combat_phase", True)
    ):
        raise IllegalOrderError(
            "in the Shock turn Allied aircraft fly no missions in step 9", rule="CG1.SHOCK.NOAIR"
        )
    if hexgrid.hex_of(m.source) is None:
        carrier = w.own(m.source)
        if not carrier.is_carrier:
            raise IllegalOrderError(
                f"{m.source} is not a carrier: aircraft aboard a transport are cargo",
                rule="NM.TRANS.AIR",
            )
    HOOKS[FERRY_CHECK](w, side, m.source, LAUNCH, m.air.points)
    _check_target(w, m, phasing)
    HOOKS[FERRY_RECORD](w, side, m.source, LAUNCH, m.air.points)  # OPT.FERRY


def sees(w: Work, h: int) -> bool:
    """Whether the side whose orders are checked sees the enemy units in ``h``: always
    in the rulebook's open game; in double-blind only in its detection hexes (fog.py).
    A check on enemy units the side cannot see would tell it what is there, so such a
    strike is accepted and meets what it finds at the strike (SEQ.5H)."""
    if fog.mode_of(w.state) != "double-blind":
        return True
    return h in fog.detection_hexes(w.snapshot(), w.side)


def _check_target(w: Work, m: Mission, phasing: str) -> None:
    side = w.side
    if m.kind == "CAP" or m.dest is None:
        return
    h, enemy = m.dest, enemy_of(side)
    here = fog.shown_in(w.state.extra, w.units, enemy, h)  # H1: covered cargo ashore
    where = hexgrid.fmt(h)
    seen = sees(w, h)
    if m.kind == "SUPPORT":
        if m.target == "ATTACK" and side != phasing:
            raise IllegalOrderError(
                "only the side attacking on land flies offensive support", rule="AM.GSO"
            )
        if m.target == "DEFEND" and side == phasing:
            raise IllegalOrderError(
                "defensive support is for the side attacked on land", rule="AM.GSD"
            )
        if not any(u.side == side and u.hex == h and u.kind == "land" for u in w.units.values()):
            raise IllegalOrderError(f"you have no land units in {where} to support", rule="SEQ.5J")
        return
    base = w.bases.get(h)
    if m.target in ("SHIPS", "PORT", "LAND", "CD") and not seen:
        return  # enemy units out of sight: the strike finds out (double-blind)
    if m.target == "SHIPS":
        groups = movement.air_groups([u for u in here if u.is_naval and not u.in_base])
        if not groups:
            raise IllegalOrderError(
                f"there are no enemy ships at sea in {where}", rule="AM.BOMBNAV.SEQ"
            )
        if m.group > len(groups):
            raise IllegalOrderError(
                f"{where} has {len(groups)} enemy ship group(s); group {m.group} does not exist",
                rule="AMAC.B",
            )
    elif m.target == "PORT":
        if not any(u.is_naval and u.in_base for u in here):
            raise IllegalOrderError(
                f"there are no enemy ships in port in {where}", rule="AM.BOMBNAV.PORT"
            )
    elif m.target == "LAND":
        if not any(u.kind == "land" for u in here):
            raise IllegalOrderError(f"there are no enemy land units in {where}", rule="AM.BOMBLAND")
        if m.at is not None and not any(u.kind == "land" and u.uid == m.at for u in here):
            raise IllegalOrderError(
                f"{m.at} is not an enemy land unit in {where}", rule="AM.BOMBLAND"
            )
    elif m.target == "CD":
        if not any(u.kind == "cd" for u in here):
            raise IllegalOrderError(
                f"there is no enemy coastal defense unit in {where}", rule="AM.BOMBCD"
            )
    elif m.target in ("AIRBASE", "STRAFE"):
        if base is None or base.owner != enemy or not base.has_air:
            raise IllegalOrderError(f"there is no enemy air base in {where}", rule="CBT.B")
    elif m.target == "NAVALBASE" and (base is None or base.owner != enemy or not base.has_naval):
        raise IllegalOrderError(f"there is no enemy naval base in {where}", rule="CBT.B")


# --- CRT2 ----------------------------------------------------------------------------------


def crt2(dice: Dice, firing: Fraction | int, purpose: str) -> tuple[AirLoss, int]:
    """CRT2.COLS: the firing side's total AA or A2A; nothing below 1 (no die)."""
    if int(firing) < 1:
        return AirLoss(0, 0), 0
    die = dice.d6(f"{purpose} CRT2")
    return tables().crt2.resolve(firing, die), die


def take_losses(
    w: Work,
    flights: Sequence[Flight],
    loss: AirLoss,
    kill_order: Sequence[str],
    by: str,
    lbac_halved: bool = True,
) -> dict[str, dict[str, int]]:
    """CRT2.ABORT / CRT2.DESTROY on a force: destroyed results first (ERR.CRT2),
    then aborts; the firing side picks the types (CRT2.MIXED, its AIRKILL
    order); an LBAC point counts as two aircraft, fractions dropped (CRT2.LBAC)."""
    out: dict[str, dict[str, int]] = {"destroyed": {}, "aborted": {}}
    for what, n in (("destroyed", loss.destroyed), ("aborted", loss.aborted)):
        left = n
        for atype in kill_order:
            if left <= 0:
                break
            cost = 2 if atype == "LBAC" and lbac_halved else 1
            for f in flights:
                if f.atype != atype or f.points <= 0 or left < cost:
                    continue
                k = min(f.points, left // cost)
                f.points -= k
                left -= k * cost
                if what == "destroyed":
                    f.lost += k
                    record_air_loss(w, f.side, atype, k, by)
                else:
                    f.aborted += k
                out[what][atype] = out[what].get(atype, 0) + k
    return out


def airkill(w: Work, side: Side) -> tuple[str, ...]:
    return resolve(side, w.state.standing.get(side, ())).airkill


def dogfight(
    w: Work, cap: Sequence[Flight], attackers: Sequence[Flight], dice: Dice, lbac_immune: bool
) -> dict[str, Any] | None:
    """AM.CAP.FIRE: CAP and attackers fire at once on CRT2, losses after both."""
    cap = [c for c in cap if c.points > 0]
    attackers = [a for a in attackers if a.points > 0]
    if not cap or not attackers:
        return None
    defender, attacker = cap[0].side, attackers[0].side
    cap_fire = sum(c.a2a() for c in cap)
    att_fire = sum(a.a2a() for a in attackers)
    on_att, d1 = crt2(dice, cap_fire, f"CAP {defender} at {attacker}")
    on_cap, d2 = crt2(dice, att_fire, f"{attacker} escorts at CAP")
    targets = [a for a in attackers if not (lbac_immune and a.atype == "LBAC")]
    hit_att = take_losses(w, targets, on_att, airkill(w, defender), defender)
    hit_cap = take_losses(w, cap, on_cap, airkill(w, attacker), attacker)
    return {
        "cap": cap_fire,
        "strike": att_fire,
        "dice": [d1, d2],
        "strike_losses": hit_att,
        "cap_losses": hit_cap,
    }


def flak(
    w: Work,
    aa: Fraction,
    attackers: Sequence[Flight],
    dice: Dice,
    defender: Side,
    lbac: str,
    aa_why: Sequence[str] = (),
) -> dict[str, Any] | None:
    """NM.AA.GROUPS / AM.BASE.AA / AM.STRAFE.AA: the target's AA on CRT2. ``lbac`` is
    "halved" (strikes on ships, SEQ.5F.2b), or "immune" (land targets, SEQ.5H.2b).
    ``aa_why``: why the AA is not the ships' printed total (damage, CBT.H)."""
    attackers = [a for a in attackers if a.points > 0]
    if not attackers or int(aa) < 1:
        return None
    loss, die = crt2(dice, aa, f"AA of {defender}")
    targets = [a for a in attackers if not (lbac == "immune" and a.atype == "LBAC")]
    # The defending player picks the types lost to AA (SEQ.5I.2b).
    hit = take_losses(w, targets, loss, airkill(w, defender), defender)
    out: dict[str, Any] = {"aa": naval_combat.as_number(aa), "die": die, "losses": hit}
    if aa_why:
        out["aa_why"] = list(aa_why)
    return out


# --- the strike step ------------------------------------------------------------------------


def flights_from(w: Work, lines: Mapping[Side, Sequence[Line]]) -> list[Flight]:
    """AMAC.A: every accepted mission becomes a flight; its aircraft leave their
    base or carrier now (no more than are there)."""
    out: list[Flight] = []
    for side in (ALLIED, JAPANESE):
        for ln in lines.get(side, ()):
            m = ln.order
            if not isinstance(m, Mission):
                continue
            origin = movement.location_hex(w, side, m.source)
            if origin is None:
                continue
            have = w.air_at(side, m.source)
            n = min(m.air.points, have.get(m.air.atype))
            if n <= 0:
                continue
            w.set_air(side, m.source, _less(have, m.air.atype, n))
            dest = origin if m.dest is None else m.dest
            normal = air_values(side, m.air.atype).range_normal
            ext = w.geo.air_distance(origin, dest) > normal and m.air.atype != "LBAC"
            out.append(
                Flight(
                    side,
                    m.air.atype,
                    n,
                    m.source,
                    origin,
                    m.kind,
                    dest,
                    m.target,
                    m.group,
                    ext,
                    at=m.at or "",
                )
            )
    return out


def _less(have: Air, atype: str, n: int) -> Air:
    new = have.add(atype, -n)
    if new.nac_new > new.nac:
        new = replace(new, nac_new=new.nac)
    return new


def hook_strikes(w: Work, st: Step, lines: Mapping[Side, list[Line]], dice: Dice | None) -> None:
    """SEQ.5D-J for both sides' plots."""
    if dice is None:
        return
    flights = flights_from(w, lines)
    groups = ship_groups(w)  # SEQ.5D: formed once, before any strike
    for side in (ALLIED, JAPANESE):  # SEQ.5F then SEQ.5G
        strike_ships(w, [f for f in flights if f.side == side], flights, groups, dice)
    for side in (ALLIED, JAPANESE):  # SEQ.5H then SEQ.5I
        strike_targets(w, [f for f in flights if f.side == side], flights, dice)
    phasing = st.side or w.side
    ground_support(w, flights, phasing, dice)  # SEQ.5J
    w.state = replace(
        w.state,
        extra={**w.state.extra, "aloft": [asdict(f) for f in flights if f.points or f.aborted]},
    )


def cap_over(flights: Iterable[Flight], side: Side, h: int, over: str) -> list[Flight]:
    """AM.CAP.SCOPE: carrier CAP ("ships") covers ships at sea or in port in its
    hex; air-base CAP ("base") covers land units, CD units, bases and ships in port."""
    out = []
    for f in flights:
        if f.kind != "CAP" or f.side != side or f.origin != h or f.points <= 0:
            continue
        from_carrier = hexgrid.hex_of(f.source) is None
        if over == "port" or (over == "ships") == from_carrier:
            out.append(f)
    return out


def engages(w: Work, side: Side) -> bool:
    """AM.CAP.OPTIONAL: CAP may decline (standing order CAP DECLINE)."""
    return resolve(side, w.state.standing.get(side, ())).cap_engage


def ship_groups(w: Work) -> dict[tuple[str, int, int], list[str]]:
    """SEQ.5D / NM.AA.GROUPS: every stack at sea paired from the top, as (side, hex,
    group number) -> unit keys. The pairs stand for the whole phase: a ship sunk by
    one strike leaves its partner alone, it does not re-pair the stack."""
    stacks: dict[tuple[str, int], list[Unit]] = {}
    for u in w.units.values():
        if u.is_naval and u.hex is not None and not u.in_base:
            stacks.setdefault((u.side, u.hex), []).append(u)
    out: dict[tuple[str, int, int], list[str]] = {}
    for (side, h), ships in stacks.items():
        for g, pair in enumerate(movement.air_groups(ships), start=1):
            out[(side, h, g)] = [u.key for u in pair]
    return out


def strike_ships(
    w: Work,
    mine: list[Flight],
    everyone: list[Flight],
    groups: Mapping[tuple[str, int, int], list[str]],
    dice: Dice,
) -> None:
    """SEQ.5F/5G, AM.BOMBNAV.*: strikes on ship groups at sea, type by type."""
    targets: dict[tuple[int, int], list[Flight]] = {}
    for f in mine:
        if f.kind == "STRIKE" and f.target == "SHIPS":
            targets.setdefault((f.dest, f.group), []).append(f)
    for (h, g), force in targets.items():
        side = force[0].side
        enemy = enemy_of(side)
        if not groups.get((enemy, h, g)):
            found_nothing(w, force, h, "ships" if g == 1 else f"ship group {g}")
            continue
        for atype in SHIP_ORDER:
            wave = [f for f in force if f.atype == atype and f.points > 0]
            if not wave:
                continue
            group = [w.units[k] for k in groups.get((enemy, h, g), ()) if k in w.units]
            record: dict[str, Any] = {
                "side": side,
                "hex": hexgrid.fmt(h),
                "group": g,
                "type": atype,
            }
            record["flights"] = [f.label() for f in wave]
            record["ships"] = [u.uid for u in group]
            if engages(w, enemy):
                record["cap"] = dogfight(
                    w, cap_over(everyone, enemy, h, "ships"), wave, dice, False
                )
            aa, aa_why = naval_combat.total_why(w.state, group, "aa")
            record["aa"] = flak(w, aa, wave, dice, enemy, "halved", aa_why)
            record["attack"] = _bomb_ships(w, wave, group, dice)
            w.event("air-strike", "AM.BOMBNAV.SEQ", None, attacker=side, **record)


def split_on_group(
    state: GameState, bombardment: int, ships: Sequence[Unit]
) -> list[tuple[Unit, int]]:
    """AM.BOMBNAV.SEQ: the survivors attack one or both ships separately. Default:
    all on the more valuable ship, unless the odds on it would pass 16-1 and the
    rest still reaches 1-1 on the other, which then gets the rest."""
    order = sorted(ships, key=lambda u: (-ship_value(u), u.stack, u.uid))
    if not order or bombardment <= 0:
        return []
    first = order[0]
    need = int(16 * strength(state, first, "defense")) + 1
    if len(order) > 1 and bombardment - need >= strength(state, order[1], "defense"):
        return [(first, need), (order[1], bombardment - need)]
    return [(first, bombardment)]


def _bomb_ships(
    w: Work, wave: Sequence[Flight], ships: Sequence[Unit], dice: Dice
) -> list[dict[str, Any]]:
    """Surviving bombardment against ship DEF on CRT3 then CRT5; damage takes
    effect at once for the next waves (AM.BOMBNAV.ORDER)."""
    side = wave[0].side
    total = sum(f.bombardment(w.state, naval=True) for f in wave if f.points > 0)
    alive = [w.units[u.key] for u in ships if u.key in w.units]
    out = []
    for ship, b in split_on_group(w.state, total, alive):
        defense, why = naval_combat.strength_why(w.state, ship, "defense")
        f = fire(
            dice,
            "CRT3",
            Fraction(b),
            defense,
            ship.key,
            f"{side} air at {ship.uid}",
            defense_why=why,
        )
        out.append(f.to_json())
        apply_damage(w, ship, f.damage, side, "AM.BOMBNAV.SEQ")
    return out


def strike_targets(w: Work, mine: list[Flight], everyone: list[Flight], dice: Dice) -> None:
    """SEQ.5H/5I: every land-side target, all air types together (LAND strikes
    naming different units are separate attacks)."""
    targets: dict[tuple[int, str, str], list[Flight]] = {}
    for f in mine:
        if f.kind == "STRIKE" and f.target in LAND_TARGETS:
            targets.setdefault((f.dest, f.target, f.at), []).append(f)
    for (h, target, _at), force in targets.items():
        side = force[0].side
        enemy = enemy_of(side)
        missing = _absent_target(w, enemy, h, target)
        if missing:
            found_nothing(w, force, h, missing)
            continue
        record: dict[str, Any] = {"side": side, "hex": hexgrid.fmt(h), "target": target}
        record["flights"] = [f.label() for f in force]
        if target in ("AIRBASE", "STRAFE"):
            _scramble(w, everyone, enemy, h, strafe=target == "STRAFE")
        over = "port" if target == "PORT" else "base"
        lbac = "halved" if target == "PORT" else "immune"  # CRT2.LBAC
        if engages(w, enemy):
            cap = cap_over(everyone, enemy, h, over)
            record["cap"] = dogfight(w, cap, force, dice, lbac_immune=lbac == "immune")
        record["aa"] = flak(w, _target_aa(w, enemy, h, target), force, dice, enemy, lbac)
        record["attack"] = _attack_target(w, force, enemy, h, target, dice)
        rule = {"PORT": "AM.BOMBNAV.PORT", "LAND": "AM.BOMBLAND", "CD": "AM.BOMBCD"}.get(
            target, "AM.STRAFE.FIRE" if target == "STRAFE" else "AM.BASE.RESOLVE"
        )
        w.event("air-strike", rule, None, attacker=side, **record)


def _absent_target(w: Work, enemy: Side, h: int, target: str) -> str:
    """What a strike planned out of sight (double-blind) finds missing, or ""."""
    here = fog.shown_in(w.state.extra, w.units, enemy, h)  # H1: covered cargo ashore
    if target == "PORT" and not any(u.is_naval and u.in_base for u in here):
        return "ships in port"
    if target == "LAND" and not any(u.kind == "land" for u in here):
        return "land units"  # a named unit not there: AM.BOMBLAND retargets (strike-retargeted)
    if target == "CD" and not any(u.kind == "cd" for u in here):
        return "coastal defense units"
    return ""


def found_nothing(w: Work, force: Sequence[Flight], h: int, what: str) -> None:
    """SEQ.5H: a strike sent where the side could not see finds no target; only
    its own side is told (the enemy saw nothing attack), and the flights return
    (SEQ.5L) like any other."""
    side = force[0].side
    w.event(
        "strike-found-nothing",
        "SEQ.5H",
        (side,),
        side=side,
        hex=hexgrid.fmt(h),
        target=what,
        flights=[f.label() for f in force],
        message=f"your strike found no {what} at {hexgrid.fmt(h)}",
    )


def _scramble(w: Work, flights: list[Flight], side: Side, h: int, strafe: bool) -> None:
    """AM.BASE.TARGET / AM.STRAFE.CAP: aircraft with no mission on a bombed or
    strafed air base rise to CAP by themselves - not from a neutralised base,
    not unallocated LBAC against strafing, not in the first turn of CG1."""
    base = w.bases.get(h)
    loc = hexgrid.fmt(h)
    if base is None or base.owner != side or base.neutralized(w.state.turn):
        return
    shock = naval_combat.shock_rule(w.state)
    if strafe and side == ALLIED and shock is not None and shock.get("no_strafing_cap"):
        return  # CG1.SHOCK.NOCAP
    have = w.air_at(side, loc)
    for atype in AIR_TYPES:
        n = have.get(atype)
        if not n or (strafe and atype == "LBAC"):
            continue
        have = _less(have, atype, n)
        flights.append(Flight(side, atype, n, loc, h, "CAP", h, auto=True))
    w.set_air(side, loc, have)


def _target_aa(w: Work, side: Side, h: int, target: str) -> Fraction:
    """BASE.M: an air base fires its capacity, a naval base 20; ships in port add
    theirs to the naval base's (NM.AA.PORT). Land units and CD units fire none."""
    base = w.bases.get(h)
    if base is None or base.owner != side:
        base = None
    if target in ("AIRBASE", "STRAFE"):
        return _base_aa(w, base, Fraction(base.air_capacity)) if base else Fraction(0)
    if target == "NAVALBASE":
        return _base_aa(w, base, Fraction(NAVAL_BASE_AA)) if base else Fraction(0)
    if target == "PORT":
        ships = [u for u in w.units.values() if u.side == side and u.hex == h and u.in_base]
        aa = sum((strength(w.state, u, "aa") for u in ships), Fraction(0))
        if base is not None and base.has_naval:
            aa += _base_aa(w, base, Fraction(NAVAL_BASE_AA))
        return aa
    return Fraction(0)


def _base_aa(w: Work, base: Base, aa: Fraction) -> Fraction:
    for modify in BASE_AA_MODIFIERS:
        aa = modify(w.state, base, aa)
    return aa


def _attack_target(
    w: Work, force: Sequence[Flight], enemy: Side, h: int, target: str, dice: Dice
) -> Any:
    side = force[0].side
    alive = [f for f in force if f.points > 0]
    if not alive:
        return None
    if target == "STRAFE":
        return _strafe(w, alive, enemy, h, dice)
    if target == "PORT":
        ships = [u for u in w.units.values() if u.side == enemy and u.hex == h and u.in_base]
        return _bomb_ships(w, alive, stack_of(ships), dice)
    bomb = sum(f.bombardment(w.state, naval=False) for f in alive)
    here = fog.shown_in(w.state.extra, w.units, enemy, h)  # H1: covered cargo ashore
    if target == "LAND":
        units = [u for u in here if u.kind == "land"]
        if not units:
            return None
        tgt = _land_target(w, alive, units, h)
        labels = [f.label() for f in alive]
        return {
            "cut_off": bombardment.cut_off_by_bombing(
                w, tgt, Fraction(bomb), dice, "AM.BOMBLAND", labels
            )
        }
    if target == "CD":
        cds = [u for u in here if u.kind == "cd"]
        if not cds:
            return None
        cd = cds[0]
        defense, why = naval_combat.strength_why(w.state, cd, "defense")
        f = fire(
            dice,
            "CRT4",
            Fraction(bomb),
            defense,
            cd.key,
            f"{side} air at {cd.uid}",
            defense_why=why,
        )
        if f.number >= bombardment.CD_KILL_NUMBER:
            destroy(w, cd, "bombed", "AM.BOMBCD")
        return f.to_json()
    base = w.bases.get(h)
    if base is None or base.owner != enemy:
        return None
    f = fire(
        dice,
        "CRT3",
        Fraction(bomb),
        Fraction(BASE_DEFENSE),
        f"base:{hexgrid.fmt(h)}",
        f"{side} air at {hexgrid.fmt(h)}",
    )
    bombardment.base_hit(w, h, target, f.damage, side, "AM.BASE.GROUNDED", grounded_only=True)
    return f.to_json()


def _land_target(w: Work, force: Sequence[Flight], units: Sequence[Unit], h: int) -> Unit:
    """AM.BOMBLAND: "any of the land units in the hex" - the one the striking player
    named (``AT``), else the one with the lowest defence. A named unit that is not
    there (it was out of the striker's sight when plotted) leaves the default, and
    the striker is told."""
    named = force[0].at
    weakest = min(units, key=lambda u: (land_defense(w.state, u), u.uid))
    if not named:
        return weakest
    for u in units:
        if u.uid == named:
            return u
    side = force[0].side
    w.event(
        "strike-retargeted",
        "AM.BOMBLAND",
        (side,),
        side=side,
        hex=hexgrid.fmt(h),
        named=named,
        target=weakest.uid,
        reason=f"{named} is not in {hexgrid.fmt(h)}: the unit with the lowest defence is bombed",
    )
    return weakest


def _strafe(w: Work, strafers: Sequence[Flight], enemy: Side, h: int, dice: Dice) -> Any:
    """AM.STRAFE.FIRE: the strafers' A2A on CRT2 at the aircraft left on the ground,
    which cannot reply; the destroyed figure is the loss (an abort means nothing to a
    parked aircraft: docs/usn-orders.md, Rulings)."""
    loc = hexgrid.fmt(h)
    have = w.air_at(enemy, loc)
    ground = [Flight(enemy, t, have.get(t), loc, h, "GROUND", h) for t in AIR_TYPES if have.get(t)]
    if not ground:
        return {"grounded": 0}
    side = strafers[0].side
    loss, die = crt2(dice, sum(f.a2a() for f in strafers), f"{side} strafing {loc}")
    hit = take_losses(w, ground, AirLoss(0, loss.destroyed), airkill(w, side), side)
    new = have
    for t, n in hit["destroyed"].items():
        new = _less(new, t, n)
    w.set_air(enemy, loc, new)
    return {"die": die, "destroyed": hit["destroyed"]}


def ground_support(w: Work, flights: list[Flight], phasing: str, dice: Dice) -> None:
    """SEQ.5J, AM.GSO, AM.GSD: support missions fight the enemy air-base CAP still
    up over the hex (offensive and defensive support never fight each other),
    then the survivors' bombardment goes to SEQ.5K."""
    support: dict[str, dict[str, int]] = {}
    by_hex: dict[tuple[int, str], list[Flight]] = {}
    for f in flights:
        if f.kind == "SUPPORT":
            by_hex.setdefault((f.dest, f.side), []).append(f)
    for (h, side), force in sorted(by_hex.items()):
        enemy = enemy_of(side)
        record: dict[str, Any] = {
            "side": side,
            "hex": hexgrid.fmt(h),
            "flights": [f.label() for f in force],
        }
        if engages(w, enemy):
            record["cap"] = dogfight(w, cap_over(flights, enemy, h, "base"), force, dice, True)
        total = sum(f.bombardment(w.state, naval=False) for f in force if f.points > 0)
        role = "attack" if side == phasing else "defense"
        slot = support.setdefault(hexgrid.fmt(h), {"attack": 0, "defense": 0})
        slot[role] += total
        record[role] = total
        w.event(
            "ground-support",
            "AM.GSO" if role == "attack" else "AM.GSD",
            None,
            attacker=side,
            **record,
        )
    w.state = replace(w.state, extra={**w.state.extra, "ground_support": support})


__all__ = [
    "BASE_AA_MODIFIERS",
    "BOMBARDMENT_MODIFIERS",
    "Flight",
    "check_mission_target",
    "hook_strikes",
    "split_on_group",
]
