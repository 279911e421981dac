"""Air zones of control (ZOC.*)."""

from __future__ import annotations

from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.state import Air
from pbem.rulesets.usn.zoc import undisputed_zones, zoc_hexes

from .builders import H, base, make_state, ship

J, A = "japanese", "allied"
B = H(20, 10)


def test_zoc_def_two_hexes_round_an_air_base_with_aircraft() -> None:
    s = make_state([], air={J: {f"{B:04d}": Air(lac=1)}}, bases=[base(B, J, air=5)])
    zone = zoc_hexes(s, J)
    assert zone == frozenset(hexgrid.within(B, 2))
    assert H(20, 13) not in zone and H(20, 12) in zone


def test_zoc_def_empty_base_or_carrier_has_no_zone() -> None:
    s = make_state([ship(J, "CV-3", H(10, 10))], bases=[base(B, J, air=5)])
    assert zoc_hexes(s, J) == frozenset()


def test_zoc_def_carrier_with_aircraft_aboard() -> None:
    s = make_state([ship(J, "CV-3", H(10, 10))], air={J: {"CV-3": Air(nac=2)}})
    assert H(10, 12) in zoc_hexes(s, J)


def test_zoc_cancel_hexes_in_both_zones_belong_to_neither() -> None:
    s = make_state(
        [ship(J, "CV-3", H(20, 7)), ship(A, "CV-5", H(20, 10))],
        air={J: {"CV-3": Air(nac=2)}, A: {"CV-5": Air(nac=2)}},
    )
    zones = undisputed_zones(s)
    both = H(20, 8)
    assert both not in zones[J] and both not in zones[A]
    assert H(20, 12) in zones[A] and H(20, 5) in zones[J]


def test_zoc_instant_follows_the_carrier_when_it_moves() -> None:
    s = make_state([ship(A, "CV-5", H(20, 10))], air={A: {"CV-5": Air(nac=2)}})
    before = zoc_hexes(s, A)
    moved = s.with_units([ship(A, "CV-5", H(20, 20))])
    assert zoc_hexes(moved, A) != before and H(20, 22) in zoc_hexes(moved, A)


def test_zoc_effect_only_supply_is_affected_not_movement() -> None:
    from .builders import Game

    s = make_state(
        [ship(J, "CA-1", H(20, 7)), ship(A, "CV-5", H(20, 10))], air={A: {"CV-5": Air(nac=2)}}
    )
    g = Game(s)
    assert not g.validate(J, f"MOVE CA-1 {H(20, 8):04d}").errors  # entering a zone is free
