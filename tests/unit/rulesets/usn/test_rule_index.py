"""Rule cases that state a fact of the data or of the engine's structure rather than a
procedure of their own (UNIT.NB, UNIT.LAND.SIZE, UNIT.NAC.CODED, NACC.*, GEN.LEVELS,
UNIT.MAP, GEN.DIE), and cases carried out by other modules' mechanisms that had no
test named after them (BASE.GEN.*, BASE.PROC.*, NM.BOMBBASE.NEUT, CG1.SHOCK.BASE13,
SEQ.5C). The inventory's cases with nothing to compute are listed, with the reason,
in the "Cases with nothing to compute" section of docs/usn-data.md; the last test here
checks that every case of the inventory is tested by its ID or listed there."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from pbem.core.dice import SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.usn import bases as bases_mod
from pbem.rulesets.usn import hexgrid
from pbem.rulesets.usn.air_combat import Flight
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.phases import can_refuel_in_base
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import Air, GameState, Unit
from pbem.rulesets.usn.units import Size, UnitType

from .builders import AUS, HOME, ISLAND, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
ROOT = Path(__file__).parents[4]
ISL, ISL2 = ISLAND
AIR5 = 2  # the index of round air-5 in a state without an opening (sequence.ROUNDS)


# --- facts of the data ----------------------------------------------------------------


def test_unit_nb_every_naval_base_defends_at_ten() -> None:
    """UNIT.NB: "Naval Bases. All bases, including those printed on the mapsheet, have a
    Defense Strength of 'ten'." Every base of every scenario's set-up defends at 10, the
    value bombardment fires against (NM.BOMBBASE, AM.BASE.RESOLVE)."""
    rs = UsnRuleset(load_world(), world_geo())
    assert bases_mod.BASE_DEFENSE == 10
    for name in rs.data.scenarios:
        s = GameState.from_json(rs.initial_state(name, {}))
        naval = [b for b in s.bases.values() if b.has_naval]
        assert naval, name
        assert {bases_mod.base_defense(b) for b in s.bases.values()} == {10}


def test_unit_land_size_size_symbols_of_the_counter_catalogue() -> None:
    """UNIT.LAND.SIZE: "Size of Unit: Battalion: II; Regiment: III; Brigade: X;
    Division: XX." Every land counter has its size, and the transport points the engine
    uses follow it: a division 12, a brigade 6, a battalion 2 (NM.TRANS.TPTABLE)."""
    assert {Size.BATTALION, Size.REGIMENT, Size.BRIGADE, Size.DIVISION} <= set(Size)
    catalogue = load_world().catalogue
    sizes: dict[UnitType, set[Size | None]] = {}
    tps: dict[Size | None, set[int | None]] = {}
    for c in catalogue.counters.values():
        if getattr(c, "size", None) is None or c.type is UnitType.CD:
            continue
        sizes.setdefault(c.type, set()).add(c.size)
        tps.setdefault(c.size, set()).add(c.transport_points)
    assert sizes[UnitType.DIV] == {Size.DIVISION}
    assert sizes[UnitType.BDE] == {Size.BRIGADE}
    assert sizes[UnitType.RGT] == {Size.REGIMENT}
    assert sizes[UnitType.BN] == {Size.BATTALION}
    assert tps[Size.DIVISION] == {12} and tps[Size.BRIGADE] == {6} and tps[Size.BATTALION] == {2}


def test_unit_nac_coded_lettered_counters_a_to_s_and_a_to_x() -> None:
    """UNIT.NAC.CODED: "there are other counters coded with a letter which is referred
    to the NAC Air Unit Strength Table." The catalogue holds the lettered counters of
    both charts (Japanese A-S, Allied A-X, NACC.USE); the engine keeps NAC as points per
    carrier or base (UNIT.AIR.POINTS), the level a lettered counter's marker shows."""
    nac = load_world().catalogue.nac
    letters = {
        side: "".join(sorted(c.letter for c in nac.values() if c.side == side))
        for side in (JAPANESE, ALLIED)
    }
    assert letters[JAPANESE] == "ABCDEFGHIJKLMNOPQRS"
    assert letters[ALLIED] == "ABCDEFGHIJKLMNOPQRSTUVWX"
    assert all(c.id == f"NAC-{c.letter}" for c in nac.values())


