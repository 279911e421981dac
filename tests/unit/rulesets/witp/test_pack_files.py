"""The stage-1 data files (pbem/scenarios/witp/: packs/tables-stage1.toml, scenarios/coral-sea-1942.toml): every value says where it comes
from, every rule it cites is one the rulebook has, and the order of battle holds
together. The rulebook is not in the repository, so the rules the files cite are
listed here (each checked against the rulebook's text when it was transcribed) and
only their format is checked at test time. docs/witp-data.md describes the schema."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import pytest

DATA = files("pbem").joinpath("scenarios", "witp")
FILES = {"tables-stage1.toml": "packs", "coral-sea-1942.toml": "scenarios"}
PROVENANCE = frozenset({"rulebook", "derived", "data-pack", "illustrative", "history"})
CATEGORIES = frozenset({"tables", "units", "map", "rulings", "scenario", "forces"})
SIDES = ("japanese", "allied")
CARRIERS = frozenset({"CV", "CVL", "CVE", "XCV"})  # [13.5.8]
RULEBOOK_LINES = 6103  # the rulebook text ends at 62.3.3, line 6103
THEATRE = (-46.0, 13.0, 134.0, 183.0)  # lat min, lat max, lon min, lon max (east)

# Every rule the files cite, as printed in brackets in the rulebook ("[13.5.1]").
# fmt: off
CITED_RULES = frozenset({
    "2.1.4", "2.5",
    "3.0", "3.1", "7.11", "7.11.1",
    "5.13.2", "5.13.4",
    "13.1.1", "13.1.2", "13.1.3", "13.1.4", "13.2", "13.3", "13.3.1", "13.3.2", "13.3.3", "13.4",
    "13.4.1", "13.5", "13.5.1", "13.5.2", "13.5.4", "13.5.5", "13.5.6", "13.5.7", "13.5.8",
    "13.5.9", "13.6", "13.6.1", "13.6.2", "13.6.3", "13.6.4", "13.6.5", "13.6.7", "13.7.3",
    "13.7.5", "13.7.6", "13.8", "13.8.1", "13.8.2", "13.8.3", "13.8.4", "13.8.6",
    "16.0", "16.1.1", "16.1.5", "16.1.6", "16.2.3", "16.4.7", "16.4.9", "16.6", "16.6.2", "16.6.5",
    "17.1", "17.2", "17.3", "17.4", "17.5", "17.6", "17.7", "17.8", "17.8.7", "17.9", "17.9.2",
    "17.9.4", "17.9.6", "17.10", "17.11", "17.12.2", "17.13.2", "17.13.3", "17.14", "17.15",
    "17.16.5",
    "18.1", "18.2", "18.2.1", "18.2.3", "18.4", "18.4.1", "18.5",
    "22.7.1",
    "23.1.3",
    "27.19.3",
    "34.1.1",
    "42.0", "42.1.1", "42.1.2", "42.1.3", "42.2.2", "42.2.3", "42.3.1", "42.3.2", "42.3.3",
    "42.3.4", "42.3.5", "42.3.6", "42.4.1", "42.4.2", "42.5.2", "42.5.3", "42.8", "42.9",
    "59.1.1", "59.1.2", "59.2",
    "60.7", "60.13.1",
})
# fmt: on
RULE = re.compile(r"\[(\d+(?:\.\d+)*)\]")
LINE = re.compile(r"\bL(\d+)(?:-(\d+))?\b")


def _load(name: str) -> dict[str, Any]:
    return tomllib.loads(DATA.joinpath(FILES[name], name).read_text(encoding="utf-8"))


DOCS = {name: _load(name) for name in FILES}
SCENARIO = DOCS["coral-sea-1942.toml"]
TABLES = DOCS["tables-stage1.toml"]


def _items(doc: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(key, item) for every item of a pack document; forces are by side."""
    for category, body in doc.items():
        if category == "pack":
            continue
        if category == "forces":
            for side, forces in body.items():
                for fid, item in forces.items():
                    yield f"forces.{side}.{fid}", item
        else:
            for name, item in body.items():
                yield f"{category}.{name}", item


