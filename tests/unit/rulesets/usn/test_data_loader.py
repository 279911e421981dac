"""The U.S.N. loader: bad data refused with file and key, overrides, provenance counts.

Most tests load a tiny data directory (the real units and tables, one small scenario
and one arrival) against a small fake map, so each bad value is the only one."""

from __future__ import annotations

import re
import shutil
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pbem.cli import main
from pbem.core.errors import DataError
from pbem.core.sides import Side
from pbem.rulesets.usn.data_raw import count_values
from pbem.rulesets.usn.loader import (
    check_world,
    default_directory,
    load_scenario,
    load_world,
    provenance_report,
)
from pbem.rulesets.usn.units import NavalCounter, Source

TINY = """\
name = "tiny"
title = "A test situation"
kind = "mini-game"
rule = "TEST"
first_turn = 22
game_turns = 2
bases = "game2"
start_line = "game2"
reinforcements = false
first_side = "japanese"
src = "rulebook"

[[deploy]]
side = "japanese"
units = ["RGT-1"]
at = { hex = 759 }

[[deploy]]
side = "japanese"
units = ["CV-3", "CA-1"]
at = { hex = 754 }

[[air]]
side = "japanese"
type = "NAC"
points = 8
at = { any = "carrier" }

[[air]]
side = "japanese"
type = "LAC"
points = 5
at = { hex = 759 }
"""

ARRIVALS = """\
[[arrival]]
turn = 3
side = "japanese"
units = ["DIV-13"]
src = "rulebook"
"""


@dataclass
class FakeBase:
    hex: int
    air_capacity: int
    naval: bool
    owner: Mapping[str, str | None]


@dataclass
class FakeMap:
    land: set[int]
    bases: Mapping[int, FakeBase]
    regions: Mapping[str, frozenset[int]] = field(default_factory=dict)
    places: Mapping[str, int] = field(default_factory=dict)

    def is_land(self, h: int) -> bool:
        return h in self.land

    def is_sea(self, h: int) -> bool:
        return h not in self.land


def fake_map() -> FakeMap:
    japanese = {"game1": "japanese", "game2": "japanese"}
    return FakeMap(
        land={754, 759, 828, 609},
        bases={754: FakeBase(754, 10, True, japanese), 759: FakeBase(759, 5, True, japanese)},
        regions={"japanese-home-islands": frozenset({609})},
    )


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    src = default_directory()
    shutil.copy(src / "units.toml", tmp_path / "units.toml")
    shutil.copy(src / "tables.toml", tmp_path / "tables.toml")
    (tmp_path / "reinforcements.toml").write_text(ARRIVALS)
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "tiny.toml").write_text(TINY)
    return tmp_path


def write(d: Path, text: str) -> None:
    (d / "scenarios" / "tiny.toml").write_text(text)


def refused(d: Path, **kw: Any) -> DataError:
    with pytest.raises(DataError) as info:
        load_world(d, usn_map=fake_map(), **kw)
    return info.value


def key(where: str) -> str:
    """'file:14: path' -> 'file: path' (the line number is checked on its own)."""
    return re.sub(r":\d+: ", ": ", where, count=1)


def test_tiny_world_loads(tiny: Path) -> None:
    w = load_world(tiny, usn_map=fake_map())
    s = w.scenario("tiny")
    assert s.deployed("japanese") == ["RGT-1", "CV-3", "CA-1"]
    assert s.last_turn == 23


def test_unknown_unit_refused_with_file_and_key(tiny: Path) -> None:
    write(tiny, TINY.replace('units = ["RGT-1"]', 'units = ["RGT-99"]'))
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: deploy[0].units[0]"
    assert "unknown unit japanese/RGT-99" in e.reason


def test_errors_name_the_line(tiny: Path) -> None:
    write(tiny, TINY.replace('units = ["CV-3", "CA-1"]', 'units = ["CV-3", "CA-9"]'))
    assert refused(tiny).where == "scenarios/tiny.toml:18: deploy[1].units[1]"
    text = (tiny / "units.toml").read_text()
    line = text.splitlines().index('id = "CV-7"') + 1
    (tiny / "units.toml").write_text(text.replace("air_capacity = 5", "air_capacity = -5", 1))
    assert refused(tiny).where.startswith(f"units.toml:{line}: naval[")


