"""Transports and emergency transport (NM.TRANS.*, NM.EMERG.*, SEQ.2D, SEQ.2E, SUP.F).

Loading and unloading at step D of a naval phase, and the destroyers' (and
Japanese light cruisers') round trips at step E. Like movement.py, each
``do_*`` function applies one order to the working state or raises
``IllegalOrderError`` with the rule broken.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, JAPANESE, enemy_of
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.capture import capture_at
from pbem.rulesets.usn.hooks import GARRISON_UNIT, HOOKS
from pbem.rulesets.usn.movement import check_air_dest, movement_allowance
from pbem.rulesets.usn.orders import AirCargo, Embark, Emergency
from pbem.rulesets.usn.state import WEST_COAST, Unit
from pbem.rulesets.usn.work import Work

EMERGENCY_CAPACITY: dict[str, int] = {JAPANESE: 4, ALLIED: 2}  # NM.EMERG.CAP
EMERGENCY_SUPPLY_TP = 12  # SUP.F: one division


def cargo_points(w: Work, ship: Unit) -> int:
    used = sum(u.tp for u in w.units.values() if u.side == ship.side and u.carried_by == ship.uid)
    return used + w.air_at(ship.side, ship.uid).total


def _mp_left(w: Work, ship: Unit) -> int:
    limit = movement_allowance(ship) * (2 if w.doubled_ok.get(ship.key, False) else 1)
    return limit - w.spent.get(ship.key, 0)


def do_embark(w: Work, order: Embark) -> None:
    """SEQ.2D / NM.TRANS: load or unload a transport in its hex (+1 MP for TR, 0 for AT)."""
    ship = w.own(order.transport)
    if not ship.is_transport:
        raise IllegalOrderError(
            f"{ship.uid} is not a transport (DD/CL carry troops by EMERGENCY)",
            rule="NM.TRANS.UNITS",
        )
    at_wc = ship.box == WEST_COAST
    h = ship.hex
    if h is None and not at_wc:
        raise IllegalOrderError(f"{ship.uid} is not on the map", rule="NM.TRANS.COST")
    if h is not None and not w.geo.is_land(h):
        raise IllegalOrderError(
            f"{ship.uid} is at sea ({hexgrid.fmt(h)}); load and unload in a partly land hex",
            rule="NM.TRANS.COST",
        )
    cost = 0 if ship.utype == "AT" or at_wc else 1
    if cost and _mp_left(w, ship) < cost:
        raise IllegalOrderError(
            f"{ship.uid} has no movement point left to load or unload", rule="NM.TRANS.COST"
        )
    if at_wc and ship.key in w.moved:
        raise IllegalOrderError(
            f"{ship.uid} must spend a full naval phase loading at the West Coast", rule="OFF.WCLOAD"
        )
    if h is not None and w.side == ALLIED and ship.utype == "TR" and w.enemy_units_at(h):
        raise IllegalOrderError(
            f"Allied TR may not load or unload where enemy units are ({hexgrid.fmt(h)})",
            rule="NM.TRANS.ALLIEDHEX",
        )
    if order.debark:
        _debark(w, ship, order)
    else:
        _embark(w, ship, order, at_wc)
    if cost:
        w.spent[ship.key] = w.spent.get(ship.key, 0) + cost
        w.doubled_ok.setdefault(ship.key, not ship.damaged)


def _embark(w: Work, ship: Unit, order: Embark, at_wc: bool) -> None:
    load = 0
    units: list[Unit] = []
    for item in order.cargo:
        if isinstance(item, AirCargo):
            if w.side != ALLIED or item.atype == "LBAC":
                raise IllegalOrderError(
                    "only Allied transports carry aircraft (LAC or NAC)", rule="NM.TRANS.AIR"
                )
            if not at_wc:
                assert ship.hex is not None
                base = w.own_base(ship.hex)
                if base is None or not base.has_air:
                    raise IllegalOrderError(
                        "aircraft load only at a friendly air base", rule="NM.TRANS.AIR"
                    )
                if w.air_at(w.side, hexgrid.fmt(ship.hex)).get(item.atype) < item.points:
                    raise IllegalOrderError(
                        f"not enough {item.atype} at {hexgrid.fmt(ship.hex)}",
                        rule="UNIT.AIR.POINTS",
                    )
            elif item.atype != "LAC":
                raise IllegalOrderError(
                    "new NAC board carriers only (TRANSFER n NAC WC TO CV-n)", rule="REIN.A.NAC"
                )
            load += item.points
            continue
        u = w.own(item)
        if u.kind != "land":
            raise IllegalOrderError(
                f"{u.uid} cannot be transported",
                rule="MOV.H" if u.kind == "cd" else "NM.TRANS.UNITS",
            )
        if u.key in w.carried:
            raise IllegalOrderError(
                f"{u.uid} has already been moved by a vehicle this phase", rule="MOV.K"
            )
        if u.carried_by is not None or (u.hex != ship.hex or (at_wc and u.box != WEST_COAST)):
            raise IllegalOrderError(f"{u.uid} is not in {ship.uid}'s hex", rule="NM.TRANS.COST")
        if u.entrenched:
            raise IllegalOrderError(f"{u.uid} is entrenched and may not move", rule="MOV.I")
        HOOKS[GARRISON_UNIT](w, u)  # OPT.GAR.FIXED
        load += u.tp
        units.append(u)
    room = ship.capacity - cargo_points(w, ship)
    if load > room:
        raise IllegalOrderError(
            f"{ship.uid} can take {room} more transport points; this load needs {load}",
            rule="NM.TRANS.CAP",
        )
    for u in units:
        w.put(replace(u, hex=None, box=None, carried_by=ship.uid, entrenched=False))
        w.carried.add(u.key)
    for item in order.cargo:
        if isinstance(item, AirCargo):
            if not at_wc:
                assert ship.hex is not None  # not at the West Coast: on the map
                loc = hexgrid.fmt(ship.hex)
                w.set_air(w.side, loc, w.air_at(w.side, loc).add(item.atype, -item.points))
            w.set_air(w.side, ship.uid, w.air_at(w.side, ship.uid).add(item.atype, item.points))
    # NM.TRANS.HIDDEN: the cargo is known to its owner only; the enemy sees a load happen.
    w.event(
        "embarked",
        "NM.TRANS.HIDDEN",
        (w.side,),
        transport=ship.uid,
        cargo=[c.text() if isinstance(c, AirCargo) else c for c in order.cargo],
    )


def _debark(w: Work, ship: Unit, order: Embark) -> None:
    h = ship.hex
    if h is None:
        raise IllegalOrderError(
            "unload on the map (or EMBARK at the West Coast)", rule="NM.TRANS.DEBARK"
        )
    enemies = w.enemy_units_at(h)
    if any(e.kind == "land" for e in enemies) and not any(
        e.kind == "cd" or e.is_naval for e in enemies
    ):
        _prepare_landing(w, ship, order)
        return
    if any(e.kind in ("land", "cd") or e.is_naval for e in enemies):
        raise IllegalOrderError(
            f"{hexgrid.fmt(h)} holds enemy units: an opposed landing is ordered with LAND in the "
            "land attack round",
            rule="SEQ.2D",
        )
    base = w.own_base(h)
    if w.side == ALLIED and ship.utype == "TR" and not (base and base.has_naval) and ship.wait < 2:
        raise IllegalOrderError(
            f"{ship.uid} must stay two full movement phases at {hexgrid.fmt(h)} (no naval base) before "
            f"unloading; it has stayed {ship.wait}",
            rule="NM.TRANS.ALLIEDWAIT",
        )
    if (
        ship.key in w.moved
        and w.side == ALLIED
        and ship.utype == "TR"
        and not (base and base.has_naval)
    ):
        raise IllegalOrderError(f"{ship.uid} moved this phase", rule="NM.TRANS.ALLIEDWAIT")
    revealed: list[str] = []
    for item in order.cargo:
        if isinstance(item, AirCargo):
            have = w.air_at(w.side, ship.uid)
            if have.get(item.atype) < item.points:
                raise IllegalOrderError(
                    f"{ship.uid} carries {have.get(item.atype)} {item.atype}", rule="NM.TRANS.AIR"
                )
            if base is None or not base.has_air:
                raise IllegalOrderError(
                    "aircraft unload only at a friendly air base", rule="NM.TRANS.AIR"
                )
            check_air_dest(w, hexgrid.fmt(h), item.atype, item.points)
            w.set_air(w.side, ship.uid, have.add(item.atype, -item.points))
            loc = hexgrid.fmt(h)
            w.set_air(w.side, loc, w.air_at(w.side, loc).add(item.atype, item.points))
            revealed.append(item.text())
            continue
        u = w.own(item)
        if u.carried_by != ship.uid:
            raise IllegalOrderError(f"{u.uid} is not aboard {ship.uid}", rule="NM.TRANS.DEBARK")
        if w.geo.terrain.get(h) == "desert":
            raise IllegalOrderError(f"{hexgrid.fmt(h)} is desert", rule="TER.DESERT")
        w.put(replace(u, hex=h, carried_by=None))
        w.carried.add(u.key)
        w.moved.add(u.key)  # MOV.J: no further movement this phase
        revealed.append(u.uid)
    w.event(
        "debarked",
        "NM.TRANS.DEBARK",
        None,
        transport=ship.uid,
        at=hexgrid.fmt(h),
        cargo=revealed,
    )
    capture_at(w, h)


def _prepare_landing(w: Work, ship: Unit, order: Embark) -> None:
    """NM.TRANS.OPPOSED: "If the hex is Enemy occupied, the Player must expend the
    movement cost during a naval movement phase, but debark the unit in a Friendly Land
    Attack Phase." DEBARK onto enemy land units pays the cost now (``do_embark``) and
    readies the units aboard for a LAND order in the side's next land attack round
    (``land_combat.check_landing``); they stay aboard until then. AMP.TRANS: only a
    Japanese TR or an Allied AT lands against opposition."""
    assert ship.hex is not None
    if ship.utype != ("TR" if w.side == JAPANESE else "AT"):
        raise IllegalOrderError(
            f"{hexgrid.fmt(ship.hex)} holds enemy land units: only Japanese TR and Allied AT "
            "land against opposition",
            rule="AMP.TRANS",
        )
    uids: list[str] = []
    for item in order.cargo:
        if isinstance(item, AirCargo):
            raise IllegalOrderError("aircraft never land against opposition", rule="NM.TRANS.AIR")
        u = w.own(item)
        if u.carried_by != ship.uid:
            raise IllegalOrderError(f"{u.uid} is not aboard {ship.uid}", rule="NM.TRANS.DEBARK")
        uids.append(u.uid)
    ready = dict(w.state.extra.get("landings", {}))
    ready[ship.key] = {"hex": ship.hex, "units": sorted(uids), "turn": w.state.turn}
    w.state = replace(w.state, extra={**w.state.extra, "landings": ready})
    w.event(
        "landing-prepared",
        "NM.TRANS.OPPOSED",
        (w.side,),
        transport=ship.uid,
        at=hexgrid.fmt(ship.hex),
        cargo=sorted(uids),
    )


def do_emergency(w: Work, order: Emergency) -> None:
    """SEQ.2E / NM.EMERG / SUP.F: a round trip back to the start hex in one phase."""
    ship = w.own(order.ship)
    _check_emergency_ship(w, ship)
    start = ship.hex
    assert start is not None  # checked: the ship begins the phase on the map
    ma = movement_allowance(ship)
    blocked = frozenset(h for h in _enemy_ship_hexes(w))
    from_start = w.geo.naval_distances(start, ma, blocked)
    dest = order.dest
    if dest not in from_start:
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} is out of reach by sea for {ship.uid} this phase",
            rule="NM.EMERG.ROUNDTRIP",
        )
    _check_emergency_destination(w, order, dest)
    if order.cargo:
        _troop_run(w, ship, order, Trip(start, dest, ma, from_start, blocked))
    else:
        _supply_run(w, ship, Trip(start, dest, ma, from_start, blocked))


@dataclass(frozen=True, slots=True)
class Trip:
    """An emergency run's round trip: from ``start`` to ``dest`` and back within
    the ship's ``ma``, by sea around the hexes ``blocked`` by enemy ships."""

    start: int
    dest: int
    ma: int
    from_start: Mapping[int, int]  # hexes by sea from the start
    blocked: frozenset[int]


