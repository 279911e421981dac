"""Moving units: naval, land and air movement, transports, off-map boxes.

Every public ``do_*`` function judges one order against the working state
``Work`` and either applies it (returning nothing) or raises ``IllegalOrderError`` with
the rule broken and, where useful, what would be legal. The same functions
serve validation (one side's orders on a copy) and adjudication, so what a
player is told at validation is what happens.
"""

from __future__ import annotations

from dataclasses import replace

from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, JAPANESE, Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.capture import capture_at
from pbem.rulesets.usn.geo import HOME_ISLANDS
from pbem.rulesets.usn.hexgrid import Location
from pbem.rulesets.usn.hooks import (
    ADVANCE_WEST,
    ENTER_WEST,
    FERRY_CHECK,
    FERRY_RECORD,
    GARRISON_AIR,
    GARRISON_UNIT,
    HOOKS,
    LAUNCH,
    LEAVE_WEST,
    MAY_RETURN_WEST,
    NAVAL_BASE_BARRED,
    NAVAL_PATH,
    PHASES_OFF_WEST,
    RECEIVE,
    RETURNED_WEST,
)
from pbem.rulesets.usn.orders import OFF_MAP, Move, Transfer
from pbem.rulesets.usn.state import WEST_COAST, Air, Base, Unit, encode_unit, unit_key
from pbem.rulesets.usn.work import Work
from pbem.rulesets.usn.zoc import undisputed_zones

PARA_RANGE = 4  # PARA.DROP
PARA_BASE_MIN = 10  # PARA.BASE


# --- naval movement ----------------------------------------------------------


