"""Victory: the running VP log, geographic control and the final verdict.

GEN.REC.A keeps each side's VP for enemy losses as they happen, open to both
sides. The ledger lives in ``state.extra["vp_log"]`` (one row per award:
receiver, points as an exact fraction string, reason, turn) and is kept up to
date by ``account(before, after)`` after every mail round: it compares the two
states, so it needs no hook inside the combat code (destroyed units come from
``state.destroyed``, damage from each ship's weeks, air losses from the air
totals net of arrivals). ``state.vp`` holds the sums (A18: exact fractions,
stored as floats for reports).

The verdict (VP.CALC, VP.LEVELS) adds the scenario's objectives at game end
(MINI.*.VC, VP.GEO.*) to the unit points and forms the ratio.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from pbem.core.ruleset import Outcome
from pbem.core.sides import ALLIED, JAPANESE, SIDES, Side, enemy_of
from pbem.rulesets.usn import hexgrid, world
from pbem.rulesets.usn.geo import Geo
from pbem.rulesets.usn.hooks import GARRISONS_SHORT, HOOKS, UNGARRISONED
from pbem.rulesets.usn.sequence import ends_turn
from pbem.rulesets.usn.state import CARRIERS, GameState, Unit

# Counter types -> VP schedule categories (VP.SCHED.*); the first entry the
# receiving side has a line for wins, so specific lines replace generic ones (A20).
_LAND_CATEGORIES: Mapping[str, tuple[str, ...]] = {
    "DIV": ("division",),
    "MAR": ("marine_division", "division"),
    "BDE": ("brigade", "regiment"),
    "RGT": ("regiment",),
    "SNLF": ("snlf", "regiment"),
    "PARA": ("regiment",),  # A20: unlisted units score by their size class
    "ENG": ("engineer", "regiment"),
    "BN": ("battalion",),
    "ARMY": ("army",),  # ERR.VP.CHINESE: 0 for the Japanese
    "CD": ("coastal_defense",),
}
_NAVAL_CATEGORIES: Mapping[str, tuple[str, ...]] = {
    "TR": ("transport",),
    "AT": ("assault_transport", "transport"),
    "OIL": ("oiler",),
}


# Losses the enemy did not inflict score nothing (VP.SCHED: points are "for destroying"
# the other side's units): a ship lost for want of fuel (SUP.G).
NOT_BY_THE_ENEMY = frozenset({"out of fuel"})


def tables() -> Any:
    return world.current().tables


def unit_value(u: Unit, receiver: Side, vp_tables: Any | None = None) -> Fraction:
    """VP.SCHED.LAND / VP.SCHED.NAV / VP.SCHED.J / VP.SCHED.A: what ``receiver`` earns
    for destroying ``u``. A19: carriers and warships by their printed values."""
    t = vp_tables if vp_tables is not None else tables()
    if u.is_naval:
        if u.utype in CARRIERS:
            cats: tuple[str, ...] = ("carrier",)
        else:
            cats = _NAVAL_CATEGORIES.get(u.utype, ("naval",))
    else:
        cats = _LAND_CATEGORIES.get(u.utype, ("regiment",))
    for cat in cats:
        e = t.vp_entry(receiver, cat)
        if e is None:
            continue
        if e.per == "air_capacity":
            return Fraction(e.points) * u.capacity
        if e.per == "defense":
            return Fraction(e.points) * u.defense
        return Fraction(e.points)
    return Fraction(0)


def air_value(atype: str, receiver: Side, vp_tables: Any | None = None) -> Fraction:
    """VP.SCHED.AIR (LAC ½ each), VP.SCHED.J (LBAC 1, NAC ½), VP.SCHED.A (NAC 1)."""
    t = vp_tables if vp_tables is not None else tables()
    e = t.vp_entry(receiver, atype)
    return Fraction(e.points) if e is not None else Fraction(0)


# --- the running log (GEN.REC.A) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Award:
    receiver: Side
    points: Fraction
    reason: str
    turn: int
    rule: str

    def to_json(self) -> list[Any]:
        return [self.receiver, str(self.points), self.reason, self.turn, self.rule]


def log_of(state: GameState) -> list[Award]:
    return [
        Award(r[0], Fraction(r[1]), r[2], int(r[3]), r[4]) for r in state.extra.get("vp_log", [])
    ]


def totals(awards: Iterable[Award]) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {side: Fraction(0) for side in SIDES}
    for a in awards:
        out[a.receiver] = out.get(a.receiver, Fraction(0)) + a.points
    return out


def _ledger(state: GameState) -> dict[str, dict[str, int]]:
    """Per ship: ``weeks`` of damage scored since it was last fully repaired."""
    return {k: dict(v) for k, v in state.extra.get("damage_ledger", {}).items()}


def account(before: GameState, after: GameState, vp_tables: Any | None = None) -> GameState:
    """GEN.REC.A, VP.DAMAGE, VP.DAMAGE.SINK, VP.DAMAGE.REPAIRED, VP.SCHED.*: score what
    changed between two states (one mail round) into the log and ``state.vp``."""
    t = vp_tables if vp_tables is not None else tables()
    turn = before.turn  # the round's turn (air-9 ends with Step 10 and the next turn)
    awards = log_of(after)
    ledger = _ledger(after)
    repaired = after.extra.get("repaired_this_round", {})
    # Damage (VP.DAMAGE): weeks added this round, net of this round's repairs.
    for key, u in after.units.items():
        if not u.is_naval:
            continue
        old = before.units.get(key)
        was = old.damage if old is not None else 0
        added = u.damage + int(repaired.get(key, 0)) - was
        entry = ledger.setdefault(key, {"weeks": 0})
        if added > 0:
            value = unit_value(u, enemy_of(u.side), t)
            awards.append(
                Award(
                    enemy_of(u.side),
                    value * added / 100,
                    f"{u.uid} damaged {added} weeks",
                    turn,
                    "VP.DAMAGE",
                )
            )
            entry["weeks"] += added
        if u.damage == 0 and entry["weeks"]:
            entry["weeks"] = 0  # VP.DAMAGE.REPAIRED: a later sinking scores in full
    # Units destroyed this round (VP.SCHED.*, VP.DAMAGE.SINK).
    seen = {d[0] for d in before.destroyed}
    for key, when, cause in after.destroyed:
        if key in seen or cause in NOT_BY_THE_ENEMY:
            continue
        dead = before.units.get(key) or after.units.get(key) or _catalogue_unit(key)
        if dead is None:
            continue
        receiver = enemy_of(dead.side)
        value = unit_value(dead, receiver, t)
        weeks = ledger.pop(key, {}).get("weeks", 0)
        if weeks:  # only the balance up to the full value
            value = max(Fraction(0), value - value * min(weeks, 100) / 100)
        if value:
            awards.append(
                Award(
                    receiver,
                    value,
                    f"{dead.uid} destroyed ({cause})",
                    when,
                    _sink_rule(dead, weeks),
                )
            )
    # Air points lost (VP.SCHED.AIR / J / A): totals net of arrivals this round.
    arrived = _air_arrivals(before, after)
    for side in SIDES:
        for atype in ("LAC", "NAC", "LBAC"):
            lost = (
                _air_total(before, side, atype)
                + arrived.get((side, atype), 0)
                - _air_total(after, side, atype)
            )
            if lost > 0:
                value = air_value(atype, enemy_of(side), t) * lost
                if value:
                    awards.append(
                        Award(
                            enemy_of(side),
                            value,
                            f"{lost} {side} {atype} point(s) destroyed",
                            turn,
                            "VP.SCHED.AIR",
                        )
                    )
    extra = dict(after.extra)
    extra["vp_log"] = [a.to_json() for a in awards]
    extra["damage_ledger"] = {k: v for k, v in ledger.items() if v.get("weeks")}
    extra.pop("repaired_this_round", None)
    sums = totals(awards)
    return replace(after, extra=extra, vp={s: float(v) for s, v in sums.items()})


def _sink_rule(u: Unit, weeks: int) -> str:
    if weeks:
        return "VP.DAMAGE.SINK"
    return "VP.SCHED.NAV" if u.is_naval else "VP.SCHED.LAND"


def _air_total(s: GameState, side: Side, atype: str) -> int:
    return sum(a.get(atype) for a in s.air.get(side, {}).values())


def _air_arrivals(before: GameState, after: GameState) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    left = list(after.pending)
    for p in before.pending:
        if p.air_type is None:
            continue
        if p in left:
            left.remove(p)
            continue
        k = (p.side, p.air_type)
        out[k] = out.get(k, 0) + p.air_points
    return out


def _catalogue_unit(key: str) -> Unit | None:
    """A unit that arrived and died within one round: value it from its counter."""
    side, _, uid = key.partition("/")
    return world.counter_unit(side, uid)  # an unknown counter scores nothing


# --- geographic control (VP.GEO.CONTROL, A23) -----------------------------------------


def land_sides_at(state: GameState, hexes: Iterable[int]) -> set[str]:
    hs = set(hexes)
    return {u.side for u in state.units.values() if u.kind == "land" and u.hex in hs}


def update_control(state: GameState, areas: Mapping[str, Iterable[int]]) -> GameState:
    """VP.GEO.CONTROL: the last side to occupy an area alone holds it; both present is
    disputed (VP.GEO.DISPUTED) without changing the last occupant."""
    control = dict(state.extra.get("control", {}))
    disputed = set(state.extra.get("disputed", ()))
    for name, hexes in areas.items():
        present = land_sides_at(state, hexes)
        if len(present) == 1:
            control[name] = next(iter(present))
            disputed.discard(name)
        elif len(present) == 2:
            disputed.add(name)
        else:
            disputed.discard(name)
    return replace(state, extra={**state.extra, "control": control, "disputed": sorted(disputed)})


def holder(state: GameState, name: str, hexes: Sequence[int]) -> str | None:
    """Undisputed control of an area (VP.GEO.CONTROL); before anyone occupies it, the
    owner of a base there holds it."""
    if name in state.extra.get("disputed", ()):
        return None
    present = land_sides_at(state, hexes)
    if len(present) == 2:
        return None
    if len(present) == 1:
        return next(iter(present))
    ctl = state.extra.get("control", {}).get(name)
    if ctl:
        return str(ctl)
    owners = {state.bases[h].owner for h in hexes if h in state.bases}
    return owners.pop() if len(owners) == 1 else None


def objective_areas(geo: Geo, victory: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """The hexes of every area a scenario's objectives name."""
    out: dict[str, tuple[int, ...]] = {}
    for ob in victory.get("objectives", ()) or ():
        if "hex" in ob:
            out[str(ob["id"])] = (int(ob["hex"]),)
        elif "region" in ob:
            for i, island in enumerate(islands(geo, str(ob["region"]))):
                out[f"{ob['id']}#{i}"] = island
    if victory.get("geographic"):
        for g in tables().geographic:
            hexes = _geo_hexes(geo, g)
            if hexes:
                out[f"geo:{g.area}"] = hexes
    return out


