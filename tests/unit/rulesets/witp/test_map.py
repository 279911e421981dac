"""The War in the Pacific theatre map, Map Section E (issue 16, map): tests by rule number."""

from __future__ import annotations

import math
import tomllib
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from pbem.core.errors import DataError
from pbem.rulesets.witp import hexgrid
from pbem.rulesets.witp.map import (
    NAVAL_MP_COST,
    SOURCES,
    HexsideKind,
    MovementArea,
    PortType,
    Terrain,
    TheatreMap,
    load_map,
    map_files,
)

OVERRIDES = Path(__file__).parents[4] / "pbem" / "scenarios" / "witp" / "map-overrides.toml"

# Every Map E hex the rulebook prints for a place.
RULEBOOK_PLACES = {
    "Adelaide": "E0145",  # 44.1.1
    "Melbourne": "E0848",
    "Townsville": "E1028",
    "Sydney": "E1544",
    "Brisbane": "E1737",
    "Kwajalein": "E3301",  # 17.1 example
}
# The bases the issue names (Coral Sea, Solomons, New Guinea, May 1942).
THEATRE_BASES = (
    "Rabaul", "Tulagi", "Port Moresby", "Lae", "Salamaua", "Buna", "Gili Gili",
    "Townsville", "Cairns", "Noumea", "Efate", "Espiritu Santo", "Truk",
)  # fmt: skip


@pytest.fixture(scope="module")
def m() -> TheatreMap:
    return load_map()


def _lat_lon() -> dict[str, tuple[float, float]]:
    with OVERRIDES.open("rb") as f:
        return {p["name"]: (p["lat"], p["lon"]) for p in tomllib.load(f)["place"]}


def _nm(a: tuple[float, float], b: tuple[float, float]) -> float:
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = (
        math.sin((la2 - la1) / 2) ** 2
        + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    )
    return 2 * 3440.065 * math.asin(math.sqrt(h))


# -- 2.1.1 numbering ----------------------------------------------------------


def test_2_1_1_the_map_is_section_e_numbered_as_printed(m: TheatreMap) -> None:
    assert m.section == "E"
    assert len(m.hexes) == m.columns * m.rows
    assert {"E0101", "E4550", "E2418"} <= set(m.hexes)
    assert not m.on_map("E4601") and not m.on_map("G0626")


@pytest.mark.parametrize(("name", "hex_"), sorted(RULEBOOK_PLACES.items()))
def test_2_1_1_rulebook_places_are_in_their_printed_hexes(
    m: TheatreMap, name: str, hex_: str
) -> None:
    assert m.place(name) == hex_
    assert m.terrain(hex_) is not Terrain.SEA


def test_13_8_1_guadalcanal_is_e2418_2519_2619(m: TheatreMap) -> None:
    """13.8.1: "An Allied CW placed on Guadalcanal would be considered to
    'occupy' hexes E2418, 2519 & 2619" (the geography, not forced, gives it)."""
    assert m.islands["Guadalcanal"] == {"E2418", "E2519", "E2619"}
    assert all(m.is_coastal(h) for h in m.islands["Guadalcanal"])


def test_44_7_the_solomons_hexes_are_land(m: TheatreMap) -> None:
    solomons = "E2116 E2117 E2217 E2317 E2318 E2417 E2518 E2418 E2519 E2617 E2618 E2619 E2720"
    for h in solomons.split():
        assert m.terrain(h) is not Terrain.SEA, h
        assert m.in_region(h, "solomons"), h


def test_49_4_new_caledonias_one_hex_islands(m: TheatreMap) -> None:
    """49.4: "the island Noumea, and the 1-hex islands at E3330 & E3430" (Lifou
    and Mare fall there by the fit alone)."""
    assert m.terrain("E3330") is Terrain.ISLAND and m.terrain("E3430") is Terrain.ISLAND
    assert m.place("Lifou") == "E3330" and m.place("Mare") == "E3430"
    assert m.in_region(m.place("Noumea"), "new-caledonia")


def test_5_13_2_e3326_is_sea_six_hexes_from_noumea(m: TheatreMap) -> None:
    """5.13.2 example: a subron south of Espiritu Santo "in hex E3326 (six hexes
    from Noumea)"; subrons occupy only all-sea hexes (22.4.3)."""
    assert m.is_sea("E3326")
    assert m.distance("E3326", m.place("Noumea")) == 6
    assert m.distance("E3326", m.place("Espiritu Santo")) == 1


# -- 2.1.4 / 17.13.3 Movement Areas -----------------------------------------------


def test_2_1_4_movement_areas_are_40_50_60_nm() -> None:
    assert [a.nautical_miles for a in MovementArea] == [40, 50, 60]


