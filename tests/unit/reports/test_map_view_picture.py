"""Issue 13: the report map shows the view as it is now (base owners, every
stack with its size), a key to the side colours, and a close-up of the side's
forces and the fighting; the demo prints the whole verdict and the winner."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

from PIL import Image

from pbem.core.mapview import MapPicture
from pbem.demo.usn import orders_summary, verdict_lines
from pbem.reports.mapimage import HIGHLIGHT, image_size, render_map
from pbem.rulesets.usn.loader import load_map
from pbem.rulesets.usn.picture import SIDE_COLOURS, view_picture

M = load_map()


def _view(**parts: Any) -> dict[str, Any]:
    return {"side": "allied", "own_units": [], "enemy_units": [], "bases": [], **parts}


def _base(hex4: str, owner: str) -> dict[str, Any]:
    return {"hex": hex4, "name": "X", "owner": owner, "air_capacity": 5, "naval": True}


def test_bases_show_their_present_owner() -> None:
    """Rabaul (0759) is Allied at Game 1's start; a view where the Japanese hold it
    colours it Japanese."""
    pic = view_picture(M, _view(bases=[_base("0759", "japanese")]))
    assert [(b.key, b.colour) for b in pic.bases] == [(759, SIDE_COLOURS["japanese"])]


def test_every_stack_is_a_marker_with_its_size() -> None:
    own = [
        {"id": "CV-2", "side": "allied", "at": "0862", "stack": 0},
        {"id": "CA-1", "side": "allied", "at": "0862", "stack": 1},
        {"id": "RGT-1", "side": "allied", "at": "0659"},
    ]
    enemy = [
        {"id": "CV-3", "side": "japanese", "at": "0862", "stack": 0},
        {"id": "CA-2", "side": "japanese", "at": "0862", "stack": 1},
        {"id": "CA-1", "side": "japanese", "at": "0862", "stack": 2},
    ]
    pic = view_picture(M, _view(own_units=own, enemy_units=enemy))
    got = {(m.key, m.colour, m.label, m.count) for m in pic.markers}
    assert got == {
        (862, SIDE_COLOURS["allied"], "CV-2", 2),
        (862, SIDE_COLOURS["japanese"], "CV-3", 3),
        (659, SIDE_COLOURS["allied"], "RGT-1", 1),
    }


def test_both_stacks_of_a_hex_are_drawn() -> None:
    own = [{"id": "CV-2", "side": "allied", "at": "0862", "stack": 0}]
    enemy = [{"id": "CV-3", "side": "japanese", "at": "0862", "stack": 0}]
    png = render_map(view_picture(M, _view(own_units=own, enemy_units=enemy)))
    colours = {c for _, c in Image.open(io.BytesIO(png)).convert("RGB").getcolors(1 << 20)}
    assert SIDE_COLOURS["allied"] in colours and SIDE_COLOURS["japanese"] in colours


def test_close_up_looks_at_own_forces_and_the_fighting() -> None:
    own = [{"id": "CV-2", "side": "allied", "at": "0862", "stack": 0}]
    far = [{"id": "BB-1", "side": "allied", "at": "1456", "stack": 0}]  # Pearl Harbor
    fight = [{"kind": "air-strike", "data": {"hex": "0859", "roll": 3}}]
    pic = view_picture(M, _view(own_units=own + far, events=fight))
    assert pic.focus == (859, 862)  # the far battleship is not in the close-up
    quiet = view_picture(M, _view())
    assert quiet.focus == ()
    assert image_size(pic)[1] > image_size(quiet)[1]
    png = Image.open(io.BytesIO(render_map(pic))).convert("RGB")
    assert png.size == image_size(pic)


def test_key_names_each_side_colour_and_the_combat_outline() -> None:
    pic = view_picture(M, _view())
    keyed = {e.label: e.swatch for e in pic.legend}
    assert keyed["Japanese"] == SIDE_COLOURS["japanese"]
    assert keyed["Allied"] == SIDE_COLOURS["allied"]
    fight = [{"kind": "air-strike", "data": {"hex": "0859", "roll": 3}}]
    drawn = render_map(view_picture(M, _view(events=fight)))
    colours = {c for _, c in Image.open(io.BytesIO(drawn)).convert("RGB").getcolors(1 << 20)}
    assert HIGHLIGHT in colours


def test_names_never_overlap(monkeypatch: Any) -> None:
    """Every label is drawn at a free spot: record the boxes drawn and compare."""
    import pbem.reports.mapimage as mi
    from pbem.reports import maplabels

    boxes: list[tuple[float, float, float, float]] = []
    real = maplabels.place

    def spy(draw: Any, text: str, spots: Any, font: Any, taken: list[Any], bounds: Any) -> None:
        before = len(taken)
        real(draw, text, spots, font, taken, bounds)
        boxes.extend(taken[before:])

    monkeypatch.setattr(maplabels, "place", spy)
    mi._base_map.cache_clear()  # the names are placed when a base map is drawn
    own = [{"id": "CV-2", "side": "allied", "at": "0862", "stack": 0}]
    pic: MapPicture = view_picture(M, _view(own_units=own))
    render_map(replace(pic, focus=()), scale=2.5)  # one drawing, with unit labels
    assert len(boxes) > 50
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not maplabels.overlaps(a, b), (a, b)


def test_demo_prints_the_whole_verdict_and_the_winner() -> None:
    report = (
        "GAME OVER: Victory points: Japanese 11.5, Allied 101 (allied +100 for\n"
        "  port-moresby: held by the allied). Allied Decisive victory. - allied wins\n"
        "  (Decisive)\n"
        "  japanese: 11\n"
        "  allied: 101\n"
        "Everything below is the full disclosure\n"
    )
    verdict, winner = verdict_lines(report)
    assert verdict.startswith("game over: Victory points: Japanese 11.5, Allied 101 (allied")
    assert verdict.endswith("Allied Decisive victory. - allied wins (Decisive)")
    assert winner == "winner: allied wins (Decisive)"


def test_demo_says_when_a_side_sends_no_orders() -> None:
    assert orders_summary("Game: g\nTurn: 1\n# MOVE ...\n") == "no orders (the form as it came)"
    assert orders_summary("Game: g\nMOVE CV-1 0101\n") == "orders: MOVE CV-1 0101"


# Issue 15: the base map is drawn once, each report draws only what changes.


def test_the_base_map_is_drawn_once_and_reports_differ_only_where_they_should() -> None:
    import pbem.reports.mapimage as mi

    mi._base_map.cache_clear()
    own = [{"id": "CV-2", "side": "allied", "at": "0862", "stack": 0}]
    first = render_map(view_picture(M, _view(own_units=own)), title="t")
    drawn = mi._base_map.cache_info().misses  # the overview's and the close-up's
    moved = [{**own[0], "at": "0863"}]
    render_map(view_picture(M, _view(own_units=moved)), title="t")
    assert mi._base_map.cache_info().misses == drawn  # nothing redrawn
    # The bytes never depend on what was drawn before: a fresh cache gives the same.
    mi._base_map.cache_clear()
    assert render_map(view_picture(M, _view(own_units=own)), title="t") == first


def test_a_corrected_map_is_another_base_map() -> None:
    """A moderator's map correction (here: a sea hex made land) shows at once."""
    import pbem.reports.mapimage as mi
    from pbem.core.mapview import Ground

    pic = view_picture(M, _view())
    sea = next(x for x in pic.hexes if x.ground is Ground.SEA and x.key == 1050)
    hexes = tuple(replace(x, ground=Ground.LAND) if x is sea else x for x in pic.hexes)
    corrected = replace(pic, hexes=hexes)
    x, y = mi.hex_pixel(sea.centre)
    before = Image.open(io.BytesIO(render_map(pic))).convert("RGB")
    after = Image.open(io.BytesIO(render_map(corrected))).convert("RGB")
    assert before.getpixel((round(x), round(y))) == mi.SEA
    assert after.getpixel((round(x), round(y))) == mi.LAND