def _geo_hexes(geo: Geo, g: Any) -> tuple[int, ...]:
    if g.hexes:
        return tuple(g.hexes)
    if g.region:
        return tuple(sorted(geo.regions.get(g.region, ())))
    if g.place:
        return tuple(sorted(geo.regions.get(str(g.place).lower(), ())))
    return ()


def islands(geo: Geo, region: str) -> list[tuple[int, ...]]:
    """The land masses of a region (hexes joined by land hexsides), for 'per island'."""
    hexes = set(geo.regions.get(region, ()))
    out: list[tuple[int, ...]] = []
    while hexes:
        start = min(hexes)
        group, todo = {start}, [start]
        while todo:
            h = todo.pop()
            for n in geo.land_nbrs.get(h, ()):
                if n in hexes and n not in group:
                    group.add(n)
                    todo.append(n)
        hexes -= group
        out.append(tuple(sorted(group)))
    return out


# --- scenario objectives ----------------------------------------------------------


def each_turn_objectives(state: GameState, victory: Mapping[str, Any], turn: int) -> GameState:
    """MINI.SOLOMONS.VC / MINI.SANTACRUZ.VC: the Japanese score 25 for each turn the
    Guadalcanal air base is damaged while the Allies hold it (A14: neutralized at any
    time that turn). Called once per turn at Step 10."""
    awards = log_of(state)
    for ob in victory.get("objectives", ()) or ():
        if ob.get("when") != "each-turn":
            continue
        b = state.bases.get(int(ob["hex"]))
        if b is None or b.owner != ALLIED or not b.has_air:
            continue
        if b.neutralized(turn):
            awards.append(
                Award(
                    Side(ob.get("side", JAPANESE)),
                    Fraction(int(ob["points"])),
                    f"{ob['id']}: turn {turn}",
                    turn,
                    "MINI.SOLOMONS.VC",
                )
            )
    sums = totals(awards)
    return replace(
        state,
        extra={**state.extra, "vp_log": [a.to_json() for a in awards]},
        vp={s: float(v) for s, v in sums.items()},
    )