def test_nacc_use_every_carrier_fits_the_chart_track_of_zero_to_ten() -> None:
    """NACC.USE: "place a marker at that unit's appropriate strength level ... even if
    that strength is zero ... columns for 0 to 10 air points." No carrier of the
    catalogue holds more than the track's 10 points, so one lettered counter per
    carrier records its level, and 0 is a level (a carrier with no NAC)."""
    counters = load_world().catalogue.counters.values()
    caps = [c.air_capacity for c in counters if getattr(c, "air_capacity", 0)]
    assert caps and max(caps) <= 10


def _chart(side: str, points: int, kind: str) -> int:
    f = Flight(side, "NAC", points, "CV-1", 0, "STRIKE", 0)  # type: ignore[arg-type]
    return f.a2a() if kind == "a2a" else f.bombardment(make_state([]), naval=False)


def test_nacc_j_japanese_nac_strengths_are_the_charts() -> None:
    """NACC.J, the Japanese Naval Air Unit Strength Chart: "Bombardment Strength | 0 | 7
    | 14 | ... | 70" for 0-10 air points; "Air-to-Air Strength: normal range (2 hexes)
    | 0 | 5 | 10 | 15 | 20 | 25"."""
    assert [_chart(J, n, "bomb") for n in range(11)] == [
        0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70
    ]  # fmt: skip
    assert [_chart(J, n, "a2a") for n in range(6)] == [0, 5, 10, 15, 20, 25]
    assert load_world().catalogue.air_type(J, "NAC").range_normal == 2


def test_nacc_a_allied_nac_strengths_are_the_charts() -> None:
    """NACC.A, the Allied Naval Air Unit Strength Chart: "Bombardment Strength | 0 | 11
    | 22 | ... | 110"; "Air-to-Air Strength: normal range (2 hexes) | 0 | 5 | ... | 25"."""
    assert [_chart(A, n, "bomb") for n in range(11)] == [
        0, 11, 22, 33, 44, 55, 66, 77, 88, 99, 110
    ]  # fmt: skip
    assert [_chart(A, n, "a2a") for n in range(6)] == [0, 5, 10, 15, 20, 25]
    assert load_world().catalogue.air_type(A, "NAC").range_normal == 2


# --- the structure ----------------------------------------------------------------------


def test_gen_levels_one_standard_rule_set_modified_per_situation() -> None:
    """GEN.LEVELS: "there are the Mini-games ... Then there are the Campaign Games ...
    These games share in common the Standard rules; these will be modified for various
    situations." One ruleset plays every scenario; each scenario is data naming its kind
    and rule, and changes the standard rules only through its [special.*] and
    [optional_rules.*] tables."""
    world = load_world()
    kinds = {name: sc.kind for name, sc in world.scenarios.items()}
    assert sorted(n for n, k in kinds.items() if k == "mini-game") == [
        "coral-sea", "eastern-solomons", "midway", "midway-simulation", "santa-cruz"
    ]  # fmt: skip
    assert sorted(n for n, k in kinds.items() if k == "campaign") == [
        "campaign-1", "campaign-2", "campaign-3"
    ]  # fmt: skip
    rs = UsnRuleset(world, world_geo())
    for name in world.scenarios:
        s = GameState.from_json(rs.initial_state(name, {}))
        assert s.scenario == name and s.turn == 1
    assert all("rule" in rule for sc in world.scenarios.values() for rule in sc.special.values())


