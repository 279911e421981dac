"""10.1.2, 38.3.1 Ships in port under air attack: the port's AA, torpedoes at half
strength, and the In-Port Surprise roll (R131)."""

from __future__ import annotations

from typing import Any

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import attack, plot, port
from pbem.rulesets.witp.air.flying import FlyingElement
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import DISCLOSURES, PRIVATE
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.taskforces import Ship

from .strikeworld import opened, report, resolved, strike_section
from .test_air_world import PUBLIC_PACK, knowing, resolve_stored, told, world

TIME = "T1/air1/strike"
PUBLIC = public_pack({"pack": PUBLIC_PACK})
STRIKE = "STRIKE S1 FROM TF2 4xSBD-3/D 2xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3@M CLOSE"
SHOKAKU = Ship("CV", "ship-cv-shokaku", name="Shokaku")
KATES = [FlyingElement("B5N2", 3, "T", "L", attack_alt="L", range="normal")]


def _run(s: dict[str, Any], seed: int) -> tuple[dict[str, Any], list[Any]]:
    p, errors = plot.judge(knowing(s, ALLIED), ALLIED, STRIKE)
    assert errors == []
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    secret = SecretDice(bytes([seed + 1]) * 12, "secret")
    return resolve_stored(s, p.air_strikes["S1"], dice, secret, TIME)


def _in_port(located: tuple[str, ...] = ("japanese:TF1",)) -> dict[str, Any]:
    s = world(located=located)
    s[PRIVATE][JAPANESE]["tfs"]["TF1"]["in_port"] = "Rabaul"  # a minor port: AA 3
    return s


def test_10_1_2_the_ports_aa_is_added_to_the_ships_aa() -> None:
    assert port.port_aa(PUBLIC, "Rabaul") == 3 and port.port_aa(PUBLIC, "Brisbane") == 6
    assert port.port_aa(PUBLIC, "Nowhere") == 1  # not in the table: an anchorage
    fired = 0
    for seed in range(6):
        (sea, _), (moored, _) = _run(world(), seed), _run(_in_port(), seed)
        first = [
            [f["aa"] for f in told(x, JAPANESE, "aa-fire") if f["wave"] == 1] for x in (sea, moored)
        ]
        assert [aa + 3 for aa in first[0]] == first[1]  # each component
        fired += len(first[0])
    assert fired


def test_38_3_1_torpedo_aps_attack_ships_in_port_at_half_strength_rounded_down() -> None:
    at_sea = attack.resolve(
        PUBLIC,
        SHOKAKU,
        KATES,
        ScriptedDice([6, 1, 3, 3]),
        "a",
        is_combined=False,
        no_cap=False,
    )
    moored = attack.resolve(
        PUBLIC,
        SHOKAKU,
        KATES,
        ScriptedDice([6, 1, 3, 3]),
        "a",
        is_combined=False,
        no_cap=False,
        in_port=True,
    )
    assert at_sea.anti_ship == 15 and moored.anti_ship == 7  # 3 Kates x T 5, halved down


def test_38_3_1_the_in_port_surprise_attack_table_and_its_drms() -> None:
    def reduction(roll: int, wave: int, located: bool) -> int:
        got = port.surprise(PUBLIC, ScriptedDice([roll]), wave, located, "s")
        return got.reduction

    assert [reduction(r, 0, False) for r in range(1, 7)] == [0, 0, 1, 1, 2, 2]
    assert reduction(5, 1, False) == 1  # -1 for the second wave
    assert reduction(6, 2, False) == 1  # -2 for the third
    assert reduction(6, 0, True) == 1  # -2: the launching carrier TF is Located
    assert reduction(4, 1, True) == 0


def test_38_3_1_surprise_lowers_the_speed_class_of_the_ship_attacked() -> None:
    plain = attack.resolve(
        PUBLIC,
        SHOKAKU,
        KATES,
        ScriptedDice([6, 1, 3, 3]),
        "a",
        is_combined=False,
        no_cap=False,
    )
    surprised = attack.resolve(
        PUBLIC,
        SHOKAKU,
        KATES,
        ScriptedDice([6, 1, 3, 3]),
        "a",
        is_combined=False,
        no_cap=False,
        surprise=2,
    )
    assert plain.speed_class == 3 and surprised.speed_class == 1


def test_38_3_1_each_wave_rolls_for_surprise_told_to_both_and_applied() -> None:
    rolled = 0
    for seed in range(10):
        st, _ = _run(_in_port(located=("japanese:TF1", "allied:TF2")), seed)
        (moored,) = told(st, ALLIED, "ships-in-port")
        assert moored == told(st, JAPANESE, "ships-in-port")[0]
        assert moored["port"] == "Rabaul" and moored["port_aa"] == 3
        waves = {f["wave"]: f for f in told(st, JAPANESE, "in-port-surprise")}
        assert waves == {f["wave"]: f for f in told(st, ALLIED, "in-port-surprise")}
        for w, f in waves.items():
            assert f["drm"] == -(w - 1) - 2  # successive waves; Yorktown's TF2 Located
        for a in told(st, JAPANESE, "air-surface-attack"):
            assert a["surprise"] == waves[a["wave"]]["reduction"]
            rolled += 1
    assert rolled


def test_38_3_1_no_port_no_surprise_roll_and_the_rule_on_each_fact() -> None:
    st, _ = _run(world(), 3)
    assert told(st, ALLIED, "in-port-surprise") == [] and told(st, ALLIED, "ships-in-port") == []
    st, _ = _run(_in_port(), 3)
    rules = {d["fact"]["kind"]: d["rule"] for d in st[DISCLOSURES]}
    assert rules["ships-in-port"] == rules["in-port-surprise"] == "38.3.1"
    assert all(f["drm"] == -(f["wave"] - 1) for f in told(st, ALLIED, "in-port-surprise"))


def test_38_3_1_both_reports_tell_the_port_and_each_surprise_roll(witp: WitpRuleset) -> None:
    base = opened(witp, 6)
    base[PRIVATE][JAPANESE]["tfs"]["TF2"]["in_port"] = "Rabaul"
    st, events = resolved(base, 3)
    assert told(st, ALLIED, "in-port-surprise")
    for side in (ALLIED, JAPANESE):
        text = strike_section(report(witp, st, events, side)[1])
        flat = " ".join(text.split())
        assert "in port at Rabaul: the port's AA 3 fires too" in flat
        assert "Wave 1 in-port surprise: 1D6" in flat
        plain = strike_section(report(witp, st, events, side)[0])  # a strike a line
        assert plain and max(len(line) for line in plain.splitlines()) <= 72