def test_17_13_3_naval_cost_by_movement_area(m: TheatreMap) -> None:
    """17.13.3: 4 MP to enter an Arctic hex, 5 a Temperate one; Tropical 6 (27.19.3)."""
    assert NAVAL_MP_COST[MovementArea.ARCTIC][0] == 4
    assert NAVAL_MP_COST[MovementArea.TEMPERATE][0] == 5
    assert NAVAL_MP_COST[MovementArea.TROPICAL][0] == 6
    assert NAVAL_MP_COST[MovementArea.TEMPERATE][1].src == "rulebook"
    assert NAVAL_MP_COST[MovementArea.TROPICAL][1].src == "derived"
    assert m.movement_area(m.place("Rabaul")) is MovementArea.TROPICAL
    assert m.naval_cost(m.place("Rabaul")) == 6
    assert m.movement_area(m.place("Sydney")) is MovementArea.TEMPERATE
    assert m.naval_cost(m.place("Sydney")) == 5


def test_2_1_4_tropical_north_of_the_tropic_of_capricorn(m: TheatreMap) -> None:
    """59.1.2 takes the Tropic of Capricorn as the southern temperate zone
    boundary: Rockhampton (23.38 S) is just Tropical, Brisbane Temperate."""
    assert m.movement_area(m.place("Rockhampton")) is MovementArea.TROPICAL
    assert m.movement_area(m.place("Brisbane")) is MovementArea.TEMPERATE
    # One boundary: every column turns Temperate once and stays so.
    for c in range(1, m.columns + 1):
        areas = [m.movement_area(hexgrid.hex_id("E", c, r)) for r in range(1, m.rows + 1)]
        turn = areas.index(MovementArea.TEMPERATE)
        assert set(areas[:turn]) == {MovementArea.TROPICAL}
        assert set(areas[turn:]) == {MovementArea.TEMPERATE}


@pytest.mark.parametrize(
    ("a", "b"),
    [("Rabaul", "Port Moresby"), ("Truk", "Rabaul"), ("Townsville", "Port Moresby"),
     ("Tulagi", "Noumea"), ("Sydney", "Brisbane"), ("Brisbane", "Noumea")],
)  # fmt: skip
def test_2_1_4_hex_counts_fit_real_distances(m: TheatreMap, a: str, b: str) -> None:
    """2.1.4 / 2.5: a Tropical hex is 60 nm, a Temperate one 50: the map's hex
    counts give the real sea distances within a fifth."""
    places = _lat_lon()
    hexes = m.distance(m.place(a), m.place(b))
    nm = m.movement_area(m.place(b)).nautical_miles
    assert 0.8 <= hexes * nm / _nm(places[a], places[b]) <= 1.2


def test_17_13_3_a_paths_cost_is_the_sum_of_hexes_entered(m: TheatreMap) -> None:
    path = ["E2040", "E2039", "E2038"]  # the Tasman Sea, Temperate
    assert m.naval_path_problem(path) is None
    assert m.naval_path_cost(path) == 10


# -- 17.13.7 land and blocked hexsides -------------------------------------------


def test_17_13_7_ships_never_enter_an_all_land_hex(m: TheatreMap) -> None:
    inland = next(h for h, i in m.hexes.items() if i.terrain is Terrain.LAND)
    coast = next(n for n in m.neighbours(inland) if m.has_water(n))
    assert not m.can_sail(coast, inland)
    assert "17.13.7" in (m.naval_step_problem(coast, inland) or "")


def test_17_13_7_ships_never_cross_a_land_hexside(m: TheatreMap) -> None:
    """Two water hexes joined only by land (an isthmus): no passage."""
    side = next(
        s for s in m.hexsides.values()
        if s.kind is HexsideKind.LAND and m.has_water(s.a) and m.has_water(s.b)
    )  # fmt: skip
    assert not m.can_sail(side.a, side.b)
    assert "land (17.13.7)" in (m.naval_step_problem(side.a, side.b) or "")


def test_17_13_7_a_blocked_hexside_stops_ships(m: TheatreMap) -> None:
    generated, layer = map_files()
    open_ = TheatreMap.from_data(generated, layer)
    assert open_.can_sail("E2016", "E2116")
    blocked = TheatreMap.from_data(
        generated,
        layer,
        {
            "hexside": [
                {"a": "E2016", "b": "E2116", "blocked": True, "src": "illustrative", "why": "test"}
            ]
        },
    )
    assert not blocked.can_sail("E2016", "E2116")
    assert "blocked" in (blocked.naval_step_problem("E2116", "E2016") or "")


def test_paths_name_their_first_problem(m: TheatreMap) -> None:
    assert m.naval_path_problem([]) == "an empty path"
    assert "not adjacent" in (m.naval_path_problem(["E1544", "E1542"]) or "")
    with pytest.raises(ValueError):
        m.naval_path_cost(["E1544", "E1542"])


