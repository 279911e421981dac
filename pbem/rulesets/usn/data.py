"""The U.S.N. world data built from its files: counters, tables, reinforcements, scenarios.

``build_world`` turns the files a ``DataSource`` gives (units.toml, tables.toml,
reinforcements.toml and scenarios/<name>.toml, read by pbem.rulesets.usn.loader)
into a checked ``UsnWorld``. Every record carries provenance (``src`` = rulebook |
errata | reconstructed, ``src_fields``, ``why``); see docs/usn-data.md.

A moderator's overrides merge into the raw data before validation (list items by
index, unit records by "<side>/<ID>"), and the values they set count as ``moderator``.
Bad data raises ``DataError(where, reason)``, ``where`` = "file:line: key.path"
(the line when it can be found, e.g. "scenarios/midway.toml:41: deploy[3].units[0]").
"""

from __future__ import annotations

import copy
from collections import Counter as Tally
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.usn.data_raw import (
    SIDES,
    DataSource,
    check_keys,
    check_type,
    count_values,
    expand_unit_records,
    get_field,
    hex_field,
    merge,
    nonneg_int,
    opt_field,
    override_units,
    read_with_overrides,
    side_field,
    with_line,
)
from pbem.rulesets.usn.data_setup import check_deployment, cross_check
from pbem.rulesets.usn.data_tables import build_tables
from pbem.rulesets.usn.data_units import build_catalogue
from pbem.rulesets.usn.map import MapFiles
from pbem.rulesets.usn.scenario import (
    AddedBase,
    AirDeployment,
    Arrival,
    Deployment,
    MapLike,
    Place,
    Scenario,
    Withdrawal,
)
from pbem.rulesets.usn.tables import UsnTables
from pbem.rulesets.usn.units import (
    Catalogue,
    Counter,
    LandCounter,
    NavalCounter,
    Source,
    UnitType,
    canonical_id,
    expand_ids,
    unit_key,
)

__all__ = [
    "AddedBase",
    "AirDeployment",
    "Arrival",
    "Deployment",
    "Place",
    "Scenario",
    "UsnWorld",
    "Withdrawal",
    "build_world",
    "check_deployment",
]

WEST_COAST = "west-coast"


@dataclass(frozen=True, slots=True)
class UsnWorld:
    source: DataSource
    map: MapLike | None
    catalogue: Catalogue
    tables: UsnTables
    arrivals: tuple[Arrival, ...]
    withdrawals: tuple[Withdrawal, ...]
    scenarios: Mapping[str, Scenario]
    provenance: Mapping[str, Mapping[str, int]]
    map_files: MapFiles | None = None  # as read: per-game map corrections start from them

    def scenario(self, name: str) -> Scenario:
        try:
            return self.scenarios[name]
        except KeyError:
            raise DataError(
                "scenarios", f"unknown scenario {name!r}; known: {', '.join(self.scenarios)}"
            ) from None


# ---------------------------------------------------------------------------
# Building the world from its files


def build_world(
    source: DataSource, overrides: Mapping[str, Any], usn_map: MapLike | None
) -> UsnWorld:
    """Build and check the world from ``source``'s files and a moderator's overrides.

    With a map, every scenario's set-up is cross-checked against it (terrain, bases,
    capacities) and the first problem raises; without one the data is checked alone.
    """
    try:
        return _build_world(source, overrides, usn_map)
    except DataError as exc:
        raise with_line(source, exc) from None


def check_overrides(overrides: Mapping[str, Any]) -> None:
    unknown = set(overrides) - {"units", "tables", "reinforcements", "scenarios", "map"}
    if unknown:
        raise DataError("overrides", f"unknown section(s) {sorted(unknown)}")


