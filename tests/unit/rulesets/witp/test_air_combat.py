"""6.0 Air combat: routines A-E of 6.1.1, the bounce (6.2.1, 8.1.6), the
Air-to-Air CRT's strength points (6.3.1) and the fighter loss cap (6.3.2)."""

from __future__ import annotations

from pbem.core.dice import ScriptedDice
from pbem.rulesets.witp.air.combat import Attack, Bounce, Fight, Stack, bounce, resolve_level
from pbem.rulesets.witp.datapack import public_pack

from .test_air_world import PUBLIC_PACK

PUBLIC = public_pack({"pack": PUBLIC_PACK})
QUIET = [1] * 40  # every 2D6 a 2: no results, so every step is taken


def cap(n: int = 2) -> list[Stack]:
    return [Stack("A6M2", n, 5, 5, True)]


def sbds(n: int = 3) -> list[Stack]:
    return [Stack("SBD-3", n, 3, 2, False)]


def wildcats(n: int = 2) -> list[Stack]:
    return [Stack("F4F-3", n, 4, 4, True)]


def _order(fight: Fight) -> list[tuple[str, str]]:
    return [(s.attacker, s.defender) for s in fight.steps]


def test_6_1_1_a_cap_attacks_then_all_bombers_return_fire_together() -> None:
    bombers, c = sbds(), cap()
    # CAP: strength 10, 2 APs (row DRM -1), 2D6 9 -> 8: "2/5" -> 2 SBDs eliminated (2 pts
    # each), the third aborted; return fire from all 3 (9 strength) 2D6 12: "4/5": the 5
    # elimination points reach a Zero's 5 (one eliminated, within 6.3.2's three bombers
    # hit), the 4 abort points are less than a Zero's 5 (no effect).
    fight = resolve_level(PUBLIC, "M", c, [], [], bombers, ScriptedDice([4, 5, 6, 6]))
    assert fight.routine == "A"
    assert _order(fight) == [("cap", "bombers"), ("bombers", "cap")]
    assert (bombers[0].eliminated, bombers[0].aborted, bombers[0].surviving) == (2, 1, 0)
    assert fight.steps[1].aps == 3  # those just hit fire back too
    assert (c[0].eliminated, c[0].aborted) == (1, 0)


def test_6_3_1_a_result_below_every_defender_strength_has_no_effect() -> None:
    bombers = [Stack("B-17E", 2, 3, 3, False)]
    resolve_level(
        PUBLIC, "H", [Stack("P-39", 1, 1, 1, True)], [], [], bombers, ScriptedDice([6, 6, 1, 1])
    )
    assert (bombers[0].eliminated, bombers[0].aborted) == (0, 0)


def test_6_3_2_return_fire_eliminates_no_more_fighters_than_bombers_they_hit() -> None:
    weak = [Stack("P-39", 2, 1, 1, True)]
    # the CAP rolls 2 (nothing); the return fire rolls 12: "5/2" -> 2 eliminations
    # capped at 0 (no bomber hit), the 5 abort points abort both fighters.
    resolve_level(PUBLIC, "M", weak, [], [], sbds(), ScriptedDice([1, 1, 6, 6]))
    assert (weak[0].eliminated, weak[0].aborted) == (0, 2)


def test_6_1_1_b_close_escort_is_fought_first() -> None:
    fight = resolve_level(PUBLIC, "M", cap(), [], wildcats(), sbds(), ScriptedDice(QUIET))
    assert fight.routine == "B" and fight.bounce is None
    assert _order(fight) == [
        ("cap", "close escort"),
        ("close escort", "cap"),
        ("cap", "bombers"),
        ("bombers", "cap"),
    ]


def test_6_1_1_c_the_cap_with_the_bounce_goes_for_the_bombers_by_doctrine() -> None:
    fight = resolve_level(PUBLIC, "M", cap(), wildcats(), [], sbds(), ScriptedDice([1, *QUIET]))
    assert fight.routine == "C" and fight.bounce == Bounce(1, 0, "cap")
    assert _order(fight) == [
        ("cap", "bombers"),
        ("bombers", "cap"),
        ("cap", "loose escort"),
        ("loose escort", "cap"),
    ]


def test_6_1_1_c_escorts_first_when_the_defender_chooses() -> None:
    fight = resolve_level(
        PUBLIC,
        "M",
        cap(),
        wildcats(),
        [],
        sbds(),
        ScriptedDice([1, *QUIET]),
        cap_choice="escorts-first",
    )
    assert _order(fight)[:2] == [("cap", "loose escort"), ("loose escort", "cap")]


def test_6_1_1_d_the_loose_escort_with_the_bounce_attacks_twice() -> None:
    fight = resolve_level(PUBLIC, "M", cap(), wildcats(), [], sbds(), ScriptedDice([6, *QUIET]))
    assert fight.routine == "D"
    assert _order(fight) == [
        ("loose escort", "cap"),
        ("cap", "bombers"),
        ("bombers", "cap"),
        ("loose escort", "cap"),
    ]


def test_6_1_1_e_loose_and_close_escorts() -> None:
    fight = resolve_level(
        PUBLIC, "M", cap(), wildcats(1), wildcats(1), sbds(), ScriptedDice([2, *QUIET])
    )
    assert fight.routine == "E"
    assert _order(fight) == [
        ("cap", "loose escort"),
        ("loose escort", "cap"),
        ("cap", "bombers"),
        ("bombers", "cap"),
    ]
    fight = resolve_level(
        PUBLIC, "M", cap(), wildcats(1), wildcats(1), sbds(), ScriptedDice([5, *QUIET])
    )
    assert _order(fight) == [
        ("loose escort", "cap"),
        ("cap", "loose escort"),
        ("close escort", "cap"),
        ("cap", "bombers"),
        ("bombers", "cap"),
    ]


def test_6_2_1_8_1_6_admirals_bounce_bonuses_move_the_roll() -> None:
    assert bounce(PUBLIC, ScriptedDice([3]), "x")[2] == "cap"
    assert bounce(PUBLIC, ScriptedDice([3]), "x", striker_bonus=1)[2] == "escort"
    assert bounce(PUBLIC, ScriptedDice([4]), "x", cap_bonus=1)[2] == "cap"


def test_6_1_no_cap_at_a_level_no_combat() -> None:
    fight = resolve_level(PUBLIC, "L", [], [], [], sbds(), ScriptedDice([]))
    assert fight.routine == "none" and fight.steps == []


def test_6_1_1_the_fight_is_told_as_before_keys_in_order_optional_keys_when_set() -> None:
    bombers, c = sbds(), cap()
    fight = resolve_level(PUBLIC, "M", c, [], [], bombers, ScriptedDice([4, 5, 6, 6]))
    told = fight.steps[0].to_json()
    assert list(told) == [
        "strength",
        "aps",
        "roll",
        "aborted_points",
        "eliminated_points",
        "attacker",
        "defender",
        "eliminated",
        "aborted",
    ]  # no "drm": the AVG did not attack (6.2.3)
    assert told["eliminated"] == {"SBD-3": 2} and told["aborted"] == {"SBD-3": 1}
    assert Attack.from_json(told) == fight.steps[0]
    assert Bounce(None, 0, "cap", green=True).to_json() == {
        "roll": None,
        "drm": 0,
        "to": "cap",
        "green": True,
    }
    assert bombers[0].told().to_json() == {"type": "SBD-3", "n": 3, "eliminated": 2, "aborted": 1}