def test_hex_off_the_map_refused(tiny: Path) -> None:
    write(
        tiny, TINY.replace("at = { hex = 759 }\n\n[[deploy]]", "at = { hex = 1600 }\n\n[[deploy]]")
    )
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: deploy[0].at.hex"
    assert "off the map" in e.reason


def test_base_in_a_sea_hex_refused(tiny: Path) -> None:
    write(tiny, TINY + '\n[[base]]\nside = "japanese"\nhex = 500\nair_capacity = 5\n')
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: base[0].hex"
    assert "sea hex 0500" in e.reason


def test_setup_capacity_carrier_below_what_the_scenario_deploys(tiny: Path) -> None:
    write(tiny, TINY.replace("points = 8", "points = 9"))  # CV-3 holds 8
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: air[0].at"
    assert "do not fit" in e.reason


def test_stk_e_air_base_capacity_never_exceeded(tiny: Path) -> None:
    write(tiny, TINY.replace("points = 5", "points = 6"))  # Rabaul holds 5 here
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: air[1].at"
    assert "exceed the air capacity" in e.reason


def test_setup_terrain_ships_only_in_friendly_naval_bases(tiny: Path) -> None:
    write(tiny, TINY.replace("at = { hex = 754 }", "at = { hex = 828 }"))
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: deploy[1].at"
    assert "naval base" in e.reason


def test_setup_terrain_land_units_only_on_land(tiny: Path) -> None:
    write(
        tiny, TINY.replace("at = { hex = 759 }\n\n[[deploy]]", "at = { hex = 500 }\n\n[[deploy]]")
    )
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: deploy[0].at"
    assert "sea hex 0500" in e.reason


def test_transport_capacity_below_what_it_carries(tiny: Path) -> None:
    extra = '\n[[deploy]]\nside = "japanese"\nunits = ["TR-1"]\nat = { hex = 759 }\n'
    extra += (
        '\n[[deploy]]\nside = "japanese"\nunits = ["DIV-1", "DIV-2"]\nat = { aboard = "TR-1" }\n'
    )
    write(tiny, TINY + extra)
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: deploy[3].at"
    assert "need 12 transport points; TR-1 has 0 left" in e.reason


def test_nm_trans_air_allied_air_points_fill_transport_points(tiny: Path) -> None:
    """NM.TRANS.AIR, NM.TRANS.TPTABLE: an Allied LAC point takes 1 of TR-1's 12 points."""
    extra = '\n[[deploy]]\nside = "allied"\nunits = ["TR-1"]\nat = { offmap = "west-coast" }\n'
    extra += '\n[[air]]\nside = "allied"\ntype = "LAC"\npoints = 12\nat = { aboard = "TR-1" }\n'
    write(tiny, TINY + extra)
    load_world(tiny, usn_map=fake_map())
    write(tiny, TINY + extra.replace("points = 12", "points = 13"))
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: air[2].at"
    assert "13 LAC need 13 transport points; TR-1 has 12 left" in e.reason


def test_unit_set_up_twice_refused(tiny: Path) -> None:
    write(tiny, TINY.replace('units = ["CV-3", "CA-1"]', 'units = ["CV-3", "RGT-1"]'))
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: deploy[1].units[1]"
    assert "already set up" in e.reason


def test_unknown_region_refused(tiny: Path) -> None:
    write(
        tiny,
        TINY.replace(
            "at = { hex = 759 }\n\n[[deploy]]", 'at = { region = "atlantis" }\n\n[[deploy]]'
        ),
    )
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: deploy[0].at.region"


def test_reinforcement_for_a_unit_that_does_not_exist(tiny: Path) -> None:
    (tiny / "reinforcements.toml").write_text(ARRIVALS.replace("DIV-13", "DIV-99"))
    e = refused(tiny)
    assert key(e.where) == "reinforcements.toml: arrival[0].units[0]"
    assert "unknown unit japanese/DIV-99" in e.reason


