"""Land combat, amphibious assault, capture and breakdown (CBT.*, CRT1.*, AMP.*,
BASE.I, ENT.*, NM.GSUP), on the stub map with scripted dice.

CRT1 rows 1 and 2 are the rulebook's printed rows; the tests use only those.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from pbem.core.dice import ScriptedDice
from pbem.core.errors import IllegalOrderError
from pbem.rulesets.usn import capture
from pbem.rulesets.usn import land_combat as lc
from pbem.rulesets.usn.state import Air, GameState, Unit
from pbem.rulesets.usn.tables import LandResult
from pbem.rulesets.usn.work import Work

from .builders import ATOLL, ISLAND, Game, base, land, make_state, ship, stub_geo

J, A = "japanese", "allied"
ISL, ISL2 = ISLAND


def unit(side: str, uid: str, at: int | None, attack: int, defense: int, **kw: object) -> Unit:
    return replace(land(side, uid, at), attack=attack, defense=defense, **kw)  # type: ignore[arg-type]


def work(state: GameState, side: str = A) -> Work:
    w = Work.start(stub_geo(), state)
    w.side = side
    return w


def attack(w: Work, h: int, uids: list[str], die: int, **kw: object) -> LandResult | None:
    attackers = tuple(w.units[f"{w.side}/{u}"] for u in uids)
    return lc.resolve_attack(w, lc.Attack(h, attackers, **kw), ScriptedDice([die]))  # type: ignore[arg-type]


def test_cbt_proc_odds_rounded_down_and_ent_a_tripled() -> None:
    """CBT.PROC / ENT.A: 40 against an entrenched 15 (45) is below 1-1."""
    s = make_state([unit(A, "DIV-1", ISL, 40, 50), unit(J, "RGT-1", ISL, 6, 15, entrenched=True)])
    w = work(s)
    att, dfn = lc.odds(w, lc.Attack(ISL, (w.units["allied/DIV-1"],)))
    assert (att, dfn) == (40, 45)
    assert lc._crt1().column(att, dfn) == 0


def test_sup_e_unsupplied_defender_halved_and_cannot_attack() -> None:
    u = unit(J, "RGT-1", ISL, 6, 15, supplied=False)
    assert lc.defense_strength(make_state([u]), u) == Fraction(15, 2)
    assert lc.attack_strength(u) == 0


def test_crt1_ax_cbt_e_destroys_every_attacker_only() -> None:
    s = make_state(
        [unit(A, "RGT-1", ISL, 8, 15), unit(A, "RGT-2", ISL, 8, 15), unit(J, "RGT-1", ISL, 6, 12)]
    )
    w = work(s)
    assert attack(w, ISL, ["RGT-1"], 1) is LandResult.AX  # 1-1, die 1
    assert "allied/RGT-1" not in w.units and "japanese/RGT-1" in w.units
    assert "allied/RGT-2" in w.units  # CBT.E: a unit not committed is not affected


def test_crt1_d1_class1_destroys_defender() -> None:
    s = make_state([unit(A, "DIV-1", ATOLL, 48, 50), unit(J, "RGT-1", ATOLL, 6, 12)])
    w = work(s)
    assert attack(w, ATOLL, ["DIV-1"], 1) is LandResult.D1  # 4-1, die 1
    assert "japanese/RGT-1" not in w.units


def test_crt1_d1_class2_loses_base_and_cd_keeps_units() -> None:
    """CRT1.D1 (A14): on Class 2 the bases are destroyed, CD units die, land units
    stay and lose entrenchment."""
    s = make_state(
        [
            unit(A, "DIV-1", ISL, 48, 50),
            unit(J, "RGT-1", ISL, 6, 4, entrenched=True),
            land(J, "CD-1", ISL),
        ],
        bases=[base(ISL, J, air=5)],
        air={J: {f"{ISL:04d}": Air(lac=5)}},
    )
    w = work(s)
    assert attack(w, ISL, ["DIV-1"], 1) is LandResult.D1  # 48:12 = 4-1
    assert w.units["japanese/RGT-1"].entrenched is False
    assert "japanese/CD-1" not in w.units
    assert w.bases[ISL].air_capacity == 0 and w.air_at(J, f"{ISL:04d}").total == 0


def test_crt1_d2_class2_retreat_and_ent_d() -> None:
    """CRT1.D2 / ENT.D: the defender retreats to an adjacent land hex, unentrenched;
    the standing RETREAT order chooses."""
    s = make_state(
        [unit(A, "DIV-1", ISL, 280, 50), unit(J, "RGT-1", ISL, 6, 10, entrenched=True)],
        standing={J: ("STANDING RETREAT RGT-1 " + f"{ISL2:04d}",)},
    )
    w = work(s)
    assert attack(w, ISL, ["DIV-1"], 1) is LandResult.D2  # 280:30 = 9-1, die 1
    r = w.units["japanese/RGT-1"]
    assert (r.hex, r.entrenched) == (ISL2, False)


def test_crt1_d2_no_retreat_destroyed() -> None:
    """CRT1.D2: on a one-hex Class 2 island there is no hex to retreat to."""
    geo = stub_geo(land={500: "class2"})
    s = make_state([unit(A, "DIV-1", 500, 100, 50), unit(J, "RGT-1", 500, 6, 10)])
    w = Work.start(geo, s)
    w.side = A
    assert attack(w, 500, ["DIV-1"], 1) is LandResult.D2
    assert "japanese/RGT-1" not in w.units


def test_crt1_dx_destroys_all_defenders() -> None:
    s = make_state([unit(A, "DIV-1", ISL, 100, 50), unit(J, "RGT-1", ISL, 6, 10)])
    w = work(s)
    assert attack(w, ISL, ["DIV-1"], 2) is LandResult.DX  # 10-1, die 2
    assert "japanese/RGT-1" not in w.units


def test_nm_gsup_gunfire_adds_surface_attack_not_with_cd() -> None:
    ca = replace(ship(A, "CA-1", ISL), sa=20)
    s = make_state([unit(A, "RGT-1", ISL, 8, 15), unit(J, "RGT-1", ISL, 6, 12), ca])
    w = work(s)
    a = lc.Attack(ISL, (w.units["allied/RGT-1"],), (ca,), air_attack=4, air_defense=3)
    assert lc.odds(w, a) == (32, 15)  # AM.GSO / AM.GSD add too
    w.put(land(J, "CD-1", ISL))
    assert lc.odds(w, a)[0] == 12


def test_base_i_base_a_base_c_undefended_base_captured_with_cbt_f_and_base_h() -> None:
    """BASE.I / ERR.BASE.I / CBT.F / BASE.H / BASE.L."""
    s = make_state(
        [unit(J, "RGT-1", ISL, 6, 12), land(A, "CD-1", ISL), ship(A, "CA-1", ISL, in_base=True)],
        bases=[base(ISL, A, air=10)],
        air={A: {f"{ISL:04d}": Air(lac=4)}},
    )
    w = work(s, J)
    lc.capture(w)
    assert w.bases[ISL].owner == J
    assert "allied/CD-1" not in w.units
    assert w.air_at(A, f"{ISL:04d}").total == 0
    assert w.units["allied/CA-1"].in_base is False
    assert not capture.base_usable(w.state.extra, ISL)  # BASE.A: capacity 10 needs repair
    assert w.bases[ISL].neutralized(99)  # BASE.PROC.DAMAGED: nobody uses it meanwhile


def test_cbt_g_ent_e_defended_base_not_captured() -> None:
    """CBT.G / ENT.E: an entrenched or inverted defender must be dislodged by combat."""
    s = make_state(
        [unit(J, "RGT-1", ISL, 6, 12), unit(A, "BN-1", ISL, 2, 6, entrenched=True)],
        bases=[base(ISL, A, air=5)],
    )
    w = work(s, J)
    lc.capture(w)
    assert w.bases[ISL].owner == A
    w.put(replace(w.units["allied/BN-1"], entrenched=False))
    lc.capture(w)
    assert w.bases[ISL].owner == J
    s2 = replace(s, units={**s.units, "allied/BN-1": unit(A, "BN-1", ISL, 2, 6)})
    w2 = work(s2, A)
    lc.do_defend(w2, "BN-1", True)
    w2.side = J
    lc.capture(w2)
    assert w2.bases[ISL].owner == A


def test_amp_cd_ter_island_amp_trans_landing_refused_at_validation() -> None:
    """AMP.CD / SEQ.5A: no landing into a hex with an enemy CD unit, said at once."""
    tr = ship(A, "AT-1", ISL)
    s = make_state(
        [tr, unit(A, "RGT-1", None, 8, 15, carried_by="AT-1"), land(J, "CD-1", ISL)], round=2
    )
    g = Game(s)
    v = g.validate(A, "LAND AT-1 RGT-1")
    assert v.errors and v.errors[0].rule == "AMP.CD"
    # AMP.TRANS: an Allied TR makes no opposed landing.
    tr = ship(A, "TR-1", ISL)
    s2 = make_state([tr, unit(A, "RGT-1", None, 8, 15, carried_by="TR-1")], round=2)
    assert Game(s2).validate(A, "LAND TR-1 RGT-1").errors[0].rule == "AMP.TRANS"
    # TER.ISLAND: troops land only where there is land.
    s3 = make_state([ship(A, "AT-1", 300), unit(A, "RGT-1", None, 8, 15, carried_by="AT-1")])
    with pytest.raises(IllegalOrderError) as e:
        lc.check_landing(work(s3), s3.units["allied/AT-1"], ["RGT-1"])
    assert e.value.rule == "TER.ISLAND"


def test_seq_5a_amp_c1_err_amp_landers_must_destroy_the_defender() -> None:
    """AMP.C1 / ERR.AMP / A9: on Class 1 every lander attacks; failing, they go back aboard."""
    tr = ship(A, "AT-1", ATOLL)
    s = make_state(
        [tr, unit(A, "RGT-1", None, 30, 15, carried_by="AT-1"), unit(J, "RGT-1", ATOLL, 6, 12)]
    )
    w = work(s)
    lc.land_assault(w, w.units["allied/AT-1"], ["RGT-1"], None, ScriptedDice([3]))  # 2-1, die 3: D1
    assert "japanese/RGT-1" not in w.units
    assert w.units["allied/RGT-1"].hex == ATOLL
    s2 = replace(s, units={**s.units, "japanese/RGT-1": unit(J, "RGT-1", ATOLL, 6, 40)})
    w2 = work(s2)
    lc.land_assault(w2, w2.units["allied/AT-1"], ["RGT-1"], None, ScriptedDice([2]))  # 1-2: Ax
    assert "allied/RGT-1" not in w2.units


def test_seq_5k_cbt_roll_cbt_d_vp_sched_land_attack_by_mail_round() -> None:
    """SEQ.5B / SEQ.5K: the Allied attack order is resolved in the air-5 round."""
    s = make_state([unit(A, "DIV-1", ATOLL, 48, 50), unit(J, "RGT-1", ATOLL, 6, 12)], round=2)
    g = Game(s)
    g.play({A: f"ATTACK {ATOLL:04d} DIV-1", J: ""}, dice=[1] * 10)
    assert g.s.unit(J, "RGT-1") is None
    assert any(e.kind == "land-combat" and e.data["result"] == "D1" for e in g.events)
    assert g.s.vp[A] == 3  # VP.SCHED.LAND: a regiment


def test_seq_5b_attack_by_units_not_in_the_hex_refused() -> None:
    s = make_state([unit(A, "DIV-1", ISL2, 48, 50), unit(J, "RGT-1", ISL, 6, 12)], round=2)
    v = Game(s).validate(A, f"ATTACK {ISL:04d} DIV-1")
    assert v.errors and v.errors[0].rule == "SEQ.5B"


def test_cbt_gen_attack_with_nobody_to_attack_refused() -> None:
    s = make_state([unit(A, "DIV-1", ISL, 48, 50)], round=2)
    v = Game(s).validate(A, f"ATTACK {ISL:04d} DIV-1")
    assert v.errors and v.errors[0].rule == "CBT.GEN"


def test_sup_e_unsupplied_attacker_refused() -> None:
    s = make_state(
        [unit(A, "DIV-1", ISL, 48, 50, supplied=False), unit(J, "RGT-1", ISL, 6, 12)], round=2
    )
    w = work(s)
    with pytest.raises(IllegalOrderError) as e:
        lc.check_ground(w, "ATTACK", ISL, ["DIV-1"])
    assert e.value.rule == "SUP.E"


def test_nm_gsup_gunfire_refused_with_enemy_cd_in_hex() -> None:
    s = make_state([ship(A, "CA-1", ISL), land(J, "CD-1", ISL), unit(J, "RGT-1", ISL, 6, 12)])
    w = work(s)
    with pytest.raises(IllegalOrderError) as e:
        lc.check_ground(w, "GUNFIRE", ISL, ["CA-1"])
    assert e.value.rule == "NM.GSUP"


def test_amp_c2_landers_stay_ashore_on_class_2_when_the_defender_survives() -> None:
    """AMP.C2: on Class 2 land the landers stay even if the defenders are not destroyed."""
    s = make_state(
        [
            ship(A, "AT-1", ISL),
            unit(A, "RGT-1", None, 30, 15, carried_by="AT-1"),
            unit(J, "RGT-1", ISL, 6, 12),
        ]
    )
    w = work(s)
    lc.land_assault(w, w.units["allied/AT-1"], ["RGT-1"], None, ScriptedDice([3]))  # D1
    assert w.units["allied/RGT-1"].hex == ISL and w.units["allied/RGT-1"].carried_by is None
    assert "japanese/RGT-1" in w.units  # D1 on Class 2: the defender stays


def test_cbt_a_no_land_attack_is_compulsory() -> None:
    """CBT.A / STK.A: enemies may share a Class 2 hex; nothing happens without an order."""
    s = make_state([unit(A, "DIV-1", ISL, 48, 50), unit(J, "RGT-1", ISL, 6, 12)], round=2)
    g = Game(s)
    g.play({A: "", J: ""}, dice=[1] * 10)
    assert g.s.unit(J, "RGT-1") is not None and g.s.unit(A, "DIV-1") is not None
    assert not any(e.kind == "land-combat" for e in g.events)


def test_ent_gen_ent_proc_ent_c_seq_3b_allied_entrench_on_one_or_two() -> None:
    """ENT.PROC / ENT.C / SEQ.3B: a supplied unit that did not move rolls; the
    Allies need 1-2 (the Japanese 1)."""
    s = make_state([unit(A, "DIV-1", ISL, 30, 50), unit(A, "DIV-2", ISL, 30, 50)], round=1)
    g = Game(s)
    g.play({A: "ENTRENCH DIV-1\nENTRENCH DIV-2"}, dice=[2, 3] + [6] * 20)
    assert g.unit(A, "DIV-1").entrenched and not g.unit(A, "DIV-2").entrenched
    assert lc.defense_strength(g.s, g.unit(A, "DIV-1")) == 150  # ENT.A: tripled


def test_ent_b_disentrench_by_declaration() -> None:
    s = make_state([unit(A, "DIV-1", ISL, 30, 50, entrenched=True)], round=1)
    g = Game(s)
    g.play({A: "DISENTRENCH DIV-1"})
    assert not g.unit(A, "DIV-1").entrenched


def test_cg1_shock_land13_allied_land_defense_at_a_third_in_the_shock_turn() -> None:
    """CG1.SHOCK.LAND13 (A11): in turn 1 of Campaign Game 1 Allied land units defend
    at a third (fractions dropped, at least 1); CD units and the Japanese do not."""
    div = unit(A, "DIV-1", ISL, 30, 50)
    s = replace(make_state([div, unit(J, "DIV-1", ISL, 20, 40)]), scenario="campaign-1")
    assert lc.defense_strength(s, div) == 16
    assert lc.defense_strength(s, s.units["japanese/DIV-1"]) == 40
    assert lc.defense_strength(replace(s, turn=2), div) == 50


def test_sup_e_ent_a_land_combat_says_why_strengths_changed() -> None:
    """SUP.E / ENT.A / CBT.H: the land combat event and its report line name each
    unit whose strength was changed, and why: an unsupplied defender halved, an
    entrenched attacker not attacking, a damaged ship's gunfire halved (NM.GSUP)."""
    from pbem.reports.narrate import combat

    s = make_state(
        [
            unit(A, "DIV-1", ISL, 40, 50),
            unit(A, "RGT-1", ISL, 8, 15, entrenched=True),
            replace(ship(A, "BB-1", ISL, ma=6, damage=2), sa=12),
            unit(J, "RGT-1", ISL, 6, 15, supplied=False),
        ]
    )
    w = work(s)
    gunfire = (w.units["allied/BB-1"],)
    attack(w, ISL, ["DIV-1", "RGT-1"], 1, gunfire=gunfire)
    (fight,) = [dict(e.data) for e in w.events if e.kind == "land-combat"]
    assert (fight["attack"], fight["defense"]) == ("46", "15/2")
    assert fight["attack_why"] == [
        "RGT-1 does not attack: entrenched [ENT.A]",
        "BB-1 halved: damaged [CBT.H]",
    ]
    assert fight["defense_why"] == ["RGT-1 halved: unsupplied [SUP.E]"]
    told = combat({"kind": "land-combat", "rule": "SEQ.5K", "data": fight})
    assert told is not None
    assert told["lines"][0] == (
        "Attackers DIV-1 and RGT-1, strength 46 (RGT-1 does not attack: entrenched [ENT.A]; "
        "BB-1 halved: damaged [CBT.H]); defenders RGT-1, strength 15/2 "
        "(RGT-1 halved: unsupplied [SUP.E])."
    )
