"""THE loader of U.S.N. world data: the one module of the ruleset that reads files.

The data ships inside the package (pbem/scenarios/usn) and is read with
``importlib.resources``, so an installed wheel finds it as a checkout does:
units.toml, tables.toml, reinforcements.toml, scenarios/<name>.toml (see
pbem.rulesets.usn.data) and the map's map.json and map-overrides.toml (see
pbem.rulesets.usn.map). The rules never come here: the registry reads the world
once and hands it to the ruleset (``UsnRuleset(load_world(), world_geo())``).

A moderator overrides any value for one game without editing the package::

    load_world(overrides={
        "units": {"japanese/BB-3": {"surface_attack": 30}},
        "tables": {"crt5": {"rows": {"2": {"cells": {"4": "15"}}}}},
        "scenarios": {"coral-sea": {"game_turns": 3}},
        "reinforcements": {"arrival": {"0": {"turn": 3}}},
        "map": {...},  # passed to load_map
    })

Overrides merge into the raw data before validation (list items by index, unit
records by "<side>/<ID>"), and the values they set count as ``moderator``.
Bad data raises ``DataError(where, reason)``, ``where`` = "file:line: key.path".
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from types import MappingProxyType
from typing import Any

from pbem.core.errors import DataError
from pbem.rulesets.usn.data import UsnWorld, build_world, check_overrides
from pbem.rulesets.usn.data_raw import with_line
from pbem.rulesets.usn.data_setup import cross_check
from pbem.rulesets.usn.geo import Geo, geo_from_map
from pbem.rulesets.usn.map import MapFiles, UsnMap, build_map
from pbem.rulesets.usn.scenario import Scenario


def default_directory() -> Traversable:
    """The package's own U.S.N. data folder."""
    return files("pbem").joinpath("scenarios", "usn")