def _build_world(
    source: DataSource, overrides: Mapping[str, Any], usn_map: MapLike | None
) -> UsnWorld:
    check_overrides(overrides)
    provenance: dict[str, Tally[str]] = {}

    units_raw = source.read_toml("units.toml")
    units_raw = expand_unit_records(units_raw)
    touched: set[tuple[Any, ...]] = set()
    override_units(units_raw, overrides.get("units") or {}, touched)
    provenance["units.toml"] = count_values(units_raw, "units.toml", touched)
    catalogue = build_catalogue(units_raw)

    tables_raw, touched = read_with_overrides(source, "tables.toml", overrides.get("tables"))
    provenance["tables.toml"] = count_values(tables_raw, "tables.toml", touched)
    tables = build_tables(tables_raw)

    rein_raw, touched = read_with_overrides(
        source, "reinforcements.toml", overrides.get("reinforcements")
    )
    provenance["reinforcements.toml"] = count_values(rein_raw, "reinforcements.toml", touched)
    arrivals, withdrawals = _build_reinforcements(rein_raw, catalogue)

    scen_over = overrides.get("scenarios") or {}
    names = source.stems("scenarios", ".toml")
    for n in scen_over:
        if n not in names:
            raise DataError(f"overrides: scenarios.{n}", "unknown scenario")
    scenarios: dict[str, Scenario] = {}
    for n in names:
        fname = f"scenarios/{n}.toml"
        raw, touched = read_with_overrides(source, fname, scen_over.get(n))
        provenance[fname] = count_values(raw, fname, touched)
        merged = _resolve_extends(source, raw, fname, scen_over, set())
        scenarios[n] = _build_scenario(
            merged, fname, catalogue, arrivals, withdrawals, tables, usn_map
        )
    if usn_map is not None:
        problems = cross_check(scenarios.values(), arrivals, catalogue, usn_map)
    else:
        problems = [
            p for s in scenarios.values() for p in check_deployment(s, s.source, catalogue, None)
        ]
    if problems:
        raise problems[0]
    return UsnWorld(
        source=source,
        map=usn_map,
        catalogue=catalogue,
        tables=tables,
        arrivals=arrivals,
        withdrawals=withdrawals,
        scenarios=MappingProxyType(scenarios),
        provenance=MappingProxyType({k: MappingProxyType(dict(v)) for k, v in provenance.items()}),
    )


# ---------------------------------------------------------------------------
# Places

_ANY_KINDS = frozenset(
    {
        "friendly-land",
        "friendly-naval-base",
        "naval-base",
        "base",
        "carrier",
        "carrier-or-base",
        "sea",
    }
)


def _place(value: Any, where: str) -> Place:
    if not isinstance(value, Mapping):
        raise DataError(where, f"expected a table like {{ hex = 754 }}, got {value!r}")
    keys = set(value)
    allowed = {"hex", "hexes", "region", "ref", "any", "offmap", "carrier", "aboard",
               "adjacent_to_region", "unoccupied_by"}  # fmt: skip
    if keys - allowed:
        raise DataError(f"{where}.{sorted(keys - allowed)[0]}", "unknown key")
    hexes: tuple[int, ...] = ()
    if "hex" in value:
        hexes = (hex_field(value["hex"], f"{where}.hex"),)
    elif "hexes" in value:
        hexes = tuple(
            hex_field(h, f"{where}.hexes")
            for h in check_type(value["hexes"], list, f"{where}.hexes")
        )
    region = value.get("region")
    adjacent = value.get("adjacent_to_region")
    for key, name in (("region", region), ("adjacent_to_region", adjacent)):
        if name is None:
            continue
        check_type(name, str, f"{where}.{key}")
    ref = value.get("ref")
    if ref is not None:
        ref = hex_field(ref, f"{where}.ref")
    kind = value.get("any")
    if kind is not None and kind not in _ANY_KINDS:
        raise DataError(f"{where}.any", f"unknown location kind {kind!r}")
    offmap = value.get("offmap")
    if offmap is not None and offmap != WEST_COAST:
        raise DataError(f"{where}.offmap", f"unknown off-map place {offmap!r}")
    unit = value.get("carrier") or value.get("aboard")
    place = Place(
        hexes=hexes,
        region=region,
        ref=ref,
        any=kind,
        offmap=offmap,
        unit=canonical_id(unit) if unit else None,
        adjacent_to_region=adjacent,
        unoccupied_by=value.get("unoccupied_by"),
    )
    if not (hexes or region or kind or offmap or unit or adjacent):
        raise DataError(where, "says nowhere")
    return place