def movement_allowance(u: Unit) -> int:
    """DEF.MA, CBT.H: more than 20 weeks of damage halves MA (A1: floor, at least 1)."""
    return max(1, u.ma // 2) if u.damage > 20 else u.ma


def do_naval_move(w: Work, order: Move) -> None:
    """SEQ.2C (first portion) or SEQ.2I (second portion, ``order.second``)."""
    ships = [w.own(uid) for uid in order.units]
    for s in ships:
        _check_ship_can_move(w, s, order.second)
    HOOKS[NAVAL_PATH](w, ships, order.path)
    for s in ships:
        _move_ship(w, s, order.path, order.second)


def _check_ship_can_move(w: Work, s: Unit, second: bool) -> None:
    if not s.is_naval:
        raise IllegalOrderError(
            f"{s.uid} is not a naval unit; land units move in the land phase", rule="MOV.GEN"
        )
    if s.carried_by is not None:
        raise IllegalOrderError(f"{s.uid} is aboard {s.carried_by}", rule="MOV.K")
    if s.training > 0:
        raise IllegalOrderError(
            f"{s.uid} is training new air groups in port and must stay idle "
            f"({s.training} more naval phase(s))",
            rule="CVJ.EMBARK",
        )
    if s.key in w.moved and not second:
        raise IllegalOrderError(f"{s.uid} has already moved this phase", rule="MOV.C")
    if second and s.key not in w.spent:
        w.spent[s.key] = 0
    off_west = HOOKS[PHASES_OFF_WEST](s)
    if off_west is not None and not HOOKS[MAY_RETURN_WEST](w.state, s):
        raise IllegalOrderError(
            f"{s.uid} is in the Indian Ocean and not yet due back", rule="CG1.INDIAN"
        )
    if s.box is not None and s.box != "EDGE" and off_west is None:
        raise IllegalOrderError(
            f"{s.uid} is off the map ({s.box}); use SAIL to leave the West Coast", rule="OFF.BOX"
        )


def _move_ship(w: Work, s: Unit, path: tuple[str, ...], second: bool) -> None:
    ma = movement_allowance(s)
    spent = w.spent.get(s.key, 0)
    doubled_ok = w.doubled_ok.get(s.key, not s.damaged)
    danger = w.danger()
    known = w.known_danger()  # double-blind: what the side's orders were judged on
    here = s.hex
    known_ok = doubled_ok and (here is None or here not in known)
    if here is not None and here in danger:
        doubled_ok = False
    hexes: list[int] = []
    entering_from_edge = s.box == "EDGE"
    from_west = HOOKS[PHASES_OFF_WEST](s) is not None  # CG1.INDIAN
    for i, tok in enumerate(path):
        if tok == OFF_MAP:
            _exit_map(w, s, here, spent + len(hexes) + 1, ma, doubled_ok)
            return
        h = int(tok)
        _check_step(
            w, s, here, h, from_edge=entering_from_edge and i == 0, from_west=from_west and i == 0
        )
        if h in danger:
            doubled_ok = False
        known_ok = known_ok and h not in known
        used = spent + len(hexes) + 1
        limit = ma * 2 if doubled_ok else ma
        if used > limit and known_ok and used <= ma * 2:
            # MOV.N near enemies out of sight: the move was accepted as plotted; it
            # ends where the normal allowance does, and only the mover is told.
            del hexes[max(0, ma - spent) :]
            here = hexes[-1] if hexes else s.hex
            # Which hex came near hidden enemies is theirs to keep: the path is named.
            _stopped(w, s, here, "enemy forces near its path deny double speed", "MOV.N")
            break
        if used > limit:
            why = (
                ""
                if doubled_ok or s.damaged or used > ma * 2
                else f" (no double speed: {_near_enemy(s, path[: i + 1], known)} is too near "
                "the enemy, MOV.N)"
            )
            raise IllegalOrderError(
                f"{s.uid} can move {max(0, limit - spent)} more hexes this phase; "
                f"{hexgrid.fmt(h)} would be hex {used - spent} of this path{why}",
                rule="MOV.N" if why else "DEF.MA",
            )
        enemies = w.enemy_ships_at_sea(h)
        escaped_here = any(
            u.key in w.escaped for u in w.enemy_units_at(h) if u.is_naval and not u.in_base
        )
        last = i == len(path) - 1
        if escaped_here and last:
            raise IllegalOrderError(
                f"{s.uid} may pass through {hexgrid.fmt(h)} but not stop there: the enemy ships there "
                "escaped an engagement this phase",
                rule="MOV.O",
            )
        if enemies and (second or not last) and w.out_of_sight(h):
            # NM.SURF.1 against ships out of sight (double-blind): the move was
            # accepted as plotted; it ends on meeting them (in the second portion,
            # SEQ.2G, just short of them), and only the mover is told here.
            if not second:
                w.engaged_at[s.key] = h
                hexes.append(h)
                here = h
            _stopped(w, s, here, f"met enemy ships at sea in {hexgrid.fmt(h)}", "NM.SURF.1")
            break
        if enemies:
            _check_meeting(s, h, second=second, last=last)
            w.engaged_at[s.key] = h
        hexes.append(h)
        here = h
        entering_from_edge = False
    if len(hexes) > ma and doubled_ok:
        w.event("double-speed", "MOV.N", None, unit=s.uid, side=s.side)
    w.spent[s.key] = spent + len(hexes)
    w.doubled_ok[s.key] = doubled_ok
    w.moved.add(s.key)
    if hexes:
        _arrive(w, s, hexes, from_west=from_west, second=second)


def _near_enemy(s: Unit, path: tuple[str, ...], zone: dict[int, int]) -> str:
    """MOV.N: where the move broke the rule - the first hex of it (its start included)
    within reach of the enemy; if none, it was the move's first portion."""
    start = [s.hex] if s.hex is not None else []
    for h in start + [int(t) for t in path if t != OFF_MAP]:
        if h in zone:
            return hexgrid.fmt(h)
    return "the first portion of its move"


def _check_step(
    w: Work, s: Unit, here: int | None, h: int, *, from_edge: bool, from_west: bool
) -> None:
    """A path's next hex: the box's entry hex (OFF.BOX), the Indian Ocean's
    (CG1.INDIAN), else adjacent (MOV.PROC) across a hexside ships may cross (TER.NAV)."""
    if from_edge:
        entry = int((s.heading or "in:0").split(":")[1])
        if h != entry:
            raise IllegalOrderError(
                f"{s.uid} re-enters the map at {hexgrid.fmt(entry)}, not {hexgrid.fmt(h)}",
                rule="OFF.BOX",
            )
    elif from_west:
        HOOKS[ENTER_WEST](w, s, h)
    elif here is None or not hexgrid.adjacent(here, h):
        start = hexgrid.fmt(here) if here is not None else "off map"
        raise IllegalOrderError(
            f"{hexgrid.fmt(h)} is not adjacent to {start} (paths go hex by hex)",
            rule="MOV.PROC",
        )
    elif h not in w.geo.naval_nbrs[here]:
        raise IllegalOrderError(
            f"{s.uid} cannot cross the all-land hexside {hexgrid.fmt(here)}/{hexgrid.fmt(h)}",
            rule="TER.NAV",
        )


def _check_meeting(s: Unit, h: int, *, second: bool, last: bool) -> None:
    """Enemy ships at sea in ``h``: the first portion ends there (NM.SURF.1); the
    second portion may not enter (SEQ.2G: engagements come after the first)."""
    if second:
        raise IllegalOrderError(
            f"{s.uid} may not enter {hexgrid.fmt(h)} in the second portion: enemy ships are at sea "
            "there and engagements happen only after the first portion",
            rule="SEQ.2G",
        )
    if not last:
        raise IllegalOrderError(
            f"{s.uid} enters {hexgrid.fmt(h)}, where enemy ships are at sea: the first portion "
            "of its move must end there; continue with CONTINUE after the engagement",
            rule="NM.SURF.1",
        )


def _arrive(w: Work, s: Unit, hexes: list[int], *, from_west: bool, second: bool) -> None:
    new = replace(s, hex=hexes[-1], box=None, heading=None, in_base=False, wait=0)
    w.put(new)
    if from_west:
        HOOKS[RETURNED_WEST](w, new)
    w.event(
        "moved",
        "SEQ.2I" if second else "SEQ.2C",
        None,
        unit=s.uid,
        side=s.side,
        path=[hexgrid.fmt(h) for h in hexes],
    )


def _stopped(w: Work, s: Unit, at: int | None, why: str, rule: str) -> None:
    where = hexgrid.fmt(at) if at is not None else s.where()
    w.event(
        "move-stopped",
        rule,
        (s.side,),
        unit=s.uid,
        side=s.side,
        hex=where,
        message=f"{s.uid} stopped at {where}: {why}",
    )


def _exit_map(w: Work, s: Unit, here: int | None, used: int, ma: int, doubled_ok: bool) -> None:
    if here is None:
        raise IllegalOrderError(f"{s.uid} is not on the map", rule="OFF.BOX")
    if used > (ma * 2 if doubled_ok else ma):
        raise IllegalOrderError(f"{s.uid} has no movement left to leave the map", rule="DEF.MA")
    edge = w.geo.edge_of(here)
    if edge in ("north", "south") or edge is None:
        raise IllegalOrderError(
            f"{hexgrid.fmt(here)} is not on the east or west edge", rule="OFF.NS"
        )
    if s.side == JAPANESE:
        if edge == "east":
            raise IllegalOrderError("Japanese ships may not leave the map here", rule="OFF.EAST")
        HOOKS[LEAVE_WEST](w, s)  # OFF.WEST.J, CG1.INDIAN
        return
    if edge == "west":
        # OFF.WEST.A: Allied units may leave west but never return.
        w.remove(s)
        w.event("left-map", "OFF.WEST.A", None, unit=s.uid, side=s.side, edge="west")
        return
    boxes = w.geo.east_boxes.get(here, 1)
    w.put(replace(s, hex=None, box=f"E{boxes}", heading="out", in_base=False))
    w.moved.add(s.key)
    w.event("left-map", "OFF.BOX", None, unit=s.uid, side=s.side, edge="east", box=boxes)


def do_sail(w: Work, uids: tuple[str, ...], entry: int) -> None:
    """OFF.BOX: leave the West Coast for the map through the east-edge boxes."""
    if w.geo.edge_of(entry) != "east":
        raise IllegalOrderError(f"{hexgrid.fmt(entry)} is not an east-edge hex", rule="OFF.EAST")
    ships = [w.own(uid) for uid in uids]
    for s in ships:
        if s.box != WEST_COAST:
            raise IllegalOrderError(f"{s.uid} is not at the U.S. West Coast", rule="OFF.BOX")
        if s.key in w.moved:
            raise IllegalOrderError(f"{s.uid} has already moved this phase", rule="MOV.C")
        if s.training > 0:
            raise IllegalOrderError(f"{s.uid} must stay in port this phase", rule="CVA.EMBARK")
    boxes = w.geo.east_boxes.get(entry, 1)
    for s in ships:
        w.put(replace(s, box=f"E{boxes}", heading=f"in:{entry}", in_base=False))
        w.moved.add(s.key)
        w.event("sailed", "OFF.BOX", None, unit=s.uid, side=s.side, entry=hexgrid.fmt(entry))


def advance_boxes(w: Work) -> None:
    """OFF.BOX: at the start of each own naval phase, ships in boxes step one box on
    (CG1.INDIAN: and ships in the Indian Ocean count one more phase there)."""
    HOOKS[ADVANCE_WEST](w)
    for u in list(w.units.values()):
        if u.side != w.side or u.box is None or not u.box.startswith("E"):
            continue
        left = int(u.box[1:]) - 1
        if left > 0:
            w.put(replace(u, box=f"E{left}"))
        elif u.heading == "out":
            # The arrival spends this phase (OFF.WCLOAD, CVA.EMBARK: load or embark next phase).
            w.put(replace(u, box=WEST_COAST, heading=None, in_base=True))
            w.moved.add(u.key)
            w.event("arrived", "OFF.BOX", None, unit=u.uid, side=u.side, at=WEST_COAST)
        else:
            w.put(replace(u, box="EDGE"))


# --- land movement ---------------------------------------------------------


def do_land_move(w: Work, order: Move, burma_open: bool) -> None:
    """SEQ.3A / MOV.F: a supplied land unit moves one hex."""
    for uid in order.units:
        u = w.own(uid)
        if u.kind == "cd":
            raise IllegalOrderError(
                f"{u.uid} is a coastal defense unit and never moves", rule="MOV.H"
            )
        if u.kind != "land":
            raise IllegalOrderError(
                f"{u.uid} is a naval unit; ships move in the air and sea phase", rule="MOV.GEN"
            )
        if u.hex is None:
            raise IllegalOrderError(f"{u.uid} is not on the map ({u.where()})", rule="MOV.J")
        if len(order.path) != 1 or order.path[0] == OFF_MAP:
            raise IllegalOrderError(f"{u.uid} may move one hex per Game-Turn", rule="MOV.F")
        if u.key in w.moved:
            raise IllegalOrderError(f"{u.uid} has already moved this phase", rule="MOV.F")
        if u.entrenched:
            raise IllegalOrderError(f"{u.uid} is entrenched and may not move", rule="MOV.I")
        HOOKS[GARRISON_UNIT](w, u)  # OPT.GAR.FIXED
        if not u.supplied:  # the unit's supply as the rules keep it (supply.py)
            raise IllegalOrderError(f"{u.uid} is out of supply and may not move", rule="MOV.G")
        dest = int(order.path[0])
        _check_land_step(w, u, u.hex, dest, burma_open)
        if not w.supply(w.side).supplied(dest):
            raise IllegalOrderError(
                f"{u.uid} may not move out of supply into {hexgrid.fmt(dest)}", rule="MOV.F"
            )
        w.moved.add(u.key)
        w.put(replace(u, hex=dest))
        w.event("moved", "SEQ.3A", None, unit=u.uid, side=u.side, path=[hexgrid.fmt(dest)])
        base = w.bases.get(dest)
        capture_at(w, dest)
        if w.bases.get(dest) is not base:  # ZOC.INSTANT: an enemy air base taken
            w.refresh_supply()


def _check_land_step(w: Work, u: Unit, here: int, dest: int, burma_open: bool) -> None:
    geo = w.geo
    if not hexgrid.adjacent(here, dest):
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} is not adjacent to {hexgrid.fmt(here)}", rule="MOV.F"
        )
    if not geo.is_land(dest):
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} is a sea hex; land units need transport", rule="TER.LAND"
        )
    if geo.side_kind(here, dest) == "sea":
        raise IllegalOrderError(
            f"{hexgrid.fmt(here)}/{hexgrid.fmt(dest)} is an all-sea hexside", rule="TER.LAND"
        )
    if geo.terrain.get(dest) == "desert":
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} is desert; land units may not enter it", rule="TER.DESERT"
        )
    if dest in geo.closed:
        raise IllegalOrderError(f"{hexgrid.fmt(dest)} is in China or India", rule="MOV.M")
    if geo.in_region(dest, "burma") and not burma_open:
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} is in Burma (closed without the Burma optional rule)",
            rule="MOV.M",
        )
    enemies = w.enemy_units_at(dest)
    if enemies and geo.mountain_land(here, dest):
        raise IllegalOrderError(
            f"{u.uid} may not cross the mountain hexside into {hexgrid.fmt(dest)}: enemy units are there",
            rule="MOV.E",
        )
    if geo.terrain.get(dest) == "class1" and any(e.is_land for e in enemies):
        raise IllegalOrderError(
            f"opposing land units may never share the Class 1 hex {hexgrid.fmt(dest)}", rule="STK.A"
        )