@dataclass(frozen=True, slots=True, eq=False)
class DataFiles:
    """The data files under one folder, read once (a DataSource): the package's or a
    moderator's. Building the world, and a game's corrections later, read only these
    contents, so the ruleset that holds them never touches the file system."""

    root: Traversable
    contents: Mapping[str, bytes]

    @classmethod
    def read(cls, root: Traversable) -> DataFiles:
        return cls(root, MappingProxyType(dict(_walk(root, ""))))

    def exists(self, fname: str) -> bool:
        return fname in self.contents

    def _bytes(self, fname: str) -> bytes:
        try:
            return self.contents[fname]
        except KeyError:
            raise DataError(fname, "file not found") from None

    def read_toml(self, fname: str) -> dict[str, Any]:
        try:
            return tomllib.loads(self._bytes(fname).decode("utf-8"))
        except tomllib.TOMLDecodeError as exc:  # its message carries line and column
            raise DataError(fname, f"not valid TOML: {exc}") from None

    def read_json(self, fname: str) -> dict[str, Any]:
        try:
            data = json.loads(self._bytes(fname).decode("utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(fname, f"not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise DataError(fname, "top level must be an object")
        return data

    def text(self, fname: str) -> str | None:
        raw = self.contents.get(fname)
        return None if raw is None else raw.decode("utf-8", errors="replace")

    def stems(self, folder: str, suffix: str) -> list[str]:
        prefix = f"{folder}/"
        return sorted(
            name[len(prefix) : -len(suffix)]
            for name in self.contents
            if name.startswith(prefix) and "/" not in name[len(prefix) :] and name.endswith(suffix)
        )


def _walk(folder: Traversable, prefix: str) -> Iterator[tuple[str, bytes]]:
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.is_dir():
            yield from _walk(entry, f"{prefix}{entry.name}/")
        elif entry.is_file():
            yield f"{prefix}{entry.name}", entry.read_bytes()


def _source(directory: Traversable | None) -> DataFiles:
    return DataFiles.read(directory) if directory is not None else _package_files()


@lru_cache(maxsize=1)
def _package_files() -> DataFiles:
    return DataFiles.read(default_directory())


# --- the map ----------------------------------------------------------------------------


def read_map_files(directory: Traversable | None = None) -> MapFiles:
    return _map_files(_source(directory))


def _map_files(source: DataFiles) -> MapFiles:
    return MapFiles(source.read_json("map.json"), source.read_toml("map-overrides.toml"))


def load_map(
    directory: Traversable | None = None, overrides: Mapping[str, Any] | None = None
) -> UsnMap:
    """The map from ``directory`` (default: the package's), then a moderator's per-game
    ``overrides``. Raises DataError naming file and key on bad data."""
    if directory is None and overrides is None:
        return _default_map()
    return build_map(read_map_files(directory), overrides)


@lru_cache(maxsize=1)
def _default_map() -> UsnMap:
    return build_map(_default_map_files())


@lru_cache(maxsize=1)
def _default_map_files() -> MapFiles:
    return read_map_files()


@lru_cache(maxsize=1)
def world_geo() -> Geo:
    """The Geo of the real U.S.N. map, built once per process."""
    return geo_from_map(load_map())


# --- the world --------------------------------------------------------------------------


def load_world(
    directory: Traversable | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    usn_map: UsnMap | Any | None = None,
    with_map: bool = True,
) -> UsnWorld:
    """Load and check every U.S.N. data file. Cached for the package's own data.

    The map comes from ``usn_map`` (tests) or ``load_map``; with a map, every
    scenario's set-up is cross-checked against it (terrain, bases, capacities) and
    the first problem raises. ``with_map=False`` loads and checks the data alone.
    """
    if directory is None and not overrides and usn_map is None:
        return _default_world(with_map)
    return _load_world(_source(directory), overrides or {}, usn_map, with_map)


@lru_cache(maxsize=2)
def _default_world(with_map: bool) -> UsnWorld:
    return _load_world(_source(None), {}, None, with_map)


def _load_world(
    source: DataFiles, overrides: Mapping[str, Any], usn_map: Any | None, with_map: bool
) -> UsnWorld:
    map_files = None
    if usn_map is None and with_map:
        try:
            check_overrides(overrides)
            map_files = _map_files_of(source)
            usn_map = _try_load_map(source, overrides.get("map"))
        except DataError as exc:
            raise with_line(source, exc) from None
    return replace(build_world(source, overrides, usn_map), map_files=map_files)


def _map_files_of(source: DataFiles) -> MapFiles | None:
    if not source.exists("map.json"):
        return None
    return _default_map_files() if source is _package_files() else _map_files(source)


def _try_load_map(source: DataFiles, overrides: Mapping[str, Any] | None) -> UsnMap | None:
    map_files = _map_files_of(source)
    if map_files is None:
        return None
    if source is _package_files() and overrides is None:
        return _default_map()
    return build_map(map_files, overrides)


def check_world(
    directory: Traversable | None = None, overrides: Mapping[str, Any] | None = None
) -> list[DataError]:
    """Every problem, not just the first: the data alone, then against the map."""
    try:
        world = load_world(directory, overrides, with_map=False)
    except DataError as exc:
        return [exc]
    source = _source(directory)
    try:
        usn_map = _try_load_map(source, (overrides or {}).get("map"))
    except DataError as exc:
        return [exc]
    if usn_map is None:
        return []
    problems = cross_check(world.scenarios.values(), world.arrivals, world.catalogue, usn_map)
    return [with_line(source, p) for p in problems]


def load_scenario(
    name: str, world: UsnWorld | None = None, overrides: Mapping[str, Any] | None = None
) -> Scenario:
    if world is None or overrides:
        root = (
            world.source.root if world is not None and isinstance(world.source, DataFiles) else None
        )
        world = load_world(root, overrides)
    return world.scenario(name)


def scenario_names(directory: Traversable | None = None) -> list[str]:
    return _source(directory).stems("scenarios", ".toml")


def provenance_report(
    directory: Traversable | None = None, overrides: Mapping[str, Any] | None = None
) -> dict[str, dict[str, int]]:
    """Per file: source -> count of values (rulebook, errata, reconstructed, moderator)."""
    world = load_world(directory, overrides, with_map=False)
    return {f: dict(c) for f, c in world.provenance.items()}