# ---------------------------------------------------------------------------
# Reinforcements


def _unit_list(value: Any, where: str) -> tuple[str, ...]:
    out: list[str] = []
    for i, spec in enumerate(check_type(value, list, where)):
        try:
            out.extend(expand_ids(check_type(spec, str, f"{where}[{i}]")))
        except ValueError as exc:
            raise DataError(f"{where}[{i}]", str(exc)) from None
    return tuple(out)


def _require_unit(catalogue: Catalogue, side: Side, uid: str, where: str) -> Counter:
    try:
        return catalogue.get(side, uid)
    except KeyError:
        raise DataError(where, f"unknown unit {side.value}/{uid}") from None


def _build_reinforcements(
    raw: Mapping[str, Any], catalogue: Catalogue
) -> tuple[tuple[Arrival, ...], tuple[Withdrawal, ...]]:
    arrivals = []
    seen: dict[str, str] = {}
    for i, r in enumerate(get_field(raw, "arrival", list, "reinforcements.toml: ")):
        where = f"reinforcements.toml: arrival[{i}]"
        check_keys(r, {"turn", "side", "units", "air", "at", "aboard", "requires"}, where)
        turn = nonneg_int(r, "turn", where)
        if not 1 <= turn <= 81:
            raise DataError(f"{where}.turn", f"Game-Turn {turn} is not on the chart (1-81)")
        side = side_field(r, where)
        units = _unit_list(r.get("units", []), f"{where}.units")
        for j, uid in enumerate(units):
            c = _require_unit(catalogue, side, uid, f"{where}.units[{j}]")
            if c.key in seen and r.get("requires") is None:
                raise DataError(f"{where}.units[{j}]", f"{c.key} already arrives at {seen[c.key]}")
            seen.setdefault(c.key, f"arrival[{i}]")
        air = check_type(r.get("air", {}), dict, f"{where}.air")
        for t, pts in air.items():
            if unit_key(side, t) not in catalogue.air:
                raise DataError(f"{where}.air.{t}", f"{side.value} has no {t} air units")
            if type(pts) is not int or pts <= 0:
                raise DataError(
                    f"{where}.air.{t}", f"air points must be a positive number, got {pts!r}"
                )
        aboard = _unit_list(r.get("aboard", []), f"{where}.aboard")
        for j, uid in enumerate(aboard):
            if uid not in units:
                raise DataError(f"{where}.aboard[{j}]", f"{uid} is not among this arrival's units")
        if aboard:
            cap = sum(_carrier_capacity(catalogue, side, u, f"{where}.aboard") for u in aboard)
            if air.get("NAC", 0) > cap:
                raise DataError(
                    f"{where}.air.NAC", f"{air['NAC']} NAC exceed the carriers' capacity {cap}"
                )
        at = _place(r["at"], f"{where}.at") if "at" in r else None
        arrivals.append(
            Arrival(
                turn,
                side,
                units,
                MappingProxyType(dict(air)),
                at,
                aboard,
                r.get("requires"),
                Source(r.get("src", "rulebook")),
                where,
            )
        )
    withdrawals = []
    for i, r in enumerate(raw.get("withdrawal", [])):
        where = f"reinforcements.toml: withdrawal[{i}]"
        side = side_field(r, where)
        uid = canonical_id(get_field(r, "unit", str, where))
        _require_unit(catalogue, side, uid, f"{where}.unit")
        withdrawals.append(
            Withdrawal(
                nonneg_int(r, "turn", where),
                side,
                uid,
                _place(r["at"], f"{where}.at"),
                str(r.get("rule", "")),
            )
        )
    return tuple(sorted(arrivals, key=lambda a: a.turn)), tuple(withdrawals)


