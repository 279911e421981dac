"""8.1.2 Command Level (R128): the admiral's combat ratings roll takes -1 for each
full point (a fraction after the first counting whole) his TF's activation points
exceed his Cmd, +1 for each full point below it (fractions dropped), at most 5 either
way; the Cmd values are the pack's, illustrative."""

from __future__ import annotations

import copy

from pbem.core.dice import ScriptedDice
from pbem.core.sides import ALLIED
from pbem.rulesets.witp.air import admirals
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC
from pbem.rulesets.witp.known import Knowledge
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.work import Work

from .strikeworld import opened


def test_8_1_2_over_the_command_level_a_full_point_and_each_fraction_after_it() -> None:
    assert admirals.command_drm(8, 8.5) == 0  # less than a full point over: none
    assert admirals.command_drm(8, 9) == -1
    assert admirals.command_drm(8, 9.5) == -2  # the fraction after the first point
    assert admirals.command_drm(8, 20) == -5  # at most -5


def test_8_1_2_under_the_command_level_full_points_fractions_dropped() -> None:
    assert admirals.command_drm(8, 7.5) == 0
    assert admirals.command_drm(8, 6.5) == 1
    assert admirals.command_drm(8, 6) == 2
    assert admirals.command_drm(8, 0) == 5  # at most +5
    assert admirals.command_drm(None, 30) == 0  # no Cmd on the chart


def test_8_1_2_fletchers_tf_under_his_command_level_rolls_plus_one(witp: WitpRuleset) -> None:
    """TF3 (Yorktown, three CAs, two DDs) costs 6 activation points; the pack's
    Fletcher commands 7: +1 on his 2D6, told to the Allies with his ratings."""
    state = copy.deepcopy(opened(witp))
    pack = public_pack(state[PUBLIC])
    assert admirals.commander(pack, Knowledge.of(state, ALLIED), ALLIED, "TF3") == "R.Adm. Fletcher"
    assert admirals.tf_cost(pack, Knowledge.of(state, ALLIED), ALLIED, "TF3") == 6.0
    work = Work.begin(state)
    r, events = admirals.ratings(work, ALLIED, "TF3", ScriptedDice([3, 3]), "T1/air1/strike")
    assert r is not None and r.roll == 7  # 3 + 3 + 1
    told = work.finish().disclosures
    (fact,) = [d.fact for d in told if d.fact.kind == "admiral-ratings"]
    assert (fact.command_level, fact.command_drm) == (7, 1)
    assert events


def test_8_1_2_ships_sunk_leave_the_tfs_cost(witp: WitpRuleset) -> None:
    state = copy.deepcopy(opened(witp))
    own = state[PRIVATE][ALLIED]
    for name in own["tfs"]["TF3"]["ships"][-2:]:
        own["ships"][name]["damage"] = 5
    assert (
        admirals.tf_cost(public_pack(state[PUBLIC]), Knowledge.of(state, ALLIED), ALLIED, "TF3")
        < 6.0
    )