# -- the sea, the bases ----------------------------------------------------------


def test_the_sea_is_one_body_of_water(m: TheatreMap) -> None:
    """Every hex a ship may be in is reachable by sea from every other."""
    water = {h for h, i in m.hexes.items() if i.has_water}
    start = next(iter(sorted(water)))
    seen = {start}
    todo = deque([start])
    while todo:
        h = todo.popleft()
        for n in m.neighbours(h):
            if n not in seen and m.can_sail(h, n):
                seen.add(n)
                todo.append(n)
    assert seen == water


@pytest.mark.parametrize("name", THEATRE_BASES)
def test_the_theatres_bases_are_there(m: TheatreMap, name: str) -> None:
    base = m.base(name)
    assert base.hex == m.place(name)
    assert base.owner_at("may1942") in ("japanese", "allied")


def test_lunga_is_a_named_place_without_a_base_in_may_1942(m: TheatreMap) -> None:
    assert m.place("Henderson Field") == m.place("Lunga") == "E2519"
    assert m.bases_in("E2519") == ()


def test_every_base_is_on_land_and_every_port_on_the_sea(m: TheatreMap) -> None:
    """A base is on land or coast; a port or seaplane base is in a hex with
    water from which ships reach the open sea."""
    open_sea = "E4501"
    for base in m.all_bases():
        assert m.terrain(base.hex) is not Terrain.SEA, base.name
        if base.port or base.seaplane:
            assert m.is_coastal(base.hex), base.name
            assert m.sea_distance(base.hex, open_sea) is not None, base.name


def test_4_3_1_and_60_8_capacities(m: TheatreMap) -> None:
    rabaul = m.base("Rabaul")
    assert rabaul.airfield is not None and rabaul.airfield.capacity == 15
    assert rabaul.port is not None and rabaul.port.type is PortType.MINOR
    assert rabaul.seaplane_capacity == 5  # a minor port is a Level-1 S/P base (60.8)
    assert m.base("Brisbane").seaplane_capacity is None  # major port: no limit
    assert m.base("Truk").seaplane_capacity == 15  # minor port + Level-2 S/P base
    assert m.base("Gili Gili").seaplane_capacity == 0


def test_4_3_an_atolls_airfield_is_at_most_level_4() -> None:
    generated, layer = map_files()
    with pytest.raises(DataError, match="Level 4"):
        TheatreMap.from_data(
            generated,
            layer,
            {"base": [{"place": "Truk", "airfield": 5, "src": "illustrative", "why": "test"}]},
        )


# -- provenance ----------------------------------------------------------------


def test_every_element_says_where_it_comes_from(m: TheatreMap) -> None:
    def ok(p: Any) -> bool:
        return p.src in SOURCES and bool(p.why)

    for h, info in m.hexes.items():
        assert ok(info.terrain_provenance) and ok(info.area_provenance), h
    assert all(ok(s.provenance) for s in m.hexsides.values())
    for base in m.all_bases():
        assert ok(base.provenance), base.name
        for part in (base.port, base.airfield, base.seaplane):
            assert part is None or ok(part.provenance), base.name
    assert all(ok(p.provenance) for p in m.places.values())
    for key in [*(f"region:{r}" for r in m.regions), *(f"island:{i}" for i in m.islands)]:
        assert ok(m.sources[key]), key


def test_provenance_labels_the_rulebooks_hexes_and_our_reconstructions(m: TheatreMap) -> None:
    assert m.info("E3326").terrain_provenance.src == "rulebook"
    assert m.info("E3330").terrain_provenance.src == "rulebook"
    assert m.info("E0101").terrain_provenance.src == "reconstructed"
    assert m.info("E0101").area_provenance.src == "derived"
    assert m.places["adelaide"].provenance.src == "rulebook"
    assert m.sources["region:solomons"].src == "rulebook"  # 44.7
    assert m.sources["region:papua"].src == "reconstructed"
    assert m.places["rabaul"].provenance.src == "reconstructed"
    rabaul = m.base("Rabaul")
    assert rabaul.provenance.src == "reconstructed"
    assert rabaul.airfield is not None and rabaul.airfield.provenance.src == "illustrative"


# -- a moderator's corrections ------------------------------------------------------


def test_a_moderator_corrects_bases_hexes_and_areas() -> None:
    generated, layer = map_files()
    fixed = TheatreMap.from_data(
        generated,
        layer,
        {
            "base": [
                {"place": "Gili Gili", "port": "anchorage", "airfield": 2, "src": "illustrative",
                 "why": "No. 1 Strip, July 1942", "owner": {"may1942": "allied"}},
                {"place": "Buna", "remove": True, "src": "illustrative", "why": "no strip"},
            ],
            "hex": [{"hex": "E2950", "movement_area": "arctic", "src": "illustrative", "why": "test"}],
        },
    )  # fmt: skip
    gili = fixed.base("Gili Gili")
    assert gili.airfield is not None and gili.airfield.level == 2
    assert fixed.bases_in(fixed.place("Buna")) == ()
    assert fixed.naval_cost("E2950") == 4