def test_close_up_extent_ignores_enemy_units() -> None:
    """The close-up looks where the side's own forces and its known fighting are:
    enemy stacks (seen or not) move markers, never the close-up's window."""
    import pbem.reports.mapimage as mi

    own = [{"id": "CV-2", "side": "allied", "at": "0862", "stack": 0}]
    enemy = [{"id": "CV-1", "side": "japanese", "at": "1456", "stack": 0}]
    alone = view_picture(M, _view(own_units=own))
    seen = view_picture(M, _view(own_units=own, enemy_units=enemy))
    assert mi._zoom(alone, 1.0) == mi._zoom(seen, 1.0) is not None
    assert image_size(alone) == image_size(seen)


def test_a_games_map_correction_is_drawn_on_its_report_maps() -> None:
    """A game whose moderator corrected the map (here a sea hex made land) has
    each side's report map drawn on the corrected map, from a base map of its
    own; a game on the installation's map keeps its own base map."""
    import pbem.reports.mapimage as mi
    from pbem.core.mapview import Ground
    from pbem.reports.pictures import REPORT_SCALE
    from pbem.rulesets import get
    from pbem.rulesets.usn.ruleset import UsnRuleset

    usn = get("usn")
    assert isinstance(usn, UsnRuleset)
    land = {"terrain": [{"hex": 1050, "terrain": "class2", "src": "reconstructed", "why": "t"}]}
    corrected = usn.initial_state("coral-sea", {"overrides": {"map": land}})
    plain = usn.initial_state("coral-sea", {})
    for side in ("allied", "japanese"):
        ours = usn.map_picture(usn.view(corrected, [], side))
        theirs = usn.map_picture(usn.view(plain, [], side))
        assert {x.key: x.ground for x in ours.hexes}[1050] is Ground.LAND
        assert {x.key: x.ground for x in theirs.hexes}[1050] is Ground.SEA
        centre = next(x.centre for x in ours.hexes if x.key == 1050)
        x, y = mi.hex_pixel(centre, REPORT_SCALE)
        for picture, ground in ((ours, mi.LAND), (theirs, mi.SEA)):
            image = Image.open(io.BytesIO(render_map(picture, scale=REPORT_SCALE)))
            assert image.convert("RGB").getpixel((round(x), round(y))) == ground
    # Each map has its base map: drawn once, found again, never the other's.
    mi._base_map.cache_clear()
    render_map(theirs, scale=REPORT_SCALE)
    drawn = mi._base_map.cache_info().misses
    render_map(ours, scale=REPORT_SCALE)
    assert mi._base_map.cache_info().misses > drawn  # another key: another drawing
    drawn = mi._base_map.cache_info().misses
    render_map(theirs, scale=REPORT_SCALE)
    render_map(ours, scale=REPORT_SCALE)
    assert mi._base_map.cache_info().misses == drawn


