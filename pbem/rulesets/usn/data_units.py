"""Build the U.S.N. counter catalogue from units.toml (see units.py for the model)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pbem.core.errors import DataError
from pbem.rulesets.usn.data_raw import (
    check_keys,
    get_field,
    nonneg_int,
    opt_field,
    provenance_of,
    side_field,
)
from pbem.rulesets.usn.units import (
    AirType,
    Catalogue,
    CoastalDefenseClass,
    Counter,
    LandCounter,
    NacCounter,
    NavalCounter,
    Size,
    UnitType,
    unit_class,
    unit_key,
)

_LAND_KEYS = {
    "side", "id", "type", "size", "attack", "defense", "movement", "transport_points",
    "airborne",
}  # fmt: skip
_NAVAL_KEYS = {
    "side", "id", "type", "defense", "anti_aircraft", "surface_attack", "movement",
    "air_capacity", "transport_capacity", "emergency_capacity", "optional",
}  # fmt: skip
_AIR_KEYS = {
    "side", "type", "a2a_normal", "a2a_extended", "bombardment", "bombardment_naval",
    "range_normal", "range_extended", "transport_points",
}  # fmt: skip


def _utype(rec: Mapping[str, Any], where: str, allowed: str) -> UnitType:
    t = get_field(rec, "type", str, where)
    try:
        ut = UnitType(t)
    except ValueError:
        raise DataError(f"{where}.type", f"unknown unit type {t!r}") from None
    if unit_class(ut).value != allowed:
        raise DataError(f"{where}.type", f"{t} is not a {allowed} type")
    return ut


def build_catalogue(raw: Mapping[str, Any]) -> Catalogue:
    """units.toml's counters, coastal defense classes, air types and NAC counters."""
    counters: dict[str, Counter] = {}
    for i, rec in enumerate(raw.get("land", [])):
        where = f"units.toml: land[{i}]({rec.get('id')})"
        _add_counter(counters, _land_counter(rec, where), where)
    for i, rec in enumerate(raw.get("naval", [])):
        where = f"units.toml: naval[{i}]({rec.get('id')})"
        _add_counter(counters, _naval_counter(rec, where), where)
    cds: dict[str, CoastalDefenseClass] = {}
    for i, rec in enumerate(raw.get("coastal_defense", [])):
        where = f"units.toml: coastal_defense[{i}]"
        check_keys(rec, {"side", "strength", "surface_attack", "defense", "movement"}, where)
        cd = CoastalDefenseClass(
            side=side_field(rec, where),
            strength=get_field(rec, "strength", str, where),
            surface_attack=nonneg_int(rec, "surface_attack", where),
            defense=nonneg_int(rec, "defense", where),
            movement=nonneg_int(rec, "movement", where, 0),
            provenance=provenance_of(rec),
        )
        cds[unit_key(cd.side, cd.strength)] = cd
    air: dict[str, AirType] = {}
    for i, rec in enumerate(raw.get("air", [])):
        where = f"units.toml: air[{i}]"
        check_keys(rec, _AIR_KEYS, where)
        a = AirType(
            side=side_field(rec, where),
            type=_utype(rec, where, "air"),
            a2a_normal=nonneg_int(rec, "a2a_normal", where),
            a2a_extended=opt_field(rec, "a2a_extended", int, where, None),
            bombardment=nonneg_int(rec, "bombardment", where),
            bombardment_naval=nonneg_int(rec, "bombardment_naval", where),
            range_normal=nonneg_int(rec, "range_normal", where),
            range_extended=opt_field(rec, "range_extended", int, where, None),
            transport_points=opt_field(rec, "transport_points", int, where, None),
            provenance=provenance_of(rec),
        )
        if a.key in air:
            raise DataError(where, f"air type {a.key} defined twice")
        air[a.key] = a
    nac: dict[str, NacCounter] = {}
    for i, rec in enumerate(raw.get("nac", [])):
        where = f"units.toml: nac[{i}]"
        check_keys(rec, {"side", "letters"}, where)
        side = side_field(rec, where)
        for letter in get_field(rec, "letters", str, where):
            n2 = NacCounter(f"NAC-{letter}", side, letter, provenance_of(rec))
            nac[n2.key] = n2
    return Catalogue(
        MappingProxyType(counters),
        MappingProxyType(cds),
        MappingProxyType(air),
        MappingProxyType(nac),
    )


def _land_counter(rec: Mapping[str, Any], where: str) -> LandCounter:
    check_keys(rec, _LAND_KEYS, where)
    ut = _utype(rec, where, "land")
    size_s = get_field(rec, "size", str, where)
    try:
        size = Size(size_s)
    except ValueError:
        raise DataError(f"{where}.size", f"unknown size {size_s!r}") from None
    return LandCounter(
        id=rec["id"],
        side=side_field(rec, where),
        type=ut,
        size=size,
        attack=nonneg_int(rec, "attack", where),
        defense=nonneg_int(rec, "defense", where),
        movement=nonneg_int(rec, "movement", where),
        transport_points=nonneg_int(rec, "transport_points", where),
        airborne=opt_field(rec, "airborne", bool, where, False),
        name=str(rec.get("name", "")),
        provenance=provenance_of(rec),
    )


def _naval_counter(rec: Mapping[str, Any], where: str) -> NavalCounter:
    check_keys(rec, _NAVAL_KEYS, where)
    ut = _utype(rec, where, "naval")
    n = NavalCounter(
        id=rec["id"],
        side=side_field(rec, where),
        type=ut,
        defense=nonneg_int(rec, "defense", where),
        anti_aircraft=nonneg_int(rec, "anti_aircraft", where),
        surface_attack=nonneg_int(rec, "surface_attack", where),
        movement=nonneg_int(rec, "movement", where),
        air_capacity=nonneg_int(rec, "air_capacity", where, 0),
        transport_capacity=nonneg_int(rec, "transport_capacity", where, 0),
        emergency_capacity=nonneg_int(rec, "emergency_capacity", where, 0),
        name=str(rec.get("name", "")),
        optional=opt_field(rec, "optional", str, where, None),
        provenance=provenance_of(rec),
    )
    if n.is_carrier and n.air_capacity == 0:
        raise DataError(f"{where}.air_capacity", "a carrier needs an air capacity")
    if n.is_transport and n.transport_capacity == 0:
        raise DataError(f"{where}.transport_capacity", "a transport needs a capacity")
    if (n.is_carrier or n.is_transport) and n.surface_attack != 0:
        raise DataError(f"{where}.surface_attack", "carriers and transports have 0 (UNIT.ZEROSA)")
    return n


def _add_counter(counters: dict[str, Counter], c: Counter, where: str) -> None:
    if c.key in counters:
        raise DataError(where, f"unit {c.key} is defined twice")
    counters[c.key] = c