def end_objectives(
    geo: Geo, state: GameState, victory: Mapping[str, Any]
) -> list[tuple[str, Fraction, str]]:
    """MINI.CORAL.VC (+ ERR.CORAL.VC), MINI.MIDWAY.VC, MINI.SOLOMONS.VC, VP.GEO.TABLE:
    (side, points, why) for each objective met at the end of the last turn."""
    out: list[tuple[str, Fraction, str]] = []
    for ob in victory.get("objectives", ()) or ():
        if ob.get("when") != "end":
            continue
        pts = Fraction(int(ob["points"]))
        oid = str(ob["id"])
        if "region" in ob:
            side = str(ob.get("side", JAPANESE))
            held = [
                isl
                for i, isl in enumerate(islands(geo, str(ob["region"])))
                if holder(state, f"{oid}#{i}", isl) == side and side in land_sides_at(state, isl)
            ]
            if held:
                out.append((side, pts * len(held), f"{oid}: {len(held)} island(s) occupied"))
            continue
        h = int(ob["hex"])
        if ob.get("base") == "air":
            b = state.bases.get(h)
            destroyed = b is None or (b.air and b.air_capacity <= 0) or not b.air
            if ob.get("condition") == "destroyed":
                if destroyed:
                    out.append((str(ob["side"]), pts, f"{oid}"))
                continue
            if destroyed:
                continue
            if ob.get("to") == "holder":
                assert b is not None
                out.append((b.owner, pts, f"{oid}: held by the {b.owner}"))
            continue
        if ob.get("to") == "holder":
            who = holder(state, oid, (h,))
            if who:
                out.append((who, pts, f"{oid}: held by the {who}"))
            continue
        side = str(ob.get("side", JAPANESE))
        utype = ob.get("unit_type")
        there = [
            u
            for u in state.units.values()
            if u.side == side and u.hex == h and (utype is None or u.utype == utype)
        ]
        if ob.get("supplied_from_base"):
            there = [u for u in there if u.supplied and u.emergency_supply_turn != state.turn]
        if there:
            out.append((side, pts, oid))
    if victory.get("geographic"):
        out += _geographic(geo, state)
    return out


