"""The eight U.S.N. situations against the rulebook's orders of battle, and against
the map: every hex the rulebook names, every set-up legal (SETUP.*, CG*, MINI.*)."""

from __future__ import annotations

import pytest

from pbem.core.sides import Side
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.data import UsnWorld
from pbem.rulesets.usn.loader import check_world, load_map, load_world, scenario_names
from pbem.rulesets.usn.scenario import Scenario
from pbem.rulesets.usn.units import UnitType

J, A = Side.JAPANESE, Side.ALLIED


@pytest.fixture(scope="module")
def world() -> UsnWorld:
    return load_world()


def deployed_at(s: Scenario, side: Side, uid: str) -> tuple[int, ...]:
    for d in s.deployments:
        if d.side == side and uid in d.units:
            return d.at.hexes
    raise AssertionError(f"{side}/{uid} not set up in {s.name}")


def test_setup_choose_the_eight_situations() -> None:
    assert scenario_names() == [
        "campaign-1",
        "campaign-2",
        "campaign-3",
        "coral-sea",
        "eastern-solomons",
        "midway",
        "midway-simulation",
        "santa-cruz",
    ]


@pytest.mark.parametrize(
    ("name", "first", "turns", "bases"),
    [
        ("campaign-1", 1, 20, "game1"),  # SETUP.CG1
        ("campaign-2", 21, 20, "game2"),  # SETUP.CG2
        ("campaign-3", 1, 81, "game1"),  # SETUP.CG3
        ("coral-sea", 22, 2, "game2"),  # MINI.CORAL.LEN
        ("midway", 26, 3, "game2"),  # MINI.MIDWAY.LEN
        ("midway-simulation", 26, 3, "game2"),
        ("eastern-solomons", 38, 2, "game2"),  # MINI.SOLOMONS.LEN
        ("santa-cruz", 47, 2, "game2"),  # MINI.SANTACRUZ.LEN
    ],
)
def test_game_length_and_start(
    world: UsnWorld, name: str, first: int, turns: int, bases: str
) -> None:
    s = world.scenario(name)
    assert (s.first_turn, s.game_turns, s.bases, s.start_line) == (first, turns, bases, bases)
    assert s.first_side is J  # SETUP.JFIRST
    assert world.tables.calendar.label(s.first_turn)  # every game starts on the chart


def test_setup_every_order_of_battle_deploys_legally_on_the_map() -> None:
    """SETUP.TERRAIN, SETUP.CAPACITY, STK.E: land on land, ships in friendly naval
    bases, air points within base, carrier and transport capacity."""
    assert [f"{p.where}: {p.reason}" for p in check_world()] == []


def test_cli_data_check_real_data(capsys: pytest.CaptureFixture[str]) -> None:
    from pbem.cli import main

    assert main(["data", "check", "usn"]) == 0
    assert "checked against the map" in capsys.readouterr().out


EXACT_PLACES = {
    44: "rangoon",
    112: "bangkok",
    115: "khota bharu",
    116: "singapore",
    177: "haiphong",
    181: "saigon",
    220: "soerabaja",
    311: "hong kong",
    348: "philippine fortifications",
    381: "manila",
    552: "palau",
    576: "kure",
    609: "osaka",
    659: "port moresby",
    668: "sydney",
    684: "guam",
    692: "lae",
    698: "brisbane",
    707: "ominato",
    717: "saipan",
    754: "truk",
    759: "rabaul",
    760: "bougainville",
    828: "guadalcanal",
    865: "kumac",
    899: "noumea",
    921: "eniwetok",
    929: "santa cruz",
    930: "espiritu santo",
    931: "efate",
    972: "auckland",
    985: "wake",
    1066: "suva",
    1168: "tongabatu",
    1218: "midway",
    1229: "canton",
    1233: "pago pago",
    1357: "johnston",
    1394: "palmyra",
    1409: "dutch harbor",
    1429: "christmas",
    1456: "pearl harbor",
    1509: "cold bay",
}


def test_setup_hexspec_every_named_hex_is_its_place_and_land() -> None:
    """SETUP.HEXSPEC: a printed "(hex)" is that place, and it is land."""
    m = load_map()
    for h, name in EXACT_PLACES.items():
        assert m.place(name) == h, name
        assert m.is_land(h), name
    for h in (378, 411, 971, 1099, 488, 521):  # the unnamed exact hexes (pairs)
        assert m.is_land(h), h


