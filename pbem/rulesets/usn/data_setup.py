"""Set-up legality of a U.S.N. scenario (SETUP.TERRAIN, SETUP.CAPACITY, STK.E):
land units on land, ships in friendly naval bases, air points within base, carrier
and transport capacity. Map checks run only when a map is loaded."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.data_raw import SIDES
from pbem.rulesets.usn.scenario import (
    AirDeployment,
    Arrival,
    Deployment,
    MapLike,
    Place,
    Scenario,
)
from pbem.rulesets.usn.units import Catalogue, Counter, LandCounter, NavalCounter, UnitType


def _start_bases(
    scen: Scenario, usn_map: MapLike | None
) -> dict[Side, dict[int, tuple[int, bool]]]:
    """Each side's bases at start: hex -> (air capacity, naval)."""
    out: dict[Side, dict[int, tuple[int, bool]]] = {Side.JAPANESE: {}, Side.ALLIED: {}}
    if usn_map is not None:
        for b in usn_map.bases.values():
            owner = b.owner.get(scen.bases)
            if owner in SIDES:
                out[Side(owner)][int(b.hex)] = (int(b.air_capacity), bool(b.naval))
    for ab in scen.added_bases:
        cap, naval = out[ab.side].get(ab.hex, (0, False))
        out[ab.side][ab.hex] = (max(cap, ab.air_capacity), naval or ab.naval)
    return out


def cross_check(
    scenarios: Iterable[Scenario],
    arrivals: Iterable[Arrival],
    catalogue: Catalogue,
    usn_map: MapLike,
) -> list[DataError]:
    """Every disagreement between the data and the map, all of them, in file order."""
    problems: list[DataError] = []
    for a in arrivals:
        if a.at is not None:
            problems += _check_place(a.at, f"{a.where}.at", usn_map)
            for uid in a.units:
                c = catalogue.get(a.side, uid)
                for h in a.at.hexes:
                    if isinstance(c, LandCounter) and not usn_map.is_land(h):
                        problems.append(
                            DataError(
                                f"{a.where}.at",
                                f"land unit {uid} enters at sea hex {hexgrid.fmt(h)}",
                            )
                        )
    for scen in scenarios:
        f = scen.source
        for i, d in enumerate(scen.deployments):
            problems += _check_place(d.at, f"{f}: deploy[{i}].at", usn_map)
        for i, air in enumerate(scen.air):
            problems += _check_place(air.at, f"{f}: air[{i}].at", usn_map)
        for i, ab in enumerate(scen.added_bases):
            if not usn_map.is_land(ab.hex):
                problems.append(
                    DataError(
                        f"{f}: base[{i}].hex", f"a base cannot be in sea hex {hexgrid.fmt(ab.hex)}"
                    )
                )
        for key, cd in scen.coastal_defense.items():
            h = int(cd.id.partition("-")[2])
            if not usn_map.is_land(h):
                problems.append(
                    DataError(f"{f}: coastal_defense", f"{key} stands in sea hex {hexgrid.fmt(h)}")
                )
        problems += check_deployment(scen, f, catalogue, usn_map)
    return problems


def _check_place(at: Place, where: str, usn_map: MapLike) -> list[DataError]:
    out = []
    for key, name in (("region", at.region), ("adjacent_to_region", at.adjacent_to_region)):
        if name is not None and name not in usn_map.regions:
            out.append(DataError(f"{where}.{key}", f"unknown map region {name!r}"))
    region = usn_map.regions.get(at.region) if at.region is not None else None
    if at.ref is not None and region is not None and at.ref not in region:
        out.append(
            DataError(f"{where}.ref", f"hex {hexgrid.fmt(at.ref)} is not in region {at.region!r}")
        )
    return out


def has_bases(usn_map: MapLike | None) -> bool:
    """A map that lists no bases yet cannot judge set-ups (bases are map data)."""
    return usn_map is not None and len(usn_map.bases) > 0


