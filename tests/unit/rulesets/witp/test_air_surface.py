"""7.2-7.8 The Air/Surface display, 10.1 AA fire and 16.7 critical hits."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import ScriptedDice
from pbem.rulesets.witp.air import aa, attack, critical, display
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.datapack import StoredPack, public_pack
from pbem.rulesets.witp.taskforces import Ship

from .test_air_world import PUBLIC_PACK, kido_butai, ship

PUBLIC = {"pack": PUBLIC_PACK}
PACK = public_pack(PUBLIC)


def big_tf() -> list[Ship]:
    out = kido_butai()
    out += [ship(f"DD{i}", "DD", "ship-dd-ijn-fleet") for i in range(14)]
    out += [ship("Toho Maru", "AO", "ship-ao-ijn")]
    return [Ship.from_json(s) for s in out]


def ap(**fields: Any) -> FlyingElement:
    """APs in the air: an unmarked SBD-3 dive bomber at Low but for ``fields``."""
    return FlyingElement(**{"type": "SBD-3", "n": 1, "role": "D", "alt": "L", **fields})


def carrier(damage: int = 0) -> Ship:
    """Shokaku, at ``damage``."""
    return Ship.from_json(kido_butai(damage)[0])


def test_7_2_3_core_first_four_to_an_arc_then_inner_then_outer_evenly() -> None:
    pos = display.place(PACK, big_tf(), "general")
    rings = [p[0] for p in pos.values()]
    assert (rings.count("core"), rings.count("inner"), rings.count("outer")) == (4, 12, 4)
    outer = sorted(p[1] for p in pos.values() if p[0] == "outer")
    assert outer == [1, 2, 3, 4]  # 7.2.4: evenly, one an arc before a second


def test_7_3_2_general_priority_puts_carriers_then_capital_ships_in_the_core() -> None:
    pos = display.place(PACK, big_tf(), "general")
    core = sorted(n for n, p in pos.items() if p[0] == "core")
    assert core == ["Haguro", "Myoko", "Shokaku", "Zuikaku"]
    assert pos["Toho Maru"][0] == "inner"  # oilers before the destroyers (7.3.2)


def test_7_3_1_specific_priority_puts_every_ship_of_the_type_in_the_core() -> None:
    pos = display.place(PACK, big_tf(), "AO")
    assert pos["Toho Maru"] == ("core", 1)


def test_7_7_3_outer_arc_4_reaches_the_core_through_the_inner_arc_of_3_and_4() -> None:
    assert display.path(PACK, 4, "core") == [("outer", 4), ("inner", 2), ("core", 1)]
    assert display.path(PACK, 3, "inner") == [("outer", 3), ("inner", 2)]
    assert display.path(PACK, 6, "outer") == [("outer", 6)]


def test_10_1_1_a_specific_priority_targets_the_core() -> None:
    pos = display.place(PACK, big_tf(), "general")
    assert display.target_ring(pos, 1, PACK, "CV") == "core"
    assert display.target_ring(pos, 1, PACK, "general") == "core"


def test_7_7_4_only_ships_on_the_path_fire() -> None:
    pos = display.place(PACK, big_tf(), "general")
    arcs = display.path(PACK, 1, "core")
    firing = display.on_path(pos, arcs)
    assert len(firing) == 4 + 4 + 1  # core, inner arc 1, outer arc 1


def test_10_1_aa_matrix_and_damage_halving() -> None:
    cv = carrier()
    assert aa.ship_aa(PACK, cv, "L") == 6 and aa.ship_aa(PACK, cv, "H") == 4
    assert aa.ship_aa(PACK, carrier(2), "DB") == 3
    assert aa.strength(PACK, [cv, cv], "L", night=True) == 6  # 14.2.2: half


def test_10_1_1_combined_wave_with_a_low_component_shifts_1l() -> None:
    wave = [
        ap(type="SBD-3", n=3, role="D", aa_mode="DB"),
        ap(type="TBD-1", n=2, role="T", aa_mode="L"),
    ]
    cols, drm, why = aa.modifiers(PACK, wave, wave[:1], night=False, later_wave_after_inner=True)
    assert (cols, drm) == (-2, 0) and len(why) == 2


def test_10_1_1_a_combined_wave_at_least_half_elite_bombers_takes_the_elite_drm() -> None:
    wave = [
        ap(type="D3A1", n=2, role="D", aa_mode="DB", elite=True),
        ap(type="B5N2", n=2, role="T", aa_mode="L"),
        ap(type="A6M2", n=9, role="F", aa_mode="L", elite=True),
    ]
    cols, drm, why = aa.modifiers(PACK, wave, wave[:1], night=False, later_wave_after_inner=False)
    assert (cols, drm) == (-1, -1) and "elite" in why[-1]  # the fighters are not counted
    regulars = [replace(wave[0], n=1), replace(wave[1], n=3)]
    assert (
        aa.modifiers(PACK, regulars, regulars[1:], night=False, later_wave_after_inner=False)[1]
        == 0
    )  # one elite bomber in four: under half


def test_10_1_1_an_elite_wave_not_combined_takes_no_elite_drm() -> None:
    wave = [ap(type="D3A1", n=6, role="D", aa_mode="DB", elite=True)]
    assert aa.modifiers(PACK, wave, wave, night=False, later_wave_after_inner=False)[1] == 0


def test_10_1_1_a_single_elite_ap_under_fire_takes_minus_1() -> None:
    one = [ap(type="B5N2", n=1, role="T", aa_mode="L", elite=True)]
    cols, drm, why = aa.modifiers(PACK, one, one, night=False, later_wave_after_inner=False)
    assert (cols, drm) == (0, -1) and why == ["a single elite AP -1"]
    regular = [replace(one[0], elite=False)]
    assert aa.modifiers(PACK, regular, regular, night=False, later_wave_after_inner=False)[1] == 0


def test_10_1_1_a_first_wave_of_one_or_two_aps_takes_half_the_differential() -> None:
    assert aa.small_first_wave(ScriptedDice([6, 1]), "x") == ((6, 1), -2)


def test_10_1_aa_losses_are_taken_from_the_component_at_random() -> None:
    comp = [ap(type="SBD-3", n=3), ap(type="TBD-1", n=2)]
    res = aa.fire(PACK, 30, comp, 0, 0, ScriptedDice([6, 6] + [1] * 30), "x")
    assert sum(res.eliminated.values()) == 5  # "7/5": all five lost, none left to abort
    assert res.aborted == {}


def test_7_8_2_torpedo_and_dive_bombers_make_a_combined_attack() -> None:
    assert attack.combined([ap(role="T", n=1), ap(role="D", n=1)])
    assert not attack.combined([ap(role="T", n=2)])


def _with_start(start: str) -> StoredPack:
    return public_pack(
        {
            "pack": {
                **PUBLIC_PACK,
                "scenario/map-start": {
                    "value": start,
                    "provenance": "illustrative",
                    "source": "the test's",
                    "pack": "test",
                },
            }
        }
    )


def test_7_8_2_b_skip_bombing_b_25s_with_dive_bombers_from_march_1943() -> None:
    wave = [
        ap(type="B-25C", n=2, role="B", attack_alt="L"),
        ap(type="SBD-3", n=1, role="D", attack_alt="L"),
    ]
    assert attack.combined(wave, _with_start("mar1943"))
    assert not attack.combined(wave, _with_start("may1942"))  # before skip-bombing
    high = [replace(wave[0], attack_alt="M"), wave[1]]
    assert not attack.combined(high, _with_start("mar1943"))  # at low only
    alone = [wave[0]]
    assert not attack.combined(alone, _with_start("mar1943"))  # with D or FB only


def test_7_8_2_b_elite_g4ms_the_majority_of_the_low_level_bombers() -> None:
    public = _with_start("may1942")
    dive = ap(type="D3A1", n=1, role="D", attack_alt="L")
    best = ap(type="G4M1", n=2, role="B", attack_alt="L", elite=True)
    plain = ap(type="G4M1", n=2, role="B", attack_alt="L")
    assert attack.combined([best, dive], public)
    assert not attack.combined([best, plain, dive], public)  # half is not a majority
    assert attack.combined([best, replace(plain, n=1), dive], public)
    assert not attack.combined([plain, dive], public)


def test_7_8_1_step_4_attack_altitude_majority_ties_to_the_attacker() -> None:
    aps = [ap(n=2, attack_alt="L"), ap(n=2, attack_alt="H")]
    assert attack.attack_altitude(PACK, aps) == "L"
    assert attack.attack_altitude(PACK, [ap(n=3, attack_alt="H"), ap(n=1, attack_alt="L")]) == "H"


def test_7_8_1_a_combined_attack_on_a_carrier_from_step_2_to_7() -> None:
    cv = carrier()
    wave = [
        ap(type="SBD-3", n=4, role="D", range="normal", attack_alt="L"),
        ap(type="TBD-1", n=2, role="T", range="normal", attack_alt="L"),
    ]
    # anti-torpedo 2D6 (1, 3): 1 < rating 2, torpedo 6 - 3 = 3; total 16 + 3 = 19;
    # speed class 3 - 1 (combined) - 1 (no CAP) = 1; 1D6 6 -> x2.0 = 38 points;
    # defence 6: 5:1+; Naval CRT 1D6 3 -> D3.
    rec = attack.resolve(
        PACK, cv, wave, ScriptedDice([1, 3, 6, 3]), "x", is_combined=True, no_cap=True
    )
    assert rec.to_json()["anti_torpedo"] == {"dice": [1, 3], "rating": 2, "torpedo": 3}
    assert (rec.anti_ship, rec.speed_class, rec.damage_points) == (19, 1, 38)
    assert (rec.odds, rec.result, rec.damage) == ("5:1+", "D3", 3)


def test_7_8_1_torpedo_value_never_below_1() -> None:
    cv = carrier()
    wave = [ap(type="TBD-1", n=1, role="T", range="normal", attack_alt="L")]
    rec = attack.resolve(
        PACK, cv, wave, ScriptedDice([1, 6, 1, 1]), "x", is_combined=False, no_cap=False
    )
    assert rec.anti_torpedo is not None and rec.anti_torpedo.torpedo == 1


def test_7_6_2_waves_from_another_hex_combine_if_close_enough_or_on_the_roll() -> None:
    assert attack.may_combine(5, 4, None)
    assert not attack.may_combine(5, 8, 3)  # must exceed the difference of 3
    assert attack.may_combine(5, 8, 4)


def test_16_7_critical_hits_roll_again_and_only_doubles_are_told() -> None:
    rolls = critical.roll(PACK, carrier(1), ScriptedDice([6, 6, 6, 6, 5, 5]), "x")
    assert [r.critical for r in rolls] == [True, True, False]  # 12 or more (the pack's)
    assert rolls[-1].damage == 3
    assert [r.dice for r in critical.told_to_enemy(rolls)] == [(6, 6), (6, 6)]


def test_16_7_1_merchant_shipping_never_rolls() -> None:
    assert not critical.rolls_for(PACK, Ship("MSU"))
    assert critical.rolls_for(PACK, Ship("DD"))