@pytest.mark.parametrize(
    ("region", "ref"),
    [
        ("indo-china", 179),
        ("burma", 76),
        ("thailand", 111),
        ("australia", 463),
        ("australia", 699),
        ("japanese-home-islands", 676),
        ("japanese-home-islands", 609),
        ("timor", 356),
        ("luzon", 381),
        ("malaya", 115),
        ("dei", 220),
        ("aleutians", 1509),
    ],
)
def test_setup_area_representative_hexes_lie_in_their_area(region: str, ref: int) -> None:
    """SETUP.AREA: a hex printed without parentheses names the area it stands in."""
    assert ref in load_map().regions[region]


def test_usn_map_adjacency_and_distances() -> None:
    """The checks the text allows for the recovered numbering (docs/usn-data.md, "Map")."""
    assert hexgrid.adjacent(115, 116)  # Khota Bharu, Singapore
    assert hexgrid.adjacent(759, 760)  # Rabaul, Bougainville
    assert hexgrid.neighbours(929)[3] == 930  # Santa Cruz, Espiritu Santo, Efate: N-S chain
    assert hexgrid.neighbours(930)[3] == 931
    assert hexgrid.adjacent(488, 521)  # Vogelkop
    assert hexgrid.adjacent(692, 693)  # ERR.MAP.0692
    assert hexgrid.distance(609, 1218) == 18  # MINI.MIDSIM.MOVE: 12 + 6 reach Midway's side


def test_cg1_ob_printed_placements(world: UsnWorld) -> None:
    s = world.scenario("campaign-1")
    assert deployed_at(s, A, "DD-5") == (381,)
    assert deployed_at(s, A, "CA-5") == (220,)
    assert deployed_at(s, A, "BB-1") == (116,)
    assert deployed_at(s, J, "DIV-5") == (378, 411)
    pts = {(a.side, a.type): 0 for a in s.air}
    for a in s.air:
        if a.optional is None:
            pts[(a.side, a.type)] += a.points
    assert pts[(J, UnitType.NAC)] == 68 and pts[(J, UnitType.LAC)] == 94
    assert pts[(A, UnitType.NAC)] == 9 and pts[(A, UnitType.LBAC)] == 7
    assert pts[(A, UnitType.LAC)] == 20 + 24 + 5 * 5 + 3 + 2 + 2 + 1
    assert {"allied/CD-116", "allied/CD-1456", "allied/CD-348"} <= set(s.coastal_defense)
    assert s.coastal_defense["allied/CD-1456"].surface_attack == 50
    assert s.coastal_defense["allied/CD-985"].surface_attack == 6  # Wake
    assert s.coastal_defense["japanese/CD-754"].defense == 10  # Truk 30-10


def test_err_cg1_defbn_one_battalion_on_the_west_coast(world: UsnWorld) -> None:
    s = world.scenario("campaign-1")
    west = [u for d in s.deployments if d.side == A and d.at.offmap for u in d.units]
    assert [u for u in west if u.startswith("BN-")] == ["BN-1"]


def test_cg2_ob_damaged_carrier_and_transported_air(world: UsnWorld) -> None:
    s = world.scenario("campaign-2")
    cv3 = next(d for d in s.deployments if d.side == A and "CV-3" in d.units)
    assert (cv3.damage, cv3.at.offmap) == (6, "west-coast")
    assert any(a.at.unit == "TR-1" and a.points == 10 for a in s.air)
    assert s.special["midway_deadline"]["by_turn"] == 30
    assert s.special["midway_deadline"]["allied_points"] == 100


def test_cg1_special_rules_as_flags(world: UsnWorld) -> None:
    s = world.scenario("campaign-1")
    assert {
        "shock_turn",
        "philippine_fortifications",
        "hong_kong",
        "thailand",
        "burma_commitment",
    } <= set(s.special)
    assert s.special["shock_turn"]["allied_naval_divisor"] == 3
    assert s.special["hong_kong"]["falls_on_turn"] == 4
    assert s.special["indian_ocean"]["nac_points"] == 30
    assert set(s.optional_rules) == {
        "subs",
        "variable_deployment",
        "japanese_variable_deployment",
        "garrisons",
        "ferry_carriers",
        "burma",
    }


def test_cg3_rules_cg1_rules_plus_the_cg2_burma_rule(world: UsnWorld) -> None:
    cg1, cg3 = world.scenario("campaign-1"), world.scenario("campaign-3")
    assert cg3.deployments == cg1.deployments  # SETUP.CG3: Game 1 deployment
    assert set(cg3.special) == set(cg1.special) | {"burma_reinforcement"}
    assert {a.turn for a in cg3.arrivals} >= {2, 26, 31, 48, 81}
    assert all(1 <= a.turn <= 81 for a in cg3.arrivals)


