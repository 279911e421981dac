"""Stage-2 tables and small rules, by rule number, on the rulebook's worked examples
where it has them (9.0, 8.1.4, 5.2.1, 7.8.1, 12.3.1, 14.2.3)."""

from __future__ import annotations

from pbem.core.dice import ScriptedDice
from pbem.rulesets.witp.air import altitude, availability, coordination, sequencing, torpedo
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.tables import PBY_NIGHT, damage_points, naval_crt, odds_column, value
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.taskforces import Ship

from .test_air_world import PUBLIC_PACK, kido_butai

PUBLIC = {"pack": PUBLIC_PACK}
PACK = public_pack(PUBLIC)


def test_9_0_emergency_naval_cover_at_25_mp_is_61_plus_with_minus_1() -> None:
    # 9.0's example: 25 MP with the 4R of emergency Naval Cover rolls on 61+ with -1;
    # 24 MP on the same column without it.
    at_24 = availability.percent(PACK, 24, "emergency-naval-cover", 8)
    at_25 = availability.percent(PACK, 25, "emergency-naval-cover", 8)
    at_61 = availability.percent(PACK, 61, "plotted-cover", 8)
    at_61_minus_1 = availability.percent(PACK, 61, "plotted-cover", 7)
    assert at_24 == at_61 and at_25 == at_61_minus_1


def test_9_0_plotted_naval_cover_shifts_two_columns_right() -> None:
    assert availability.percent(PACK, 0, "plotted-naval-cover", 7) == availability.percent(
        PACK, 13, "plotted-cover", 7
    )


def test_9_0_available_aps_round_to_nearest_half_up() -> None:
    n, roll, pct = availability.available(PACK, 5, 20, "plotted-cover", ScriptedDice([3, 4]), "x")
    assert (roll, pct) == (7, 76) and n == 4  # 3.8 -> 4


def test_8_1_4_nagumo_air_rating_7_with_8_carrier_points_needs_63() -> None:
    assert coordination.first_check_number(PACK, 7, 8) == 63
    four_cvs = kido_butai()[:2] * 2
    assert coordination.carrier_points(PACK, [Ship.from_json(s) for s in four_cvs]) == 8


def test_8_1_4_spruance_rolls_12_on_the_second_check_30_percent_asterisked() -> None:
    assert coordination.second_check(PACK, 7, 12) == (30, True)
    # the worked example: first check fails (2D10 = 99), second 12, element DR 2:
    # the fighters are cut, 30% of 6 is 1.8, rounded up to 2.
    dice = ScriptedDice([2, 4, 2, 4, 6, 6, 2])  # 2D10 "00" = 100 (each 1D10 from two 1D6)
    r = Ratings("Spruance", 7, 7)
    ships = kido_butai()[:2] + kido_butai()[:1]
    launched = coordination.launch(PACK, [Ship.from_json(s) for s in ships], r, 6, 15, dice, "cc")
    assert launched.first > launched.needed
    assert (launched.second, launched.percent, launched.asterisk) == (12, 30, True)
    assert (launched.cut, launched.fighters, launched.bombers) == ("fighters", 2, 15)


def test_8_1_4_first_check_passed_launches_everything() -> None:
    dice = ScriptedDice([1, 1, 1, 1])  # 2D10 = 11
    launched = coordination.launch(
        PACK, [Ship.from_json(s) for s in kido_butai()[:2]], Ratings("x", 7, 7), 3, 6, dice, "cc"
    )
    assert launched.first <= launched.needed and (launched.fighters, launched.bombers) == (3, 6)


def test_8_1_2_command_level_drm() -> None:
    assert coordination.command_drm(8, 9.5) == -2  # a full point and a fraction over
    assert coordination.command_drm(10, 7.5) == 2  # fractions dropped
    assert coordination.command_drm(3, 20) == -5


def test_8_8_leaderless_tf_rolls_1d6_for_its_air_rating() -> None:
    r = coordination.rate(PACK, None, ScriptedDice([4]), "x")
    assert (r.admiral, r.air) == ("", 4)


def test_8_1_admiral_ratings_from_his_chart() -> None:
    r = coordination.rate(PACK, "R.Adm. Fletcher", ScriptedDice([5, 6]), "x")
    assert (r.air, r.bounce, r.drm) == (7, 1, 1)


