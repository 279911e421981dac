"""U.S.N. tables: every printed cell as the rulebook prints it, completed cells marked,
and the lookups (CRT1-5, NACC, VP, REIN.DATE)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pbem.rulesets.usn.loader import load_world
from pbem.rulesets.usn.tables import AirLoss, Damage, LandResult, UsnTables


@pytest.fixture(scope="module")
def t() -> UsnTables:
    return load_world(with_map=False).tables


def codes(row: tuple[LandResult, ...]) -> list[str]:
    return [r.value for r in row]


def test_crt1_printed_cells(t: UsnTables) -> None:
    assert codes(t.crt1.rows[0]) == [
        "Ax",
        "Ax",
        "Ax",
        "Ax",
        "D1",
        "D1",
        "D1",
        "D1",
        "D1",
        "D2",
        "D2",
    ]
    assert codes(t.crt1.rows[1])[:7] == ["Ax", "Ax", "Ax", "D1", "D1", "D1", "D1"]
    printed = {(1, c) for c in range(11)} | {(2, c) for c in range(7)}
    assert not printed & t.crt1.reconstructed
    assert len(t.crt1.reconstructed) == 66 - 18


def test_crt1_dx_exists_for_nm_bombland_and_am_bombland(t: UsnTables) -> None:
    """NM.BOMBLAND / AM.BOMBLAND apply only a DX result, so the table must hold one."""
    assert any(LandResult.DX in row for row in t.crt1.rows)


def test_crt1_cols_odds_rounded_down(t: UsnTables) -> None:
    """CBT.PROC: odds are rounded down; below 1-1 is the 1-2-or-less column."""
    assert t.crt1.column(1, 3) == 0
    assert t.crt1.column(2, 3) == 0
    assert t.crt1.column(15, 15) == 1
    assert t.crt1.column(29, 10) == 2
    assert t.crt1.column(200, 10) == 10
    assert t.crt1.column(Fraction(15, 2), 5) == 1  # halved strengths stay exact (A1)
    assert t.crt1.resolve(40, 10, 1) is LandResult.D1
    assert t.crt1.resolve(5, 10, 2) is LandResult.AX


def test_crt2_printed_row_one(t: UsnTables) -> None:
    row = t.crt2.rows[0]
    printed = [(1, 0), (1, 1), (2, 1), (2, 2), (2, 3), (4, 2), (3, 5), (5, 5), (6, 6)]
    printed += [(8, 8), (9, 9)]
    assert [(x.aborted, x.destroyed) for x in row[:11]] == printed
    assert not {(1, c) for c in range(11)} & t.crt2.reconstructed
    assert len(t.crt2.reconstructed) == 102 - 11


def test_crt2_cols_by_firing_strength(t: UsnTables) -> None:
    assert t.crt2.resolve(0, 1) == AirLoss(0, 0)  # nothing fires
    assert t.crt2.resolve(5, 1) == AirLoss(1, 0)
    assert t.crt2.resolve(6, 1) == AirLoss(1, 1)
    assert t.crt2.resolve(99, 1) == AirLoss(9, 9)
    assert t.crt2.column(250) == 16


def test_crt34_printed_cells(t: UsnTables) -> None:
    assert list(t.crt34.rows[0]) == [1, 1, 1, 2, 3, 5, 8, 8]
    assert list(t.crt34.rows[1]) == [0, 1, 1, 1, 2, 4, 7, 8]
    assert list(t.crt34.rows[2][:3]) == [0, 0, 1]
    assert len(t.crt34.reconstructed) == 48 - 19


def test_crt34_cols_crt3_bands_and_crt4_odds(t: UsnTables) -> None:
    """CRT34.COLS; A2 (below 1-1: no effect), A3 (above 8-1: 8-1), A4 (ratio floored)."""
    assert t.crt34.crt3_column(55, 10) == 0  # 5.5 -> 5 -> 1-1 to 5-1
    assert t.crt34.crt3_column(6, 1) == 1
    assert t.crt34.crt3_column(360, 10) == 7
    assert t.crt34.crt3_column(5, 10) is None
    assert t.crt34.crt4_column(1, 1) == 0
    assert t.crt34.crt4_column(90, 10) == 7
    assert t.crt34.damage_number(None, 1) == 0


def test_crt5_printed_cells(t: UsnTables) -> None:
    assert [str(d) for d in t.crt5.rows[0]] == ["10", "10", "15", "20", "30", "40", "X", "X"]
    assert [str(d) for d in t.crt5.rows[1]] == ["5", "10", "10", "15", "20", "30", "40", "X"]
    assert [str(d) for d in t.crt5.rows[2][:4]] == ["5", "5", "10", "12"]
    assert len(t.crt5.reconstructed) == 48 - 20
    assert t.crt5.damage(7, 1) == Damage(0, destroyed=True)
    assert t.crt5.damage(0, 1) == Damage(0)


def test_nm_bombbase_airloss_bands_occur_in_crt5(t: UsnTables) -> None:
    """The base air-loss schedule names results 25 and 35, so CRT5 must produce them."""
    weeks = {d.weeks for row in t.crt5.rows for d in row}
    assert {25, 35} <= weeks


def test_completed_cells_never_favour_a_higher_die_in_crt34_and_crt5(t: UsnTables) -> None:
    """In CRT3-5 the printed rows fall as the die rises; completed rows keep that order."""
    for col in range(8):
        nums = [t.crt34.rows[d][col] for d in range(6)]
        assert nums == sorted(nums, reverse=True)
        sev = [99 if t.crt5.rows[d][col].destroyed else t.crt5.rows[d][col].weeks for d in range(6)]
        assert sev == sorted(sev, reverse=True)


def test_nacc_printed_cells(t: UsnTables) -> None:
    j, a = t.nac_charts["japanese"], t.nac_charts["allied"]
    assert list(j.bombardment) == [7 * n for n in range(11)]
    assert list(a.bombardment) == [11 * n for n in range(11)]
    assert list(j.a2a_normal[:6]) == [0, 5, 10, 15, 20, 25]
    assert list(a.a2a_normal[:6]) == [0, 5, 10, 15, 20, 25]
    with pytest.raises(ValueError):
        j.bombardment_of(11)


def test_vp_levels(t: UsnTables) -> None:
    """VP.LEVELS; A18: a tie is a draw, a scoreless loser means Decisive."""
    assert t.victory_level(3, 2) == "Marginal"
    assert t.victory_level(2, 1) == "Provisional"
    assert t.victory_level(Fraction(299, 100), 1) == "Provisional"
    assert t.victory_level(3, 1) == "Strategic"
    assert t.victory_level(4, 1) == "Decisive"
    assert t.victory_level(5, 5) is None
    assert t.victory_level(10, 0) == "Decisive"


def test_vp_sched_specific_lines_replace_generic_ones(t: UsnTables) -> None:
    """VP.SCHED.*, A20."""

    def pts(receiver: str, category: str) -> Fraction:
        e = t.vp_entry(receiver, category)
        assert e is not None
        return e.points

    assert pts("japanese", "division") == 10
    assert pts("japanese", "marine_division") == 20
    assert pts("allied", "NAC") == 1
    assert pts("japanese", "NAC") == Fraction(1, 2)
    assert pts("allied", "LAC") == Fraction(1, 2)
    assert pts("japanese", "transport") == 10
    assert pts("allied", "transport") == 20
    assert pts("japanese", "assault_transport") == 20
    carrier = t.vp_entry("allied", "carrier")
    assert carrier is not None and (carrier.points, carrier.per) == (10, "air_capacity")


def test_vp_geo_table(t: UsnTables) -> None:
    by_area = {g.area: g for g in t.geographic}
    assert by_area["Philippines"].points == 100 and by_area["Philippines"].required
    assert by_area["Vogelkop"].hexes == (488, 521)
    assert by_area["Pearl Harbor"].hexes == (1456,) and not by_area["Pearl Harbor"].required
    assert sum(g.points for g in t.geographic) == 450
    assert by_area["Mandalay"].automatic_with == "burma_commitment"  # VP.GEO.MANDALAY
    assert not by_area["Any Naval Base in Australia"].allied_scores_built_bases  # ERR.VP.AUSBASES
    assert sum(1 for g in t.geographic if g.required) == 7


def test_rein_date_calendar_reproduces_every_printed_date(t: UsnTables) -> None:
    assert len(t.calendar.printed) == 11
    for turn, label in t.calendar.printed.items():
        assert t.calendar.label(turn) == label
    assert t.calendar.label(22) == "5/1"  # Coral Sea, 8 May 1942


def test_opt_avd_variable_deployment(t: UsnTables) -> None:
    vd = t.variable_deployment
    assert vd.hex == 1456
    assert vd.units_for(1) == vd.units_for(2) == ("CV-2", "CA-3", "DD-10")
    assert vd.units_for(4) == ("CV-6", "CA-2")
    assert set(vd.units_for(5)) == {"CV-2", "CA-3", "DD-10", "CV-6", "CA-2"}
    assert vd.units_for(6) == ()


def test_opt_avd_units_are_the_turn_2_pearl_harbor_arrivals() -> None:
    """C20: the variable deployment moves the T2 arrivals to the start (A44)."""
    w = load_world(with_map=False)
    t2 = {u for a in w.arrivals if a.turn == 2 and a.side == "allied" for u in a.units}
    for die in range(1, 7):
        units = w.tables.variable_deployment.units_for(die)
        assert set(units) <= t2
        assert all(w.catalogue.has("allied", u) for u in units)


def test_rpl_replacement_timings(t: UsnTables) -> None:
    by_rule = {r.rule: r for r in t.replacements}
    assert by_rule["RPL.ENG"].after == 5
    assert (by_rule["RPL.AT"].after, by_rule["RPL.AT"].damage_weeks) == (10, 20)
    assert (by_rule["RPL.TR"].after, by_rule["RPL.TR"].damage_weeks) == (4, 10)


def test_nm_trans_tptable_and_sup_g_endurance(t: UsnTables) -> None:
    assert t.transport_points[("both", "division")] == 12
    assert t.transport_points[("allied", "one LAC or NAC air point")] == 1
    assert t.emergency_capacity["japanese"]["CL"] == 4
    assert t.emergency_capacity["allied"]["DD"] == 2
    assert t.endurance_of("CA") == 3 and t.endurance_of("OIL") == 6  # SUP.G


def test_vp_sched_unit_values() -> None:
    """VP.SCHED.*: carriers 10 x capacity, warships 2 x printed defense, flat values."""
    w = load_world(with_map=False)
    t, cat = w.tables, w.catalogue
    assert t.unit_points("allied", cat.get("japanese", "CV-7")) == 50  # 5 air points
    assert t.unit_points("japanese", cat.get("allied", "DD-1")) == 8  # defense 4
    assert t.unit_points("allied", cat.get("japanese", "BB-3")) == 30  # printed defense 15
    assert t.unit_points("allied", cat.get("japanese", "TR-1")) == 20
    assert t.unit_points("japanese", cat.get("allied", "TR-1")) == 10
    assert t.unit_points("japanese", cat.get("allied", "AT-1")) == 20
    assert t.unit_points("japanese", cat.get("allied", "OIL-1")) == 10
    assert t.unit_points("japanese", cat.get("allied", "MAR-1")) == 20
    assert t.unit_points("japanese", cat.get("allied", "DIV-1")) == 10
    assert t.unit_points("allied", cat.get("japanese", "BDE-1")) == 5
    assert t.unit_points("allied", cat.get("japanese", "SNLF-1")) == 2
    assert t.unit_points("japanese", cat.get("allied", "BN-1")) == 1
    assert t.unit_points("japanese", cat.get("allied", "ARMY-1")) == 0  # ERR.VP.CHINESE
    assert t.air_points("japanese", "LBAC", 3) == 3
    assert t.air_points("allied", "NAC", 3) == 3


def test_vp_damage_the_rulebook_example() -> None:
    """VP.DAMAGE: a 10-capacity carrier (100 VP) damaged 40 weeks is worth 40."""
    t = load_world(with_map=False).tables
    assert t.damage_points(Fraction(100), 40) == 40
    assert t.damage_points(Fraction(1, 2), 10) == Fraction(1, 20)
