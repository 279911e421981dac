"""Stacking (STK.*, CBT.C) and ship stack order."""

from __future__ import annotations

from pbem.rulesets.usn.movement import stack_of
from pbem.rulesets.usn.state import Air

from .builders import HOME, Game, H, base, land, make_state, ship

J, A = "japanese", "allied"


def test_stk_g_moving_player_restacks_in_the_naval_phase() -> None:
    h = H(20, 5)
    g = Game(make_state([ship(J, "CV-3", h), ship(J, "CA-1", h), ship(J, "CA-2", h)]))
    g.play({J: f"STACK {h:04d} CA-2 CA-1"})
    order = [u.uid for u in stack_of([u for u in g.s.units.values() if u.hex == h])]
    assert order == ["CA-2", "CA-1", "CV-3"]
    ev = [e for e in g.events if e.kind == "restacked"]
    assert ev and ev[0].witnesses is None  # STK.G: stack order is open to inspection


def test_stk_g_only_own_ships_in_that_hex() -> None:
    g = Game(make_state([ship(J, "CV-3", H(20, 5)), ship(J, "CA-1", H(20, 6))]))
    (e,) = g.validate(J, f"STACK {H(20, 5):04d} CA-1 CV-3").errors
    assert e.rule == "STK.G"


def test_stk_g_restacking_is_not_a_land_phase_order() -> None:
    g = Game(make_state([ship(J, "CV-3", H(20, 5))], round=4))
    assert not g.validate(J, f"STACK {H(20, 5):04d} CV-3").errors  # J-7-8 includes step 8
    g2 = Game(make_state([ship(A, "CV-5", H(20, 5))], round=2))
    (e,) = g2.validate(A, f"STACK {H(20, 5):04d} CV-5").errors
    assert e.rule == "SEQ.STRICT"


def test_stk_d_entering_enemy_ships_must_engage() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 3)), ship(A, "CA-1", H(20, 4))]))
    (e,) = g.validate(J, f"MOVE CA-1 {H(20, 4):04d} {H(20, 5):04d}").errors
    assert e.rule == "NM.SURF.1"


def test_base_l_ships_in_a_naval_base_are_not_engaged() -> None:
    port = HOME[0]
    g = Game(
        make_state(
            [ship(J, "CA-1", H(2, 0)), ship(A, "CA-1", port, in_base=True)], bases=[base(port, A)]
        )
    )
    assert not g.validate(J, f"MOVE CA-1 {H(2, 1):04d} {port:04d} {H(2, 1):04d}").errors


def test_cbt_c_stk_gen_any_number_of_units_may_share_a_hex() -> None:
    h = H(20, 5)
    many = [ship(J, f"DD-{i}", H(20, 4)) for i in range(1, 13)]
    g = Game(make_state(many))
    g.play({J: "\n".join(f"MOVE DD-{i} {h:04d}" for i in range(1, 13))})
    assert sum(1 for u in g.s.units.values() if u.hex == h) == 12


def test_stk_e_air_points_never_exceed_base_capacity() -> None:
    a, b = H(20, 5), H(20, 7)
    from .builders import stub_geo

    geo = stub_geo(land={a: "class1", b: "class1"})
    air = {J: {f"{a:04d}": Air(lac=8), f"{b:04d}": Air(lac=4)}}
    g = Game(make_state([], air=air, bases=[base(a, J, air=10), base(b, J, air=5)]), geo)
    (e,) = g.validate(J, f"TRANSFER 2 LAC {a:04d} TO {b:04d}").errors
    assert e.rule == "STK.E"
    assert not g.validate(J, f"TRANSFER 1 LAC {a:04d} TO {b:04d}").errors


def test_stk_g_air_ships_defend_against_air_in_pairs_from_the_top() -> None:
    from pbem.rulesets.usn.movement import air_groups

    h = H(20, 5)
    ships = [
        ship(J, uid, h, stack=i) for i, uid in enumerate(["CA-1", "CA-2", "CV-3", "CV-4", "DD-1"])
    ]
    assert [[u.uid for u in g] for g in air_groups(ships)] == [
        ["CA-1", "CA-2"],
        ["CV-3", "CV-4"],
        ["DD-1"],
    ]


def test_stk_b_enemy_land_unit_destroys_an_undefended_cd_unit() -> None:
    g = Game(make_state([land(J, "RGT-1", HOME[0]), land(A, "CD-71", HOME[1])], round=4))
    g.play({J: f"MOVE RGT-1 {HOME[1]:04d}"})
    assert g.s.unit(A, "CD-71") is None
    g2 = Game(
        make_state(
            [
                land(J, "RGT-1", HOME[0]),
                land(A, "CD-71", HOME[1]),
                land(A, "RGT-9", HOME[1], entrenched=True),
            ],
            round=4,
        )
    )
    g2.play({J: f"MOVE RGT-1 {HOME[1]:04d}"})
    assert g2.s.unit(A, "CD-71") is not None  # defended by an entrenched unit (ENT.E)


def test_stk_f_no_combat_is_required_when_sharing_a_hex_on_land() -> None:
    g = Game(make_state([land(J, "RGT-1", HOME[0]), land(A, "RGT-9", HOME[0])], round=4))
    g.play({})
    g.play({J: ""})  # air-9: no attack ordered, none happens
    assert g.s.unit(A, "RGT-9") is not None and g.s.unit(J, "RGT-1") is not None


def test_stk_c_one_air_and_one_naval_base_per_hex_of_one_side() -> None:
    s = make_state([], bases=[base(HOME[0], J, air=10, naval=True)])
    b = s.bases[HOME[0]]
    assert b.has_air and b.has_naval and b.owner == J
    assert len([x for x in s.bases.values() if x.hex == HOME[0]]) == 1
