"""Sequence of play (SEQ.*) and its mapping onto mail rounds."""

from __future__ import annotations

from pbem.rulesets.usn.sequence import (
    ALLIED,
    JAPANESE,
    ROUNDS,
    STEPS,
    StepKind,
    last_naval_step,
    naval_steps_of,
)

from .builders import Game, H, make_state, ship


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