def _check_emergency_ship(w: Work, ship: Unit) -> None:
    allowed = {"DD", "CL"} if w.side == JAPANESE else {"DD"}
    if ship.utype not in allowed:
        raise IllegalOrderError(
            f"{ship.uid} cannot run emergency transport ({'/'.join(sorted(allowed))} only)",
            rule="NM.EMERG.UNITS",
        )
    if ship.hex is None or ship.key in w.moved:
        raise IllegalOrderError(
            f"{ship.uid} must begin the phase on the map and not have moved",
            rule="NM.EMERG.ROUNDTRIP",
        )


def _check_emergency_destination(w: Work, order: Emergency, dest: int) -> None:
    if any(e.kind == "cd" for e in w.enemy_units_at(dest)):
        raise IllegalOrderError(
            f"an enemy coastal defense unit is at {hexgrid.fmt(dest)}", rule="SEQ.2E"
        )
    if order.cargo and any(e.kind == "land" for e in w.enemy_units_at(dest)):
        # AMP.TRANS / ERR.AMP: "Only Japanese Transports and Allied Assault Transports
        # may perform an opposed debarkation, whether Class 1 or 2 land hexes."
        raise IllegalOrderError(
            f"enemy land units hold {hexgrid.fmt(dest)}: only a TR or AT may land against "
            "opposition (LAND in the land attack round)",
            rule="AMP.TRANS",
        )
    if order.cargo and not w.geo.is_land(dest):
        raise IllegalOrderError(
            f"{hexgrid.fmt(dest)} has no land to put troops on", rule="TER.LAND"
        )
    if order.cargo and w.geo.terrain.get(dest) == "desert":
        raise IllegalOrderError(f"{hexgrid.fmt(dest)} is desert", rule="TER.DESERT")


