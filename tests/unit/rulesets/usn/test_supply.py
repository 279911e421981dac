"""Supply lines, refuelling and endurance (SUP.*, SEQ.2J, NM.REFUEL)."""

from __future__ import annotations

from pbem.rulesets.usn.hexgrid import neighbours
from pbem.rulesets.usn.state import Air
from pbem.rulesets.usn.supply import supply_map, update_supply

from .builders import AUS, CHINA_HEX, HOME, ISLAND, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"


def test_sup_b_sources_home_islands_and_australia_and_east_edge() -> None:
    edge = H(46, 10)
    geo = stub_geo(east=[edge])
    s = make_state([])
    assert supply_map(geo, s, J).supplied(HOME[0])
    assert supply_map(geo, s, A).supplied(AUS[0])
    assert edge in supply_map(geo, s, A).sources
    assert edge not in supply_map(geo, s, J).sources


def test_sup_a_line_over_land_then_sea() -> None:
    geo = stub_geo()
    m = supply_map(geo, make_state([]), J)
    assert m.supplied(ISLAND[0]) and m.supplied(H(20, 20))


def test_sup_c_no_line_through_china() -> None:
    inland = H(0, 2)  # only reachable through the China hex
    geo = stub_geo(
        land={inland: "class2"},
        hexsides={(min(inland, n), max(inland, n)): "land" for n in neighbours(inland)},
    )
    m = supply_map(geo, make_state([]), J)
    assert not m.supplied(inland)
    assert not m.supplied(CHINA_HEX) or CHINA_HEX in geo.closed


def test_sup_d_land_enemy_blocks_through_but_not_into() -> None:
    # A 3-hex land chain home-a-b, all hexsides land: enemy in a cuts b, not a.
    a, b = H(4, 2), H(5, 2)
    chain = {a: "class2", b: "class2"}
    sides = {}
    for h in (a, b):  # walled in by land: no sea route around the enemy
        for n in neighbours(h):
            sides[(min(h, n), max(h, n))] = "land"
    geo = stub_geo(land=chain, hexsides=sides)
    s = make_state([land(A, "RGT-9", a)])
    m = supply_map(geo, s, J)
    assert m.supplied(a)
    assert not m.supplied(b)


def test_sup_d_sea_enemy_ship_blocks_the_sea_trace() -> None:
    geo = stub_geo()
    ring = sorted({n for h in ISLAND for n in neighbours(h)} - set(ISLAND))
    ships = [ship(A, f"DD-{i}", h) for i, h in enumerate(ring, 1)]
    m = supply_map(geo, make_state(ships), J)
    assert not m.supplied(ISLAND[0])
    assert supply_map(geo, make_state(ships[:-1]), J).supplied(ISLAND[0])


def test_sup_d_zoc_undisputed_enemy_air_zone_blocks() -> None:
    geo = stub_geo()
    cv = ship(A, "CV-5", ISLAND[1])
    s = make_state([cv], air={A: {"CV-5": Air(nac=3)}})
    assert not supply_map(geo, s, J).supplied(ISLAND[0])
    # ZOC.CANCEL: a Japanese carrier with aircraft nearby disputes the zone.
    jcv = ship(J, "CV-3", H(6, 9))
    s2 = make_state([cv, jcv], air={A: {"CV-5": Air(nac=3)}, J: {"CV-3": Air(nac=3)}})
    assert supply_map(geo, s2, J).supplied(ISLAND[0])


def test_sup_e_update_marks_units_and_bases() -> None:
    geo = stub_geo()
    cv = ship(A, "CV-5", ISLAND[1])
    s = make_state(
        [cv, land(J, "RGT-1", ISLAND[0])],
        air={A: {"CV-5": Air(nac=3)}},
        bases=[base(ISLAND[0], J, air=5)],
    )
    s2 = update_supply(geo, s)
    assert not s2.unit(J, "RGT-1").supplied  # type: ignore[union-attr]
    assert not s2.bases[ISLAND[0]].supplied


def test_seq_2j_ships_in_an_own_naval_base_refuel() -> None:
    g = Game(make_state([ship(J, "CA-1", HOME[0], in_base=True, fuel=2)], bases=[base(HOME[0], J)]))
    g.play({})
    assert g.unit(J, "CA-1").refuelled_step == 102


def test_base_k_ship_must_declare_in_base_to_refuel() -> None:
    g = Game(
        make_state([ship(J, "CA-1", H(2, 1)), ship(A, "DD-9", H(6, 2))], bases=[base(HOME[0], J)])
    )
    g.play({J: f"MOVE CA-1 {HOME[0]:04d}"})
    assert g.unit(J, "CA-1").refuelled_step == 0
    g2 = Game(
        make_state([ship(J, "CA-1", H(2, 1)), ship(A, "DD-9", H(6, 2))], bases=[base(HOME[0], J)])
    )
    g2.play({J: f"MOVE CA-1 {HOME[0]:04d}\nBASE CA-1"})
    assert g2.unit(J, "CA-1").in_base and g2.unit(J, "CA-1").refuelled_step == 102