# --- air movement --------------------------------------------------------------


def air_range(w: Work, atype: str) -> tuple[int, int]:
    """(normal, extended) Range Allowance: from the world data, else the rulebook's examples."""
    for key in (f"{w.side}/{atype}", atype):
        if key in w.air_ranges:
            return w.air_ranges[key]
    if atype == "LAC":
        return 3, 4  # UNIT.AIR.LAYOUT example, MOV.V
    if atype == "NAC":
        return 2, 3  # NACC "normal range (2 hexes)", MOV.V
    raise IllegalOrderError("the LBAC range is not in the scenario data", rule="DEF.RANGE")


def location_hex(w: Work, side: Side, loc: Location) -> int | None:
    h = hexgrid.hex_of(loc)
    if h is not None:
        return h
    ship = w.units.get(unit_key(side, loc))
    return None if ship is None else ship.hex


def _usable_air_base(w: Work, loc: Location) -> Base:
    """The phasing side's own air base at hex ``loc``, refused if not usable now."""
    h = hexgrid.hex_of(loc)
    base = w.bases.get(h) if h is not None else None
    if base is None or base.owner != w.side or not base.has_air:
        raise IllegalOrderError(f"{loc} is not one of your air bases", rule="BASE.GEN.AIR")
    if base.neutralized(w.state.turn):
        raise IllegalOrderError(f"the air base at {loc} is neutralized", rule="MOV.S")
    return base


