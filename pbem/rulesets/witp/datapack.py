"""The data-pack registry: every table, unit value, map element, ruling and scenario
value the rules use, each with its provenance.

The rulebook prints the procedures but few of the tables and no unit values
(docs/witp-data.md), so every item says where it comes from:

- ``rulebook``: printed in the rulebook (``source`` names the rule);
- ``derived``: worked out from the rulebook's text or examples (and the rulings
  docs/witp-rulings.md takes where the text leaves a choice open);
- ``history``: the historical record (names, types, dates, places, orders of
  battle), from outside the rulebook but not invented;
- ``data-pack``: supplied from outside the rulebook: an owner's charts;
- ``illustrative``: invented so the engine can run; not the game's value.

A pack is a TOML (or JSON) document of items by category::

    [pack]
    name = "demo-illustrative"
    title = "..."

    [tables.night-movement-allowance]
    value = { SC1 = 42, SC2 = 63, SC3 = 63 }
    provenance = "illustrative"
    source = "docs/witp-data.md, speed classes"

    [forces.japanese.mo-striking-force]   # forces: by side, private to it
    value = { ... }

Packs merge item by item, later over earlier: the installation's packs, then the
scenario's, then a moderator's own for one game (CREATE ... datapack=@pack.toml),
whose items count as ``data-pack`` unless they say otherwise. Pure: the loader
reads the files and hands their parsed contents in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from pbem.core.errors import DataError
from pbem.core.sides import SIDES


class Provenance(StrEnum):
    RULEBOOK = "rulebook"
    DERIVED = "derived"
    HISTORY = "history"
    DATAPACK = "data-pack"
    ILLUSTRATIVE = "illustrative"


CATEGORIES = ("tables", "units", "map", "rulings", "scenario", "forces")
PRIVATE_CATEGORY = "forces"  # by side: each side's order of battle is its own secret
ITEM_KEYS = frozenset({"value", "provenance", "source"})


@dataclass(frozen=True, slots=True)
class PackItem:
    """One value of the data pack as a game holds it: the value (JSON: a table, a unit's
    values, a ruling), where it comes from and the pack that supplied it."""

    value: Any  # JSON
    provenance: Provenance
    source: str  # the rule, the derivation or the document the value rests on
    pack: str  # the pack that supplied it

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "provenance": str(self.provenance),
            "source": self.source,
            "pack": self.pack,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> PackItem:
        return cls(obj["value"], Provenance(obj["provenance"]), obj["source"], obj["pack"])


Pack = Mapping[str, PackItem]  # the game's charts (Work.pack, Knowledge's public pack)


class StoredPack(Mapping[str, PackItem]):
    """The pack's items in a public part still held as JSON (a Knowledge's, a round's
    working copy), typed as each is read: a clock or a gate reads three of some
    two hundred items, many times a round. Read-only, as the pack is in play."""

    def __init__(self, items: Mapping[str, Any]) -> None:
        self._items = items

    def __getitem__(self, key: str) -> PackItem:
        return PackItem.from_json(self._items[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def public_pack(public: Mapping[str, Any]) -> StoredPack:
    return StoredPack(public["pack"])


@dataclass(frozen=True, slots=True)
class Item(PackItem):
    """A pack's item with its key, as the packs are read and merged."""

    key: str  # "tables/night-movement-allowance", "forces/allied/tf17"


@dataclass(frozen=True, slots=True)
class DataPack:
    name: str
    title: str
    items: Mapping[str, Item]

    def get(self, key: str) -> Item:
        try:
            return self.items[key]
        except KeyError:
            raise DataError(f"pack {self.name}", f"no item {key!r}") from None

    def value(self, key: str) -> Any:
        return self.get(key).value

    def public_items(self) -> dict[str, PackItem]:
        """Every item both sides may know (the charts, map, rulings, scenario)."""
        return {
            k: PackItem(i.value, i.provenance, i.source, i.pack)
            for k, i in sorted(self.items.items())
            if not k.startswith(PRIVATE_CATEGORY + "/")
        }

    def public(self) -> dict[str, dict[str, Any]]:
        """The public items as JSON."""
        return {k: i.to_json() for k, i in self.public_items().items()}

    def forces(self, side: str) -> dict[str, PackItem]:
        """``side``'s order of battle, by force id (the items as a game holds them)."""
        prefix = f"{PRIVATE_CATEGORY}/{side}/"
        return {
            k[len(prefix) :]: PackItem(i.value, i.provenance, i.source, i.pack)
            for k, i in sorted(self.items.items())
            if k.startswith(prefix)
        }


