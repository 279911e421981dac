"""The stage-2 pack (packs/tables-stage2.toml): every item says where it comes from,
the printed tables are transcribed as printed, and the scenario plays with it."""

from __future__ import annotations

import re
import tomllib
from importlib.resources import files
from typing import Any

import pytest

from pbem.rulesets.witp.air.tables import DamageEffect, air_unit, damage_effect
from pbem.rulesets.witp.datapack import required_class
from pbem.rulesets.witp.loader import load_library

DOC = tomllib.loads(
    files("pbem")
    .joinpath("scenarios", "witp", "packs", "tables-stage2.toml")
    .read_text(encoding="utf-8")
)
PROVENANCE = frozenset({"rulebook", "derived", "illustrative"})
RULEBOOK_LINES = 6103
# Every rule the file cites (checked against the rulebook when transcribed).
CITED = frozenset({
    "4.1", "4.2.1", "5.2.1", "5.2.3", "5.3", "5.3.5", "5.6", "5.15", "6.2.1", "6.3.1", "7.1",
    "7.2", "7.2.2", "7.2.3", "7.2.4", "7.3.2", "7.7.3", "7.7.4", "7.8.1", "7.10.1", "8.1", "8.1.4",
    "8.1.6", "8.7", "8.8", "9.0", "10.1", "10.1.1", "10.1.3", "12.0", "12.2", "12.3.1", "12.4",
    "14.2", "14.2.3", "14.2.4", "16.7", "16.7.1", "16.8.1", "8.1.2", "6.1.1", "7.8", "7.11", "7.8.2",
    "5.3.4",
    "7.9.1",
    "10.1.2", "10.3.1", "38.3.1", "6.2.3",
})  # fmt: skip
RULE = re.compile(r"\[(\d+(?:\.\d+)*)\]")
LINE = re.compile(r"\bL(\d+)(?:-(\d+))?\b")
ITEMS = [
    (f"{cat}.{name}", item)
    for cat, body in DOC.items()
    if cat != "pack"
    for name, item in body.items()
]


def test_the_pack_is_named_for_its_file() -> None:
    assert DOC["pack"]["name"] == "tables-stage2"
    assert set(DOC) - {"pack"} <= {"tables", "units", "rulings"}


@pytest.mark.parametrize(("key", "item"), ITEMS, ids=[k for k, _ in ITEMS])
def test_every_item_has_provenance_and_a_source_citing_rules_that_exist(
    key: str, item: Any
) -> None:
    assert set(item) == {"value", "provenance", "source"}, key
    assert item["provenance"] in PROVENANCE
    cited = RULE.findall(item["source"])
    if item["provenance"] in {"rulebook", "derived"}:
        assert cited, f"{key}: cite the rule in brackets"
    if item["provenance"] == "rulebook":
        assert LINE.search(item["source"]), f"{key}: cite the rulebook line"
    assert set(cited) <= CITED, f"{key}: {sorted(set(cited) - CITED)}"
    for first, last in LINE.findall(item["source"]):
        assert 1 <= int(first) <= int(last or first) <= RULEBOOK_LINES


def test_14_2_3_8_1_4_7_3_2_printed_tables_as_printed() -> None:
    t = DOC["tables"]
    assert t["pby-night-contact"]["value"] == {
        "destroyed_at_most": 1, "no_contact_at_most": 3, "near_mp": 25, "near_drm": 1,
    }  # fmt: skip
    split = t["cc-component-split"]["value"]
    assert [split[str(d)] for d in range(1, 7)] == ["fighters"] * 2 + ["bombers"] * 2 + ["both"] * 2
    assert t["general-target-priority"]["value"][:2] == [["CV", "XCV"], ["CVL", "CVE"]]


def test_9_0_the_apat_columns_are_derived_from_the_worked_example() -> None:
    cols = DOC["tables"]["apat-columns"]["value"]
    assert cols[2] == [13, 24] and cols[3][0] == 25 and cols[-1][0] == 61
    rows = DOC["tables"]["apat"]["value"]["rows"]
    assert sorted(int(r) for r in rows) == list(range(2, 13)) and all(
        len(v) == len(cols) for v in rows.values()
    )


def test_illustrative_grids_are_complete() -> None:
    t = DOC["tables"]
    a2a, aa = t["air-to-air-crt"]["value"], t["aa-table"]["value"]
    assert all(len(r) == 11 for r in a2a["results"]) and len(a2a["results"]) == len(a2a["columns"])
    assert all(len(r) == 11 for r in aa["results"]) and len(aa["results"]) == len(aa["columns"])
    crt = t["naval-crt"]["value"]
    assert len(crt["results"]) == len(crt["columns"]) and all(len(r) == 6 for r in crt["results"])


def test_the_coral_sea_scenario_plays_with_stage_2_and_every_air_type_has_values() -> None:
    pack = load_library().resolve("coral-sea-1942")
    assert pack.get("tables/naval-crt").pack == "tables-stage2"
    for key in pack.items:
        if key.startswith("units/ap-"):
            t = key.removeprefix("units/ap-")
            if t in ("H6K4", "E13A1", "F1M2"):
                continue  # search aircraft: no strike values needed yet
            assert f"units/air-{t}" in pack.items, t


def test_every_air_type_and_ship_class_reads_as_typed_values() -> None:
    """The pack's unit items decode to the rules' typed values: each strike type's
    Air Point Chart values (4.1, 5.0) and each ship class's counter (7.8.1)."""
    items = load_library().resolve("coral-sea-1942").public_items()
    strike_types = [k.removeprefix("units/air-") for k in items if k.startswith("units/air-")]
    for t in strike_types:
        unit = air_unit(items, t)
        assert unit.roles and unit.air.normal >= unit.air.extended >= 0, t
        assert unit.range.normal <= unit.range.extended, t
    b5n = air_unit(items, "B5N2")
    assert b5n.anti_ship_at("T", "normal") == 5 and b5n.anti_ship_at("T", "extended") == 4
    assert b5n.anti_ship_at("D", "normal") == 0 and b5n.night_rated and b5n.air.altitude == "L"
    classes = [k.removeprefix("units/") for k in items if k.startswith("units/ship-")]
    assert classes
    for name in classes:
        got = required_class(items, name)
        assert got.type and got.speed_class in (1, 2, 3) and got.defence >= 1, name
    yorktown = required_class(items, "ship-cv-yorktown")
    assert (yorktown.aa("aa_high"), yorktown.aa("aa_low"), yorktown.aa("other")) == (4, 6, 0)


def test_16_8_1_damage_levels_read_as_typed_effects() -> None:
    items = load_library().resolve("coral-sea-1942").public_items()
    assert damage_effect(items, 0) == DamageEffect()
    assert damage_effect(items, 2) == DamageEffect(speed_class=-1, defence=-2, aa_half=True)
    assert damage_effect(items, 7) == damage_effect(items, 4)  # D4 for anything worse