def _air_source(w: Work, loc: Location, atype: str, points: int) -> Air:
    side = w.side
    have = w.air_at(side, loc)
    if have.get(atype) < points:
        raise IllegalOrderError(f"only {have.get(atype)} {atype} at {loc}", rule="UNIT.AIR.POINTS")
    if hexgrid.hex_of(loc) is not None:
        base = _usable_air_base(w, loc)
        if not base.supplied:
            raise IllegalOrderError(f"the air base at {loc} is out of supply", rule="MOV.R")
    elif loc != WEST_COAST:
        ship = w.own(loc)
        if not ship.is_carrier and not ship.is_transport:
            raise IllegalOrderError(f"{loc} carries no aircraft", rule="MOV.T")
        if ship.is_transport:
            raise IllegalOrderError(
                f"aircraft aboard {loc} are cargo: DEBARK them at an air base", rule="NM.TRANS.AIR"
            )
        if ship.damaged:
            raise IllegalOrderError(f"{loc} is damaged: no aircraft may take off", rule="MOV.S")
    return have


def check_air_dest(w: Work, loc: Location, atype: str, points: int) -> None:
    side = w.side
    if hexgrid.hex_of(loc) is not None:
        base = _usable_air_base(w, loc)
        room = base.air_capacity - w.air_at(side, loc).total
        if points > room:
            raise IllegalOrderError(
                f"the air base at {loc} has room for {max(0, room)} more air points "
                f"(capacity {base.air_capacity})",
                rule="STK.E",
            )
        return
    if loc == WEST_COAST:
        raise IllegalOrderError("aircraft cannot fly off the map", rule="OFF.BOX")
    ship = w.own(loc)
    if not ship.is_carrier:
        raise IllegalOrderError(f"{loc} is not a carrier", rule="MOV.T")
    if atype != "NAC":
        raise IllegalOrderError("only NAC may land on carriers", rule="MOV.T")
    if ship.damaged:
        raise IllegalOrderError(f"{loc} is damaged: no aircraft may land", rule="MOV.S")
    room = ship.capacity - w.air_at(side, loc).total
    if points > room:
        raise IllegalOrderError(
            f"{loc} has room for {max(0, room)} more air points", rule="DEF.CAP"
        )