ITEMS = [(f"{fname}:{key}", item) for fname, doc in DOCS.items() for key, item in _items(doc)]


def _forces(side: str) -> dict[str, Any]:
    return {fid: item["value"] for fid, item in SCENARIO["forces"][side].items()}


def _task_forces(side: str) -> dict[str, Any]:
    return {fid: tf for fid, tf in _forces(side).items() if "ships" in tf}


def _unit(key: str) -> dict[str, Any]:
    value: dict[str, Any] = SCENARIO["units"][key]["value"]
    return value


def test_packs_have_a_name_and_known_categories() -> None:
    for fname, doc in DOCS.items():
        assert doc["pack"]["name"] == fname.removesuffix(".toml")
        assert set(doc) - {"pack"} <= CATEGORIES, fname
    assert set(SCENARIO["pack"]["sides"]) == set(SIDES)
    assert SCENARIO["pack"]["uses"][:2] == ["kernel", TABLES["pack"]["name"]]  # then tables-stage2


@pytest.mark.parametrize(("key", "item"), ITEMS, ids=[k for k, _ in ITEMS])
def test_every_item_has_value_provenance_and_source(key: str, item: Any) -> None:
    assert isinstance(item, dict)
    assert set(item) == {"value", "provenance", "source"}, key
    assert item["provenance"] in PROVENANCE
    assert item["source"].strip()


@pytest.mark.parametrize(("key", "item"), ITEMS, ids=[k for k, _ in ITEMS])
def test_rulebook_and_derived_items_cite_rules_the_rulebook_has(key: str, item: Any) -> None:
    cited = RULE.findall(item["source"])
    if item["provenance"] in {"rulebook", "derived"}:
        assert cited, f"{key}: cite the rule in brackets, e.g. [13.5.1]"
    if item["provenance"] == "rulebook":
        assert LINE.search(item["source"]), f"{key}: cite the rulebook line, e.g. L1304-1334"
    assert set(cited) <= CITED_RULES, f"{key}: {sorted(set(cited) - CITED_RULES)}"
    for first, last in LINE.findall(item["source"]):
        assert 1 <= int(first) <= int(last or first) <= RULEBOOK_LINES, key


def test_cited_rules_are_rule_numbers_and_all_in_use() -> None:
    for rule in CITED_RULES:
        parts = [int(p) for p in rule.split(".")]
        assert 1 <= parts[0] <= 62 and len(parts) <= 4, rule
    used = {r for _, item in ITEMS for r in RULE.findall(item["source"])}
    assert used == CITED_RULES


def test_13_5_1_chit_cups_hold_the_printed_counts() -> None:
    cups = TABLES["tables"]["search-chit-cups"]["value"]
    totals = cups["totals"]
    assert (
        {c: sum(cups[c].values()) for c in totals}
        == totals
        == {
            "cup1": 40,
            "cup2": 40,
            "cup3": 30,
        }
    )
    assert sum(totals.values()) == 110  # [13.5.2]
    chits = set(TABLES["tables"]["search-chit-reporting"]["value"]) - {"classes", "error_rules"}
    assert {c for cup in totals for c in cups[cup]} == chits


def test_13_6_japanese_dummy_allotment_covers_every_2d6_roll_once() -> None:
    rows = TABLES["tables"]["japanese-dummy-allotment"]["value"]["rows"]
    rolls = Counter(n for row in rows for n in range(row["roll"][0], row["roll"][1] + 1))
    assert rolls == Counter(range(2, 13))


def test_42_4_1_magic_cup_holds_62_chits() -> None:
    magic = TABLES["tables"]["magic-cup"]["value"]
    assert sum(magic["chits"].values()) == magic["total"] == 62