def test_unit_map_one_hex_map_of_the_pacific() -> None:
    """UNIT.MAP: "The 22" by 28" mapsheet depicts the Pacific theatre of operations,
    over which ... An hexagonal grid has been superimposed." One map, every hex of the
    grid with its terrain, both sides' bases on it (Pearl Harbor 1456, Truk 754)."""
    usn_map = load_world().map
    assert usn_map is not None
    assert set(usn_map.hexes) == set(range(1, hexgrid.LAST_HEX + 1))
    geo = world_geo()
    assert geo.bases[1456].name == "Pearl Harbor" and geo.bases[754].name == "Truk"
    assert any(geo.is_sea(h) for h in geo.terrain) and any(geo.is_land(h) for h in geo.terrain)


def test_gen_die_one_six_sided_die() -> None:
    """GEN.DIE: all randomness uses a single six-sided die: every roll is 1 to 6, and
    each face comes up."""
    dice = SeededDice(b"seed", "g1", 1, "J-2")
    rolls = [dice.d6("test") for _ in range(600)]
    assert set(rolls) == {1, 2, 3, 4, 5, 6}


# --- bases (carried out by movement, supply and air combat) ----------------------------------


def _air_game(units: list[Unit] | None = None) -> tuple[Game, int, int]:
    """Two Allied air bases in range of each other (Australia and an atoll)."""
    b1, b2 = AUS[0], H(10, 14)
    geo = stub_geo(land={b2: "class1"})
    state = make_state(
        units or [],
        air={A: {f"{b1:04d}": Air(lac=10, nac=4, lbac=2)}},
        bases=[base(b1, A, air=20), base(b2, A, air=5)],
        round=1,
    )
    return Game(state, geo), b1, b2


def test_base_gen_air_lac_and_lbac_must_use_air_bases_nac_may_use_carriers() -> None:
    """BASE.GEN.AIR: "Land air units (LAC) and Long-range bomber air units (LBAC) must
    operate from air bases, while Naval air units (NAC) may operate from either air
    bases or Carrier naval units.\""""
    g, b1, _b2 = _air_game([ship(A, "CV-5", H(10, 19), capacity=10)])
    for atype in ("LAC", "LBAC"):
        (e,) = g.validate(A, f"TRANSFER 2 {atype} {b1:04d} TO CV-5").errors
        assert e.rule == "MOV.T"
    assert not g.validate(A, f"TRANSFER 2 NAC {b1:04d} TO CV-5").errors
    (e,) = g.validate(A, f"TRANSFER 2 LAC {b1:04d} TO {H(10, 17):04d}").errors
    assert "base" in e.message


def test_base_gen_inport_in_base_only_by_declaring_it_any_number() -> None:
    """BASE.GEN.INPORT: "Naval units may be considered to be in a Naval base by simply
    being in the same hex as the base, although they must announce that they are in
    the base, and not 'at sea.' ... There is no limit to the number of naval units that
    may be in base at the same time.\""""
    port = HOME[0]
    ships = [ship(J, f"CA-{i}", H(2, 1)) for i in range(1, 5)]
    g = Game(make_state(ships, bases=[base(port, J)]))
    g.play({J: f"MOVE CA-1 CA-2 CA-3 CA-4 {port:04d}\nBASE CA-1 CA-2 CA-3"})
    assert [g.unit(J, f"CA-{i}").in_base for i in range(1, 5)] == [True, True, True, False]
    assert {g.unit(J, f"CA-{i}").hex for i in range(1, 5)} == {port}


def test_base_proc_place_transfers_go_straight_to_their_destination() -> None:
    """BASE.PROC.PLACE: "When a unit leaves the base, place the air units on the Air
    Unit Attack Allocation Chart, unless they are engaged in an Air Transfer Mission,
    in which case, place them on the map at their destination." (Aircraft on missions
    leave the base: test_seq_5fg_aloft_amac_a_... in test_air_combat.py.)"""
    g, b1, b2 = _air_game()
    g.play({A: f"TRANSFER 5 LAC {b1:04d} TO {b2:04d}"})
    assert g.s.air[A][f"{b2:04d}"].lac == 5 and g.s.air[A][f"{b1:04d}"].lac == 5
    assert "aloft" not in g.s.extra


