"""Sequence of play (SEQ.*) and its mapping onto mail rounds."""

from __future__ import annotations

import re
from pathlib import Path

from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.usn.sequence import ROUNDS, STEPS, StepKind, last_naval_step, naval_steps_of

from .builders import Game, H, make_state, ship
from .test_rule_index import nothing_to_compute


def test_seq_syn_ten_steps_in_rulebook_order() -> None:
    assert [s.number for s in STEPS] == list(range(1, 11))
    assert [s.side for s in STEPS[1:9]] == [
        JAPANESE,
        ALLIED,
        ALLIED,
        ALLIED,
        ALLIED,
        JAPANESE,
        JAPANESE,
        JAPANESE,
    ]
    assert STEPS[4].kind is StepKind.STRIKE and STEPS[8].kind is StepKind.STRIKE


def test_seq_4_allies_have_no_paradrop_substep() -> None:
    assert "B" in [s.letter for s in STEPS[1].substeps]
    assert "B" not in [s.letter for s in STEPS[3].substeps]


def test_rounds_cover_every_step_once_in_order() -> None:
    covered = [n for r in ROUNDS for n in r.steps]
    assert covered == list(range(1, 11))


def test_rounds_join_consecutive_steps_of_one_side() -> None:
    for r in ROUNDS:
        sides = {STEPS[n - 1].side for n in r.steps} - {None}
        if not r.simultaneous:
            assert sides == set(r.sides)


def test_seq_5e_air_strike_rounds_are_sealed_and_simultaneous() -> None:
    strike_rounds = [
        r for r in ROUNDS if any(STEPS[n - 1].kind is StepKind.STRIKE for n in r.steps)
    ]
    assert [r.key for r in strike_rounds] == ["air-5", "air-9"]
    assert all(set(r.sides) == {JAPANESE, ALLIED} for r in strike_rounds)


def test_seq_10_is_automatic_with_the_last_round() -> None:
    assert 10 in ROUNDS[-1].steps and 1 in ROUNDS[0].steps


def test_sup_g_last_naval_phase_per_side() -> None:
    assert naval_steps_of(JAPANESE) == (2, 8)
    assert naval_steps_of(ALLIED) == (4, 6)
    assert last_naval_step(JAPANESE) == 8 and last_naval_step(ALLIED) == 6


def test_gen_turn_pending_walks_rounds_then_next_turn_then_ends() -> None:
    g = Game(make_state([ship("japanese", "CA-1", H(20, 5))], last_turn=2))
    seen = []
    while (d := g.rs.pending(g.state)) is not None:
        seen.append((d.turn, d.phase, d.sides))
        g.play({})
    assert [p for _, p, _ in seen] == [r.key for r in ROUNDS] * 2
    assert seen[0] == (1, "J-2", (JAPANESE,))
    assert seen[2] == (1, "air-5", (JAPANESE, ALLIED))
    assert g.rs.outcome(g.state) is not None


def test_seq_strict_order_for_another_round_is_refused() -> None:
    g = Game(make_state([ship("japanese", "CA-1", H(20, 5))]))
    v = g.validate(JAPANESE, "CAP 3 NAC CV-3\nENTRENCH RGT-1")
    assert [e.rule for e in v.errors] == ["SEQ.STRICT", "SEQ.STRICT"]
    assert "not an order of this round" in v.errors[0].message


def test_seq_strict_side_without_orders_this_round() -> None:
    g = Game(make_state([ship("allied", "CA-1", H(20, 5))]))
    v = g.validate(ALLIED, f"MOVE CA-1 {H(20, 6)}")
    assert v.errors and v.errors[0].rule == "SEQ.STRICT" and not v.accepted


def test_mov_b_no_orders_means_nothing_moves() -> None:
    g = Game(make_state([ship("japanese", "CA-1", H(20, 5))]))
    assert g.rs.default_orders(g.state, JAPANESE) == ()
    g.play({})
    assert g.unit(JAPANESE, "CA-1").hex == H(20, 5)


def test_seq_2_seq_5_lettered_parts_in_rulebook_order() -> None:
    assert "".join(s.letter for s in STEPS[1].substeps) == "ABCDEFGHIJ"
    assert "".join(s.letter for s in STEPS[4].substeps) == "ABCDEFGHIJKL"
    # The combat parts are marked for the combat modules' hooks.
    assert [s.rule for s in STEPS[1].substeps if s.combat] == ["SEQ.2F", "SEQ.2G", "SEQ.2H"]