def _supply_run(w: Work, ship: Unit, run: Trip) -> None:
    """NM.EMERG.SUPPLY, SUP.F: supply carried from a supplied naval base."""
    start, dest, ma, from_start = run.start, run.dest, run.ma, run.from_start
    base = w.own_base(start)
    if (
        base is None
        or not base.has_naval
        or not base.supplied
        or not ship.in_base
        or base.neutralized(w.state.turn)
    ):
        raise IllegalOrderError(
            f"{ship.uid} must start in a supplied naval base", rule="NM.EMERG.SUPPLY"
        )
    trip = 2 * from_start[dest]
    if trip > ma:
        raise IllegalOrderError(
            f"the round trip is {trip} hexes; {ship.uid} moves {ma}", rule="NM.EMERG.ROUNDTRIP"
        )
    left = EMERGENCY_SUPPLY_TP
    fed: list[str] = []
    # NM.EMERG.SUPPLY: "supply land units which otherwise would be out of supply";
    # a unit already fed this turn by another run is not fed again (SUP.F).
    hungry = [
        u
        for u in w.units.values()
        if u.side == w.side
        and u.kind == "land"
        and u.hex == dest
        and u.emergency_supply_turn != w.state.turn
    ]
    for u in sorted(hungry, key=lambda x: (x.supplied, -x.tp, x.uid)):
        if u.tp <= left:
            left -= u.tp
            w.put(replace(u, emergency_supply_turn=w.state.turn, supplied=True))
            fed.append(u.uid)
    w.moved.add(ship.key)
    w.spent[ship.key] = ma
    w.doubled_ok[ship.key] = False
    w.event("emergency-supply", "SUP.F", None, ship=ship.uid, at=hexgrid.fmt(dest), units=fed)


