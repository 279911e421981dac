"""War in the Pacific hex numbering (2.1.1), neighbours and distance (issue 16, map)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.rulesets.witp import hexgrid

numbers = st.integers(min_value=1, max_value=99)
hexes = st.builds(lambda c, r: hexgrid.hex_id("E", c, r), numbers, numbers)


def test_2_1_1_a_hex_is_a_section_letter_and_four_digits() -> None:
    """2.1.1: "the first two digits identify the hex column ...; the last two
    digits identify the specific zig-zag hexrow ... preceded by a letter code
    which identifies the Map Section"."""
    assert hexgrid.parse_hex("E2418") == "E2418"
    assert hexgrid.parse_hex(" e2418 ") == "E2418"
    assert hexgrid.split("E2418") == ("E", 24, 18)
    assert hexgrid.hex_id("A", 3, 9) == "A0309"
    for bad in ("2418", "H2418", "E241", "E24180", "E0018", "E2400", "Rabaul"):
        with pytest.raises(ValueError):
            hexgrid.parse_hex(bad)


def test_2_1_1_the_texts_example_columns_and_hexrows() -> None:
    """2.1.1: Myitkyina (A3210) is in the same hex column as Lashio (A3213),
    three hexes north of it; Lashio is in the same hexrow as Chittagong (A2613)."""
    assert hexgrid.distance("A3210", "A3213") == 3
    assert hexgrid.centre("A3210")[0] == hexgrid.centre("A3213")[0]
    assert hexgrid.centre("A3210")[1] < hexgrid.centre("A3213")[1]  # hexrows run south
    # A hexrow zig-zags: same-parity columns of one hexrow lie level.
    assert hexgrid.centre("A2613")[1] == hexgrid.centre("A3213")[1]
    assert hexgrid.centre("A2613")[0] < hexgrid.centre("A3213")[0]  # columns run east


def test_13_8_1_guadalcanals_hexes_are_a_chain() -> None:
    """13.8.1: Guadalcanal is "E2418, 2519 & 2619": adjacent only if
    even-numbered columns sit half a hex lower (our reading of 2.1.1)."""
    assert hexgrid.adjacent("E2418", "E2519")
    assert hexgrid.adjacent("E2519", "E2619")
    assert hexgrid.direction("E2418", "E2519") == "SE"
    assert hexgrid.direction("E2519", "E2619") == "SE"


def test_neighbours_in_order_and_at_the_edge() -> None:
    assert hexgrid.neighbours("E2418") == ("E2417", "E2518", "E2519", "E2419", "E2319", "E2318")
    assert hexgrid.neighbours("E2519") == ("E2518", "E2618", "E2619", "E2520", "E2419", "E2418")
    assert hexgrid.neighbours("E0101") == ("E0201", "E0102")


def test_distance_is_per_section() -> None:
    with pytest.raises(ValueError, match="different Map Sections"):
        hexgrid.distance("E2418", "G0626")


@given(hexes)
def test_key_round_trips(h: hexgrid.HexId) -> None:
    assert hexgrid.from_key(hexgrid.key(h)) == h


@given(hexes)
def test_neighbours_are_mutual_and_one_hex_away(h: hexgrid.HexId) -> None:
    for n in hexgrid.neighbours(h):
        assert h in hexgrid.neighbours(n)
        assert hexgrid.distance(h, n) == 1
        x0, y0 = hexgrid.centre(h)
        x1, y1 = hexgrid.centre(n)
        assert abs(((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5 - 3**0.5) < 1e-9


@given(hexes, hexes, hexes)
def test_distance_is_a_metric(a: hexgrid.HexId, b: hexgrid.HexId, c: hexgrid.HexId) -> None:
    assert hexgrid.distance(a, b) == hexgrid.distance(b, a)
    assert hexgrid.distance(a, c) <= hexgrid.distance(a, b) + hexgrid.distance(b, c)
    assert (hexgrid.distance(a, b) == 0) == (a == b)


def test_within_counts_the_ring() -> None:
    assert len(hexgrid.within("E2418", 1)) == 7
    assert len(hexgrid.within("E2418", 2)) == 19


@given(hexes, st.floats(0, 2 * 3.14159), st.floats(0, 0.86))
def test_a_point_inside_a_hex_is_in_that_hex(h: hexgrid.HexId, angle: float, d: float) -> None:
    import math

    x, y = hexgrid.centre(h)
    assert hexgrid.at_point("E", x + d * math.cos(angle), y + d * math.sin(angle)) == h