def test_sup_g_mov_p_warship_lost_after_three_turns_without_fuel() -> None:
    g = Game(
        make_state(
            [ship(J, "CA-1", H(20, 5), fuel=2), ship(J, "TR-1", H(20, 6), fuel=2)], last_turn=3
        )
    )
    for _ in range(6):
        g.play({})
    assert g.s.unit(J, "CA-1") is None
    assert g.s.unit(J, "TR-1") is not None and g.unit(J, "TR-1").fuel == 3
    assert any(e.kind == "destroyed" and e.rule == "SUP.G" for e in g.events)


def test_sup_g_refuel_in_last_naval_phase_resets_the_clock() -> None:
    oil = ship(J, "OIL-1", H(20, 5))
    g = Game(make_state([ship(J, "CA-1", H(20, 5), fuel=2), oil], round=4, last_turn=3))
    g.play({J: "REFUEL OIL-1"})  # J-7-8: step 8 is the last Japanese naval phase
    g.play({})
    assert g.unit(J, "CA-1").fuel == 0


def test_sup_h_oiler_refuels_once_until_refilled() -> None:
    oil = ship(J, "OIL-1", H(20, 5))
    g = Game(make_state([ship(J, "CA-1", H(20, 5)), oil]))
    g.play({J: "REFUEL OIL-1"})
    assert not g.unit(J, "OIL-1").oiler_full
    for _ in range(3):
        g.play({})
    (e,) = g.validate(J, "REFUEL OIL-1").errors
    assert e.rule == "SUP.H"


def test_sup_h_oiler_refills_in_a_supplied_naval_base() -> None:
    oil = ship(J, "OIL-1", HOME[0], oiler_full=False, in_base=True)
    g = Game(make_state([oil], bases=[base(HOME[0], J)]))
    g.play({})
    assert g.unit(J, "OIL-1").oiler_full


def test_sup_f_emergency_supply_counts_as_supplied_for_movement() -> None:
    cv = ship(A, "CV-5", ISLAND[1])
    u = land(J, "RGT-1", ISLAND[0], emergency_supply_turn=1)
    g = Game(make_state([cv, u], air={A: {"CV-5": Air(nac=3)}}, round=4), stub_geo())
    # Not MOV.G (it is supplied this turn), but it may not walk out of supply (MOV.F).
    (e,) = g.validate(J, f"MOVE RGT-1 {ISLAND[1]:04d}").errors
    assert e.rule == "MOV.F"


def test_nm_refuel_mission_needs_a_base_or_a_full_oiler() -> None:
    g = Game(make_state([ship(J, "CA-1", H(20, 5), fuel=1)]))
    g.play({})
    assert g.unit(J, "CA-1").refuelled_step == 0  # at sea, no oiler: no refuelling


def test_sup_gen_sup_e_unsupplied_aircraft_fly_no_missions() -> None:
    geo = stub_geo()
    ring = sorted({n for h in ISLAND for n in neighbours(h)} - set(ISLAND))
    blockade = [ship(A, f"DD-{i}", h) for i, h in enumerate(ring, 1)]
    s = make_state(
        blockade,
        air={J: {f"{ISLAND[0]:04d}": Air(lac=4)}},
        bases=[base(ISLAND[0], J, air=5)],
        round=2,
    )
    g = Game(update_supply(geo, s), geo)
    (e,) = g.validate(J, f"CAP 4 LAC {ISLAND[0]:04d}").errors
    assert e.rule == "SUP.E"


def test_nm_bombland_cut_off_outlasts_the_supply_trace() -> None:
    """NM.BOMBLAND / AM.BOMBLAND: a DX bombardment result leaves the unit out of
    supply "for one full Game-Turn", though a supply line exists: through the next
    Game-Turn up to its step 10."""
    from dataclasses import replace

    geo = stub_geo()
    rgt = land(J, "RGT-1", HOME[0])
    s = make_state([rgt])
    assert update_supply(geo, s).unit(J, "RGT-1").supplied  # type: ignore[union-attr]
    cut = replace(s, extra={"cut_off": {rgt.key: s.turn + 1}})
    assert not update_supply(geo, cut).unit(J, "RGT-1").supplied  # type: ignore[union-attr]
    assert not update_supply(geo, cut, turn_over=True).unit(J, "RGT-1").supplied  # type: ignore[union-attr]
    later = replace(cut, turn=s.turn + 1)
    assert not update_supply(geo, later).unit(J, "RGT-1").supplied  # type: ignore[union-attr]
    assert update_supply(geo, later, turn_over=True).unit(J, "RGT-1").supplied  # type: ignore[union-attr]


def test_sup_f_emergency_supply_lasts_its_own_game_turn_only() -> None:
    """SUP.F / NM.EMERG: "Each transporting unit may supply as much as one division for
    one Game-Turn; however, excess supplies may not be used in any later Game-Turns".
    The run supplies the unit at once and for every trace of its Game-Turn; step 10,
    which ends the Game-Turn, does not count it again."""
    cv = ship(A, "CV-5", ISLAND[1])
    u = land(J, "RGT-1", ISLAND[0], emergency_supply_turn=1, supplied=True)
    s = make_state([cv, u], air={A: {"CV-5": Air(nac=3)}})
    assert update_supply(stub_geo(), s).unit(J, "RGT-1").supplied  # type: ignore[union-attr]
    ended = update_supply(stub_geo(), s, turn_over=True)
    assert not ended.unit(J, "RGT-1").supplied  # type: ignore[union-attr]