def test_5_2_1_a_4l_fighter_is_3_at_medium_and_2_at_high() -> None:
    assert altitude.fighter_strength(PACK, 4, "L", "M") == 3
    assert altitude.fighter_strength(PACK, 4, "L", "H") == 2
    assert altitude.fighter_strength(PACK, 4, "H", "M") == 4  # one below: none lost
    assert altitude.fighter_strength(PACK, 4, "H", "L") == 3  # two below: -1
    assert altitude.fighter_strength(PACK, 4, None, "H") == 4


def test_5_2_2_bombers_lose_1_a_level_off_never_below_1_unless_elite() -> None:
    assert altitude.bomber_strength(PACK, 2, "M", "H") == 1
    assert altitude.bomber_strength(PACK, 1, "H", "L") == 1
    assert altitude.bomber_strength(PACK, 2, "H", "L", elite=True) == 2


def test_5_2_3_a_1l_fighter_may_operate_only_at_low() -> None:
    assert altitude.may_fly(PACK, 1, "L", "L")
    assert not altitude.may_fly(PACK, 1, "L", "M")


def test_7_1_b_approach_modes_and_attack_altitudes() -> None:
    assert altitude.approach("T", "M", "H") == "L"
    assert altitude.approach("D", "M", None) == "M"
    assert altitude.aa_mode("D", "M") == "DB" and altitude.attack_altitude("D", "M") == "L"
    assert altitude.attack_altitude("B", "H") == "H"


def test_7_8_1_step_6_29_damage_points_against_defence_6_is_4_to_1() -> None:
    col = odds_column(29, 6)
    assert value(PACK, "tables/naval-crt")["columns"][col] == "4:1"
    assert naval_crt(PACK, col, 6) == "D4"  # one attack cripples at most (calibrated)


def test_7_8_1_step_5_damage_points_fall_with_speed_class() -> None:
    assert damage_points(PACK, 10, 0, 6) > damage_points(PACK, 10, 3, 6)


def test_12_3_1_each_multiple_of_2_in_air_ratings_is_a_drm_of_1() -> None:
    assert sequencing.air_rating_drm(PACK, 7, 4) == -1  # 3 -> one multiple, favours the striker
    assert sequencing.air_rating_drm(PACK, 3, 7) == 2
    assert sequencing.air_rating_drm(PACK, 5, 5) == 0


def test_12_2_simultaneous_and_after_count_as_launched() -> None:
    assert sequencing.result(PACK, 1) == sequencing.BEFORE
    assert sequencing.result(PACK, 3) == sequencing.SIMULTANEOUS
    assert sequencing.result(PACK, 6) == sequencing.AFTER
    roll, drm, res = sequencing.sequence(
        PACK, ScriptedDice([3]), "x", striker_air=7, target_air=3, unlocated_carriers=True
    )
    assert (roll, drm, res) == (3, -3, sequencing.BEFORE)


def test_14_2_3_pby_night_contact_table_is_the_printed_one() -> None:
    t = value(PACK, PBY_NIGHT)
    assert (t["destroyed_at_most"], t["no_contact_at_most"], t["near_mp"], t["near_drm"]) == (
        1,
        3,
        25,
        1,
    )


def test_7_10_1_torpedo_arming_is_d10_times_10_percent_rounded() -> None:
    # 1D10 from pairs of 1D6 (draws.d10): (1,1) -> 1, so 10% of 7 = 0.7 -> 1
    n, roll, drm = torpedo.armed(PACK, 7, ScriptedDice([1, 1]), "x")
    assert (n, roll, drm) == (1, 1, 0)
    n, _roll, drm = torpedo.armed(PACK, 7, ScriptedDice([1, 1]), "x", ("elite_majority",))
    assert (n, drm) == (1, 1)  # 20% of 7 = 1.4 -> 1


def test_9_2_plotted_naval_cover_2r_and_emergency_4r() -> None:
    # 24 MP is column 13-24; 2R -> 37-48 (58% at 8), 4R -> 61+ (34% at 8)
    plotted = availability.available(PACK, 3, 24, "plotted-naval-cover", ScriptedDice([4, 4]), "x")
    emergency = availability.available(
        PACK, 2, 24, "emergency-naval-cover", ScriptedDice([4, 4]), "x"
    )
    assert plotted == (2, 8, 58) and emergency == (1, 8, 34)
