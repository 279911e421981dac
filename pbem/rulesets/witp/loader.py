"""THE loader of War in the Pacific data: the one module of the ruleset that reads files.

The data ships inside the package (pbem/scenarios/witp): ``packs/*.toml`` (the
installation's data packs) and ``scenarios/*.toml`` (each scenario's set-up and
forces), read with ``importlib.resources`` so an installed wheel finds them. The
registry reads them once and hands the Library to the ruleset
(``WitpRuleset(load_library(), load_map())``); a moderator's own pack for one game comes with
CREATE (``datapack=@pack.toml``) and lives in the game's options, not in a file.
The theatre map (map.json) is read by the map's own loader.
"""

from __future__ import annotations

import json
import tomllib
from functools import lru_cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any

from pbem.core.errors import DataError
from pbem.rulesets.witp.library import Library


def default_directory() -> Traversable:
    return files("pbem").joinpath("scenarios", "witp")


def read_document(name: str, raw: bytes) -> dict[str, Any]:
    """A pack document from TOML or JSON bytes (by the name's suffix)."""
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if name.endswith(".json") else tomllib.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DataError(name, f"not readable: {exc}") from None
    if not isinstance(data, dict):
        raise DataError(name, "the top level must be a table")
    return data


def _documents(folder: Traversable) -> dict[str, dict[str, Any]]:
    if not folder.is_dir():
        return {}
    return {
        f"{folder.name}/{entry.name}": read_document(entry.name, entry.read_bytes())
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.is_file() and entry.name.endswith((".toml", ".json"))
    }


def load_library(directory: Traversable | None = None) -> Library:
    """Every pack and scenario under ``directory`` (default: the package's)."""
    if directory is None:
        return _default_library()
    return Library.from_documents(
        _documents(directory.joinpath("packs")), _documents(directory.joinpath("scenarios"))
    )


@lru_cache(maxsize=1)
def _default_library() -> Library:
    return load_library(default_directory())