# Cases of issue 5: usn-rules-inventory.md rows whose first tag is sequence,
# movement-naval, movement-land, movement-air, supply, zoc, stacking, units or
# reinforcements, plus the transport, refuelling, off-map and embarkation cases.
ISSUE_5_CASES = [
    "GEN.REC.B",
    "GEN.TURN",
    "UNIT.LAND.LAYOUT",
    "UNIT.LAND.SIZE",
    "UNIT.CD.LAYOUT",
    "UNIT.AB",
    "UNIT.NB",
    "UNIT.NAV.LAYOUT",
    "UNIT.CV.LAYOUT",
    "UNIT.ZEROSA",
    "UNIT.NAV.TYPES",
    "UNIT.TR.LAYOUT",
    "UNIT.TR.TYPES",
    "UNIT.AIR.POINTS",
    "UNIT.AIR.LAYOUT",
    "UNIT.AIR.TYPES",
    "UNIT.NAC.CODED",
    "DEF.STRENGTHS",
    "DEF.MA",
    "DEF.TP",
    "DEF.CAP",
    "DEF.RANGE",
    "SEQ.SYN",
    "SEQ.STRICT",
    "SEQ.1",
    "SEQ.2",
    "SEQ.2A",
    "SEQ.2B",
    "SEQ.2C",
    "SEQ.2D",
    "SEQ.2E",
    "SEQ.2I",
    "SEQ.2J",
    "SEQ.3",
    "SEQ.3A",
    "SEQ.4",
    "SEQ.5",
    "SEQ.5L",
    "SEQ.6",
    "SEQ.7",
    "SEQ.8",
    "SEQ.9",
    "SEQ.10",
    "MOV.GEN",
    "MOV.PROC",
    "MOV.A",
    "MOV.B",
    "MOV.C",
    "MOV.D",
    "MOV.E",
    "MOV.F",
    "MOV.G",
    "MOV.H",
    "MOV.I",
    "MOV.J",
    "MOV.K",
    "MOV.L",
    "MOV.M",
    "MOV.N",
    "MOV.O",
    "MOV.P",
    "MOV.Q",
    "MOV.R",
    "MOV.S",
    "MOV.T",
    "MOV.U",
    "MOV.V",
    "CBT.C",
    "CBT.K",
    "TER.CLASS1",
    "TER.CLASS2",
    "TER.MTN",
    "TER.DESERT",
    "TER.SEA",
    "TER.NAV",
    "TER.LAND",
    "TER.AIR",
    "ZOC.DEF",
    "ZOC.EFFECT",
    "ZOC.CANCEL",
    "ZOC.INSTANT",
    "SUP.GEN",
    "SUP.A",
    "SUP.B",
    "SUP.C",
    "SUP.D.LAND",
    "SUP.D.SEA",
    "SUP.D.ZOC",
    "SUP.E",
    "SUP.F",
    "SUP.G",
    "SUP.H",
    "BRK.WHEN",
    "BRK.REBUILD",
    "BRK.J.BDE",
    "BRK.J.RGT",
    "BRK.A.DIV",
    "BRK.A.MAR",
    "BRK.NOBN",
    "STK.GEN",
    "STK.A",
    "STK.B",
    "STK.C",
    "STK.D",
    "STK.E",
    "STK.F",
    "STK.G",
    "STK.G.AIR",
    "STK.G.SURF",
    "OFF.NS",
    "OFF.WEST.A",
    "OFF.WEST.J",
    "OFF.EAST",
    "OFF.BOX",
    "OFF.WCLOAD",
    "OFF.ZONE",
    "CVJ.EMBARK",
    "CVA.EMBARK",
    "PARA.COUNT",
    "PARA.DROP",
    "PARA.BASE",
    "PARA.NOMOVE",
    "PARA.REUSE",
    "NM.TRANS.UNITS",
    "NM.TRANS.CAP",
    "NM.TRANS.COST",
    "NM.TRANS.HIDDEN",
    "NM.TRANS.DEBARK",
    "NM.TRANS.OPPOSED",
    "NM.TRANS.AT",
    "NM.TRANS.ALLIEDHEX",
    "NM.TRANS.ALLIEDWAIT",
    "NM.TRANS.AIR",
    "NM.TRANS.TPTABLE",
    "NM.EMERG.UNITS",
    "NM.EMERG.CAP",
    "NM.EMERG.COST",
    "NM.EMERG.ROUNDTRIP",
    "NM.EMERG.SUPPLY",
    "NM.REFUEL",
    "AM.TRANSFER",
    "REIN.CHECK",
    "REIN.AIRPTS",
    "REIN.NAVID",
    "REIN.LANDSTR",
    "REIN.A.LBAC",
    "REIN.A.DEFAULT",
    "REIN.A.LAC",
    "REIN.A.NAC",
    "REIN.J.DEFAULT",
    "REIN.DATE",
    "REIN.ENTRYHEX",
    "REIN.NOTE.A",
    "REIN.NOTE.B",
    "REIN.TABLE",
    "NACC.USE",
    "NACC.J",
    "NACC.A",
    "DATA.CVNAMES",
    "ERR.MAP.0692",
    "ERR.BRK.MARINE",
    "ERR.REIN.5",
    "ERR.REIN.31",
    "ERR.REIN.48",
]


def _norm(rule: str) -> str:
    return rule.lower().replace(".", "_").replace("-", "_")


def test_every_case_of_issue_5_is_tested_or_deferred() -> None:
    here = Path(__file__).parent
    names = []
    for f in here.glob("test_*.py"):
        names += re.findall(r"def (test_\w+)", f.read_text())
    deferred = set(nothing_to_compute())  # docs/usn-data.md, with its reason
    missing = [
        rule
        for rule in ISSUE_5_CASES
        if rule not in deferred and not any(f"_{_norm(rule)}_" in n + "_" for n in names)
    ]
    assert not missing, f"cases with neither a test named after them nor a reason: {missing}"
    assert len(ISSUE_5_CASES) == 164


def test_state_json_round_trip_between_rounds() -> None:
    """The lifecycle stores the state as JSON between rounds: nothing is lost."""
    import json

    from pbem.rulesets.usn.state import Air, GameState, Pending

    from .builders import base, land

    s = make_state(
        [
            ship(JAPANESE, "CV-3", H(20, 5), damage=3, fuel=2),
            land(ALLIED, "RGT-1", None, carried_by="TR-1"),
        ],
        air={JAPANESE: {"CV-3": Air(nac=4, nac_new=1)}},
        bases=[base(H(20, 6), ALLIED, air=10)],
        pending=[Pending(3, ALLIED, ship(ALLIED, "CA-4", None), place="1456")],
        standing={ALLIED: ("STANDING SURFACE STAY",)},
    )
    text = json.dumps(s.to_json())
    back = GameState.from_json(json.loads(text))
    assert back == s
    assert back.to_json() == s.to_json()