def check_deployment(
    scen: Scenario,
    fname: str,
    catalogue: Catalogue,
    usn_map: MapLike | None,
) -> list[DataError]:
    """Every problem with a scenario's set-up, all optional forces included.

    Without a map, or with one that lists no bases, only the map-free checks run
    (carriers, transports, sides)."""
    problems: list[DataError] = []
    bases = _start_bases(scen, usn_map)
    if not has_bases(usn_map):
        usn_map = None  # terrain alone cannot judge bases: run only the map-free checks
    for side in scen.sides:
        _check_side(scen, fname, side, catalogue, usn_map, bases[side], problems)
    return problems


def _check_side(
    scen: Scenario,
    fname: str,
    side: Side,
    catalogue: Catalogue,
    usn_map: MapLike | None,
    bases: Mapping[int, tuple[int, bool]],
    problems: list[DataError],
) -> None:
    """One side's set-up: every unit where it may be, cargo within its transports,
    air within the room of its bases and carriers (SETUP.*, MOV.T, NM.TRANS.AIR)."""
    room = _Room({}, {}, {h: cap for h, (cap, _) in bases.items() if cap > 0})
    for i, d in enumerate(scen.deployments):
        if d.side != side:
            continue
        where = f"{fname}: deploy[{i}]"
        for uid in d.units:
            c = catalogue.get(side, uid)
            if isinstance(c, NavalCounter):
                if c.is_carrier and d.damage == 0:
                    room.carriers[uid] = c.air_capacity
                if c.is_transport:
                    room.transports[uid] = c.transport_capacity
            problems.extend(_check_unit_place(c, d, where, usn_map, bases, side))
    for i, d in enumerate(scen.deployments):
        if d.side != side or d.at.unit is None:
            continue
        where = f"{fname}: deploy[{i}].at"
        for uid in d.units:
            c = catalogue.get(side, uid)
            tp = c.transport_points if isinstance(c, LandCounter) else None
            problems.extend(_load(room.transports, d.at.unit, tp or 0, f"{uid}", where))
    pools: list[tuple[int, AirDeployment]] = []
    for i, a in enumerate(scen.air):
        if a.side != side:
            continue
        where = f"{fname}: air[{i}].at"
        if a.at.hexes and len(a.at.hexes) == 1:
            if usn_map is not None:
                problems.extend(_air_at_base(room, a, a.at.hexes[0], side, where))
        elif a.at.unit is not None:
            problems.extend(_air_aboard(room, a, a.at.unit, side, catalogue, where))
        else:
            pools.append((i, a))
    # Areas first, then "any": the narrowest choice takes its capacity first.
    for i, a in sorted(pools, key=lambda p: p[1].at.any is not None):
        problems.extend(_air_anywhere(room, a, usn_map, f"{fname}: air[{i}].at"))


@dataclass(slots=True)
class _Room:
    """What is left to fill as a side's set-up is read."""

    carriers: dict[str, int]  # undamaged carriers at start -> free air capacity
    transports: dict[str, int]  # transport -> free transport points
    base_free: dict[int, int]  # air base -> free air capacity


def _air_at_base(room: _Room, a: AirDeployment, h: int, side: Side, where: str) -> list[DataError]:
    base_free = room.base_free
    if h not in base_free:
        return [
            DataError(
                where, f"no {side.value} air base at {hexgrid.fmt(h)} for {a.points} {a.type}"
            )
        ]
    if a.points > base_free[h]:
        return [
            DataError(
                where,
                f"{a.points} {a.type} exceed the air capacity left at {hexgrid.fmt(h)} ({base_free[h]})",
            )
        ]
    base_free[h] -= a.points
    return []


def _air_aboard(
    room: _Room, a: AirDeployment, unit: str, side: Side, catalogue: Catalogue, where: str
) -> list[DataError]:
    """Air points set up on a carrier (MOV.T) or carried by an Allied transport (NM.TRANS.AIR)."""
    carriers, transports = room.carriers, room.transports
    if a.type == UnitType.NAC and unit in carriers:
        if a.points > carriers[unit]:
            return [
                DataError(where, f"{a.points} NAC exceed {unit}'s air capacity {carriers[unit]}")
            ]
        carriers[unit] -= a.points
        return []
    if unit in transports and side == Side.ALLIED:  # NM.TRANS.AIR
        per = catalogue.air_type(side, a.type).transport_points
        if per is None:
            return [DataError(where, f"{a.type} has no transport points")]
        return _load(transports, unit, a.points * per, f"{a.points} {a.type}", where)
    return [
        DataError(where, f"{unit} is not a {side.value} carrier or transport set up in this game")
    ]