def _item(
    where: str, key: str, raw: Any, pack: str, default: tuple[Provenance, str] | None
) -> Item:
    if not isinstance(raw, Mapping) or "value" not in raw:
        raise DataError(where, "an item is a table with value, provenance and source")
    extra = sorted(set(raw) - ITEM_KEYS)
    if extra:
        raise DataError(
            where, f"unknown field(s) {', '.join(extra)}; an item takes value, provenance, source"
        )
    given = raw.get("provenance")
    if given is None and default is None:
        raise DataError(
            where, f"provenance missing: one of {', '.join(p.value for p in Provenance)}"
        )
    try:
        provenance = Provenance(given) if given is not None else default[0]  # type: ignore[index]
    except ValueError:
        raise DataError(
            f"{where}.provenance",
            f"{given!r} is not one of {', '.join(p.value for p in Provenance)}",
        ) from None
    source = raw.get("source", default[1] if default else None)
    if not isinstance(source, str) or not source.strip():
        raise DataError(f"{where}.source", "say where the value comes from (a rule or a document)")
    return Item(value=raw["value"], provenance=provenance, source=source, pack=pack, key=key)


def parse_pack(raw: Mapping[str, Any], where: str, *, moderator: bool = False) -> DataPack:
    """A pack from its parsed document; ``where`` names the file for errors. A
    moderator's pack may leave out [pack] and each item's provenance and source."""
    head = raw.get("pack", {})
    if not isinstance(head, Mapping):
        raise DataError(f"{where}: pack", "[pack] is a table with name and title")
    name = str(head.get("name", "moderator" if moderator else ""))
    if not name:
        raise DataError(f"{where}: pack.name", "a pack needs a name")
    default = (Provenance.DATAPACK, f"the moderator's pack {name}") if moderator else None
    items: dict[str, Item] = {}
    for category, body in raw.items():
        if category == "pack":
            continue
        if category not in CATEGORIES:
            raise DataError(
                f"{where}: {category}", f"unknown category; packs hold {', '.join(CATEGORIES)}"
            )
        if not isinstance(body, Mapping):
            raise DataError(f"{where}: {category}", "a category is a table of items")
        if category == PRIVATE_CATEGORY:
            for side, forces in body.items():
                if side not in SIDES or not isinstance(forces, Mapping):
                    raise DataError(
                        f"{where}: forces.{side}", f"forces are by side: {', '.join(SIDES)}"
                    )
                for fid, item in forces.items():
                    key = f"forces/{side}/{fid}"
                    items[key] = _item(f"{where}: forces.{side}.{fid}", key, item, name, default)
            continue
        for iname, item in body.items():
            key = f"{category}/{iname}"
            items[key] = _item(f"{where}: {category}.{iname}", key, item, name, default)
    return DataPack(name, str(head.get("title", name)), MappingProxyType(items))


def _shape(value: Any) -> str:
    return (
        "table"
        if isinstance(value, Mapping)
        else "list"
        if isinstance(value, list)
        else (
            "number"
            if isinstance(value, int | float) and not isinstance(value, bool)
            else type(value).__name__
        )
    )


def merge(base: DataPack, over: DataPack) -> DataPack:
    """``over``'s items replace ``base``'s one by one. A replaced value keeps its
    shape (a table stays a table, a number a number), so a slip is refused here
    rather than at some later Game-Turn; new items (an owner's charts) are welcome."""
    items = dict(base.items)
    for key, item in over.items.items():
        old = items.get(key)
        if old is not None and _shape(old.value) != _shape(item.value):
            raise DataError(
                f"pack {over.name}: {key.replace('/', '.')}",
                f"a {_shape(item.value)} cannot replace the {_shape(old.value)} of pack {old.pack}",
            )
        items[key] = item
    return DataPack(base.name, base.title, MappingProxyType(items))


def resolve(packs: list[DataPack]) -> DataPack:
    """The packs merged in order (the first names the result)."""
    if not packs:
        raise DataError("packs", "no data pack to play with")
    out = packs[0]
    for p in packs[1:]:
        out = merge(out, p)
    return out


# A source names pbem's notes as the repository keeps them ("docs/witp-data.md"); a
# player has the published player's docs, not the repository: a report names one of
# those pages by its published name, and the data notes (not published) as the
# moderator's.
_NOTES = re.compile(r"\bdocs/(witp-[\w-]+)\.md")
PLAYERS_PAGES = frozenset({"witp-guide", "witp-orders", "witp-rulings", "witp-rule-index"})


def told_source(source: str) -> str:
    """An item's source as a report tells it to a player (no repository path)."""

    def page(m: re.Match[str]) -> str:
        if m.group(1) in PLAYERS_PAGES:
            return f"the player's docs, {m.group(1)}"
        return "the moderator's data notes"

    return _NOTES.sub(page, source)