def test_base_proc_damaged_no_aircraft_use_a_neutralized_air_base() -> None:
    """BASE.PROC.DAMAGED: "Units may not land or operate from damaged or neutralized
    air bases." A transfer into or out of a neutralized base is refused."""
    g, b1, b2 = _air_game()
    hit = replace(g.s.bases[b2], neutralized_until=1)
    g.state = replace(g.s, bases={**g.s.bases, b2: hit}).to_json()
    (e,) = g.validate(A, f"TRANSFER 5 LAC {b1:04d} TO {b2:04d}").errors
    assert e.rule == "MOV.S" and "neutralized" in e.message


def test_base_proc_navdamaged_ships_enter_a_damaged_naval_base_but_do_not_refuel() -> None:
    """BASE.PROC.NAVDAMAGED: "Naval units may enter damaged bases, but may not refuel
    there." NM.BOMBBASE.NEUT / AM.BASE.NEUT: a neutralized naval base can't refuel."""
    port = HOME[0]
    hit = replace(base(port, J), neutralized_until=1)
    g = Game(make_state([ship(J, "CA-1", H(2, 1), fuel=2)], bases=[hit]))
    g.play({J: f"MOVE CA-1 {port:04d}\nBASE CA-1"})
    ca = g.unit(J, "CA-1")
    assert ca.hex == port and ca.in_base and ca.refuelled_step == 0
    assert not can_refuel_in_base(g.s, ca)
    assert can_refuel_in_base(replace(g.s, bases={port: base(port, J)}), ca)


def test_nm_bombbase_neut_neutralized_naval_base_no_refuelling_until_it_ends() -> None:
    """NM.BOMBBASE.NEUT: "A neutralized naval base can't refuel or serve as an
    emergency-supply base", for one complete Game-Turn: neutralized through the next
    turn (``neutralized_until = turn + 1``), usable again after."""
    port = HOME[0]
    ca = ship(J, "CA-1", port, in_base=True)
    s = make_state([ca], bases=[replace(base(port, J), neutralized_until=2)])
    assert not can_refuel_in_base(s, ca)
    assert not can_refuel_in_base(replace(s, turn=2), ca)
    assert can_refuel_in_base(replace(s, turn=3), ca)


def test_cg1_shock_base13_allied_base_aa_cut_to_a_third() -> None:
    """CG1.SHOCK.BASE13: in the Shock turn "Allied ... Air and Naval bases ... have
    their Anti-Aircraft Strengths reduced to one-third": capacity 10 fires 3."""
    units = [replace(ship(J, "CV-1", ISL2), capacity=12)]
    state = make_state(
        units, air={J: {"CV-1": Air(nac=12)}}, bases=[base(ISL, A, air=10)], round=AIR5
    )
    g = Game(replace(state, scenario="campaign-1"))
    g.play({J: f"STRIKE 12 NAC CV-1 {ISL:04d} AIRBASE"}, dice=[6] * 10)
    (hit,) = [e.data for e in g.events if e.kind == "air-strike" and e.rule == "AM.BASE.RESOLVE"]
    assert hit["aa"]["aa"] == 3
    g2 = Game(replace(state, scenario="campaign-1", turn=2, last_turn=3))
    g2.play({J: f"STRIKE 12 NAC CV-1 {ISL:04d} AIRBASE"}, dice=[6] * 10)
    (hit2,) = [e.data for e in g2.events if e.kind == "air-strike" and e.rule == "AM.BASE.RESOLVE"]
    assert hit2["aa"]["aa"] == 10