@pytest.mark.parametrize(
    ("layer", "message"),
    [
        ({"base": [{"place": "Rabaul", "airfield": 2, "src": "guess", "why": "x"}]}, "src must be"),
        ({"base": [{"place": "Rabaul", "seaplane": 3, "src": "illustrative", "why": "x"}]}, "1-2"),
        ({"base": [{"place": "Atlantis", "src": "illustrative", "why": "x"}]}, "unknown place"),
        ({"base": [{"hex": "E4560", "name": "X", "src": "illustrative", "why": "x"}]}, "not on the map"),
        ({"base": [{"place": "Rabaul", "airfield": 14, "src": "illustrative", "why": "x"}]}, "1-13"),
        ({"base": [{"place": "Rabaul", "port": "huge", "src": "illustrative", "why": "x"}]}, "huge"),
        ({"hexes": []}, "unknown keys"),
    ],
)  # fmt: skip
def test_bad_corrections_are_refused_by_name(layer: dict[str, Any], message: str) -> None:
    generated, base_layer = map_files()
    with pytest.raises(DataError, match=message):
        TheatreMap.from_data(generated, base_layer, layer)


def test_from_data_reads_nothing_but_its_arguments() -> None:
    """A two-column, two-hexrow map given as data: the map is built from it alone."""
    generated = {
        "format": 1, "section": "E", "columns": 2, "rows": 2,
        "src": "illustrative", "why": "test",
        "terrain": [".c", ".."], "land_tenths": ["05", "00"],
        "hexsides": ["-ssspl", "-sssss"],
        "movement_area": {"src": "derived", "why": "test", "columns": ["TT", "MM"]},
    }  # fmt: skip
    tiny = TheatreMap.from_data(generated)
    assert set(tiny.hexes) == {"E0101", "E0102", "E0201", "E0202"}
    assert tiny.terrain("E0102") is Terrain.COASTAL
    assert tiny.naval_cost("E0201") == 5
    assert tiny.hexside("E0101", "E0201").kind is HexsideKind.SEA
    with pytest.raises(DataError, match="column strings"):
        TheatreMap.from_data({**generated, "terrain": [".c"]})


# -- real positions -------------------------------------------------------------------


def test_hex_at_puts_a_real_position_where_the_build_put_the_place(m: TheatreMap) -> None:
    """Scenarios place task forces by latitude and longitude: the map puts each
    in the hex the build script gave the place there (the fit, warp included)."""
    places = _lat_lon()
    for name, (lat, lon) in places.items():
        assert m.hex_at(lat, lon) == m.place(name), name
    assert m.hex_at(35.68, 139.69) is None  # Tokyo: Map Section D
    assert m.hex_at(-12.46, 130.84) is None  # Darwin: Map Section C


def test_a_moderators_entries_count_as_data_pack_unless_they_say() -> None:
    generated, layer = map_files()
    fixed = TheatreMap.from_data(generated, layer, {"base": [{"place": "Buna", "airfield": 2}]})
    buna = fixed.base("Buna")
    assert buna.provenance.src == "data-pack" and buna.provenance.why
    assert buna.airfield is not None and buna.airfield.provenance.src == "data-pack"
    with pytest.raises(DataError, match="says why"):
        TheatreMap.from_data(generated, {**layer, "base": [{"place": "Buna", "src": "derived"}]})


def test_the_coral_sea_packs_places_and_positions_fit_the_map(m: TheatreMap) -> None:
    """The Coral Sea pack names places as the map spells them and gives task
    forces' positions in degrees: every place is on the map where its position
    falls, every TF is in a hex with water, every TF in port is in a port."""
    with (OVERRIDES.parent / "pack" / "coral-sea-1942.toml").open("rb") as f:
        pack = tomllib.load(f)
    for name, where in pack["scenario"]["places"]["value"].items():
        assert m.hex_at(where["lat"], where["lon"]) == m.place(name), name
    for side in pack["forces"].values():
        for key, force in side.items():
            v = force["value"]
            if "lat" not in v:
                continue
            h = m.hex_at(v["lat"], v["lon"])
            assert h is not None and m.has_water(h), key
            if v.get("place") not in (None, "at sea"):
                assert h == m.place(v["place"]), key
                assert any(b.port for b in m.bases_in(h)), key


def test_the_registry_hands_the_map_to_the_ruleset() -> None:
    from pbem.rulesets import get

    assert isinstance(getattr(get("witp"), "theatre_map", None), TheatreMap)