def _geographic(geo: Geo, state: GameState) -> list[tuple[str, Fraction, str]]:
    """VP.GEO.TABLE, VP.GEO.DISPUTED, ERR.VP.AUSBASES, VP.GEO.MANDALAY, OPT.GAR.END."""
    out: list[tuple[str, Fraction, str]] = []
    denied = HOOKS[UNGARRISONED](geo, state)
    for g in tables().geographic:
        if g.place and state.extra.get("mandalay_automatic"):
            out.append((JAPANESE, Fraction(g.points), f"{g.area} (CG1.BURMA met)"))
            continue
        if g.any_naval_base_in:
            region = "home-islands" if "home" in g.any_naval_base_in else g.any_naval_base_in
            for h, b in sorted(state.bases.items()):
                if not (b.has_naval and geo.in_region(h, region)):
                    continue
                if h not in geo.bases or not geo.bases[h].naval:
                    continue  # ERR.VP.AUSBASES: bases built in the game score nothing
                owner = holder(state, f"base:{h}", (h,)) or b.owner
                out.append((owner, Fraction(g.points), f"{g.area} ({hexgrid.fmt(h)})"))
            continue
        hexes = _geo_hexes(geo, g)
        who = holder(state, f"geo:{g.area}", hexes) if hexes else None
        if who and _garrisoned(g, hexes, denied.get(who, ())):
            out.append((who, Fraction(g.points), g.area))
    return out


