"""The air-naval combat values against the carrier battles of 1942 (7.8.1 Steps 5-7,
16.7, 16.8, 6.3): each shipped calibration case replayed on fixed seeds through the
naval strike the adjudication resolves (rulesets/witp/calibration.py), and the
small-strike bound (docs/witp-calibration.md). Reduced runs of 80 trials: a fitted
record must lie in the central 90 % (at least 5 % of the trials reach it from each
side), looser than the full run's central 80 % so that the test is stable, tight
enough that the old tables (Lexington almost never crippled, a carrier sunk
outright by ten APs one time in three) fail it."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from pbem.rulesets.witp import calibration
from pbem.rulesets.witp.datapack import parse_pack

TRIALS = 80
SEED = 1942
PACK = calibration.game_pack()


def _run(name: str, trials: int = TRIALS) -> calibration.Result:
    return calibration.run(calibration.load_case(name), trials, SEED, PACK)


def test_the_cases_are_the_five_battles_and_the_bounds_in_order() -> None:
    assert calibration.case_names() == [
        "coral-sea-7-may",
        "coral-sea-8-may",
        "midway-dive-bombers",
        "midway-hiryu",
        "eastern-solomons",
        "santa-cruz",
        "small-strike",
        "one-air-point",
    ]


def test_a_case_is_replayed_through_the_naval_strike_with_its_own_dice() -> None:
    case = calibration.load_case("coral-sea-7-may")
    start = calibration.state(case, PACK)
    one = calibration.trial(case, start, b"a" * 8, 0)
    assert one == calibration.trial(case, start, b"a" * 8, 0)  # deterministic
    many = {calibration.trial(case, start, b"a" * 8, i)["damage Shoho"] for i in range(12)}
    assert len(many) > 1  # each trial its own dice
    assert set(one) >= {"damage Shoho", "damage Shoho @1", "lost allied", "lost japanese"}


def _reached(o: calibration.Outcome) -> bool:
    """At least 5 % of the trials at or above the record's low end, and at or under
    its high end: the record within the central 90 %."""
    values, n = o.distribution.values, len(o.distribution.values)
    up = sum(v >= o.record.low for v in values) / n
    down = sum(v <= o.record.high for v in values) / n
    return up >= 0.05 and down >= 0.05


# The design bounds' cases have no history to fit.
BOUNDS = ("small-strike", "one-air-point")


@pytest.mark.parametrize("name", [n for n in calibration.case_names() if n not in BOUNDS])
def test_7_8_1_each_fitted_record_lies_within_its_distribution(name: str) -> None:
    result = _run(name)
    fitted = [o for o in result.outcomes if o.record.calibrated]
    assert fitted
    assert [o.record.key for o in fitted if not _reached(o)] == []


def test_7_8_1_a_lost_carrier_is_crippled_often_enough_not_sunk_by_one_strike() -> None:
    """Lexington, Kaga and Hornet each reach D4 or worse in more than one trial in
    twenty (one in ten on the full run), but none of them is sunk outright in one
    trial in ten."""
    for name, ship in (
        ("coral-sea-8-may", "Lexington"),
        ("midway-dive-bombers", "Kaga"),
        ("santa-cruz", "Hornet"),
    ):
        d = _run(name).metrics[f"damage {ship}"]
        assert d.share(4) > 0.05, (name, ship)
        assert d.share(5) < 0.1, (name, ship)


def test_42_4_3_planes_on_deck_lets_one_ap_wreck_akagi_as_one_bomb_did() -> None:
    """Best's section at Akagi plays Planes on Deck (the Allies' Magic): one SBD AP
    leaves her at D4 or sunk in more than one trial in ten, where the same strike
    without it does so rarely (the one-AP bound's critical hit)."""
    case = calibration.load_case("midway-dive-bombers")
    (akagi,) = [s for s in case.strikes if s.target == "TF2"]
    assert akagi.planes_on_deck == 1
    plain = dataclasses.replace(
        case, strikes=tuple(dataclasses.replace(s, planes_on_deck=None) for s in case.strikes)
    )
    with_magic = calibration.run(case, TRIALS, SEED, PACK).metrics["damage Akagi"]
    without = calibration.run(plain, TRIALS, SEED, PACK).metrics["damage Akagi"]
    assert with_magic.share(4) > 0.1 > without.share(4)
    fitted = [o for o in _run("midway-dive-bombers").outcomes if o.record.key == "damage Akagi"]
    assert [o.record.calibrated for o in fitted] == [True]


def test_16_7_the_small_strike_bound_ten_aps_rarely_sink_a_carrier() -> None:
    """A strike of ten APs, unopposed, sinks an undamaged fleet carrier outright in
    under 2 % of trials (the design bound; 400 trials for a share this small)."""
    result = _run("small-strike", 400)
    assert [(b.bound.metric, b.holds) for b in result.bounds] == [
        ("damage Yorktown", True),
        ("damage Shokaku", True),
    ]
    assert all(result.metrics[b.bound.metric].share(4) > 0.2 for b in result.bounds)  # crippled


def test_16_7_one_ap_cripples_a_carrier_only_by_a_critical_hit() -> None:
    """One AP (ten aircraft), unopposed, leaves an undamaged fleet carrier dead in the
    water or sunk in under 5 % of trials: a critical hit (a 12) alone does it."""
    result = _run("one-air-point", 400)
    assert [(b.bound.metric, b.holds) for b in result.bounds] == [
        ("damage Yorktown", True),
        ("damage Shokaku", True),
    ]
    assert all(result.metrics[b.bound.metric].share(4) > 0 for b in result.bounds)


OLD_TABLES = """
[tables.naval-crt]
value.columns = ["<1:1", "1:1", "2:1", "3:1", "4:1", "5:1+"]
value.results = [
  ["-", "-", "-", "-", "-", "D1"],
  ["-", "-", "-", "D1", "D1", "D2"],
  ["-", "D1", "D1", "D2", "D2", "D3"],
  ["D1", "D1", "D2", "D2", "D3", "D4"],
  ["D1", "D2", "D2", "D3", "D4", "S"],
  ["D2", "D2", "D3", "D4", "S", "S"],
]
[tables.critical-hit]
value = { at_least = 10, never = ["APA", "APB", "MSU", "MS"] }
"""


def test_16_7_the_old_fragile_tables_fail_the_bound_and_lexington() -> None:
    """The harness tells a table that breaks the calibration: the Naval CRT with S
    results and criticals on 10 (this pack's before) sink ten APs' target far too
    often, and Takahashi's strike almost never cripples Lexington."""
    old = calibration.game_pack([parse_pack(tomllib.loads(OLD_TABLES), "old", moderator=True)])
    bound = calibration.run(calibration.load_case("small-strike"), TRIALS, SEED, old)
    assert not any(b.holds for b in bound.bounds)
    exchange = calibration.run(calibration.load_case("coral-sea-8-may"), TRIALS, SEED, old)
    lexington = next(o for o in exchange.outcomes if o.record.key == "damage Lexington")
    assert not _reached(lexington)