def do_transfer(w: Work, order: Transfer) -> None:
    """SEQ.2A / AM.TRANSFER: base (or carrier) to base (or carrier), up to twice normal range."""
    side, atype, points = w.side, order.air.atype, order.air.points
    if order.source == order.dest:
        raise IllegalOrderError("source and destination are the same", rule="AM.TRANSFER")
    if order.source == WEST_COAST:
        _embark_new_nac(w, order)
        return
    have = _air_source(w, order.source, atype, points)
    HOOKS[GARRISON_AIR](w, order.source, atype, points)  # OPT.GAR.FIXED
    check_air_dest(w, order.dest, atype, points)
    HOOKS[FERRY_CHECK](w, side, order.source, LAUNCH, points)  # OPT.FERRY
    HOOKS[FERRY_CHECK](w, side, order.dest, RECEIVE, points)
    a = location_hex(w, side, order.source)
    b = location_hex(w, side, order.dest)
    if a is None or b is None:
        raise IllegalOrderError(
            "both ends of an air transfer must be on the map", rule="AM.TRANSFER"
        )
    normal, _ext = air_range(w, atype)
    dist = w.geo.air_distance(a, b)
    if dist > 2 * normal:
        raise IllegalOrderError(
            f"{atype} may transfer {2 * normal} hexes (twice normal range, no extension); "
            f"{order.dest} is {dist} away",
            rule="AM.TRANSFER",
        )
    # CVJ.EMBARK: NAC that never flew from a carrier ("new") are taken last;
    # any of them going aboard a carrier puts it into training in Japan.
    new_used = max(0, points - (have.nac - have.nac_new)) if atype == "NAC" else 0
    if new_used and hexgrid.hex_of(order.dest) is None:
        _start_training(w, order.dest)
    w.set_air(
        side, order.source, replace(have.add(atype, -points), nac_new=have.nac_new - new_used)
    )
    dst = w.air_at(side, order.dest).add(atype, points)
    if hexgrid.hex_of(order.dest) is not None:
        dst = replace(dst, nac_new=dst.nac_new + new_used)
    w.set_air(side, order.dest, dst)
    HOOKS[FERRY_RECORD](w, side, order.source, LAUNCH, points)
    HOOKS[FERRY_RECORD](w, side, order.dest, RECEIVE, points)
    w.event(
        "air-transfer",
        "SEQ.2A",
        None,
        side=side,
        points=points,
        type=atype,
        source=order.source,
        dest=order.dest,
    )


