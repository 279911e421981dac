"""Scenario special rules and optional rules (MINI.*.SR, MINI.MIDSIM.*, CG1.*, CG2.*, OPT.GAR)."""

from __future__ import annotations

from dataclasses import replace

from pbem.rulesets.usn import scenario_rules, victory
from pbem.rulesets.usn.geo import world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.state import GameState

from .builders import AUS, Game, H, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
KEEP_OUT = {"keep_out_of_australia": {"rule": "MINI.SOLOMONS.SR", "hexes": 2}}


def test_mini_solomons_sr_japanese_ships_keep_two_hexes_from_australia() -> None:
    """MINI.SOLOMONS.SR (A24): a move into a hex two hexes from Australia is refused."""
    start = H(10, 14)
    path = " ".join(f"{H(10, r):04d}" for r in range(15, 19))  # to two hexes off AUS row 20
    s = make_state([ship(J, "CA-1", start, ma=5)], round=0, extra={"special": KEEP_OUT})
    v = Game(s, stub_geo()).validate(J, f"MOVE CA-1 {path}")
    assert v.errors and v.errors[0].rule == "MINI.SOLOMONS.SR"
    ok = " ".join(f"{H(10, r):04d}" for r in range(15, 18))  # row 17: three hexes off
    assert not Game(s, stub_geo()).validate(J, f"MOVE CA-1 {ok}").errors
    # Allied ships are not restricted.
    s2 = make_state([ship(A, "CA-1", start, ma=5)], round=1, extra={"special": KEEP_OUT})
    assert not Game(s2, stub_geo()).validate(A, f"MOVE CA-1 {path}").errors


def test_mini_midsim_keepout_until_the_strike() -> None:
    """MINI.MIDSIM.KEEPOUT: more than 5 hexes from Midway until the strike is flown."""
    target = AUS[0]
    sim = {"midway_simulation": {"strike_target": target, "keep_out_hexes": 5}}
    s = make_state([], extra={"special": sim})
    zones = scenario_rules.keep_out_zones(s, stub_geo(), J)
    assert zones and zones[0][1] == 5 and zones[0][2] == "MINI.MIDSIM.KEEPOUT"
    struck = replace(s, extra={**s.extra, "midway_struck": True})
    assert scenario_rules.keep_out_zones(struck, stub_geo(), J) == []


def _end_of_turn(before: GameState, after: GameState | None = None) -> GameState:
    b = replace(before, round=5)
    return scenario_rules.after_round(stub_geo(), b, after or replace(b, round=0, turn=b.turn + 1))


def test_cg1_hk_hong_kong_falls_on_turn_four() -> None:
    hk = 311
    sp = {"hong_kong": {"hex": hk, "falls_on_turn": 4, "rule": "CG1.HK"}}
    s = make_state([land(A, "BN-1", hk)], bases=[base(hk, A, air=5)], turn=3, extra={"special": sp})
    out = _end_of_turn(s)
    assert out.bases[hk].owner == J and out.unit(A, "BN-1") is None
    s2 = replace(s, turn=2)
    assert _end_of_turn(s2).bases[hk].owner == A


def test_cg2_midway_not_taken_by_t30_gives_allies_100() -> None:
    sp = {"midway_deadline": {"hex": 1218, "by_turn": 30, "allied_points": 100}}
    s = make_state([], bases=[base(1218, A, air=5)], turn=30, last_turn=40, extra={"special": sp})
    out = _end_of_turn(s)
    assert out.extra["scenario_awards"] == [[A, 100, "CG2.MIDWAY: Midway not taken by T30"]]
    v = victory.verdict(stub_geo(), replace(out, round=-1), {})
    assert v.scores[A] == 100
    held = replace(s, bases={1218: base(1218, J, air=5)})
    assert "scenario_awards" not in _end_of_turn(held).extra


def test_cg1_burma_commitment_missed_loses_the_game() -> None:
    """CG1.BURMA (A21): fewer than two divisions by T6: the Japanese lose."""
    sp = {"burma_commitment": {"divisions_by_turn": {"6": 2, "18": 4}}}
    s = make_state([land(J, "DIV-1", H(1, 2))], turn=6, last_turn=10, extra={"special": sp})
    out = _end_of_turn(s)
    assert out.extra["forfeit"][0] == J
    v = victory.verdict(stub_geo(), replace(out, round=-1), {})
    assert (v.winner, v.level) == (A, "Decisive")


def test_cg1_ausres_landing_in_australia_releases_divisions() -> None:
    """CG1.AUSRES: one division per supplied Allied naval base in Australia."""
    sp = {"australian_reserves": {"units": ["DIV-19..21"]}}
    s = make_state(
        [land(J, "RGT-1", AUS[0])],
        bases=[base(AUS[1], A), base(AUS[2], A)],
        extra={"special": sp},
    )
    out = scenario_rules.after_round(stub_geo(), s, s)
    arrivals = [(p.unit.uid, p.place) for p in out.pending if p.unit]
    assert arrivals == [("DIV-19", f"{AUS[1]}"), ("DIV-20", f"{AUS[2]}")]
    again = scenario_rules.after_round(stub_geo(), out, out)
    assert len(again.pending) == 2  # released once


def test_cg1_philfort_defenders_start_entrenched() -> None:
    """CG1.PHILFORT: Allied land units on 348 entrench without a roll (at set-up)."""
    sp = {"philippine_fortifications": {"hex": 348, "automatic_entrench": True}}
    s = make_state([land(A, "DIV-1", 348), land(J, "DIV-1", 348)], extra={"special": sp})
    out = scenario_rules.at_setup(s)
    assert out.unit(A, "DIV-1").entrenched and not out.unit(J, "DIV-1").entrenched  # type: ignore[union-attr]
    # The real Campaign Game 1 sets up through it without error.
    assert GameState.from_json(UsnRuleset().initial_state("campaign-1", {})).turn == 1


def test_opt_gar_end_ungarrisoned_area_scores_nothing() -> None:
    """OPT.GAR.END (A22: mandatory in CG1): Singapore held without its 6-12 scores 0."""
    geo = world_geo()
    s = make_state([land(J, "BDE-1", 116)], bases=[base(116, J)])
    s = replace(s, scenario="campaign-1", round=-1)
    denied = scenario_rules.ungarrisoned(geo, s)
    assert "0116" in denied[J]
    areas = [why for side, _p, why in victory.end_objectives(geo, s, {"geographic": True})]
    assert "Singapore" not in areas
    s2 = replace(s, units={**s.units, "japanese/RGT-1": land(J, "RGT-1", 116)})
    areas2 = [why for _s, _p, why in victory.end_objectives(geo, s2, {"geographic": True})]
    assert "Singapore" in areas2