def test_seq_5c_allied_warships_give_gunfire_support_in_step_5() -> None:
    """SEQ.5C: "The Allied player may assign his warships in that hex to naval gunfire
    support of those attacks." GUNFIRE is an order of the air-strike rounds (step 5 for
    the Allies), refused in a movement round (SEQ.STRICT)."""
    units = [
        land(A, "DIV-1", ISL),
        ship(A, "CA-1", ISL),
        land(J, "RGT-1", ISL),
    ]
    text = f"ATTACK {ISL:04d} DIV-1\nGUNFIRE {ISL:04d} CA-1"
    attack = {}
    for orders in (f"ATTACK {ISL:04d} DIV-1", text):
        g = Game(make_state(units, round=AIR5))
        assert not g.validate(A, orders).errors
        g.play({A: orders, J: ""}, dice=[6] * 10)
        (fight,) = [e.data for e in g.events if e.kind == "land-combat"]
        attack[orders] = int(fight["attack"])
    ca = ship(A, "CA-1", ISL)
    assert attack[text] == attack[f"ATTACK {ISL:04d} DIV-1"] + ca.sa  # NM.GSUP: its SA
    (e,) = Game(make_state(units, round=1)).validate(A, f"GUNFIRE {ISL:04d} CA-1").errors
    assert e.rule == "SEQ.STRICT"


# --- the inventory, case by case --------------------------------------------------------

# The inventory's cases in none of the three issue lists (test_sequence.ISSUE_5_CASES,
# test_naval_combat.ISSUE_6A_CASES, test_scenario_rules.ISSUE_6B_CASES): general rules.
OTHER_CASES = [
    "GEN.SPIRIT",
    "GEN.DIE",
    "GEN.REC",
    "DEF.CHARTS",
    "SEQ.5C",
    "CBT.MCC",
    "SETUP.PHYS",
    "ERR.SCALE",
]


def _norm(rule: str) -> str:
    return rule.lower().replace(".", "_").replace("-", "_")


def _test_names() -> list[str]:
    """Every test function name of the project's tests (tests/**/test_*.py)."""
    names: list[str] = []
    for f in (ROOT / "tests").rglob("test_*.py"):
        names += re.findall(r"def (test_\w+)", f.read_text())
    return names


def nothing_to_compute() -> dict[str, str]:
    """The cases of docs/usn-data.md's "Cases with nothing to compute" table: ID -> reason."""
    doc = (ROOT / "docs" / "usn-data.md").read_text()
    section = doc.split("## Cases with nothing to compute", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([A-Z][A-Z0-9.\-]*) \| (.+?) \|$", section, flags=re.M)
    return {case: reason.strip() for case, reason in rows}


def untested(cases: list[str]) -> list[str]:
    """The cases with neither a test named after them nor a reason in docs/usn-data.md."""
    names = _test_names()
    listed = nothing_to_compute()
    return [
        c for c in cases if not listed.get(c) and not any(f"_{_norm(c)}_" in n + "_" for n in names)
    ]


def test_every_other_case_of_the_inventory_is_tested_or_has_nothing_to_compute() -> None:
    """Every case of usn-rules-inventory.md (460 case IDs: the three issue lists and
    OTHER_CASES) is tested by its ID or listed with its reason; a listed case really has
    no test of its own and belongs to the inventory (no stale rows)."""
    from .test_naval_combat import ISSUE_6A_CASES
    from .test_scenario_rules import ISSUE_6B_CASES
    from .test_sequence import ISSUE_5_CASES

    every = {*ISSUE_5_CASES, *ISSUE_6A_CASES, *ISSUE_6B_CASES, *OTHER_CASES}
    assert len(every) == 460
    assert not untested(OTHER_CASES)
    listed = nothing_to_compute()
    assert listed and set(listed) <= every, set(listed) - every
    names = _test_names()
    assert not [c for c in listed if any(f"_{_norm(c)}_" in n + "_" for n in names)]
