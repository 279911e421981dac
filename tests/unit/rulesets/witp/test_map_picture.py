"""The War in the Pacific map as a picture, and ``pbem map witp`` (issue 16, map)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from pbem.cli import main
from pbem.core.mapview import SIDE_COLOURS, Ground, MapPicture
from pbem.reports.mapimage import hex_pixel, image_size, render_map
from pbem.rulesets.witp import hexgrid
from pbem.rulesets.witp.map import TheatreMap, load_map
from pbem.rulesets.witp.picture import AREA_LINE, map_picture


@pytest.fixture(scope="module")
def m() -> TheatreMap:
    return load_map()


@pytest.fixture(scope="module")
def plain(m: TheatreMap) -> MapPicture:
    return map_picture(m)


def test_every_hex_is_drawn_once_with_its_rulebook_number(m: TheatreMap, plain: MapPicture) -> None:
    keys = [x.key for x in plain.hexes]
    assert len(keys) == len(set(keys)) == len(m.hexes)
    numbers = {x.number for x in plain.hexes}
    assert {"E2418", "E3326", "E4550"} <= numbers
    by_number = {x.number: x for x in plain.hexes}
    assert by_number["E3326"].ground is Ground.SEA
    assert by_number["E3330"].ground is Ground.ISLET  # 49.4's 1-hex island
    assert by_number[m.place("Rabaul")].name == "Rabaul"


def test_bases_in_their_holders_colours_with_airfield_capacity(
    m: TheatreMap, plain: MapPicture
) -> None:
    marks = {b.key: b for b in plain.bases}
    rabaul = marks[hexgrid.key(m.place("Rabaul"))]
    assert rabaul.colour == SIDE_COLOURS["japanese"] and rabaul.naval and rabaul.air_capacity == 15
    moresby = marks[hexgrid.key(m.place("Port Moresby"))]
    assert moresby.colour == SIDE_COLOURS["allied"]
    grey = map_picture(m, start=None)
    assert {b.colour for b in grey.bases} == {SIDE_COLOURS[None]}


def test_2_1_4_the_movement_area_boundary_is_drawn(plain: MapPicture) -> None:
    (line,) = plain.lines
    assert line.colour == AREA_LINE
    # The boundary crosses the whole section: one hexside at least per column.
    columns = {hexgrid.from_key(a)[1:3] for a, _ in line.hexsides}
    assert len(columns) >= 45


def test_units_and_highlights_change_the_picture(m: TheatreMap, plain: MapPicture) -> None:
    rabaul = m.place("Rabaul")
    with_units = map_picture(m, {rabaul: [("japanese", "TF 1"), ("japanese", "TF 2")]})
    (marker,) = with_units.markers
    assert marker.count == 2 and marker.label == "TF 1"
    assert render_map(map_picture(m, highlight=[rabaul])) != render_map(plain)


def test_cli_map_witp_writes_a_png(tmp_path: Path, m: TheatreMap, plain: MapPicture) -> None:
    out = tmp_path / "witp.png"
    assert main(["map", "witp", "--out", str(out), "--scale", "0.5"]) == 0
    with Image.open(out) as picture:
        assert picture.format == "PNG"
        assert picture.size == image_size(plain, 0.5)
        x, y = hex_pixel(hexgrid.centre(m.place("Port Moresby")), 0.5)
        assert picture.convert("RGB").getpixel((round(x), round(y))) == SIDE_COLOURS["allied"]


def test_cli_map_witp_takes_a_moderators_corrections(tmp_path: Path, m: TheatreMap) -> None:
    fix = tmp_path / "fix.toml"
    fix.write_text(
        '[[base]]\nplace = "Buna"\nremove = true\nsrc = "illustrative"\nwhy = "test"\n',
        encoding="utf-8",
    )
    plain, fixed = tmp_path / "a.png", tmp_path / "b.png"
    assert main(["map", "witp", "--out", str(plain)]) == 0
    assert main(["map", "witp", "--out", str(fixed), "--overrides", str(fix)]) == 0

    def around(path: Path, h: str) -> bytes:
        x, y = hex_pixel(hexgrid.centre(h))
        box = (round(x) - 6, round(y) - 6, round(x) + 6, round(y) + 6)
        return Image.open(path).convert("RGB").crop(box).tobytes()

    assert around(plain, m.place("Buna")) != around(fixed, m.place("Buna"))
    assert around(plain, m.place("Rabaul")) == around(fixed, m.place("Rabaul"))