def test_provenance_src_must_be_known(tiny: Path) -> None:
    write(tiny, TINY.replace('src = "rulebook"', 'src = "folklore"'))
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: (top).src"


def test_provenance_reconstructed_needs_why(tiny: Path) -> None:
    write(tiny, TINY.replace('src = "rulebook"', 'src = "reconstructed"'))
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml: (top).why"


def test_bad_value_types_refused(tiny: Path) -> None:
    write(tiny, TINY.replace("game_turns = 2", 'game_turns = "two"'))
    assert key(refused(tiny).where) == "scenarios/tiny.toml: game_turns"
    write(tiny, TINY.replace("game_turns = 2", "game_turns = 2\nweather = true"))
    assert key(refused(tiny).where) == "scenarios/tiny.toml: (top).weather"


def test_toml_syntax_error_names_the_line(tiny: Path) -> None:
    write(tiny, TINY.replace("first_turn = 22", "first_turn = = 22"))
    e = refused(tiny)
    assert key(e.where) == "scenarios/tiny.toml" and "line 5" in e.reason


def test_bad_table_cell_refused(tiny: Path) -> None:
    text = (tiny / "tables.toml").read_text()
    (tiny / "tables.toml").write_text(text.replace('"10", "10", "15"', '"10", "ten", "15"', 1))
    e = refused(tiny)
    assert key(e.where) == "tables.toml: crt5.rows[0].cells[1]"


def test_unit_values_validated(tiny: Path) -> None:
    text = (tiny / "units.toml").read_text()
    (tiny / "units.toml").write_text(text.replace("anti_aircraft = 25", "anti_aircraft = -25", 1))
    e = refused(tiny)
    assert key(e.where).startswith("units.toml: naval[") and e.where.endswith(".anti_aircraft")


def test_check_world_reports_every_problem(tiny: Path) -> None:
    write(tiny, TINY.replace("points = 8", "points = 9").replace("points = 5", "points = 6"))
    problems = check_world(tiny)  # no map.json in the directory: map-free checks only
    assert [p.where for p in problems] == ["scenarios/tiny.toml:23: air[0].at"]


def test_override_a_unit_value_for_one_game(tiny: Path) -> None:
    over = {"units": {"japanese/BB-3": {"surface_attack": 30}}}
    w = load_world(tiny, over, usn_map=fake_map())
    bb = w.catalogue.get(Side.JAPANESE, "BB-3")
    assert bb.surface_attack == 30
    assert w.provenance["units.toml"]["moderator"] == 1
    plain = load_world(tiny, usn_map=fake_map())
    assert plain.catalogue.get(Side.JAPANESE, "BB-3").surface_attack == 34
    assert sum(w.provenance["units.toml"].values()) == sum(plain.provenance["units.toml"].values())
    assert plain.provenance["units.toml"]["rulebook"] - w.provenance["units.toml"]["rulebook"] == 1


def test_override_marks_the_counter_field_as_moderator(tiny: Path) -> None:
    """An override's provenance is "moderator" (the model says so too)."""
    over = {"units": {"allied/cv8": {"air_capacity": 12}}}
    cv8 = load_world(tiny, over, usn_map=fake_map()).catalogue.get(Side.ALLIED, "CV-8")
    assert isinstance(cv8, NavalCounter) and cv8.air_capacity == 12
    assert cv8.provenance.of("air_capacity") is Source.MODERATOR


def test_override_a_table_cell_and_a_scenario_value(tiny: Path) -> None:
    over = {
        "tables": {"crt5": {"rows": {"3": {"cells": {"0": "5"}}}}},
        "scenarios": {"tiny": {"game_turns": 3}},
    }
    w = load_world(tiny, over, usn_map=fake_map())
    assert w.tables.crt5.damage(1, 4).weeks == 5
    assert w.scenario("tiny").game_turns == 3
    assert w.provenance["tables.toml"]["moderator"] == 1
    assert w.provenance["scenarios/tiny.toml"]["moderator"] == 1
    assert load_scenario("tiny", w).game_turns == 3


