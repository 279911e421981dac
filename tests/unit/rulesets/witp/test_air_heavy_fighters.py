"""4.2.1 Heavy fighters (HF): as fighters, their air combat rating 1 less in
air-to-air combat with enemy "F" types (R134)."""

from __future__ import annotations

from typing import Any

from pbem.core.dice import ScriptedDice, SeededDice
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp.air import plot
from pbem.rulesets.witp.air.combat import Stack, resolve_level
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PUBLIC

from .test_air_world import PUBLIC_PACK, in_tf, knowing, resolve_stored, told, world

PUB = public_pack({"pack": PUBLIC_PACK})
QUIET = [1] * 40  # every 2D6 a 2: every step taken
STRIKE = "STRIKE S1 FROM TF2 4xSBD-3/D 2xTBD-1/T TARGET TF1\nESCORT S1 FROM TF2 2xF4F-3@M LOOSE"
J1N1 = {
    "units/air-J1N1": {
        "provenance": "illustrative",
        "source": "the test's",
        "pack": "test",
        "value": {
            "air": {"normal": 4, "extended": 3, "altitude": "M"},
            "anti_ship": {},
            "torpedo_range": 0,
            "transfer_range": 150,
            "night_rated": False,
        },
    },
    "units/ap-J1N1": {
        "provenance": "illustrative",
        "source": "the test's",
        "pack": "test",
        "value": {
            "roles": ["HF"],
            "carrier": True,
            "search": {"short": 0, "medium": 0, "long": 0, "extended": 0},
            "extended_reach": 0,
            "range": {"normal": 60, "extended": 90},
        },
    },
}


def heavy(n: int = 2) -> list[Stack]:
    return [Stack("J1N1", n, 4, 4, True, heavy=True)]


def test_4_2_1_an_hf_rating_is_1_less_only_against_enemy_f_types() -> None:
    hf = heavy()[0]
    assert hf.rating(4, [Stack("F4F-3", 2, 4, 4, True)]) == 3  # enemy F: reduced
    assert hf.rating(4, [Stack("SBD-3", 3, 3, 2, False)]) == 4  # bombers: printed
    assert hf.rating(4, heavy()) == 4  # enemy HF are not "F" types
    assert Stack("A6M2", 2, 5, 5, True).rating(5, [Stack("F4F-3", 2, 4, 4, True)]) == 5


def test_4_2_1_example_hf_attacking_bombers_use_their_printed_ratings() -> None:
    fight = resolve_level(
        PUB, "M", heavy(2), [], [], [Stack("SBD-3", 3, 3, 2, False)], ScriptedDice(QUIET)
    )
    cap_attack = next(s for s in fight.steps if s.attacker == "cap")
    assert cap_attack.strength == 2 * 4  # printed, against bombers


def test_4_2_1_example_hf_attacked_by_enemy_fighters_use_the_reduced_ratings() -> None:
    escort = [Stack("F4F-3", 2, 4, 4, True)]
    dice = ScriptedDice([6, *QUIET])  # the bounce: 6, the escort's (routine D)
    fight = resolve_level(PUB, "M", heavy(2), escort, [], [], dice, cap_choice="escort")
    assert fight.routine == "D"
    on_escort = next(s for s in fight.steps if s.attacker == "cap")
    assert on_escort.strength == 2 * 3  # 4 less 1: in combat with F types
    assert fight.steps[0].strength == 2 * 4  # the F4Fs' own: printed


def test_4_2_1_hf_fly_cap_as_fighters() -> None:
    s = world()
    s[PUBLIC]["pack"] = {**PUBLIC_PACK, **J1N1}
    for ship in in_tf(s, JAPANESE, "TF1"):
        if ship.get("air"):
            ship["air"] = {"J1N1": 2}  # heavy fighters only over Kido Butai
    p, errors = plot.judge(knowing(s, ALLIED), ALLIED, STRIKE)
    assert errors == []
    fought: list[Any] = []
    for seed in range(6):
        dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
        st, _ = resolve_stored(
            s, p.air_strikes["S1"], dice, SecretDice(b"y" * 12, "s"), "T1/air1/strike"
        )
        fought += [c["type"] for f in told(st, ALLIED, "air-combat") for c in f["cap"]]
    assert fought and set(fought) == {"J1N1"}


def test_4_2_1_results_are_spent_on_the_hfs_reduced_rating() -> None:
    """The F4Fs (8 strength, 2 APs) roll 10: 3 elimination points, short of a
    fighter rated 4, enough for an HF rated 4 less 1."""

    def attacked(is_heavy: bool) -> Stack:
        cap = Stack("J1N1", 2, 4, 4, True, heavy=is_heavy)
        escort = [Stack("F4F-3", 2, 4, 4, True)]
        resolve_level(PUB, "M", [cap], escort, [], [], ScriptedDice([6, 5, 5, *QUIET]))
        return cap

    assert attacked(False).eliminated == 0
    assert attacked(True).eliminated == 1
