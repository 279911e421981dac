"""The U.S.N. map data and its loader (issue 4, map part)."""

from __future__ import annotations

import shutil
from collections import deque
from collections.abc import Set as AbstractSet
from pathlib import Path

import pytest

from pbem.core.errors import DataError
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.loader import default_directory, load_map
from pbem.rulesets.usn.map import SOURCES, HexsideKind, Terrain, UsnMap, hexes_in_polygon

# Every exact placement the rulebook prints, "Name (hex)" (SETUP.HEXSPEC).
RULEBOOK_PLACES = {
    "Rangoon": 44,
    "Bangkok": 112,
    "Khota Bharu": 115,
    "Singapore": 116,
    "Haiphong": 177,
    "Saigon": 181,
    "Soerabaja": 220,
    "Hong Kong": 311,
    "Manila": 381,
    "Palau": 552,
    "Kure": 576,
    "Osaka": 609,
    "Port Moresby": 659,
    "Sydney": 668,
    "Guam": 684,
    "Lae": 692,
    "Brisbane": 698,
    "Ominato": 707,
    "Saipan": 717,
    "Truk": 754,
    "Rabaul": 759,
    "Bougainville": 760,
    "Guadalcanal": 828,
    "Kumac": 865,
    "Noumea": 899,
    "Eniwetok": 921,
    "Santa Cruz": 929,
    "Espirutu Santo": 930,  # as the rulebook spells it
    "Espiritu Santo": 930,
    "Efate": 931,
    "Auckland": 972,
    "Wake Island": 985,
    "Suva": 1066,
    "Tongabatu": 1168,
    "Midway Islands": 1218,
    "Canton": 1229,
    "Pago Pago": 1233,
    "Johnston": 1357,
    "Palmyra": 1394,
    "Dutch Harbor": 1409,
    "Christmas": 1429,
    "Pearl Harbor": 1456,
    "Oahu": 1456,
    "Cold Bay": 1509,
}

# Area references (SETUP.AREA): the representative hex lies in the area.
RULEBOOK_AREAS = [
    ("burma", 76),
    ("burma", 44),
    ("thailand", 111),
    ("malaya", 115),
    ("malaya", 116),
    ("indo-china", 179),
    ("formosa", 378),
    ("formosa", 411),
    ("luzon", 381),
    ("philippines", 381),
    ("philippines", 348),
    ("dei", 220),
    ("timor", 356),
    ("australia", 463),
    ("australia", 699),
    ("japanese-home-islands", 676),
    ("japanese-home-islands", 609),
    ("new-zealand", 971),
    ("new-zealand", 972),
    ("fiji", 1066),
    ("fiji", 1099),
    ("aleutians", 1509),
    ("hawaii", 1456),
]


@pytest.fixture(scope="module")
def m() -> UsnMap:
    return load_map()


def test_setup_hexspec_every_rulebook_place_in_its_hex(m: UsnMap) -> None:
    for name, h in RULEBOOK_PLACES.items():
        assert m.place(name) == h, name
        assert m.is_land(h), f"{name} ({h:04d}) is not land"
        assert m.terrain(h) is not Terrain.DESERT


def test_ter_class1_atolls(m: UsnMap) -> None:
    for name in ("Truk", "Midway", "Wake"):
        assert m.terrain(m.place(name)) is Terrain.CLASS1, name


def test_ter_class2_large_islands(m: UsnMap) -> None:
    for name in ("Guadalcanal", "Espiritu Santo"):
        assert m.terrain(m.place(name)) is Terrain.CLASS2, name
    for name in ("Sydney", "Brisbane", "Rangoon"):
        assert m.terrain(m.place(name)) is Terrain.CLASS2, name


def test_pearl_harbor_is_on_oahu_in_hawaii(m: UsnMap) -> None:
    assert m.place("oahu") == m.place("PEARL HARBOR") == 1456
    assert m.in_region(1456, "hawaii")


def test_setup_area_reference_hexes_lie_in_their_areas(m: UsnMap) -> None:
    for region, h in RULEBOOK_AREAS:
        assert m.in_region(h, region), f"{h:04d} not in {region}"
        assert m.is_land(h)


def test_vp_geo_vogelkop_is_exactly_488_and_521(m: UsnMap) -> None:
    assert m.regions["vogelkop"] == {488, 521}
    assert hexgrid.adjacent(488, 521)


def test_vp_geo_areas_exist(m: UsnMap) -> None:
    for region in ("sumatra", "java", "borneo", "philippines", "mandalay", "singapore"):
        assert m.regions[region], region
        assert all(m.is_land(h) for h in m.regions[region])