def test_close_up_holds_the_fighting_before_a_crowd_of_units() -> None:
    """A focus too wide for one close-up is cut to the fighting (here two
    combats in the Coral Sea) rather than to the most units (a crowd of them off
    Pearl Harbor), with the combats clear of its edges."""
    import pbem.reports.mapimage as mi
    from pbem.reports.pictures import REPORT_SCALE

    pic = view_picture(M, _view())
    centres = {x.key: x.centre for x in pic.hexes}
    px, py = centres[1456]
    crowd = sorted(k for k, (x, y) in centres.items() if abs(x - px) <= 4 and abs(y - py) <= 4)
    fights = (859, 862)
    assert len(crowd) > 8
    fought = replace(pic, focus=tuple(sorted({*fights, *crowd})), highlight=fights)
    zoom = mi._zoom(fought, REPORT_SCALE)
    assert zoom is not None
    for key in fights:
        x, y = centres[key]
        assert zoom.west + 2 <= x <= zoom.east - 2 and zoom.north + 2 <= y <= zoom.south - 2
    assert not any(zoom.west <= centres[k][0] <= zoom.east for k in crowd)


def test_close_up_comes_closer_where_it_loses_none_of_the_fighting() -> None:
    """The Coral Sea: two combats three rows apart and the side's stacks at Port
    Moresby and Townsville, too tall a focus for one close-up: the close-up is
    drawn at three times the overview's scale, both combats in it."""
    import pbem.reports.mapimage as mi
    from pbem.reports.pictures import REPORT_SCALE

    pic = view_picture(M, _view())
    centres = {x.key: x.centre for x in pic.hexes}
    fights = (859, 862)
    fought = replace(pic, focus=(659, 668, *fights), highlight=fights)
    zoom = mi._zoom(fought, REPORT_SCALE)
    assert zoom is not None and zoom.scale == 3 * REPORT_SCALE
    for key in fights:
        x, y = centres[key]
        assert zoom.west + 1 <= x <= zoom.east - 1 and zoom.north + 1 <= y <= zoom.south - 1