def test_override_mistakes_refused(tiny: Path) -> None:
    with pytest.raises(DataError) as info:
        load_world(tiny, {"units": {"japanese/BB-9": {"defense": 1}}}, usn_map=fake_map())
    assert info.value.where == "overrides: units.japanese/BB-9"
    with pytest.raises(DataError):
        load_world(tiny, {"weather": {}}, usn_map=fake_map())
    with pytest.raises(DataError) as info:
        load_world(tiny, {"tables": {"crt5": {"rows": {"9": {}}}}}, usn_map=fake_map())
    assert info.value.where == "overrides: tables.toml.crt5.rows.9"
    with pytest.raises(DataError) as info:  # an override is validated like the file
        load_world(tiny, {"scenarios": {"tiny": {"first_side": "dutch"}}}, usn_map=fake_map())


def test_provenance_counts_add_up() -> None:
    raw = {
        "a": {"src": "rulebook", "x": 1, "y": 2, "src_fields": {"y": "errata"}},
        "rows": [
            {"die": 1, "cells": [1, 2, 3], "src": "rulebook", "reconstructed": [2], "why": "w"},
            {"die": 2, "cells": [4, 5, 6], "src": "reconstructed", "why": "w"},
        ],
        "special": {"flag": {"n": 5}},
        "src": "rulebook",
    }
    tally = count_values(raw, "t.toml", set())
    assert dict(tally) == {"rulebook": 1 + 2 + 1, "errata": 1, "reconstructed": 1 + 3}
    assert sum(tally.values()) == 2 + 6 + 1


def test_provenance_without_src_refused() -> None:
    with pytest.raises(DataError) as info:
        count_values({"rows": [{"cells": [1]}]}, "t.toml", set())
    assert info.value.where == "t.toml: rows[0].cells"


def test_provenance_report_real_data() -> None:
    report = provenance_report()
    assert set(report) >= {"units.toml", "tables.toml", "reinforcements.toml"}
    assert len([f for f in report if f.startswith("scenarios/")]) == 8
    tables = report["tables.toml"]
    assert tables["rulebook"] > 0 and tables["reconstructed"] > 0 and tables["errata"] > 0
    assert all(set(counts) <= {"rulebook", "errata", "reconstructed"} for counts in report.values())


def test_cli_data_report_and_check(capsys: pytest.CaptureFixture[str], tiny: Path) -> None:
    assert main(["data", "report", "usn"]) == 0
    out = capsys.readouterr().out
    assert (
        "units.toml" in out and "reconstructed" in out and out.splitlines()[-1].startswith("total")
    )
    assert main(["data", "check", "usn", "--dir", str(tiny)]) == 0
    assert capsys.readouterr().out.startswith("OK:")
    write(tiny, TINY.replace("points = 8", "points = 9"))
    assert main(["data", "check", "usn", "--dir", str(tiny)]) == 1
    assert "scenarios/tiny.toml:23: air[0].at" in capsys.readouterr().err


def test_cli_data_units_lists_every_counter(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "units", "usn"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(load_world(with_map=False).catalogue.counters) + 1
    bb3 = next(x for x in lines if x.startswith("japanese  BB-3 "))
    assert "defense=15 anti_aircraft=25 surface_attack=34 movement=5" in bb3  # no '*'
    assert any(x.startswith("allied    BB-3 ") and "defense=15*" in x for x in lines)


def test_loader_reads_data_that_is_not_on_the_file_system(tmp_path: Path) -> None:
    """The loader reads through importlib.resources' Traversable, so data inside a
    zip (as in a zipped install) loads as a checkout's does."""
    archive = tmp_path / "data.zip"
    src = Path(str(default_directory()))
    with zipfile.ZipFile(archive, "w") as z:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                z.write(p, f"usn/{p.relative_to(src).as_posix()}")
    zipped = load_world(zipfile.Path(archive, "usn/"))
    plain = load_world()
    assert set(zipped.scenarios) == set(plain.scenarios)
    assert len(zipped.catalogue.counters) == len(plain.catalogue.counters)
    assert zipped.map is not None and len(zipped.map.bases) == len(plain.map.bases)  # type: ignore[union-attr]