def _start_training(w: Work, carrier_id: str) -> None:
    ship = w.own(carrier_id)
    h = ship.hex
    base = w.bases.get(h) if h is not None else None
    if (
        h is None
        or not w.geo.in_region(h, HOME_ISLANDS)
        or base is None
        or not base.has_naval
        or not ship.in_base
    ):
        raise IllegalOrderError(
            f"new NAC may board {carrier_id} only in a naval base in Japan", rule="CVJ.EMBARK"
        )
    if ship.key in w.moved:
        raise IllegalOrderError(
            f"{carrier_id} has moved: it must spend two naval phases idle", rule="CVJ.EMBARK"
        )
    w.put(replace(ship, training=2))
    w.moved.add(ship.key)


def _embark_new_nac(w: Work, order: Transfer) -> None:
    """REIN.A.NAC / CVA.EMBARK: unlimited Allied NAC board carriers at the West Coast."""
    if w.side != ALLIED or order.air.atype != "NAC":
        raise IllegalOrderError("only Allied NAC come from the West Coast", rule="REIN.A.NAC")
    ship = w.own(order.dest)
    if not ship.is_carrier or ship.box != WEST_COAST:
        raise IllegalOrderError(
            f"{order.dest} is not a carrier at the West Coast", rule="CVA.EMBARK"
        )
    if ship.key in w.moved:
        raise IllegalOrderError(
            f"{order.dest} arrived this phase; it may embark next phase", rule="CVA.EMBARK"
        )
    room = ship.capacity - w.air_at(ALLIED, order.dest).total
    if order.air.points > room:
        raise IllegalOrderError(f"{order.dest} has room for {room} more air points", rule="DEF.CAP")
    w.set_air(ALLIED, order.dest, w.air_at(ALLIED, order.dest).add("NAC", order.air.points))
    w.event(
        "air-embarked", "CVA.EMBARK", None, side=ALLIED, points=order.air.points, dest=order.dest
    )