def test_a_name_a_stack_covers_is_moved_clear_of_the_stacks() -> None:
    """The overview's names are drawn once, before any unit: in the Coral Sea a
    cruiser off Ontong Java covered its name. A name under a stack's square is
    wiped (the map under it as it is without names) and placed again beside its
    hex clear of every stack, or left to the close-up."""
    import pbem.reports.mapimage as mi
    from pbem.reports import maplabels
    from pbem.reports.pictures import REPORT_SCALE as S

    own = [{"id": "CA-1", "side": "allied", "at": "0862", "stack": 0}]
    enemy = [{"id": "CA-1", "side": "japanese", "at": "0859", "stack": 0}]
    pic = view_picture(M, _view(own_units=own, enemy_units=enemy))
    key = mi._key(pic)
    named = mi._layer(pic, key, S, False, close_up=False)
    unnamed = mi._layer(pic, key, S, False, close_up=True)
    at = {x.key: mi.hex_pixel(x.centre, S) for x in pic.hexes}
    squares = [sq for _, sq in maplabels.marker_squares(pic.markers, at.__getitem__, mi.RADIUS * S)]
    covered = [(x, b) for x, b in named.names if any(maplabels.overlaps(b, s) for s in squares)]
    assert "Ontong Java" in {x.name for x, _ in covered}

    img = named.image.copy()
    w, h = img.size
    placed = mi._draw_changes(
        img, pic, S, (0, 0), (0, 0, w, h), named.names, mi._Inks(named.colours),
        close_up=False, unnamed=lambda: unnamed.image,
    )  # fmt: skip
    assert {x.name for x, _ in placed} <= {x.name for x, _ in covered}
    assert "Ontong Java" in {x.name for x, _ in placed}
    for _, box in placed:
        assert not any(maplabels.overlaps(box, s) for s in squares)
    drawn_over = [mi._pixels(b) for b in [*squares, *(b for _, b in placed)]]
    for _, box in covered:  # the old place shows the map, where nothing else is drawn
        x0, y0, x1, y1 = mi._pixels(box)
        for px in range(x0, x1):
            for py in range(y0, y1):
                if not any(maplabels.overlaps((px, py, px + 1, py + 1), b) for b in drawn_over):
                    assert img.getpixel((px, py)) == unnamed.image.getpixel((px, py))


def test_the_report_map_names_the_phase_it_shows() -> None:
    """The picture shows the position after the phase adjudicated, not the next
    phase that the report's title also names."""
    from pbem.reports.context import Header, map_title

    nxt = {"turn": 2, "name": "A-6"}
    prev = {"turn": 2, "phase": "air-5"}
    h = Header("demo-1", "usn", "U.S.N.", "coral-sea", "allied", "allied",
               "demo-1: turn 2 phase A-6", phase=nxt, previous=prev)  # fmt: skip
    assert map_title(h) == "demo-1: the map after turn 2 air-5"
    first = replace(h, previous=None)
    assert map_title(first) == "demo-1: the map before turn 2 A-6"
    over = replace(h, phase=None, outcome={"summary": "x"})
    assert map_title(over) == "demo-1: the map after turn 2 air-5; game over"