def _garrisoned(g: Any, hexes: Sequence[int], denied: Iterable[str]) -> bool:
    names = {str(g.region or ""), "/".join(hexgrid.fmt(h) for h in hexes)}
    return not (names & set(denied))


def required_areas_held(geo: Geo, state: GameState) -> list[str]:
    """VP.GEO.REQ: the starred areas the Japanese do not hold undisputed."""
    missing = []
    for g in tables().geographic:
        if not g.required or g.place:  # Mandalay: see VP.GEO.MANDALAY (scenario rules)
            continue
        hexes = _geo_hexes(geo, g)
        if hexes and holder(state, f"geo:{g.area}", hexes) != JAPANESE:
            missing.append(g.area)
    return missing


def after_round(
    geo: Geo, before: GameState, after: GameState, victory: Mapping[str, Any]
) -> GameState:
    """After every mail round: score losses (GEN.REC.A), follow who last occupied each
    objective (VP.GEO.CONTROL), and at the turn's end the each-turn objectives."""
    s = account(before, after)
    s = update_control(s, objective_areas(geo, victory))
    if ends_turn(before):
        s = each_turn_objectives(s, victory, before.turn)
    return s


def verdict(
    geo: Geo, state: GameState, victory: Mapping[str, Any], vp_tables: Any | None = None
) -> Outcome:
    """VP.CALC, VP.LEVELS (A18: tie = draw, 0 for the loser = Decisive), VP.GEO.REQ."""
    t = vp_tables if vp_tables is not None else tables()
    scores = totals(log_of(state))
    lines = []
    for side, pts, why in end_objectives(geo, state, victory):
        scores[side] += pts
        lines.append(f"{side} +{_fmt(pts)} for {why}")
    for side, pts, why in state.extra.get("scenario_awards", []):
        scores[side] += Fraction(pts)
        lines.append(f"{side} +{_fmt(Fraction(pts))} for {why}")
    jp, al = scores[JAPANESE], scores[ALLIED]
    ints: dict[str, int] = {JAPANESE: int(jp), ALLIED: int(al)}
    summary = (
        f"Victory points: Japanese {_fmt(jp)}, Allied {_fmt(al)}"
        + (" (" + "; ".join(lines) + ")" if lines else "")
        + "."
    )
    short = HOOKS[GARRISONS_SHORT](state)
    if short:  # OPT.GAR.RESTORE: the Allied player wins
        level = t.victory_level(al, jp) or "Marginal"
        why = f"the fixed garrison of {', '.join(short)} is below strength (OPT.GAR.RESTORE)"
        return Outcome(ALLIED, level, f"{summary} The Japanese lose: {why}.", ints)
    forfeit = state.extra.get("forfeit")
    if forfeit:
        side, why = forfeit
        return Outcome(enemy_of(side), "Decisive", f"{summary} The {side} lose: {why}.", ints)
    if victory.get("required_areas_side") == JAPANESE:
        missing = required_areas_held(geo, state)
        if missing and jp > al:
            return Outcome(
                ALLIED,
                "Marginal",
                f"{summary} The Japanese cannot win without {', '.join(missing)} (VP.GEO.REQ).",
                ints,
            )
    if jp == al:
        return Outcome(None, "Draw", summary, ints)
    winner, hi, lo = (JAPANESE, jp, al) if jp > al else (ALLIED, al, jp)
    level = t.victory_level(hi, lo) or "Marginal"
    return Outcome(winner, level, f"{summary} {winner.capitalize()} {level} victory.", ints)


def _fmt(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"