def _air_anywhere(
    room: _Room, a: AirDeployment, usn_map: MapLike | None, where: str
) -> list[DataError]:
    """Air points set up in an area, or on any carrier or base (SETUP.AIRANY)."""
    kind = a.at.any
    if kind in ("carrier", "carrier-or-base") and a.type != UnitType.NAC:
        return [DataError(where, f"{a.type} may not be on carriers (MOV.T)")]
    base_free = room.base_free
    use_bases = kind != "carrier" and usn_map is not None
    if kind is None and a.at.region is not None and usn_map is not None:
        region = usn_map.regions.get(a.at.region, frozenset())
        spots = [h for h in base_free if h in region]
    else:
        spots = list(base_free) if use_bases else []
    if kind is None and usn_map is None:
        return []
    left = a.points
    if kind in ("carrier", "carrier-or-base"):
        for uid in sorted(room.carriers):
            take = min(left, room.carriers[uid])
            room.carriers[uid] -= take
            left -= take
    for h in sorted(spots, key=lambda h: -base_free[h]):
        take = min(left, base_free[h])
        base_free[h] -= take
        left -= take
    if left > 0 and (use_bases or kind == "carrier"):
        space = (
            "carriers"
            if kind == "carrier"
            else "carriers and air bases"
            if kind == "carrier-or-base"
            else "air bases"
        )
        return [
            DataError(
                where, f"{a.points} {a.type} do not fit: {left} more than the {space} can hold"
            )
        ]
    return []


def _load(free: dict[str, int], uid: str, points: int, what: str, where: str) -> list[DataError]:
    if uid not in free:
        return [DataError(where, f"{uid} is not a transport set up in this game")]
    if points > free[uid]:
        return [
            DataError(where, f"{what} need {points} transport points; {uid} has {free[uid]} left")
        ]
    free[uid] -= points
    return []


def _check_unit_place(
    c: Counter,
    d: Deployment,
    where: str,
    usn_map: MapLike | None,
    bases: Mapping[int, tuple[int, bool]],
    side: Side,
) -> list[DataError]:
    out: list[DataError] = []
    at = d.at
    if at.offmap is not None and side != Side.ALLIED:
        out.append(DataError(f"{where}.at", f"only Allied units may start off the map ({c.id})"))
    if d.damage and not isinstance(c, NavalCounter):
        out.append(DataError(f"{where}.damage", f"only naval units take damage ({c.id})"))
    if d.entrenched and not isinstance(c, LandCounter):
        out.append(DataError(f"{where}.entrenched", f"only land units entrench ({c.id})"))
    if usn_map is None:
        return out
    if isinstance(c, LandCounter):
        for h in at.hexes:
            if not usn_map.is_land(h):
                out.append(
                    DataError(f"{where}.at", f"land unit {c.id} set up in sea hex {hexgrid.fmt(h)}")
                )
        if at.region is not None and not any(
            usn_map.is_land(h) for h in usn_map.regions.get(at.region, frozenset())
        ):
            out.append(DataError(f"{where}.at", f"region {at.region} has no land hex for {c.id}"))
        return out
    if c.type == UnitType.SUB or d.at_sea:
        return out  # paper units; C24's ships start at sea
    naval_bases = [h for h, (_, naval) in bases.items() if naval]
    if at.hexes and not any(h in naval_bases for h in at.hexes):
        hexes = " or ".join(hexgrid.fmt(h) for h in at.hexes)
        out.append(
            DataError(
                f"{where}.at", f"{c.id} must start in a {side.value} naval base; none at {hexes}"
            )
        )
    if at.any in ("naval-base", "friendly-naval-base"):
        region = usn_map.regions.get(at.region, frozenset()) if at.region else None
        if not any(region is None or h in region for h in naval_bases):
            out.append(
                DataError(
                    f"{where}.at",
                    f"no {side.value} naval base for {c.id}"
                    + (f" in {at.region}" if at.region else ""),
                )
            )
    if at.region is not None and at.any is None:
        out.append(DataError(f"{where}.at", f"{c.id}: ships start in a naval base, not an area"))
    return out