def illustrative(
    items: Mapping[str, PackItem], keys: list[str] | None = None
) -> list[dict[str, str]]:
    """The items among ``keys`` (default: all) whose values are illustrative: what a
    report must say it rests on (its JSON, for the report), each source as a player
    can follow it."""
    chosen = sorted(items) if keys is None else sorted(k for k in set(keys) if k in items)
    return [
        {"item": k, "source": told_source(items[k].source)}
        for k in chosen
        if items[k].provenance == Provenance.ILLUSTRATIVE
    ]


# -- the pack's unit values, typed ------------------------------------------------
# A unit item keeps its value as the pack gives it (the stored state holds that
# JSON); the rules read it through these values, decoded here.


def _decode_number(where: str, raw: Mapping[str, Any], key: str) -> int:
    """A value the counter must print (DataError, naming the item, if it does not)."""
    if key not in raw:
        raise DataError(f"{where}.{key}", "missing from the item's value")
    return int(raw[key])


@dataclass(frozen=True, slots=True)
class ShipClass:
    """A ship class's counter values (``units/<class>``): the ones the rules read
    are its speed class (17.13.1), defence (7.8.1 Step 6), AA (7.7.4), anti-torpedo
    rating (7.8.1), activation cost (8.1.2, 17.9), carrier points (8.1.4), an AO's
    fuel (17.9.2) and a cruiser's floatplane type (13.1.4); a value not printed is 0."""

    type: str
    speed_class: int
    defence: int
    surface_attack: int = 0
    surface_range: int = 0
    aa_high: int = 0
    aa_low: int = 0
    anti_torpedo: int = 0
    screening: int = 0
    activation_cost: float = 0.0
    air_capacity: int = 0
    air_capacity_max: int = 0
    carrier_points: int = 0
    fuel_capacity: float = 0.0
    load_capacity: int = 0
    floatplane: str = ""

    def aa(self, column: str) -> int:
        """The AA value an AA Matrix entry names ("aa_high", "aa_low"; 0: another)."""
        return {"aa_high": self.aa_high, "aa_low": self.aa_low}.get(column, 0)

    @classmethod
    def from_json(cls, where: str, raw: Mapping[str, Any]) -> ShipClass:
        def whole(key: str) -> int:
            return int(raw.get(key, 0))

        return cls(
            type=str(raw.get("type", "")),
            speed_class=_decode_number(where, raw, "speed_class"),
            defence=_decode_number(where, raw, "defence"),
            surface_attack=whole("surface_attack"),
            surface_range=whole("surface_range"),
            aa_high=whole("aa_high"),
            aa_low=whole("aa_low"),
            anti_torpedo=whole("anti_torpedo"),
            screening=whole("screening"),
            activation_cost=float(raw.get("activation_cost", 0)),
            air_capacity=whole("air_capacity"),
            air_capacity_max=whole("air_capacity_max"),
            carrier_points=whole("carrier_points"),
            fuel_capacity=float(raw.get("fuel_capacity", 0)),
            load_capacity=whole("load_capacity"),
            floatplane=str(raw.get("floatplane") or ""),
        )


def class_values(pack: Pack, name: str) -> ShipClass | None:
    """The class ``name``'s counter values (``units/<name>``); None: the pack has none."""
    item = pack.get(f"units/{name}")
    return None if item is None else ShipClass.from_json(f"units.{name}", item.value)


def required_class(pack: Pack, name: str) -> ShipClass:
    """``class_values``, where the rule cannot do without them."""
    got = class_values(pack, name)
    if got is None:
        raise DataError(f"units.{name}", "missing from the game's data pack")
    return got


SEARCH_BANDS = ("short", "medium", "long", "extended")  # 13.1.1, 13.1.3


@dataclass(frozen=True, slots=True)
class ApSearch:
    """An AP type's search values by range band (13.1.1, ``units/ap-<type>``) and how
    far its Extended search reaches (13.1.2); a type the pack does not rate: none."""

    short: int = 0
    medium: int = 0
    long: int = 0
    extended: int = 0
    extended_reach: int = 0

    def at(self, band: str) -> int:
        """The value at ``band`` (0: a band the chart does not print)."""
        values = {
            "short": self.short,
            "medium": self.medium,
            "long": self.long,
            "extended": self.extended,
        }
        return values.get(band, 0)

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ApSearch:
        values = raw.get("search", {})
        bands = {b: int(values.get(b, 0)) for b in SEARCH_BANDS}
        return cls(**bands, extended_reach=int(raw.get("extended_reach", 0)))