def _carrier_capacity(catalogue: Catalogue, side: Side, uid: str, where: str) -> int:
    c = _require_unit(catalogue, side, uid, where)
    if not isinstance(c, NavalCounter) or not c.is_carrier:
        raise DataError(where, f"{uid} is not a carrier")
    return c.air_capacity


# ---------------------------------------------------------------------------
# Scenarios

_SCENARIO_KEYS = {
    "name", "title", "kind", "rule", "first_turn", "game_turns", "bases", "start_line",
    "reinforcements", "first_side", "optional_rules", "deploy", "coastal_defense", "air",
    "base", "special", "victory", "extends",
}  # fmt: skip


def _resolve_extends(
    source: DataSource,
    raw: dict[str, Any],
    fname: str,
    scen_over: Mapping[str, Any],
    chain: set[str],
) -> dict[str, Any]:
    parent = raw.get("extends")
    if parent is None:
        return raw
    if not isinstance(parent, str) or parent in chain:
        raise DataError(f"{fname}: extends", f"bad or circular parent {parent!r}")
    pname = f"scenarios/{parent}.toml"
    if not source.exists(pname):
        raise DataError(f"{fname}: extends", f"no scenario {parent!r}")
    base, _ = read_with_overrides(source, pname, scen_over.get(parent))
    base = _resolve_extends(source, base, pname, scen_over, chain | {parent})
    merged = copy.deepcopy(base)
    merge(merged, {k: v for k, v in raw.items() if k != "extends"}, (), set(), fname)
    return merged


def _build_scenario(
    raw: Mapping[str, Any],
    fname: str,
    catalogue: Catalogue,
    arrivals: Sequence[Arrival],
    withdrawals: Sequence[Withdrawal],
    tables: UsnTables,
    usn_map: MapLike | None,
) -> Scenario:
    w = f"{fname}: "
    check_keys(raw, _SCENARIO_KEYS, f"{fname}: (top)")
    name = get_field(raw, "name", str, w)
    if f"scenarios/{name}.toml" != fname:
        raise DataError(f"{fname}: name", f"{name!r} does not match the file name")
    first_turn = nonneg_int(raw, "first_turn", w)
    game_turns = nonneg_int(raw, "game_turns", w)
    if first_turn < 1 or game_turns < 1 or first_turn + game_turns - 1 > tables.calendar.last_turn:
        raise DataError(f"{fname}: game_turns", "the game must fit Game-Turns 1-81")
    bases = get_field(raw, "bases", str, w)
    start_line = get_field(raw, "start_line", str, w)
    for key, v in (("bases", bases), ("start_line", start_line)):
        if v not in ("game1", "game2"):
            raise DataError(f"{fname}: {key}", f"{v!r} is not game1 or game2")
    first_side_name = get_field(raw, "first_side", str, w)
    if first_side_name not in SIDES:
        raise DataError(f"{fname}: first_side", f"{first_side_name!r} is not a side")
    first_side = Side(first_side_name)
    optional_rules = {
        k: MappingProxyType(dict(v))
        for k, v in opt_field(raw, "optional_rules", dict, w, {}).items()
    }
    special = {
        k: MappingProxyType(dict(v)) for k, v in opt_field(raw, "special", dict, w, {}).items()
    }

    deployed, placed = _deployments(raw, fname, catalogue, optional_rules)
    added = _added_bases(raw, fname)
    cds = _coastal_defense(raw, fname, catalogue, bases, usn_map)
    air = _air_deployments(raw, fname, catalogue)
    chosen, withdrawn = _reinforcements(
        raw, fname, name, arrivals, withdrawals, special, optional_rules
    )
    scen = Scenario(
        name=name,
        title=get_field(raw, "title", str, w),
        kind=get_field(raw, "kind", str, w),
        rule=get_field(raw, "rule", str, w),
        first_turn=first_turn,
        game_turns=game_turns,
        bases=bases,
        start_line=start_line,
        first_side=first_side,
        deployments=deployed,
        air=air,
        added_bases=added,
        coastal_defense=MappingProxyType(cds),
        optional_rules=MappingProxyType(optional_rules),
        special=MappingProxyType(special),
        victory=MappingProxyType(dict(opt_field(raw, "victory", dict, w, {}))),
        arrivals=chosen,
        withdrawals=withdrawn,
        source=fname,
    )
    _check_special_units(scen, fname, catalogue)
    _check_arrivals(scen, fname, placed)
    return scen