def test_13_3_search_tables_are_2d10_thresholds_harder_with_range() -> None:
    for table, bands in (
        ("land-air-search", "land-search-bands"),
        ("carrier-air-search", "carrier-search-bands"),
    ):
        value = TABLES["tables"][table]["value"]
        band_list = TABLES["tables"][bands]["value"]
        assert value["columns"] == [
            b for b in ("short", "medium", "long", "extended") if b in band_list
        ]
        rows = value["rows"]
        for row in rows:
            assert all(1 <= t <= 100 for t in row["thresholds"])
            assert row["thresholds"] == sorted(row["thresholds"])
        for col in range(len(value["columns"])):
            column = [row["thresholds"][col] for row in rows]
            assert column == sorted(column, reverse=True)
        assert [r["search_value"][0] for r in rows[1:]] == [
            r["search_value"][1] + 1 for r in rows[:-1]
        ]
        spans = [band_list[b] for b in value["columns"]]
        assert spans[0][0] == 1
        assert [s[0] for s in spans[1:]] == [s[1] + 1 for s in spans[:-1]]


def test_13_3_land_bands_keep_the_printed_limits() -> None:
    bands = TABLES["tables"]["land-search-bands"]["value"]
    assert bands["short"][1] == 7  # [5.13.2]
    assert bands["long"][1] == 19  # [16.1.6]
    assert bands["extended_max"] == {"japanese": 28, "allied": 24}  # [16.1.6]


def test_ship_names_are_unique() -> None:
    names = Counter(
        name
        for side in SIDES
        for tf in _task_forces(side).values()
        for ship in tf["ships"]
        for name in {ship["name"], *ship.get("members", [])}
    )
    assert [n for n, k in names.items() if k > 1] == []


def test_16_1_each_side_has_a_carrier_task_force() -> None:
    for side in SIDES:
        carrier_tfs = [
            fid
            for fid, tf in _task_forces(side).items()
            if any(ship["type"] in CARRIERS for ship in tf["ships"])
        ]
        assert carrier_tfs, side


def test_every_ship_has_a_class_of_its_type() -> None:
    for side in SIDES:
        for tf in _task_forces(side).values():
            for ship in tf["ships"]:
                assert ship["navy"] in {"IJN", "USN", "CW"}  # [17.9] fuelling formulas
                assert _unit(ship["class"])["type"] == ship["type"], ship["name"]


def test_air_groups_fly_known_types_from_carriers_and_bases() -> None:
    for side in SIDES:
        forces = _forces(side)
        for fid, force in forces.items():
            if fid.endswith("-air") and fid.removesuffix("-air") in forces:
                tf = forces[fid.removesuffix("-air")]
                flyers = {s["name"]: s for s in tf["ships"]}
                for ship, points in force.items():
                    assert _unit(flyers[ship]["class"])["air_capacity_max"] >= sum(points.values())
                    assert all(f"ap-{t}" in SCENARIO["units"] for t in points)
            elif "air_points" in force:
                assert force["base"] in SCENARIO["scenario"]["places"]["value"]
                assert all(f"ap-{t}" in SCENARIO["units"] for t in force["air_points"])


def test_every_task_force_and_base_can_be_placed_on_any_grid() -> None:
    lat0, lat1, lon0, lon1 = THEATRE
    places = SCENARIO["scenario"]["places"]["value"]
    spots = list(places.values()) + [
        f for side in SIDES for f in _forces(side).values() if isinstance(f, dict) and "lat" in f
    ]
    spots += TABLES["map"]["coastwatcher-islands"]["value"].values()
    for spot in spots:
        assert lat0 <= spot["lat"] <= lat1 and lon0 <= spot["lon"] <= lon1, spot
    for side in SIDES:
        for tf in _task_forces(side).values():
            assert tf["place"] == "at sea" or tf["place"] in places


def test_13_8_3_allied_coastwatchers_are_six_on_eligible_islands() -> None:
    watchers = SCENARIO["forces"]["allied"]["coastwatchers"]["value"]
    assert (
        len(watchers)
        == len(set(watchers))
        <= TABLES["tables"]["coastwatcher-placement"]["value"]["initial"]
    )
    assert set(watchers) <= set(TABLES["map"]["coastwatcher-islands"]["value"])


def test_scenario_plays_at_least_three_game_turns() -> None:
    assert SCENARIO["scenario"]["game-turns"]["value"] >= 3
    assert SCENARIO["scenario"]["start-date"]["value"] in {"1942-05-03", "1942-05-04"}
