"""Raw U.S.N. data files: reading TOML, merging a moderator's overrides, counting
provenance, and typed field readers that raise ``DataError`` naming file and key.

Provenance rules (docs/usn-data.md): every record has ``src`` (or inherits its
parent's), ``src_fields`` marks single values, ``reconstructed`` marks list cells by
index, and ``why`` is required wherever a record introduces a reconstruction.
"""

from __future__ import annotations

import copy
import re
from collections import Counter as Tally
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.units import Provenance, Source, canonical_id, expand_ids, unit_key

SOURCES = ("rulebook", "errata", "reconstructed")
SIDES = (Side.JAPANESE.value, Side.ALLIED.value)

# Keys that describe a record rather than hold one of its values.
META = frozenset({"src", "src_fields", "why", "note", "reconstructed", "rule", "title", "name"})
_LABELS = frozenset({"id", "ids", "die", "extends"})
# Keys whose every child table is a record of its own (no src needed on the container).
_CONTAINERS = frozenset({"special", "optional_rules", "nac_chart"})
# Keys whose table is a record of its own even without a src of its own.
_RECORDS = frozenset({"victory"})


class DataSource(Protocol):
    """The U.S.N. data files, read by pbem.rulesets.usn.loader (the rules open no file).

    Names are relative to the data folder, e.g. "units.toml" or "scenarios/midway.toml";
    a file that cannot be read or parsed raises DataError naming it.
    """

    def exists(self, fname: str) -> bool: ...

    def read_toml(self, fname: str) -> dict[str, Any]: ...

    def read_json(self, fname: str) -> dict[str, Any]: ...

    def text(self, fname: str) -> str | None: ...

    def stems(self, folder: str, suffix: str) -> list[str]: ...


def read_with_overrides(
    source: DataSource, fname: str, override: Mapping[str, Any] | None
) -> tuple[dict[str, Any], set[tuple[Any, ...]]]:
    raw = source.read_toml(fname)
    touched: set[tuple[Any, ...]] = set()
    if override:
        merge(raw, override, (), touched, f"overrides: {fname}")
    return raw, touched


def merge(
    base: Any,
    over: Mapping[str, Any],
    path: tuple[Any, ...],
    touched: set[tuple[Any, ...]],
    where: str,
) -> None:
    """Deep-merge ``over`` into ``base`` in place; list items are addressed by index."""
    for key, value in over.items():
        if isinstance(base, list):
            try:
                k: Any = int(key)
                base[k]
            except (ValueError, IndexError):
                raise DataError(f"{where}.{key}", "no such list item") from None
        elif isinstance(base, dict):
            k = key
        else:
            raise DataError(f"{where}.{key}", "cannot override inside a single value")
        here = (*path, k)
        current = base[k] if isinstance(base, list) or k in base else None
        if isinstance(value, Mapping) and isinstance(current, dict | list):
            merge(current, value, here, touched, f"{where}.{key}")
        else:
            base[k] = copy.deepcopy(value)
            touched.add(here)


def expand_unit_records(raw: dict[str, Any]) -> dict[str, Any]:
    """One record per counter: ``ids = "DIV-1..4"`` becomes four records."""
    out = dict(raw)
    for section in ("land", "naval"):
        recs = []
        for i, rec in enumerate(raw.get(section, [])):
            where = f"units.toml: {section}[{i}]"
            if not isinstance(rec, dict):
                raise DataError(where, "must be a table")
            spec = rec.get("ids", rec.get("id"))
            if not isinstance(spec, str):
                raise DataError(where, "needs an 'id' or 'ids' string")
            try:
                ids = expand_ids(spec)
            except ValueError as exc:
                raise DataError(f"{where}.ids", str(exc)) from None
            for uid in ids:
                r = {k: v for k, v in rec.items() if k != "ids"}
                r["id"] = uid
                r["_where"] = where
                recs.append(r)
        out[section] = recs
    return out


def override_units(
    raw: dict[str, Any], over: Mapping[str, Any], touched: set[tuple[Any, ...]]
) -> None:
    index = {}
    for section in ("land", "naval"):
        for i, rec in enumerate(raw.get(section, [])):
            index[unit_key(str(rec.get("side")), str(rec["id"]))] = (section, i)
    for key, change in over.items():
        side, _, uid = key.partition("/")
        try:
            k = unit_key(side, canonical_id(uid))
        except ValueError:
            k = key
        if k not in index:
            raise DataError(f"overrides: units.{key}", "unknown unit (want '<side>/<ID>')")
        if not isinstance(change, Mapping):
            raise DataError(f"overrides: units.{key}", "must map field names to values")
        section, i = index[k]
        merge(raw[section][i], change, (section, i), touched, f"overrides: units.{key}")
        raw[section][i]["_moderated"] = sorted(change)


def count_values(raw: Mapping[str, Any], fname: str, touched: set[tuple[Any, ...]]) -> Tally[str]:
    """Count the file's values by source, checking src/why on every record."""
    tally: Tally[str] = Tally()
    _count_record(raw, None, fname, (), touched, tally)
    return tally


