"""Build the typed U.S.N. tables (tables.py) from tables.toml."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from pbem.core.errors import DataError
from pbem.rulesets.usn.data_raw import META, SIDES, get_field, hex_field, nonneg_int
from pbem.rulesets.usn.tables import (
    AirLoss,
    Calendar,
    Crt1,
    Crt2,
    Crt5,
    Crt34,
    Damage,
    GeoObjective,
    LandResult,
    NacChart,
    Replacement,
    UsnTables,
    VariableDeployment,
    VictoryLevel,
    VpEntry,
)
from pbem.rulesets.usn.units import canonical_id


def _rows(raw: Mapping[str, Any], name: str, width: int) -> list[tuple[list[Any], set[int]]]:
    where = f"tables.toml: {name}"
    table = get_field(raw, name, dict, "tables.toml: ")
    rows = get_field(table, "rows", list, where)
    if [r.get("die") for r in rows] != [1, 2, 3, 4, 5, 6]:
        raise DataError(f"{where}.rows", "needs one row per die roll, 1 to 6 in order")
    out = []
    for i, r in enumerate(rows):
        cells = get_field(r, "cells", list, f"{where}.rows[{i}]")
        if len(cells) != width:
            raise DataError(f"{where}.rows[{i}].cells", f"needs {width} cells, has {len(cells)}")
        marked = r.get("reconstructed", [])
        if r.get("src") == "reconstructed":
            marked = list(range(width))
        out.append((cells, set(marked)))
    return out


def _cellset(rows: Sequence[tuple[list[Any], set[int]]]) -> frozenset[tuple[int, int]]:
    return frozenset((d + 1, c) for d, (_, marked) in enumerate(rows) for c in marked)


WHERE = "tables.toml"


def build_tables(raw: Mapping[str, Any]) -> UsnTables:
    """Every table of tables.toml, each checked as it is read (a mistake names its place)."""
    return UsnTables(
        crt1=_crt1(raw),
        crt2=_crt2(raw),
        crt34=_crt34(raw),
        crt5=_crt5(raw),
        nac_charts=MappingProxyType({side: _nac_chart(raw, side) for side in SIDES}),
        transport_points=MappingProxyType(_transport_points(raw)),
        emergency_capacity=MappingProxyType(_emergency_capacity(raw)),
        endurance=MappingProxyType(
            {
                k: v
                for k, v in get_field(raw, "endurance", dict, f"{WHERE}: ").items()
                if k not in META
            }
        ),
        victory_points=_victory_points(raw),
        victory_levels=_victory_levels(raw),
        geographic=_geographic(raw),
        replacements=_replacements(raw),
        variable_deployment=_variable_deployment(raw),
        breakdown=tuple(
            (r["side"], r["parent"], r["parts"], int(r["count"])) for r in raw.get("breakdown", [])
        ),
        calendar=_calendar(raw),
    )


def _crt1(raw: Mapping[str, Any]) -> Crt1:
    crt1_cols = tuple(get_field(raw["crt1"], "columns", list, f"{WHERE}: crt1"))
    rows1 = _rows(raw, "crt1", len(crt1_cols))
    crt1_rows = []
    for d, (cells, _) in enumerate(rows1):
        try:
            crt1_rows.append(tuple(LandResult(c) for c in cells))
        except ValueError as exc:
            raise DataError(f"{WHERE}: crt1.rows[{d}].cells", str(exc)) from None
    return Crt1(crt1_cols, tuple(crt1_rows), _cellset(rows1))


def _crt2(raw: Mapping[str, Any]) -> Crt2:
    bands = tuple(get_field(raw["crt2"], "bands", list, f"{WHERE}: crt2"))
    if list(bands) != sorted(bands) or len(set(bands)) != len(bands):
        raise DataError(f"{WHERE}: crt2.bands", "must rise strictly")
    rows2 = _rows(raw, "crt2", len(bands))
    crt2_rows = []
    for d, (cells, _) in enumerate(rows2):
        row = []
        for c, cell in enumerate(cells):
            if not (
                isinstance(cell, list)
                and len(cell) == 2
                and all(type(x) is int and x >= 0 for x in cell)
            ):
                raise DataError(
                    f"{WHERE}: crt2.rows[{d}].cells[{c}]", "must be [aborted, destroyed]"
                )
            row.append(AirLoss(cell[0], cell[1]))
        crt2_rows.append(tuple(row))
    return Crt2(bands, tuple(raw["crt2"].get("columns", ())), tuple(crt2_rows), _cellset(rows2))


def _crt34(raw: Mapping[str, Any]) -> Crt34:
    rows34 = _rows(raw, "crt34", 8)
    for d, (cells, _) in enumerate(rows34):
        for c, cell in enumerate(cells):
            if type(cell) is not int or not 0 <= cell <= 8:
                raise DataError(f"{WHERE}: crt34.rows[{d}].cells[{c}]", "damage number must be 0-8")
    return Crt34(
        tuple(raw["crt34"].get("crt3_columns", ())),
        tuple(raw["crt34"].get("crt4_columns", ())),
        tuple(tuple(cells) for cells, _ in rows34),
        _cellset(rows34),
    )


def _crt5(raw: Mapping[str, Any]) -> Crt5:
    rows5 = _rows(raw, "crt5", 8)
    crt5_rows = []
    for d, (cells, _) in enumerate(rows5):
        row5 = []
        for c, cell in enumerate(cells):
            cw = f"{WHERE}: crt5.rows[{d}].cells[{c}]"
            if cell == "X":
                row5.append(Damage(0, True))
            elif isinstance(cell, str) and cell.isdigit() and int(cell) <= 40:
                row5.append(Damage(int(cell)))
            else:
                raise DataError(cw, f"must be weeks 0-40 or 'X', got {cell!r}")
        crt5_rows.append(tuple(row5))
    return Crt5(tuple(crt5_rows), _cellset(rows5))


def _nac_chart(raw: Mapping[str, Any], side: str) -> NacChart:
    cw = f"{WHERE}: nac_chart.{side}"
    ch = get_field(
        get_field(raw, "nac_chart", dict, f"{WHERE}: "), side, dict, f"{WHERE}: nac_chart"
    )
    rows = {
        k: tuple(get_field(ch, k, list, cw)) for k in ("bombardment", "a2a_normal", "a2a_extended")
    }
    for k, values in rows.items():
        if len(values) != 11 or values[0] != 0 or list(values) != sorted(values):
            raise DataError(f"{cw}.{k}", "needs 11 rising values for 0-10 air points, from 0")
    return NacChart(side, get_field(ch, "letters", str, cw), **rows)


def _transport_points(raw: Mapping[str, Any]) -> dict[tuple[str, str], int]:
    tp: dict[tuple[str, str], int] = {}
    for i, r in enumerate(get_field(raw, "transport_points", list, f"{WHERE}: ")):
        tw = f"{WHERE}: transport_points[{i}]"
        s = get_field(r, "side", str, tw)
        if s not in (*SIDES, "both"):
            raise DataError(f"{tw}.side", f"{s!r} is not japanese, allied or both")
        tp[(s, get_field(r, "unit", str, tw))] = nonneg_int(r, "points", tw)
    return tp


def _emergency_capacity(raw: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    em = get_field(raw, "emergency_transport", dict, f"{WHERE}: ")
    return {s: MappingProxyType(dict(em.get(s, {}))) for s in SIDES}


def _victory_points(raw: Mapping[str, Any]) -> tuple[VpEntry, ...]:
    vps = []
    for i, r in enumerate(get_field(raw, "victory_points", list, f"{WHERE}: ")):
        vw = f"{WHERE}: victory_points[{i}]"
        pts = get_field(r, "points", (int, float), vw)
        per = get_field(r, "per", str, vw)
        if per not in ("unit", "air_point", "air_capacity", "defense"):
            raise DataError(f"{vw}.per", f"unknown multiplier {per!r}")
        vps.append(
            VpEntry(
                get_field(r, "receiver", str, vw),
                get_field(r, "category", str, vw),
                Fraction(str(pts)),
                per,
            )
        )
    return tuple(vps)


def _victory_levels(raw: Mapping[str, Any]) -> tuple[VictoryLevel, ...]:
    return tuple(
        VictoryLevel(
            r["level"], Fraction(str(r["ratio_at_least"])), bool(r.get("strictly_greater", False))
        )
        for r in get_field(raw, "victory_levels", list, f"{WHERE}: ")
    )


def _geographic(raw: Mapping[str, Any]) -> tuple[GeoObjective, ...]:
    geo = []
    for i, r in enumerate(get_field(raw, "geographic_points", list, f"{WHERE}: ")):
        gw = f"{WHERE}: geographic_points[{i}]"
        hexes = tuple(hex_field(h, f"{gw}.hexes") for h in r.get("hexes", []))
        geo.append(
            GeoObjective(
                area=get_field(r, "area", str, gw),
                points=nonneg_int(r, "points", gw),
                required=get_field(r, "required", bool, gw),
                region=r.get("region"),
                hexes=hexes,
                any_naval_base_in=r.get("any_naval_base_in"),
                place=r.get("place"),
                automatic_with=r.get("automatic_with"),
                allied_scores_built_bases=bool(r.get("allied_scores_built_bases", True)),
            )
        )
    return tuple(geo)


def _replacements(raw: Mapping[str, Any]) -> tuple[Replacement, ...]:
    return tuple(
        Replacement(
            r["rule"], r["side"], r["type"], int(r["after"]), r["trigger"], r.get("damage_weeks")
        )
        for r in get_field(raw, "replacements", list, f"{WHERE}: ")
    )


def _variable_deployment(raw: Mapping[str, Any]) -> VariableDeployment:
    vd = get_field(raw, "variable_deployment", dict, f"{WHERE}: ")
    vd_rows: dict[int, tuple[str, ...]] = {}
    for r in vd.get("rows", []):
        for die in r["dice"]:
            vd_rows[int(die)] = tuple(canonical_id(u) for u in r["units"])
    if sorted(vd_rows) != [1, 2, 3, 4, 5, 6]:
        raise DataError(f"{WHERE}: variable_deployment.rows", "must cover die rolls 1-6 once each")
    hex_ = hex_field(vd.get("hex"), f"{WHERE}: variable_deployment.hex")
    return VariableDeployment(hex_, MappingProxyType(vd_rows))


def _calendar(raw: Mapping[str, Any]) -> Calendar:
    cal = get_field(raw, "calendar", dict, f"{WHERE}: ")
    try:
        first = dt.date.fromisoformat(get_field(cal, "first_monday", str, f"{WHERE}: calendar"))
    except ValueError as exc:
        raise DataError(f"{WHERE}: calendar.first_monday", str(exc)) from None
    return Calendar(
        first,
        nonneg_int(cal, "last_turn", f"{WHERE}: calendar"),
        MappingProxyType({int(k): v for k, v in cal.get("printed", {}).items()}),
    )