def _troop_run(w: Work, ship: Unit, order: Emergency, run: Trip) -> None:
    """NM.EMERG: land units picked up in one hex and put ashore at the destination."""
    start, dest, ma = run.start, run.dest, run.ma
    from_start, blocked = run.from_start, run.blocked
    units = [w.own(uid) for uid in order.cargo]
    for u in units:
        if u.kind != "land" or u.hex is None:
            raise IllegalOrderError(f"{u.uid} cannot be carried", rule="NM.EMERG.CAP")
        if u.key in w.carried:
            raise IllegalOrderError(
                f"{u.uid} has already been moved by a vehicle this phase", rule="MOV.K"
            )
    if len({u.hex for u in units}) != 1 or len(set(order.cargo)) != len(units):
        raise IllegalOrderError(
            "the units of one emergency transport are picked up together in one hex",
            rule="NM.EMERG.ROUNDTRIP",
        )
    cap = ship.capacity or EMERGENCY_CAPACITY[w.side]
    load = sum(u.tp for u in units)
    if load > cap:
        raise IllegalOrderError(
            f"{', '.join(order.cargo)} need {load} transport points; {ship.uid} carries {cap}",
            rule="NM.EMERG.CAP",
        )
    pick = units[0].hex
    assert pick is not None  # checked above: every unit is on the map
    if pick not in from_start:
        raise IllegalOrderError(
            f"{units[0].uid} at {hexgrid.fmt(pick)} is out of reach", rule="NM.EMERG.ROUNDTRIP"
        )
    from_pick = w.geo.naval_distances(pick, ma, blocked)
    back = w.geo.naval_distances(dest, ma, blocked)
    if dest not in from_pick or start not in back:
        raise IllegalOrderError(
            "the ship could not get back to its start hex", rule="NM.EMERG.ROUNDTRIP"
        )
    trip = from_start[pick] + from_pick[dest] + back[start]
    if trip > ma:
        raise IllegalOrderError(
            f"the round trip {hexgrid.fmt(start)}-{hexgrid.fmt(pick)}-{hexgrid.fmt(dest)}-{hexgrid.fmt(start)} is {trip} hexes; "
            f"{ship.uid} moves {ma}",
            rule="NM.EMERG.ROUNDTRIP",
        )
    for u in units:
        w.put(replace(u, hex=dest, entrenched=False))
        w.carried.add(u.key)
        w.moved.add(u.key)
    w.moved.add(ship.key)
    w.spent[ship.key] = ma  # the round trip is the ship's whole movement
    w.doubled_ok[ship.key] = False
    for u in units:
        w.event(
            "emergency-transport", "SEQ.2E", None, ship=ship.uid, unit=u.uid, to=hexgrid.fmt(dest)
        )
    capture_at(w, dest)


def _enemy_ship_hexes(w: Work) -> set[int]:
    enemy = enemy_of(w.side)
    return {
        u.hex
        for u in w.units.values()
        if u.side == enemy and u.is_naval and u.hex is not None and not u.in_base
    }