def _count_record(
    rec: Mapping[str, Any],
    inherited: str | None,
    fname: str,
    path: tuple[Any, ...],
    touched: set[tuple[Any, ...]],
    tally: Tally[str],
    *,
    container: bool = False,
) -> None:
    where = f"{fname}: {_dotted(path) or '(top)'}"
    src = rec.get("src", inherited)
    if src is not None and src not in SOURCES:
        raise DataError(f"{where}.src", f"{src!r} is not one of {', '.join(SOURCES)}")
    fields = rec.get("src_fields", {})
    if not isinstance(fields, Mapping) or any(v not in SOURCES for v in fields.values()):
        raise DataError(f"{where}.src_fields", f"sources must be one of {', '.join(SOURCES)}")
    marked = rec.get("reconstructed", [])
    own_reconstruction = (
        rec.get("src") == "reconstructed" or "reconstructed" in fields.values() or bool(marked)
    )
    if own_reconstruction and not str(rec.get("why", "")).strip():
        raise DataError(f"{where}.why", "a reconstructed value needs a 'why'")
    for key, value in rec.items():
        if key in META or key in _LABELS or key.startswith("_"):
            continue
        here = (*path, key)
        if isinstance(value, dict) and (
            container or "src" in value or key in _CONTAINERS or key in _RECORDS
        ):
            _count_record(value, src, fname, here, touched, tally, container=key in _CONTAINERS)
            continue
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value):
                _count_record(item, src, fname, (*here, i), touched, tally)
            continue
        field_src = fields.get(key, src)
        if isinstance(value, list):
            cells_marked = (
                marked.get(key, [])
                if isinstance(marked, Mapping)
                else (marked if key == "cells" else [])
            )
            for i in range(len(value)):
                s = "reconstructed" if i in cells_marked else field_src
                tally[_moderated(s, (*here, i), touched, f"{where}.{key}")] += 1
        else:
            tally[_moderated(field_src, here, touched, f"{where}.{key}")] += 1


def _moderated(
    src: str | None, path: tuple[Any, ...], touched: set[tuple[Any, ...]], where: str
) -> str:
    for n in range(len(path), 0, -1):
        if path[:n] in touched:
            return Source.MODERATOR.value
    if src is None:
        raise DataError(where, "value without provenance: add src")
    return src


def _dotted(path: Sequence[Any]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


# ---------------------------------------------------------------------------
# Field readers


def _at(where: str, key: str) -> str:
    """'file: a.b' + 'c' -> 'file: a.b.c'; 'file: ' + 'c' -> 'file: c'."""
    return f"{where}{key}" if where.endswith(": ") else f"{where}.{key}"


def get_field(rec: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in rec:
        raise DataError(_at(where, key), "missing")
    return check_type(rec[key], kind, _at(where, key))


def opt_field(
    rec: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any
) -> Any:
    if key not in rec:
        return default
    return check_type(rec[key], kind, _at(where, key))


def check_type(value: Any, kind: type | tuple[type, ...], where: str) -> Any:
    if isinstance(value, bool) and kind in (int, (int, float)):
        raise DataError(where, f"expected a number, got {value!r}")
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise DataError(where, f"expected {names}, got {value!r}")
    return value


def nonneg_int(rec: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = (
        get_field(rec, key, int, where)
        if default is None
        else opt_field(rec, key, int, where, default)
    )
    if value < 0:
        raise DataError(_at(where, key), f"must not be negative, got {value}")
    return int(value)


def side_field(rec: Mapping[str, Any], where: str) -> Side:
    s = get_field(rec, "side", str, where)
    if s not in SIDES:
        raise DataError(_at(where, "side"), f"{s!r} is not a side (japanese, allied)")
    return Side(s)


def hex_field(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(where, f"expected a hex number, got {value!r}")
    if not hexgrid.on_map(value):
        raise DataError(
            where, f"hex {hexgrid.fmt(value)} is off the map (0001-{hexgrid.fmt(hexgrid.LAST_HEX)})"
        )
    return value


def check_keys(rec: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    extra = {k for k in rec if not k.startswith("_")} - set(allowed) - META
    if extra:
        raise DataError(f"{where}.{sorted(extra)[0]}", "unknown key")


def provenance_of(rec: Mapping[str, Any]) -> Provenance:
    fields = {k: Source(v) for k, v in rec.get("src_fields", {}).items()}
    fields |= dict.fromkeys(rec.get("_moderated", ()), Source.MODERATOR)
    return Provenance(Source(rec.get("src", "rulebook")), fields, str(rec.get("why", "")))


_ITEM = re.compile(r"^([A-Za-z_.]+)\[(\d+)\](?:\(([^)]*)\))?")


def with_line(source: DataSource, exc: DataError) -> DataError:
    """Add the line number to a DataError's ``where`` when it can be found cheaply:
    "scenarios/coral-sea.toml: deploy[2].at" -> "scenarios/coral-sea.toml:31: deploy[2].at"."""
    fname, sep, path = exc.where.partition(": ")
    if not sep or not fname.endswith(".toml") or ":" in fname:
        return exc
    text = source.text(fname)
    if text is None:
        return exc
    lines = text.splitlines()
    line = _locate(lines, path)
    if line is None:
        return exc
    return DataError(f"{fname}:{line}: {path}", exc.reason)


def _locate(lines: Sequence[str], path: str) -> int | None:
    m = _ITEM.match(path)
    if m:
        name, index, uid = m.groups()
        if uid:  # units.toml records are named by their counter
            wanted = (f'id = "{uid}"', f'ids = "{uid}')
            for n, text in enumerate(lines, 1):
                if text.strip().startswith(wanted):
                    return n
        headers = [n for n, text in enumerate(lines, 1) if text.strip() == f"[[{name}]]"]
        return headers[int(index)] if int(index) < len(headers) else None
    key = path.split(".")[0].split("[")[0]
    if key == "(top)":
        key = path.split(".")[1] if "." in path else ""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=") if key else None
    for n, text in enumerate(lines, 1):
        if pattern and pattern.match(text):
            return n
    return None