def do_drop(w: Work, uid: str, dest: int) -> None:
    """SEQ.2B / PARA.*: a Japanese parachute unit drops up to four hexes from its air base."""
    u = w.own(uid)
    if w.side != JAPANESE or u.utype != "PARA":
        raise IllegalOrderError(f"{uid} is not a parachute unit", rule="PARA.COUNT")
    if u.hex is None:
        raise IllegalOrderError(f"{uid} is not on the map", rule="PARA.BASE")
    base = w.own_base(u.hex)
    if base is None or base.air_capacity < PARA_BASE_MIN or base.neutralized(w.state.turn):
        raise IllegalOrderError(
            f"{uid} must start on an air base of capacity 10 or more", rule="PARA.BASE"
        )
    dist = w.geo.air_distance(u.hex, dest)
    if dist > PARA_RANGE:
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} is {dist} hexes from {hexgrid.fmt(u.hex)}; drops reach 4",
            rule="PARA.DROP",
        )
    if not w.geo.is_land(dest):
        raise IllegalOrderError(f"{hexgrid.fmt(dest)} is a sea hex", rule="PARA.DROP")
    if any(e.kind == "land" for e in w.enemy_units_at(dest)):
        raise IllegalOrderError(f"enemy land units hold {hexgrid.fmt(dest)}", rule="PARA.DROP")
    if dest in undisputed_zones(w.snapshot())[ALLIED]:
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} is in an Allied air zone of control", rule="PARA.DROP"
        )
    w.moved.add(u.key)
    w.put(replace(u, hex=dest, entrenched=False))
    w.event("dropped", "SEQ.2B", None, unit=uid, side=u.side, to=hexgrid.fmt(dest))
    capture_at(w, dest)


# --- stacking and port ---------------------------------------------------------


def do_stack(w: Work, h: int, uids: tuple[str, ...]) -> None:
    """SEQ.2I / STK.G: the moving player re-orders his naval stack (top first)."""
    listed = [w.own(uid) for uid in uids]
    for u in listed:
        if not u.is_naval or u.hex != h:
            raise IllegalOrderError(f"{u.uid} is not a ship in {hexgrid.fmt(h)}", rule="STK.G")
    rest = sorted(
        (
            u
            for u in w.units.values()
            if u.side == w.side and u.is_naval and u.hex == h and u.uid not in uids
        ),
        key=lambda x: (x.stack, x.uid),
    )
    for i, u in enumerate([*listed, *rest]):
        w.put(replace(u, stack=i))
    w.event(
        "restacked",
        "STK.G",
        None,
        side=w.side,
        hex=hexgrid.fmt(h),
        order=[u.uid for u in listed],
    )


def stack_of(units: list[Unit]) -> list[Unit]:
    """STK.G: ships of one side in one hex, top first."""
    return sorted(units, key=lambda u: (u.stack, u.uid))


def air_groups(units: list[Unit]) -> list[list[Unit]]:
    """STK.G.AIR / NM.AA.GROUPS: pairs from the top of the stack; an odd bottom ship alone."""
    ordered = stack_of(units)
    return [ordered[i : i + 2] for i in range(0, len(ordered), 2)]


def do_port(w: Work, uid: str, in_base: bool) -> None:
    """BASE.K: a ship in a friendly naval base hex declares itself in base (or at sea)."""
    u = w.own(uid)
    if not u.is_naval or u.hex is None:
        raise IllegalOrderError(f"{uid} is not a ship on the map", rule="BASE.K")
    if in_base:
        base = w.own_base(u.hex)
        if base is None or not base.has_naval:
            raise IllegalOrderError(
                f"there is no friendly naval base at {hexgrid.fmt(u.hex)}", rule="BASE.K"
            )
        if HOOKS[NAVAL_BASE_BARRED](w.snapshot(), u.side, u.hex):
            raise IllegalOrderError(
                f"the naval base at {hexgrid.fmt(u.hex)} is barred until the fortifications fall",
                rule="CG1.PHILFORT.MANILA",
            )
    w.put(replace(u, in_base=in_base))


# --- unit breakdown ------------------------------------------------------------------

