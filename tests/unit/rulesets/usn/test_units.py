"""The U.S.N. counter catalogue against the counters the rulebook prints (UNIT.*)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.core.sides import Side
from pbem.rulesets.usn.loader import load_world
from pbem.rulesets.usn.units import (
    Catalogue,
    LandCounter,
    NavalCounter,
    Source,
    UnitType,
    canonical_id,
    expand_ids,
    split_key,
)

J, A = Side.JAPANESE, Side.ALLIED


@pytest.fixture(scope="module")
def cat() -> Catalogue:
    return load_world(with_map=False).catalogue


def naval(cat: Catalogue, side: Side, uid: str) -> NavalCounter:
    c = cat.get(side, uid)
    assert isinstance(c, NavalCounter)
    return c


def land(cat: Catalogue, side: Side, uid: str) -> LandCounter:
    c = cat.get(side, uid)
    assert isinstance(c, LandCounter)
    return c


def test_unit_nav_layout_bb3_printed(cat: Catalogue) -> None:
    """UNIT.NAV.LAYOUT: 15 / 25 / BB-3 / 34 / 5."""
    bb = naval(cat, J, "BB-3")
    assert (bb.defense, bb.anti_aircraft, bb.surface_attack, bb.movement) == (15, 25, 34, 5)
    assert bb.provenance.src is Source.RULEBOOK


def test_unit_cv_layout_cv7_printed(cat: Catalogue) -> None:
    """UNIT.CV.LAYOUT: 1 / 15 / CV-7 / 0 / 5 / 5 (DEF, AA, SA, air capacity, MA)."""
    cv = naval(cat, J, "CV-7")
    assert (cv.defense, cv.anti_aircraft, cv.surface_attack, cv.air_capacity, cv.movement) == (
        1,
        15,
        0,
        5,
        5,
    )
    assert cv.provenance.src is Source.RULEBOOK
    assert cv.name == "Hiyo"


def test_unit_tr_layout_tr1_printed(cat: Catalogue) -> None:
    """UNIT.TR.LAYOUT: 1 / 1 / TR-1 / 0 / 12 / 3."""
    tr = naval(cat, J, "TR-1")
    assert (
        tr.defense,
        tr.anti_aircraft,
        tr.surface_attack,
        tr.transport_capacity,
        tr.movement,
    ) == (1, 1, 0, 12, 3)
    assert tr.provenance.src is Source.RULEBOOK


def test_unit_land_layout_infantry_example_8_15_1(cat: Catalogue) -> None:
    """UNIT.LAND.LAYOUT: the printed 8 / 15 / 1 is the Allied 8-15 regiment."""
    for uid in expand_ids("RGT-1..25"):
        r = land(cat, A, uid)
        assert (r.attack, r.defense, r.movement) == (8, 15, 1)
        assert r.provenance.of("movement") is Source.RULEBOOK


def test_unit_cd_layout_50_20_0(cat: Catalogue) -> None:
    """UNIT.CD.LAYOUT: 50 / 20 / 0 (surface attack, defense, movement); MOV.H never moves."""
    cd = cat.cd_class(A, "50-20").counter(1456)
    assert (cd.surface_attack, cd.defense, cd.movement) == (50, 20, 0)
    assert cd.id == "CD-1456" and cd.type is UnitType.CD and cd.transport_points is None


def test_base_f_engineer_1_1_1_and_para_6_12_1(cat: Catalogue) -> None:
    """BASE.F prints the engineer 1/1/1; PARA.COUNT the parachutist 6/12/1."""
    for side, uid in ((J, "ENG-1"), (J, "ENG-2"), (A, "ENG-1")):
        e = land(cat, side, uid)
        assert (e.attack, e.defense, e.movement) == (1, 1, 1)
    p = land(cat, J, "PARA-1")
    assert (p.attack, p.defense, p.movement, p.airborne) == (6, 12, 1, True)
    airborne = [c for c in cat.side_counters(J) if isinstance(c, LandCounter) and c.airborne]
    assert len(airborne) == 2  # PARA.COUNT: the Japanese have two parachute units


@pytest.mark.parametrize(
    ("side", "spec", "attack", "defense"),
    [
        (J, "DIV-1..22", 20, 40),
        (J, "BDE-1..4", 8, 18),
        (J, "RGT-1..3", 6, 12),
        (J, "SNLF-1..8", 5, 10),
        (A, "DIV-1..21", 30, 50),
        (A, "MAR-1..2", 50, 60),
        (A, "BN-1..4", 2, 6),
    ],
)
def test_unit_land_strengths_as_printed_in_the_orders_of_battle(
    cat: Catalogue, side: Side, spec: str, attack: int, defense: int
) -> None:
    for uid in expand_ids(spec):
        c = land(cat, side, uid)
        assert (c.attack, c.defense) == (attack, defense), uid


def test_nm_trans_tptable_land_transport_points(cat: Catalogue) -> None:
    """NM.TRANS.TPTABLE: division 12, regiment 4, battalion 2, brigade 6, J engineers 4,
    SNLF 2, Allied engineer 12."""
    expect = {
        (J, "DIV-1"): 12,
        (J, "RGT-1"): 4,
        (J, "BDE-1"): 6,
        (J, "ENG-1"): 4,
        (J, "SNLF-1"): 2,
        (A, "DIV-1"): 12,
        (A, "RGT-1"): 4,
        (A, "BN-1"): 2,
        (A, "ENG-1"): 12,
    }
    for (side, uid), tp in expect.items():
        assert land(cat, side, uid).transport_points == tp, uid


def test_unit_zerosa_carriers_and_transports_have_no_surface_attack(cat: Catalogue) -> None:
    ships = [c for c in cat.counters.values() if isinstance(c, NavalCounter)]
    assert all(c.surface_attack == 0 for c in ships if c.is_carrier or c.is_transport)
    assert all(c.air_capacity > 0 for c in ships if c.is_carrier)


def test_cg1_shock_nav13_allied_dd_values_fit_the_worked_example(cat: Catalogue) -> None:
    """CG1.SHOCK.NAV13: a third of an Allied DD (fractions dropped) is DEF 1, SA 1, AA 4."""
    dds = [c for c in cat.side_counters(A) if c.type is UnitType.DD]
    assert len(dds) == 11
    for dd in dds:
        assert isinstance(dd, NavalCounter)
        assert (dd.defense // 3, dd.surface_attack // 3, dd.anti_aircraft // 3) == (1, 1, 4)


def test_nm_emerg_cap_emergency_transport_capacities(cat: Catalogue) -> None:
    """NM.EMERG.CAP: Japanese DD and CL carry 4, Allied DD 2; Allied CL none."""
    for c in cat.counters.values():
        if not isinstance(c, NavalCounter):
            continue
        want = {(J, UnitType.DD): 4, (J, UnitType.CL): 4, (A, UnitType.DD): 2}.get(
            (c.side, c.type), 0
        )
        assert c.emergency_capacity == want, c.key


def test_sub_gen_paper_submarines(cat: Catalogue) -> None:
    """SUB.GEN: MA 2, surface attack 6; SUB.B: no defense; only behind the option."""
    for uid in expand_ids("SUB-1..4"):
        s = naval(cat, J, uid)
        assert (s.movement, s.surface_attack, s.defense, s.optional) == (2, 6, 0, "subs")
    assert not cat.has(A, "SUB-1")  # the Allies have no submarines


def test_mini_midsim_move_full_speed_carriers_have_ma_6(cat: Catalogue) -> None:
    """MINI.MIDSIM.MOVE: 12 hexes at double speed (MOV.N) means MA 6."""
    for uid in ("CV-1", "CV-2", "CV-5", "CV-6", "BB-1"):
        assert naval(cat, J, uid).movement * 2 == 12


def test_data_cvnames_carrier_names(cat: Catalogue) -> None:
    allied = {"CV-5": "Yorktown", "CV-6": "Enterprise", "CV-8": "Hornet", "CV-2": "Lexington"}
    allied |= {"CV-3": "Saratoga", "CV-7": "Wasp", "CV-9": "Essex", "CV-16": "Cabot"}
    allied |= {"CVL-22": "Independence", "CVE-28": "Chenango", "CVE-27": "Suwanee"}
    allied |= {"CVE-1": "Long Island"}
    japanese = {"CV-1": "Akagi", "CV-2": "Kaga", "CV-3": "Zuikaku", "CV-4": "Shokaku"}
    japanese |= {"CV-5": "Hiryu", "CV-6": "Soryu", "CV-7": "Hiyo", "CV-8": "Junyo"}
    japanese |= {"CVL-1": "Ryujo", "CVL-2": "Shoho", "CVL-3": "Zuiho", "CVL-4": "Hosho"}
    for side, names in ((A, allied), (J, japanese)):
        for uid, name in names.items():
            assert naval(cat, side, uid).name == name


def test_unit_air_layout_japanese_lac_example(cat: Catalogue) -> None:
    """UNIT.AIR.LAYOUT: 15/3, 3 LAC, 42, 3/4 is three Japanese LAC points."""
    lac = cat.air_type(J, "LAC")
    assert (3 * lac.a2a_normal, 3 * (lac.a2a_extended or 0), 3 * lac.bombardment) == (15, 3, 42)
    assert (lac.range_normal, lac.range_extended) == (3, 4)


def test_seq_5f_3c_allied_lac_bomb_ships_at_eight_per_point(cat: Catalogue) -> None:
    assert cat.air_type(A, "LAC").bombardment_naval == 8
    assert cat.air_type(A, "LBAC").bombardment_naval == 1  # SEQ.5F.2c
    assert cat.air_type(A, "LBAC").range_extended is None  # MOV.V: LBAC never extend


def test_nacc_nac_values_agree_with_the_strength_charts() -> None:
    world = load_world(with_map=False)
    for side in (J, A):
        nac = world.catalogue.air_type(side, "NAC")
        chart = world.tables.nac_charts[side]
        for points in range(11):
            assert chart.bombardment_of(points) == points * nac.bombardment
            assert chart.a2a_of(points) == points * nac.a2a_normal
            assert chart.a2a_of(points, extended=True) == points * (nac.a2a_extended or 0)
        letters = [n for n in world.catalogue.nac.values() if n.side == side]
        assert [n.letter for n in letters] == list(chart.letters)
    assert len(world.tables.nac_charts[J].letters) == 19  # A-S
    assert len(world.tables.nac_charts[A].letters) == 24  # A-X


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("cv7", "CV-7"),
        ("CV 7", "CV-7"),
        ("Transport-1", "TR-1"),
        ("Oiler-2", "OIL-2"),
        ("Oil-2", "OIL-2"),
        ("Sub-Flot-1", "SUB-1"),
        ("CD-0116", "CD-116"),
        ("nac-c", "NAC-C"),
        ("DD-01", "DD-1"),
    ],
)
def test_canonical_id_accepts_what_players_type(text: str, canonical: str) -> None:
    assert canonical_id(text) == canonical


def test_unit_ids_are_typeable_unique_and_sided(cat: Catalogue) -> None:
    pattern = re.compile(r"^[A-Z]+-\d+$")
    for key, c in cat.counters.items():
        assert pattern.match(c.id), c.id
        assert split_key(key) == (c.side, c.id)
        assert canonical_id(c.id) == c.id
    # the same designation on both sides is two counters
    assert cat.get(J, "BB-3") != cat.get(A, "BB-3")
    with pytest.raises(KeyError):
        cat.get(A, "BB-9")


def test_expand_ids_ranges() -> None:
    assert expand_ids("DIV-1..3") == ["DIV-1", "DIV-2", "DIV-3"]
    assert expand_ids("tr2") == ["TR-2"]
    with pytest.raises(ValueError):
        expand_ids("DIV-3..1")


def test_reconstructed_values_say_why(cat: Catalogue) -> None:
    for c in cat.counters.values():
        p = c.provenance
        if p.src is Source.RECONSTRUCTED or Source.RECONSTRUCTED in p.fields.values():
            assert p.why.strip(), c.key


@given(
    prefix=st.sampled_from(["bb", "CV", "Cvl", "tr", "Transport", "oiler", "DIV", "Sub-Flot"]),
    number=st.integers(min_value=0, max_value=9999),
    sep=st.sampled_from(["-", "", " ", "- "]),
)
def test_canonical_id_is_idempotent(prefix: str, number: int, sep: str) -> None:
    once = canonical_id(f"{prefix}{sep}{number}")
    assert canonical_id(once) == once
    assert re.fullmatch(rf"[A-Z]+-{number}", once), once