def _deployments(
    raw: Mapping[str, Any],
    fname: str,
    catalogue: Catalogue,
    optional_rules: Mapping[str, Any],
) -> tuple[tuple[Deployment, ...], dict[str, str]]:
    """The scenario's set-up (SETUP.*); each unit once, and where it was placed."""
    w = f"{fname}: "
    deployments: list[Deployment] = []
    placed: dict[str, str] = {}
    for i, d in enumerate(opt_field(raw, "deploy", list, w, [])):
        where = f"{fname}: deploy[{i}]"
        check_keys(
            d,
            {"side", "units", "at", "entrenched", "damage", "unsupplied", "at_sea", "optional"},
            where,
        )
        side = side_field(d, where)
        units = _unit_list(get_field(d, "units", list, where), f"{where}.units")
        optional = opt_field(d, "optional", str, where, None)
        if optional is not None and optional not in optional_rules:
            raise DataError(
                f"{where}.optional", f"{optional!r} is not one of this game's optional rules"
            )
        for j, uid in enumerate(units):
            c = _require_unit(catalogue, side, uid, f"{where}.units[{j}]")
            if c.key in placed:
                raise DataError(
                    f"{where}.units[{j}]", f"{c.key} is already set up at {placed[c.key]}"
                )
            placed[c.key] = f"deploy[{i}]"
        deployments.append(
            Deployment(
                side=side,
                units=units,
                at=_place(get_field(d, "at", dict, where), f"{where}.at"),
                entrenched=opt_field(d, "entrenched", bool, where, False),
                damage=nonneg_int(d, "damage", where, 0),
                unsupplied=opt_field(d, "unsupplied", bool, where, False),
                at_sea=opt_field(d, "at_sea", bool, where, False),
                optional=optional,
                src=Source(d.get("src", raw.get("src", "rulebook"))),
            )
        )
    return tuple(deployments), placed


def _added_bases(raw: Mapping[str, Any], fname: str) -> tuple[AddedBase, ...]:
    w = f"{fname}: "
    added = []
    for i, b in enumerate(opt_field(raw, "base", list, w, [])):
        where = f"{fname}: base[{i}]"
        check_keys(b, {"side", "hex", "air_capacity", "naval"}, where)
        ab = AddedBase(
            side_field(b, where),
            hex_field(b.get("hex"), f"{where}.hex"),
            nonneg_int(b, "air_capacity", where),
            opt_field(b, "naval", bool, where, False),
        )
        added.append(ab)
    return tuple(added)


def _air_deployments(
    raw: Mapping[str, Any], fname: str, catalogue: Catalogue
) -> tuple[AirDeployment, ...]:
    w = f"{fname}: "
    air = []
    for i, a in enumerate(opt_field(raw, "air", list, w, [])):
        where = f"{fname}: air[{i}]"
        check_keys(a, {"side", "type", "points", "at", "optional"}, where)
        side = side_field(a, where)
        t = get_field(a, "type", str, where)
        if unit_key(side, t) not in catalogue.air:
            raise DataError(f"{where}.type", f"{side.value} has no {t} air units")
        pts = nonneg_int(a, "points", where)
        air.append(
            AirDeployment(
                side,
                UnitType(t),
                pts,
                _place(get_field(a, "at", dict, where), f"{where}.at"),
                a.get("optional"),
                Source(a.get("src", raw.get("src", "rulebook"))),
            )
        )
    return tuple(air)


