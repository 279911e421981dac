"""Combat events as the U.S.N. ruleset records them (copied from its rules tests),
for report tests that need a combat without playing one."""

from __future__ import annotations

from typing import Any

A, J = "allied", "japanese"

AIR_STRIKE: dict[str, Any] = {
    "kind": "air-strike",
    "rule": "AM.BOMBNAV.SEQ",
    "data": {
        "attacker": A, "side": A, "hex": "0279", "group": 1, "type": "NAC",
        "flights": ["10 NAC from CV-5", "4 NAC from CV-6"],
        "ships": ["CV-1", "CA-1"],
        "cap": {"cap": 20, "strike": 14, "dice": [5, 2],
                "strike_losses": {"destroyed": {"NAC": 2}, "aborted": {"NAC": 4}},
                "cap_losses": {"destroyed": {}, "aborted": {}}},
        "aa": {"aa": 10, "die": 3, "losses": {"destroyed": {"NAC": 1}, "aborted": {}}},
        "attack": [
            {"target": "CV-1", "attack": 14, "defense": 5, "odds": "2-1", "die": 4,
             "damage_number": 3, "die_crt5": 6, "result": "5"},
            {"target": "CA-1", "attack": 4, "defense": 5, "odds": "below 1-1", "die": 0,
             "damage_number": 0, "die_crt5": 0, "result": "-"},
        ],
    },
}  # fmt: skip

SURFACE: dict[str, Any] = {
    "kind": "surface-engagement",
    "rule": "NM.SURF.5",
    "data": {
        "hex": "0681", "attacker": J,
        "engaged": {J: ["CA-1", "CA-3"], A: ["CA-2", "CV-2"]},
        "fire": [
            {"side": J, "target": "CV-2", "attack": 25, "defense": 5, "odds": "5-1", "die": 6,
             "damage_number": 0, "die_crt5": 0, "result": "-"},
            {"side": A, "target": "CA-1", "attack": 20, "defense": 5, "odds": "4-1", "die": 2,
             "damage_number": 4, "die_crt5": 1, "result": "X",
             "attack_why": ["CA-2 halved: damaged [CBT.H]"]},
        ],
    },
}  # fmt: skip

LAND: dict[str, Any] = {
    "kind": "land-combat",
    "rule": "SEQ.5K",
    "data": {
        "hex": "0213", "attacker": A, "attackers": ["RGT-1"], "defenders": ["RGT-9"],
        "attack": "40", "defense": "15", "column": "2-1", "roll": 6, "result": "D1",
        "reconstructed": True, "defense_why": ["RGT-9 halved: unsupplied [SUP.E]"],
    },
}  # fmt: skip

DAMAGED: dict[str, Any] = {
    "kind": "ship-damaged",
    "rule": "AM.BOMBNAV.SEQ",
    "data": {"unit": "CV-1", "side": J, "weeks": 5, "total": 5, "hex": "0279", "by": A},
}

# AM.BOMBLAND: an air strike on land units is recorded twice, its CRT1 bombing
# (as NM.BOMBLAND's, by the flights) and then the strike (CAP, AA) around it.
LAND_BOMBING: dict[str, Any] = {
    "kind": "bombardment",
    "rule": "AM.BOMBLAND",
    "data": {
        "hex": "0277", "attacker": A, "by": ["5 LAC from 0212"], "target": "BN-1",
        "attack": 80, "defense": 2, "die": 1, "result": "D2", "cut_off": False,
    },
}  # fmt: skip

LAND_STRIKE: dict[str, Any] = {
    "kind": "air-strike",
    "rule": "AM.BOMBLAND",
    "data": {
        "attacker": A, "side": A, "hex": "0277", "target": "LAND",
        "flights": ["5 LAC from 0212"], "cap": None, "aa": None, "attack": {"cut_off": False},
    },
}  # fmt: skip

COMBATS = [AIR_STRIKE, SURFACE, LAND, LAND_BOMBING, LAND_STRIKE]