def test_grid_adjacency_checks_of_usn_map_md() -> None:
    assert hexgrid.adjacent(115, 116)  # Khota Bharu, Singapore
    assert hexgrid.adjacent(759, 760)  # Rabaul, Bougainville
    # Santa Cruz, Espiritu Santo, Efate: a north-south chain.
    assert hexgrid.neighbours(929)[3] == 930
    assert hexgrid.neighbours(930)[3] == 931
    assert hexgrid.distance(609, 1218) == 18  # Osaka to Midway


def _sea_distance(m: UsnMap, start: int, goals: AbstractSet[int]) -> int | None:
    """Fewest hexes for a ship, crossing only hexsides at least partly sea (TER.NAV)."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        if h in goals:
            return seen[h]
        for n in hexgrid.neighbours(h):
            if n not in seen and m.hexside(h, n).kind is not HexsideKind.LAND:
                seen[n] = seen[h] + 1
                queue.append(n)
    return None


def test_mini_midsim_move_osaka_reaches_midway_by_sea_in_18(m: UsnMap) -> None:
    # MINI.MIDSIM.MOVE: 12 + 6 hexes from Osaka to a hex adjacent to Midway.
    around = set(hexgrid.neighbours(1218))
    assert _sea_distance(m, 609, around) == 17


def test_ter_nav_every_naval_base_reachable_by_sea(m: UsnMap) -> None:
    pearl = m.place("pearl harbor")
    for h, base in m.bases.items():
        if base.naval:
            assert _sea_distance(m, pearl, {h}) is not None, base.name


def test_err_map_0692_mountain_for_land_clear_for_air(m: UsnMap) -> None:
    side = m.hexside(693, 692)
    assert side.src == "errata"
    assert side.mountain
    assert not side.mountain_for_air
    assert m.is_land(692) and m.is_land(693)


def test_ter_mtn_reconstructed_mountains_are_labelled(m: UsnMap) -> None:
    mountains = [s for s in m.hexsides.values() if s.mountain]
    assert mountains
    for s in mountains:
        assert s.src in ("errata", "reconstructed")
        assert s.why


def test_hexsides_cover_every_adjacent_pair_consistently(m: UsnMap) -> None:
    for h in range(1, hexgrid.LAST_HEX + 1):
        for n in hexgrid.neighbours(h):
            side = m.hexside(h, n)
            if m.is_sea(h) and m.is_sea(n):
                assert side.kind is HexsideKind.SEA
            if m.is_sea(h) or m.is_sea(n):
                assert side.kind is not HexsideKind.LAND
    assert len(m.hexsides) == sum(len(hexgrid.neighbours(h)) for h in m.hexes) // 2
    with pytest.raises(ValueError):
        m.hexside(1, 3)


def test_base_every_base_on_land_with_a_valid_owner(m: UsnMap) -> None:
    assert m.bases
    for h, base in m.bases.items():
        assert base.hex == h
        assert m.is_land(h), base.name
        assert base.air_capacity % 5 == 0
        assert base.air_capacity or base.naval
        assert set(base.owner) == {"game1", "game2"}
        assert base.src in SOURCES
        assert base.why or base.src != "reconstructed"


def test_setup_capacity_bases_hold_the_order_of_battle_air(m: UsnMap) -> None:
    def cap(name: str) -> int:
        base = m.base(m.place(name))
        assert base is not None, name
        return base.air_capacity

    assert cap("Pearl Harbor") >= 24 + 3  # CG1.OB.A.AIR
    assert cap("Manila") >= 20 + 3
    assert cap("Saigon") >= 10 and cap("Haiphong") >= 10  # CG2.OB.J.AIR
    assert cap("Bangkok") >= 15
    assert cap("Midway") >= 5 + 2  # MINI.MIDWAY.OB.A
    assert cap("Dutch Harbor") + cap("Cold Bay") >= 8 + 1
    assert cap("Rabaul") >= 15  # MINI.CORAL.OB.J: 15 LAC on Japanese air bases


def test_cg1_air_fits_on_japanese_bases(m: UsnMap) -> None:
    japanese = sum(b.air_capacity for b in m.bases.values() if b.owner_at("game1") == "japanese")
    assert japanese >= 94  # CG1.OB.J.AIR: 94 LAC, plus NAC on carriers


def test_australia_has_three_naval_bases_for_the_reserves(m: UsnMap) -> None:
    # CG1.AUSRES: three divisions, one per Australian naval base.
    naval = [h for h, b in m.bases.items() if b.naval and m.in_region(h, "australia")]
    assert len(naval) >= 3


def test_cg1_thai_bangkok_is_neutral_at_game1(m: UsnMap) -> None:
    bangkok = m.base(112)
    assert bangkok is not None
    assert bangkok.owner_at("game1") is None
    assert bangkok.owner_at("game2") == "japanese"


def test_cg2_bases_j_named_bases_are_japanese_and_usable(m: UsnMap) -> None:
    usable = {116: ("naval",), 311: ("air", "naval"), 381: ("air",), 220: ("air", "naval"),
              759: ("air", "naval")}  # fmt: skip
    for h, kinds in usable.items():
        base = m.base(h)
        assert base is not None and base.owner_at("game2") == "japanese"
        for kind in kinds:
            assert not base.damaged_at("game2", kind), (base.name, kind)
    manila = m.base(381)
    assert manila is not None and manila.damaged_at("game2", "naval")


def test_cg2_bases_j_five_capacity_bases_behind_the_line_are_japanese(m: UsnMap) -> None:
    for h, base in m.bases.items():
        if base.owner_at("game1") == "allied" and m.side_of("game2", h) == "japanese":
            assert base.owner_at("game2") == "japanese", base.name
            if base.air_capacity == 5:
                assert not base.damaged_at("game2", "air"), base.name


def test_setup_startlines_sides(m: UsnMap) -> None:
    for h in (609, 754, 717, 378, 181, 552, 921):
        assert m.side_of("game1", h) == "japanese", h
    for h in (381, 684, 985, 116, 759, 311, 1456, 659, 44):
        assert m.side_of("game1", h) == "allied", h
    for h in (759, 692, 381, 116, 684, 985, 220, 521, 44):
        assert m.side_of("game2", h) == "japanese", h
    for h in (659, 828, 899, 1218, 1456, 931, 698):
        assert m.side_of("game2", h) == "allied", h


def test_setup_startlines_agree_with_base_owners(m: UsnMap) -> None:
    for start in ("game1", "game2"):
        for h, base in m.bases.items():
            owner = base.owner_at(start)
            if owner is not None:
                assert m.side_of(start, h) == owner, (start, base.name)


def test_start_line_hexsides_separate_the_sides(m: UsnMap) -> None:
    line = m.start_lines["game2"]
    sides = line.hexsides()
    assert sides
    for a, b in sides:
        assert (a in line.japanese) != (b in line.japanese)


def test_sup_c_china_and_india_exist_and_burma_borders_china(m: UsnMap) -> None:
    assert m.regions["china"] and m.regions["india"]
    assert not m.regions["china"] & m.regions["burma"]
    assert 311 not in m.regions["china"]  # Hong Kong can be taken (CG1.HONGKONG)
    # REIN.BURMA: Allied arrivals on a Burma hex adjacent to China.
    assert any(n in m.regions["china"] for h in m.regions["burma"] for n in hexgrid.neighbours(h))


def test_ter_desert_hexes_are_interior_australia(m: UsnMap) -> None:
    deserts = [h for h, info in m.hexes.items() if info.terrain is Terrain.DESERT]
    assert deserts
    for h in deserts:
        assert m.is_land(h)
        assert m.in_region(h, "australia")
        assert m.hexes[h].src == "reconstructed" and m.hexes[h].why


def test_off_edges_and_boxes(m: UsnMap) -> None:
    assert len(m.edges["north"]) == hexgrid.COLUMNS
    assert len(m.edges["west"]) == 34 and len(m.edges["east"]) == 34
    assert m.on_edge(1, "north") and m.on_edge(1, "west")
    assert m.on_edge(hexgrid.LAST_HEX, "east") and m.on_edge(hexgrid.LAST_HEX, "south")
    assert m.offmap_boxes["west-coast"].distance_turns == 0
    served = [h for box in m.offmap_boxes.values() for h in box.entry_hexes]
    assert sorted(served) == sorted(m.edges["east"])  # OFF.BOX: each east hex, one box
    assert all(box.distance_turns >= 1 for box in m.offmap_boxes.values() if box.entry_hexes)


def test_provenance_on_every_hex(m: UsnMap) -> None:
    assert len(m.hexes) == hexgrid.LAST_HEX
    for info in m.hexes.values():
        assert info.src in SOURCES
        assert 0 <= info.land_tenths <= 9


def test_provenance_of_regions_places_and_edges(m: UsnMap) -> None:
    assert m.sources["region:vogelkop"] == (("rulebook", "VP.GEO.TABLE: Vogelkop* (488 & 521)"),)
    assert [src for src, _ in m.sources["region:burma"]] == ["reconstructed", "rulebook"]
    assert m.sources["place:truk"][0][0] == "rulebook"
    assert m.sources["place:kwajalein"][0][0] == "reconstructed"
    assert m.sources["edges"][0][0] == "reconstructed"
    for entries in m.sources.values():
        assert all(src in SOURCES for src, _ in entries)


def test_in_region_refuses_unknown_region(m: UsnMap) -> None:
    with pytest.raises(ValueError, match="unknown region"):
        m.in_region(116, "atlantis")


def test_default_load_is_cached() -> None:
    assert load_map() is load_map()


def test_map_json_stays_compact() -> None:
    assert (default_directory() / "map.json").stat().st_size < 100_000


def test_hexes_in_polygon_includes_the_boundary() -> None:
    inside = set(hexes_in_polygon([hexgrid.hex_id(0, 0), hexgrid.hex_id(4, 0), hexgrid.hex_id(4, 4),
                                   hexgrid.hex_id(0, 4)]))  # fmt: skip
    assert hexgrid.hex_id(2, 2) in inside
    assert hexgrid.hex_id(0, 0) in inside and hexgrid.hex_id(4, 4) in inside
    assert hexgrid.hex_id(6, 2) not in inside


# --- the loader refuses bad data, naming file and key ---------------------


def _refusal(overrides: dict[str, object]) -> DataError:
    with pytest.raises(DataError) as info:
        load_map(default_directory(), overrides)
    return info.value


def test_loader_refuses_a_base_in_a_sea_hex() -> None:
    err = _refusal({"base": [{"name": "Nowhere", "hex": 1050, "air": 5,
                              "owner": {"game1": "allied", "game2": "allied"},
                              "src": "reconstructed", "why": "test"}]})  # fmt: skip
    assert "Nowhere" in err.where and "sea" in err.reason


def test_loader_refuses_a_hex_off_the_map() -> None:
    err = _refusal({"place": [{"name": "Atlantis", "hex": 1600, "src": "rulebook"}]})
    assert err.where == "overrides: place[0].hex"
    assert "off the map" in err.reason


def test_loader_refuses_an_unknown_region() -> None:
    err = _refusal({"region": [{"name": "atlantis", "add": [116], "src": "rulebook"}]})
    assert err.where == "overrides: region[0].name"


def test_loader_refuses_a_reconstruction_without_a_reason() -> None:
    err = _refusal({"terrain": [{"hex": 1050, "terrain": "class1", "src": "reconstructed"}]})
    assert err.where == "overrides: terrain[0].why"


def test_loader_refuses_bad_provenance_and_bad_owner() -> None:
    err = _refusal({"terrain": [{"hex": 1050, "terrain": "class1", "src": "folklore"}]})
    assert err.where == "overrides: terrain[0].src"
    err = _refusal({"base": [{"name": "X", "hex": 116, "air": 5, "src": "rulebook",
                              "owner": {"game1": "dutch", "game2": "allied"}}]})  # fmt: skip
    assert err.where == "overrides: base[0].owner.game1"


def test_loader_refuses_hexside_between_distant_hexes() -> None:
    err = _refusal({"hexside": [{"a": 1, "b": 100, "mountain": True, "src": "rulebook"}]})
    assert err.where == "overrides: hexside[0]"


def test_loader_names_the_toml_file(tmp_path: Path) -> None:
    shutil.copy(default_directory() / "map.json", tmp_path / "map.json")
    text = (default_directory() / "map-overrides.toml").read_text(encoding="utf-8")
    (tmp_path / "map-overrides.toml").write_text(
        text.replace('name = "Truk"\nhex = 754\nair = 10', 'name = "Truk"\nhex = 754\nair = 7'),
        encoding="utf-8",
    )
    with pytest.raises(DataError) as info:
        load_map(tmp_path)
    assert info.value.where.startswith("map-overrides.toml: base[")
    assert info.value.where.endswith("].air")


def test_loader_names_the_json_file(tmp_path: Path) -> None:
    text = (default_directory() / "map.json").read_text(encoding="utf-8")
    (tmp_path / "map.json").write_text(text.replace('"2222', '"x222', 1), encoding="utf-8")
    shutil.copy(default_directory() / "map-overrides.toml", tmp_path / "map-overrides.toml")
    with pytest.raises(DataError) as info:
        load_map(tmp_path)
    assert info.value.where.startswith("map.json: terrain[")


def test_moderator_override_applies_on_top() -> None:
    m = load_map(default_directory(), {
        "base": [{"name": "Truk", "hex": 754, "air": 20, "naval": True,
                  "owner": {"game1": "japanese", "game2": "japanese"},
                  "src": "reconstructed", "why": "house rule"}],
        "terrain": [{"hex": 1050, "terrain": "class1", "src": "reconstructed", "why": "reef"}],
    })  # fmt: skip
    truk = m.base(754)
    assert truk is not None and truk.air_capacity == 20
    assert m.terrain(1050) is Terrain.CLASS1
    assert load_map().terrain(1050) is Terrain.SEA  # the default map is untouched


def test_rein_entryhex_locations_read_and_written_one_way() -> None:
    """A location is a hex ("0759", "759") or a name (a ship, WC, AUS); hexes are
    written four digits wide, as the errata does."""
    assert hexgrid.hex_of("0759") == hexgrid.hex_of("759") == 759
    assert [hexgrid.hex_of(x) for x in ("CV-6", "WC", "AUS", "OFF")] == [None] * 4
    assert hexgrid.fmt(hexgrid.HexId(59)) == "0059"
