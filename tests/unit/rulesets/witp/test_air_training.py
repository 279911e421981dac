"""58.2.1, 6.3.1 Training levels in air combat and attacks: green APs (R132)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import attack, plot, training
from pbem.rulesets.witp.air.combat import Bounce, Stack, resolve_level
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.air.ships import holdings
from pbem.rulesets.witp.datapack import PackItem, Provenance, public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PRIVATE
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.taskforces import Ship, embarked

from .strikeworld import opened, report, resolved, strike_section
from .test_air_world import PUBLIC_PACK, in_tf, knowing, resolve_stored, told, world

PUBLIC = public_pack({"pack": PUBLIC_PACK})
TIME = "T1/air1/strike"
STRIKE = "STRIKE S1 FROM TF2 4xSBD-3/D 2xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3@M LOOSE"


def _run(s: dict[str, Any], seed: int) -> tuple[dict[str, Any], list[Any]]:
    p, errors = plot.judge(knowing(s, ALLIED), ALLIED, STRIKE)
    assert errors == []
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    secret = SecretDice(bytes([seed + 1]) * 12, "secret")
    return resolve_stored(s, p.air_strikes["S1"], dice, secret, TIME)


def _green(s: dict[str, Any], side: str, tf: str, **counts: int) -> None:
    """Each carrier of ``tf`` with ``counts`` green APs by type (up to what it has)."""
    for ship in in_tf(s, side, tf):
        if ship.get("air"):
            ship["green"] = {t.replace("_", "-"): n for t, n in counts.items()}


def test_58_2_1_green_strengths_are_halved_rounded_up() -> None:
    assert training.air_combat(5, bomber=False) == 3  # a fighter: 5 -> 3
    assert training.air_combat(3, bomber=True) == 2  # a bomber: not below 2
    assert training.air_combat(2, bomber=True) == 2 and training.air_combat(1, bomber=True) == 1
    assert training.return_fire(3) == 2 and training.return_fire(1) == 1  # not below 1
    sbd = FlyingElement("SBD-3", 3, "D", "M", range="normal")
    trained = attack.anti_ship(PUBLIC, [sbd])
    assert attack.anti_ship(PUBLIC, [replace(sbd, green=True)]) == (trained + 1) // 2


def test_6_3_1_air_combat_losses_fall_on_the_green_first() -> None:
    def fight(green: bool) -> tuple[Stack, Stack]:
        b17 = Stack("B-17E", 2, 3, 3, False)
        sbd = Stack("SBD-3", 2, 3, 2, False, green=green)
        cap = [Stack("A6M2", 2, 5, 5, True)]
        resolve_level(PUBLIC, "M", cap, [], [], [b17, sbd], ScriptedDice([5, 5, 1, 1]))
        return b17, sbd

    # 2D6 10 -> 9 (2 APs, DRM -1) on the 10-14 column: "3/6"
    b17, sbd = fight(False)  # R96: the strongest the points reach, the B-17s, first
    assert b17.eliminated == 2 and sbd.eliminated == 0
    b17, sbd = fight(True)
    assert sbd.eliminated == 2 and b17.eliminated == 0  # both greens before a trained AP
    assert b17.aborted == 1  # the aborts fall on the trained once no green is left


def test_58_2_1_a_strike_with_green_fighters_never_receives_the_bounce() -> None:
    dice = ScriptedDice([1] * 40)
    loose = [Stack("F4F-3", 2, 4, 4, True, green=True)]
    got = resolve_level(
        PUBLIC, "M", [Stack("A6M2", 2, 5, 5, True)], loose, [], [], dice, green_strike=True
    )
    assert got.bounce == Bounce(None, 0, "cap", green=True)
    assert got.routine == "C" and (got.steps[0].attacker, got.steps[0].defender) == (
        "cap",
        "loose escort",
    )
    assert not any(p.startswith("bounce") for _, p in dice.rolls)  # not rolled


def test_58_2_1_a_part_flies_its_trained_aps_first_then_its_green() -> None:
    s = world()
    _green(s, ALLIED, "TF2", SBD_3=2)  # Yorktown and Lexington: 3 SBDs each, 2 green
    holders = holdings(knowing(s, ALLIED), ALLIED, "TF2")
    got = training.split(holders, [FlyingElement("SBD-3", 5, "D", "M")])
    assert [(e.n, e.green) for e in got] == [(2, False), (3, True)]
    assert training.held(holders, "SBD-3") == 4 and training.trained(holders, "SBD-3") == 2


def test_58_2_1_green_aps_fight_halved_and_their_losses_leave_the_green_count() -> None:
    seen = False
    for seed in range(12):
        s = world()
        _green(s, ALLIED, "TF2", SBD_3=3, F4F_3=2)  # every SBD and F4F green
        st, _ = _run(s, seed)
        for f in told(st, JAPANESE, "air-combat"):
            mine = [b for b in f["bombers"] + f["escorts"] if b["type"] != "TBD-1"]
            assert all(b.get("green") for b in mine)
            assert f["bounce"] is None or f["bounce"]["to"] == "cap"  # 58.2.1
            seen = True
        carried = in_tf(st, ALLIED, "TF2")
        for ship in carried:
            if ship.get("air"):
                assert ship["green"]["SBD-3"] <= ship["air"]["SBD-3"]
        assert training.held(holdings(knowing(st, ALLIED), ALLIED, "TF2"), "SBD-3") == sum(
            x["air"]["SBD-3"] for x in carried if x.get("air")
        )
    assert seen


def test_58_2_1_green_cap_is_marked_and_meets_a_green_strike_on_a_rolled_bounce() -> None:
    rolled = False
    for seed in range(12):
        s = world()
        _green(s, ALLIED, "TF2", F4F_3=2)
        _green(s, JAPANESE, "TF1", A6M2=2)  # 4 Zeros, 2 on each carrier: all green
        st, _ = _run(s, seed)
        for f in told(st, ALLIED, "air-combat"):
            assert all(c.get("green") for c in f["cap"])
            rolled |= bool(f["bounce"] and f["bounce"]["roll"])
    assert rolled  # both sides' fighters green: the bounce is rolled as usual


def test_58_1_a_scenario_green_item_sets_a_carriers_green_aps() -> None:
    forces = {
        "tf17-air": PackItem({"Yorktown": {"SBD-3": 6}}, Provenance.ILLUSTRATIVE, "test", "t"),
        "tf17-green": PackItem({"Yorktown": {"SBD-3": 2}}, Provenance.ILLUSTRATIVE, "test", "t"),
    }
    yorktown = embarked(forces, {"Yorktown": Ship("CV")})["Yorktown"]
    assert yorktown.air == {"SBD-3": 6} and yorktown.green == {"SBD-3": 2}


def test_58_2_1_the_reports_mark_green_aps_in_the_air_combat(witp: WitpRuleset) -> None:
    base = opened(witp, 6)
    base[PRIVATE][ALLIED]["ships"]["Yorktown"]["green"] = {"SBD-3": 6}
    for seed in range(12):
        st, events = resolved(base, seed)
        if told(st, ALLIED, "air-combat"):
            break
    for side in (ALLIED, JAPANESE):
        text = strike_section(report(witp, st, events, side)[1])
        assert "SBD-3 (green)" in " ".join(text.split())
        plain = strike_section(report(witp, st, events, side)[0])  # a strike a line
        assert plain and max(len(line) for line in plain.splitlines()) <= 72