def test_rein_table_turn_ranges(world: UsnWorld) -> None:
    assert all(1 <= a.turn <= 20 for a in world.scenario("campaign-1").arrivals)
    assert all(21 <= a.turn <= 40 for a in world.scenario("campaign-2").arrivals)
    assert world.scenario("coral-sea").arrivals == ()  # SETUP.MININOREINF
    cg2_tr4 = [w for w in world.scenario("campaign-2").withdrawals if w.unit == "TR-4"]
    assert cg2_tr4 and cg2_tr4[0].turn == 27  # REIN.NOTE.A


def test_rein_table_printed_and_errata_rows(world: UsnWorld) -> None:
    rows = {(a.turn, a.side, u) for a in world.arrivals for u in a.units}
    assert {(2, A, u) for u in ("CV-2", "CV-6", "CA-2", "CA-3", "DD-10")} <= rows
    assert (5, A, "DD-11") in rows and (5, A, "DD-10") not in rows  # ERR.REIN.5
    assert (31, A, "CVE-1") in rows  # ERR.REIN.31
    assert (48, A, "BB-6") in rows  # ERR.REIN.48
    t31 = next(a for a in world.arrivals if a.turn == 31 and "CVE-1" in a.units)
    assert t31.air["NAC"] == 2
    t2 = next(a for a in world.arrivals if a.turn == 2 and a.side == A)
    assert (t2.at and t2.at.hexes) == (1456,) and t2.air == {"NAC": 17, "LBAC": 1}


def test_opt_forces_only_behind_their_optional_rule(world: UsnWorld) -> None:
    for s in world.scenarios.values():
        for d in s.deployments:
            if any(u.startswith("SUB-") for u in d.units):
                assert d.optional == "subs", s.name
        assert "SUB-1" not in s.deployed("japanese")
        if "subs" in s.optional_rules:
            assert "SUB-1" in s.deployed("japanese", ["subs"])
    cg1 = world.scenario("campaign-1")
    assert "RGT-18" in cg1.deployed("allied", ["burma"])
    assert "RGT-18" not in cg1.deployed("allied")
    burma = [a for a in world.arrivals if a.requires == "burma"]
    assert [a.turn for a in burma] == [8, 10, 17, 19]  # REIN.BURMA


def test_cg2_burma_arrivals_in_force_by_rule(world: UsnWorld) -> None:
    """CG2.BURMA (a special rule) brings two divisions on T26 in CG2 and CG3 (CG3.RULES);
    REIN.BURMA rows need the Burma option (OPT.BURMA)."""
    for name in ("campaign-2", "campaign-3"):
        s = world.scenario(name)
        t26 = [a for a in s.arrivals_for() if a.turn == 26 and a.side == J]
        assert [u for a in t26 for u in a.units] == ["DIV-17", "DIV-18"]
    cg1 = world.scenario("campaign-1")
    assert not [a for a in cg1.arrivals_for() if a.requires]
    assert [a.turn for a in cg1.arrivals_for(["burma"]) if a.requires] == [8, 10, 17, 19]


def test_mini_coral_vc_with_the_errata(world: UsnWorld) -> None:
    vc = world.scenario("coral-sea").victory
    by_id = {o["id"]: o for o in vc["objectives"]}
    assert by_id["port-moresby"]["points"] == 100
    assert by_id["engineer-on-guadalcanal"]["supplied_from_base"] is True  # ERR.CORAL.VC
    assert vc["geographic"] is False and vc["unit_points"] is True


def test_mini_solomons_and_santacruz_bases_vc_and_keep_out(world: UsnWorld) -> None:
    for name, caps in (
        ("eastern-solomons", {828: 5, 865: 5, 930: 5, 931: 5}),
        ("santa-cruz", {828: 10, 930: 10, 931: 5, 865: 5}),
    ):
        s = world.scenario(name)
        assert {b.hex: b.air_capacity for b in s.added_bases if b.side == A} == caps
        assert s.special["keep_out_of_australia"]["hexes"] == 2  # A24
        ids = {o["id"] for o in s.victory["objectives"]}
        assert "guadalcanal-air-base-destroyed" in ids
        japanese_on_guadalcanal = [d for d in s.deployments if d.side == J and 828 in d.at.hexes]
        assert all(d.unsupplied for d in japanese_on_guadalcanal)  # SETUP.SUPPLY


def test_mini_midsim_extends_midway(world: UsnWorld) -> None:
    base, sim = world.scenario("midway"), world.scenario("midway-simulation")
    assert sim.deployments == base.deployments
    flags = sim.special["midway_simulation"]
    assert (flags["moves"], flags["max_cap_points"], flags["min_strike_points"]) == ([12, 6], 4, 20)
    assert "midway_simulation" not in base.special


def test_scenario_info_for_the_lifecycle(world: UsnWorld) -> None:
    info = world.scenario("coral-sea").info()
    assert (info.name, info.sides) == ("coral-sea", ("japanese", "allied"))
    assert "subs" in info.options
