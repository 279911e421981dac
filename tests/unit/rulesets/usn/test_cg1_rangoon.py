"""CG1.OB.A.OPT: the optional Burma regiment at Rangoon stays there until the Japanese
cross the border, refused by line like the other per-scenario round restrictions."""

from __future__ import annotations

from dataclasses import replace

from pbem.rulesets.usn import scenario_rules
from pbem.rulesets.usn.loader import load_world, world_geo
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.rulesets.usn.sequence import ROUNDS
from pbem.rulesets.usn.state import GameState

from .builders import Game

J, A = "japanese", "allied"
RANGOON = 44


def _turn2_allied_land_round() -> tuple[UsnRuleset, GameState]:
    rs = UsnRuleset(load_world(), world_geo())
    s = GameState.from_json(rs.initial_state("campaign-1", {"burma": True}))
    a34 = next(i for i, r in enumerate(ROUNDS) if r.key == "A-3-4")
    return rs, replace(s, turn=2, round=a34)


def test_cg1_ob_a_opt_rangoon_regiment_remains_until_the_border_is_crossed() -> None:
    """CG1.OB.A.OPT: "Three 8-15 Regiments-Burma 76 (One must be deployed in Rangoon
    (44), and remain there until the border is crossed by Japanese units.)" RGT-18's
    move out of Rangoon is refused by line and rule while no Japanese land unit has
    entered Burma; the other regiments move freely; once a Japanese land unit stands in
    Burma the hold ends for good (it stays ended if they leave again)."""
    rs, s = _turn2_allied_land_round()
    assert s.unit(A, "RGT-18").hex == RANGOON
    g = Game(s, geo=rs.geo)
    v = g.validate(A, "MOVE RGT-18 0043")
    assert [(e.line, e.rule) for e in v.errors] == [(1, "CG1.OB.A.OPT")]
    assert "must remain in 0044" in v.errors[0].message
    assert all(e.rule != "CG1.OB.A.OPT" for e in g.validate(A, "MOVE RGT-19 0043").errors)

    invader = replace(s.unit(J, "DIV-1"), hex=45)  # a Japanese division in Burma
    crossed = replace(s, units={**s.units, invader.key: invader})
    after = scenario_rules.after_round(rs.geo, s, crossed)
    assert after.extra.get("rangoon_released") is True
    assert Game(after, geo=rs.geo).validate(A, "MOVE RGT-18 0043").errors == ()
    left = replace(after, units=s.units)  # the division gone again: still released
    assert scenario_rules.must_stay(rs.geo, left, A) == []
    assert scenario_rules.must_stay(rs.geo, s, A) == [("RGT-18", RANGOON, "CG1.OB.A.OPT")]


def test_cg1_ob_a_opt_no_hold_without_the_burma_option() -> None:
    """CG1.OB.A.OPT binds the optional forces only: without the Burma option RGT-18 is
    not set up and nothing is held."""
    rs = UsnRuleset(load_world(), world_geo())
    s = GameState.from_json(rs.initial_state("campaign-1", {}))
    assert scenario_rules.must_stay(rs.geo, s, A) == []
