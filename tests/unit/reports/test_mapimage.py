"""The Pillow map picture (issue 4, item 7), drawn from the U.S.N. map's description."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from pbem.cli import main
from pbem.core.mapview import Edge, MapPicture
from pbem.core.ruleset import MappedRuleset
from pbem.reports.mapimage import DESERT, ISLET, LAND, MOUNTAIN, SEA, image_size, render_map
from pbem.reports.mapimage import hex_pixel as pixel
from pbem.rulesets.demo import RaidRuleset
from pbem.rulesets.usn.hexgrid import HexId
from pbem.rulesets.usn.loader import load_map, load_world, world_geo
from pbem.rulesets.usn.map import Terrain, UsnMap, centre
from pbem.rulesets.usn.picture import SIDE_COLOURS, map_picture
from pbem.rulesets.usn.ruleset import UsnRuleset


def hex_pixel(h: int, scale: float = 1.0) -> tuple[float, float]:
    return pixel(centre(h), scale)


@pytest.fixture(scope="module")
def m() -> UsnMap:
    return load_map()


@pytest.fixture(scope="module")
def plain(m: UsnMap) -> MapPicture:
    return map_picture(m)


@pytest.fixture(scope="module")
def picture(plain: MapPicture) -> Image.Image:
    return Image.open(io.BytesIO(render_map(plain))).convert("RGB")


def _quiet(m: UsnMap, terrain: Terrain) -> HexId:
    """A hex of ``terrain`` with no base or name nearby, so its centre shows the fill."""
    for h, info in sorted(m.hexes.items()):
        if info.terrain is not terrain or h in m.bases:
            continue
        around = [h - 34, h - 33, h - 1, h, h + 1, h + 33, h + 34]
        if not any(m.hexes.get(HexId(n)) and m.hexes[HexId(n)].name for n in around):
            return h
    raise AssertionError(f"no quiet {terrain} hex")


def test_png_has_the_right_size_and_no_metadata(plain: MapPicture) -> None:
    data = render_map(plain, scale=0.5)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    img = Image.open(io.BytesIO(data))
    assert img.size == image_size(plain, 0.5)
    assert b"tEXt" not in data and b"tIME" not in data


def test_rendering_is_deterministic(m: UsnMap) -> None:
    assert render_map(map_picture(m), title="T") == render_map(map_picture(m), title="T")


def test_ter_colours_at_known_hexes(m: UsnMap, picture: Image.Image) -> None:
    for terrain, colour in (
        (Terrain.SEA, SEA),
        (Terrain.CLASS2, LAND),
        (Terrain.DESERT, DESERT),
        (Terrain.CLASS1, ISLET),  # the islet dot on a sea hex
    ):
        h = _quiet(m, terrain)
        x, y = hex_pixel(h)
        assert picture.getpixel((round(x), round(y))) == colour, (terrain, h)


def test_named_sea_and_land_hexes(picture: Image.Image) -> None:
    # Deep Pacific between Wake and Midway is sea; interior Australia is desert.
    x, y = hex_pixel(1050)
    assert picture.getpixel((round(x), round(y))) == SEA
    x, y = hex_pixel(395)
    assert picture.getpixel((round(x), round(y))) == DESERT


def test_units_and_base_owners_are_drawn_in_side_colours(m: UsnMap) -> None:
    sea = _quiet(m, Terrain.SEA)
    png = render_map(map_picture(m, units={sea: [("japanese", "CV-1")]}))
    img = Image.open(io.BytesIO(png)).convert("RGB")
    x, y = hex_pixel(sea)
    # The label sits on the square's centre; its corner shows the side colour.
    assert img.getpixel((round(x) - 5, round(y) - 5)) == SIDE_COLOURS["japanese"]
    pearl = hex_pixel(1456)
    assert img.getpixel((round(pearl[0]), round(pearl[1]))) == SIDE_COLOURS["allied"]


def test_highlight_changes_the_picture(m: UsnMap, plain: MapPicture) -> None:
    assert render_map(map_picture(m, highlight=[HexId(754)])) != render_map(plain)


def test_cli_map_usn_writes_a_png(tmp_path: Path, plain: MapPicture) -> None:
    out = tmp_path / "usn.png"
    assert main(["map", "usn", "--out", str(out), "--scale", "0.5"]) == 0
    with Image.open(out) as picture:
        assert picture.size == image_size(plain, 0.5)


def test_cli_map_usn_draws_a_scenarios_units(tmp_path: Path) -> None:
    plain, with_units = tmp_path / "a.png", tmp_path / "b.png"
    assert main(["map", "usn", "--out", str(plain), "--start", "game2"]) == 0
    assert main(["map", "usn", "--out", str(with_units), "--scenario", "coral-sea"]) == 0

    # Coral Sea puts the Allied 8-15 regiment on Port Moresby (0659): the picture
    # changes there and stays the same far from any set-up hex (Hawaii).
    def around(path: Path, h: int) -> bytes:
        x, y = hex_pixel(h)
        box = (round(x) - 8, round(y) - 8, round(x) + 8, round(y) + 8)
        return Image.open(path).convert("RGB").crop(box).tobytes()

    assert around(plain, 659) != around(with_units, 659)
    assert around(plain, 1456) == around(with_units, 1456)


def test_a_ruleset_with_a_map_describes_it_and_one_without_does_not() -> None:
    """The publisher asks for a map picture only of rulesets that offer one."""
    assert isinstance(UsnRuleset(load_world(), world_geo()), MappedRuleset)
    assert not isinstance(RaidRuleset(), MappedRuleset)


def test_hexside_features_are_drawn_between_their_hexes(plain: MapPicture) -> None:
    """A mountain's mark sits where the two hexes' sides meet."""
    unnamed = tuple(replace(x, name=None) for x in plain.hexes)
    bare = replace(plain, hexes=unnamed, bases=(), lines=())  # nothing drawn over the hexsides
    img = Image.open(io.BytesIO(render_map(bare))).convert("RGB")
    mountains = [hs for hs in bare.hexsides if hs.edge is Edge.MOUNTAIN]
    centres = {x.key: x.centre for x in bare.hexes}
    # Both a north/south side (same column) and a slanted one (next column).
    assert {centres[hs.a][0] == centres[hs.b][0] for hs in mountains} == {True, False}
    for hs in mountains:
        (ax, ay), (bx, by) = hex_pixel(hs.a), hex_pixel(hs.b)
        assert img.getpixel((round((ax + bx) / 2), round((ay + by) / 2))) == MOUNTAIN, hs


def test_a_full_palette_draws_a_new_colour_in_its_nearest() -> None:
    """Issue 15: a report draws in palette indices; a colour its base map lacks is
    added, and once all 256 are taken the nearest one there is drawn instead."""
    from pbem.reports.mapimage import _Inks

    base = tuple((i, i, i) for i in range(0, 250, 2))  # 125 greys
    inks = _Inks(base)
    assert inks((4, 4, 4)) == 2 and inks((200, 30, 30)) == len(base)
    for i in range(256 - len(inks.colours)):
        inks((255, i, 0))
    assert len(inks.colours) == 256
    assert inks((201, 29, 31)) == len(base)  # full: the nearest, (200, 30, 30)
    assert len(inks.palette()) == 3 * 256