def _reinforcements(
    raw: Mapping[str, Any],
    fname: str,
    name: str,
    arrivals: Sequence[Arrival],
    withdrawals: Sequence[Withdrawal],
    special: Mapping[str, Any],
    optional_rules: Mapping[str, Any],
) -> tuple[tuple[Arrival, ...], tuple[Withdrawal, ...]]:
    """The arrivals and withdrawals of the scenario's span of the chart, if any."""
    reinf = raw.get("reinforcements", False)
    if reinf is False:
        span: tuple[int, int] | None = None
    else:
        r = check_type(reinf, dict, f"{fname}: reinforcements")
        span = (
            nonneg_int(r, "from", f"{fname}: reinforcements"),
            nonneg_int(r, "to", f"{fname}: reinforcements"),
        )
    chosen = tuple(a for a in arrivals if span and span[0] <= a.turn <= span[1])
    clash = set(special) & set(optional_rules)
    if clash:
        raise DataError(f"{fname}: special.{sorted(clash)[0]}", "also names an optional rule")
    for a in chosen:
        if a.requires is not None and a.requires not in {**special, **optional_rules}:
            raise DataError(
                f"{a.where}.requires",
                f"{a.requires!r} is neither an optional nor a special rule of {name}",
            )
    withdrawn = tuple(x for x in withdrawals if span and span[0] <= x.turn <= span[1])
    return chosen, withdrawn


def _coastal_defense(
    raw: Mapping[str, Any], fname: str, catalogue: Catalogue, bases: str, usn_map: MapLike | None
) -> dict[str, LandCounter]:
    out: dict[str, LandCounter] = {}
    for i, r in enumerate(raw.get("coastal_defense", [])):
        where = f"{fname}: coastal_defense[{i}]"
        check_keys(r, {"side", "strength", "hexes", "each_naval_base", "except", "plus"}, where)
        side = side_field(r, where)
        strength = get_field(r, "strength", str, where)
        try:
            cls = catalogue.cd_class(side, strength)
        except KeyError:
            raise DataError(
                f"{where}.strength", f"no {side.value} {strength} coastal defense in units.toml"
            ) from None
        hexes = [hex_field(h, f"{where}.hexes") for h in r.get("hexes", [])]
        hexes += [hex_field(h, f"{where}.plus") for h in r.get("plus", [])]
        if r.get("each_naval_base") and usn_map is not None:
            skip = {hex_field(h, f"{where}.except") for h in r.get("except", [])}
            hexes += [
                int(b.hex)
                for b in usn_map.bases.values()
                if b.naval and b.owner.get(bases) == side.value and int(b.hex) not in skip
            ]
        for h in hexes:
            c = cls.counter(h)
            if c.key in out:
                continue  # "each naval base ... and Midway": one per hex
            out[c.key] = c
    return out


def _check_special_units(scen: Scenario, fname: str, catalogue: Catalogue) -> None:
    """Units named by special and optional rules must exist (e.g. CG1.AUSRES)."""
    for section, rules in (("special", scen.special), ("optional_rules", scen.optional_rules)):
        for key, params in rules.items():
            side = params.get("side")
            for j, uid in enumerate(
                _unit_list(params.get("units", []), f"{fname}: {section}.{key}.units")
            ):
                sides = [Side(side)] if side in SIDES else [Side(s) for s in SIDES]
                if uid.isalpha():  # a unit type (garrison requirements), not an ID
                    continue
                if not any(catalogue.has(s, uid) for s in sides):
                    raise DataError(f"{fname}: {section}.{key}.units[{j}]", f"unknown unit {uid}")


def _check_arrivals(scen: Scenario, fname: str, placed: Mapping[str, str]) -> None:
    """A reinforcement must not be a counter already on the map at start."""
    for a in scen.arrivals:
        for uid in a.units:
            key = unit_key(a.side, uid)
            if key in placed and a.requires is None:
                raise DataError(
                    f"{fname}: {placed[key]}",
                    f"{key} is set up at start and also arrives on Game-Turn {a.turn}",
                )
