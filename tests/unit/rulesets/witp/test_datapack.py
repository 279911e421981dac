"""The data-pack registry: provenance on every item, packs merged in order, a
moderator's own pack over the installation's, illustrative values named."""

from __future__ import annotations

import tomllib

import pytest

from pbem.core.errors import DataError
from pbem.rulesets.witp.datapack import (
    ApSearch,
    PackItem,
    Provenance,
    class_values,
    illustrative,
    merge,
    parse_pack,
    required_class,
    told_source,
)
from pbem.rulesets.witp.loader import load_library

from .conftest import SCENARIO


def test_every_shipped_item_carries_provenance_and_source() -> None:
    library = load_library()
    packs = [*library.packs.values(), *(sc.pack for sc in library.scenarios.values())]
    assert {p.name for p in packs} >= {"kernel", "tables-stage1", SCENARIO}
    for pack in packs:
        for item in pack.items.values():
            assert isinstance(item.provenance, Provenance) and item.source.strip(), item.key


def test_13_5_1_search_chit_cups_are_the_printed_ones() -> None:
    item = load_library().packs["tables-stage1"].get("tables/search-chit-cups")
    assert item.provenance == Provenance.RULEBOOK and item.source.startswith("[13.5.1]")
    assert [sum(item.value[c].values()) for c in ("cup1", "cup2", "cup3")] == [
        40,
        40,
        30,
    ]  # 13.5.2: 110


def test_an_item_without_provenance_is_refused_in_an_installed_pack() -> None:
    with pytest.raises(DataError, match="provenance missing"):
        parse_pack({"pack": {"name": "p"}, "tables": {"t": {"value": 1, "source": "x"}}}, "p.toml")
    with pytest.raises(DataError, match="not one of"):
        parse_pack(
            {
                "pack": {"name": "p"},
                "tables": {"t": {"value": 1, "provenance": "folklore", "source": "x"}},
            },
            "p.toml",
        )
    with pytest.raises(DataError, match="unknown category"):
        parse_pack({"pack": {"name": "p"}, "charts": {}}, "p.toml")


def test_a_moderators_item_counts_as_data_pack_unless_it_says_otherwise() -> None:
    pack = parse_pack(
        tomllib.loads(
            "[tables.naval-movement-allowance-night]\nvalue = { SC1 = 40, SC2 = 60, SC3 = 60 }\n"
        ),
        "datapack",
        moderator=True,
    )
    item = pack.get("tables/naval-movement-allowance-night")
    assert item.provenance == Provenance.DATAPACK and "moderator" in item.source


def test_merge_replaces_item_by_item_and_keeps_shapes() -> None:
    library = load_library()
    base = library.resolve(SCENARIO)
    assert base.get("tables/naval-movement-allowance-night").provenance == Provenance.ILLUSTRATIVE
    over = parse_pack(
        {"tables": {"naval-movement-allowance-night": {"value": {"SC1": 40}}}}, "m", moderator=True
    )
    merged = merge(base, over)
    assert merged.get("tables/naval-movement-allowance-night").provenance == Provenance.DATAPACK
    assert merged.get("tables/search-chit-cups") == base.get("tables/search-chit-cups")
    wrong = parse_pack({"scenario": {"game-turns": {"value": "three"}}}, "m", moderator=True)
    with pytest.raises(DataError, match="cannot replace"):
        merge(base, wrong)


def test_forces_are_private_and_the_rest_public() -> None:
    pack = load_library().resolve(SCENARIO)
    assert not any(k.startswith("forces/") for k in pack.public())
    assert "tf17" in pack.forces("allied") and "tf17" not in pack.forces("japanese")


def test_illustrative_lists_only_the_keys_used() -> None:
    items = load_library().resolve(SCENARIO).public_items()
    cv = "units/ship-cv-yorktown"
    assert illustrative(items, [cv, "tables/search-chit-cups", "nothing/here"]) == [
        {"item": cv, "source": told_source(items[cv].source)}
    ]


def test_a_source_is_told_to_players_without_a_repository_path() -> None:
    """The data notes are the moderator's; a published player's page is named as such."""
    assert told_source("pbem's values by type (docs/witp-data.md), CV") == (
        "pbem's values by type (the moderator's data notes), CV"
    )
    assert told_source("R10: pbem's ruling (docs/witp-rulings.md), x") == (
        "R10: pbem's ruling (the player's docs, witp-rulings), x"
    )
    assert told_source("[16.0] L1604") == "[16.0] L1604"


def test_a_ship_class_without_its_speed_class_is_refused_by_name() -> None:
    item = PackItem({"type": "DD", "defence": 2}, Provenance.DATAPACK, "mine", "moderator")
    with pytest.raises(DataError, match=r"units\.ship-dd-x\.speed_class"):
        required_class({"units/ship-dd-x": item}, "ship-dd-x")
    with pytest.raises(DataError, match=r"units\.ship-none"):
        required_class({}, "ship-none")
    assert class_values({}, "ship-none") is None


def test_13_1_1_an_unrated_ap_type_searches_with_nothing() -> None:
    raw = {"search": {"short": 3, "medium": 3, "long": 3, "extended": 2}, "extended_reach": 24}
    h6k = ApSearch.from_json(raw)
    assert [h6k.at(b) for b in ("short", "long", "extended", "far")] == [3, 3, 2, 0]
    assert h6k.extended_reach == 24 and ApSearch().at("short") == 0