# BRK.J.BDE, BRK.J.RGT, BRK.A.DIV, BRK.A.MAR (ERR.BRK.MARINE): what a division becomes,
# as (component type, attack, defense, how many). BRK.NOBN: never battalions.
BREAKDOWN: dict[tuple[str, str], dict[str, tuple[str, int, int, int]]] = {
    (JAPANESE, "DIV"): {"BDE": ("BDE", 8, 18, 2), "RGT": ("RGT", 6, 12, 3)},
    (ALLIED, "DIV"): {"RGT": ("RGT", 8, 15, 3)},
    (ALLIED, "MAR"): {"RGT": ("MRGT", 10, 15, 3)},
}


def _spares(w: Work, side: Side) -> list[Unit]:
    raw = w.state.extra.get("spares", {}).get(side, [])
    return [Unit(**d) for d in raw]


def _set_spares(w: Work, side: Side, units: list[Unit]) -> None:
    spares = dict(w.state.extra.get("spares", {}))
    spares[side] = [encode_unit(u) for u in sorted(units, key=lambda u: u.uid)]
    w.state = replace(w.state, extra={**w.state.extra, "spares": spares})


def do_break(w: Work, uid: str, into: str) -> None:
    """BRK.WHEN: in its own land movement phase a division breaks down, free of cost,
    into spare counters of the counter mix (BRK.J.*, BRK.A.*)."""
    u = w.own(uid)
    if u.kind != "land" or u.hex is None:
        raise IllegalOrderError(f"{uid} is not a land unit on the map", rule="BRK.WHEN")
    recipes = BREAKDOWN.get((u.side, u.utype))
    if not recipes:
        raise IllegalOrderError(
            f"{uid} ({u.utype}) does not break down; never into battalions", rule="BRK.NOBN"
        )
    if into not in recipes:
        raise IllegalOrderError(f"{uid} breaks down into {' or '.join(recipes)}", rule="BRK.WHEN")
    ctype, att, dfn, n = recipes[into]
    spares = _spares(w, u.side)
    fit = [s for s in spares if s.utype == ctype and (s.attack, s.defense) == (att, dfn)]
    if len(fit) < n:
        rule = "ERR.BRK.MARINE" if u.utype == "MAR" else "BRK.WHEN"
        raise IllegalOrderError(
            f"the counter mix has {len(fit)} spare {att}-{dfn} {ctype} counters; {n} are needed",
            rule=rule,
        )
    parts = [
        replace(
            p,
            hex=u.hex,
            supplied=u.supplied,
            entrenched=u.entrenched,
            emergency_supply_turn=u.emergency_supply_turn,
        )
        for p in fit[:n]
    ]
    w.remove(u)
    for p in parts:
        w.put(p)
    used = {p.uid for p in parts}
    parent = replace(u, hex=None, entrenched=False)
    _set_spares(w, u.side, [s for s in spares if s.uid not in used] + [parent])
    w.event("broken-down", "BRK.WHEN", None, side=u.side, unit=uid, into=sorted(used))


def do_combine(w: Work, uids: tuple[str, ...]) -> None:
    """BRK.REBUILD: all the components of a division in one hex combine again."""
    parts = [w.own(uid) for uid in uids]
    hexes = {p.hex for p in parts}
    if len(hexes) != 1 or None in hexes:
        raise IllegalOrderError("the components must all be in one hex", rule="BRK.REBUILD")
    side = w.side
    for (s, dtype), recipes in BREAKDOWN.items():
        if s != side:
            continue
        for ctype, att, dfn, n in recipes.values():
            if len(parts) == n and all(
                p.utype == ctype and (p.attack, p.defense) == (att, dfn) for p in parts
            ):
                spares = _spares(w, side)
                whole = [x for x in spares if x.utype == dtype]
                if not whole:
                    raise IllegalOrderError(
                        f"no spare {dtype} counter in the counter mix", rule="BRK.REBUILD"
                    )
                h = parts[0].hex
                div = replace(
                    whole[0],
                    hex=h,
                    supplied=all(p.supplied for p in parts),
                    entrenched=all(p.entrenched for p in parts),
                )
                for p in parts:
                    w.remove(p)
                w.put(div)
                back = [replace(p, hex=None, entrenched=False) for p in parts]
                _set_spares(w, side, [x for x in spares if x.uid != div.uid] + back)
                w.event("combined", "BRK.REBUILD", None, side=side, units=list(uids), into=div.uid)
                return
    raise IllegalOrderError(
        "these units are not the components of one division", rule="BRK.REBUILD"
    )
