"""3.0, 3.1 and 50.0: the sequence of play as the clock runs it, and its mail rounds."""

from __future__ import annotations

from pbem.rulesets.witp.clock import (
    GAME_TURN,
    STRATEGIC_TURN,
    cycle_of,
    round_at,
    rounds,
    schedule,
)


def _outline(phases):  # type: ignore[no-untyped-def]
    return [(p.letter, p.title, [s.title for s in p.segments]) for p in phases]


def test_3_1_sequence_of_play() -> None:
    air = [
        "Air Search Segment",
        "Allocation Segment",
        "Strike Segment",
        "Air Transfer Segment (Day)",
    ]
    naval = ["Plot Segment", "Weather Segment (Optional Rule 59.3)", "Execution Segment"]
    assert _outline(GAME_TURN) == [
        ("A", "Weather Phase", ["Wind Direction Segment (Optional Rule 59.3)"]),
        ("B", "First Air Phase", air),
        ("C", "First Naval Phase", naval),
        ("D", "Second Air Phase", air),
        ("E", "Second Naval Phase", naval),
        ("F", "Third Air Phase", [*air, "Allied Off-Map Air Movement"]),
        ("G", "Third Naval Phase", [*naval, "Allied Global Sea Lanes Movement"]),
        (
            "H",
            "Ground Phase",
            [
                "Joint Activation Segment",
                "Joint Assault Segment",
                "First Player Ground Segment",
                "Second Player Ground Segment",
                "Engineering Segment (Joint)",
                "Demolition Segment (Joint)",
                "Rally Segment (Joint)",
            ],
        ),
        ("I", "End of the Game Turn", ["Game-Turn marker advanced"]),
    ]


def test_50_0_strategic_game_turn() -> None:
    assert [(p.letter, p.title) for p in STRATEGIC_TURN] == [
        ("A", "Merchant Shipping Phase"),
        ("B", "Strategic Intelligence Phase"),
        ("C", "Strategic Bombing Phase"),
        ("D", "Command Phase"),
        ("E", "Attrition Phase"),
        ("F", "Submarine Phase"),
        ("G", "Reinforcement/Replacement Phase"),
        ("H", "Production Phase"),
        ("I", "Weather Phase"),
        ("J", "End of the Strategic Turn"),
    ]
    segments = {p.letter: [s.title for s in p.segments] for p in STRATEGIC_TURN}
    assert segments["A"] == [
        "Japanese Escort Segment",
        "Allied Submarine Priority Segment",
        "Merchant Shipping Attrition Segment",
        "MS Pool Segment",
        "Allied Strategic Air MS Interdiction Segment",
        "AO Tanker Assignment Segment",
    ]
    assert segments["C"] == [
        "Plot Segment",
        "Strike Execution Segment",
        "Strategic Strike Allocation Segment",
    ]
    assert segments["D"] == [
        "Residual Command Point Segment",
        "Command Point Determination Segment",
        "Command Point Allocation Segment",
        "Emergency Command Link Segment",
    ]
    assert segments["F"] == [
        "Deployment Segment",
        "ASW Air Allocation Segment",
        "US MTB Deployment Segment",
    ]
    assert len(segments["G"]) == 5 and len(segments["H"]) == 2


def test_3_2_initiative_in_strike_and_execution_segments_only() -> None:
    rolled = [(p.key, s.key) for p in GAME_TURN for s in p.segments if s.initiative]
    assert rolled == [
        (f"{k}{n}", seg)
        for n in (1, 2, 3)
        for k, seg in (("air", "strike"), ("naval", "execution"))
    ]


def test_3_0_cycles_of_four_game_turns() -> None:
    assert [cycle_of(t, 1) for t in (1, 4, 5, 8, 9)] == [(1, 1), (1, 4), (2, 1), (2, 4), (3, 1)]
    assert [cycle_of(t, 3) for t in (1, 2, 3)] == [(1, 3), (1, 4), (2, 1)]


def test_50_0_strategic_turn_follows_each_cycle_but_not_the_last_turn() -> None:
    per_turn = sum(len(p.segments) for p in GAME_TURN)
    per_strategic = sum(len(p.segments) for p in STRATEGIC_TURN)
    slots = schedule(9, 1)
    strategic_after = sorted({s.turn for s in slots if s.strategic})
    assert strategic_after == [4, 8]
    assert len(slots) == 9 * per_turn + 2 * per_strategic
    assert next(s.cycle for s in slots if s.strategic) == 1
    assert not any(s.strategic for s in schedule(4, 1))  # 3.1 I: no turn begins after


def test_5_0_rounds_are_the_air_allocation_and_naval_plot_segments() -> None:
    """Stage 2: each Air Phase's Allocation Segment (5.0) is a round beside each
    Naval Phase's Plot Segment (16.3); the Air Search Segment before the first
    Allocation Segment is the opening's."""
    names = [(r.name, r.sides) for r in rounds(schedule(2, 1))]
    both = ("japanese", "allied")
    assert names == [("T1-open", ())] + [
        (f"T{t}-{kind}{n}-{seg}", both)
        for t in (1, 2)
        for n in (1, 2, 3)
        for kind, seg in (("air", "allocation"), ("naval", "plot"))
    ]


def test_rounds_cover_every_segment_once_in_order() -> None:
    slots = schedule(6, 2)
    covered = [s for r in rounds(slots) for s in r.slots]
    assert covered == list(slots)


def test_round_steps_cite_rules_and_mark_later_stages() -> None:
    slots = schedule(3, 1)
    rnd = round_at(slots, rounds(slots)[2].start)
    assert rnd is not None and rnd.name == "T1-naval1-plot"
    assert rnd.steps()[0] == "3.1 C First Naval Phase: Plot Segment (16.3)"
    assert "3.1 C First Naval Phase: Execution Segment (3.2, 16.0)" in rnd.steps()
    # The round runs on to the next Air Phase's search, before its Allocation round.
    assert rnd.steps()[-1] == "3.1 D Second Air Phase: Air Search Segment (13.3)"
    air = rounds(slots)[1]
    assert air.name == "T1-air1-allocation"
    assert air.steps()[:2] == (
        "3.1 B First Air Phase: Allocation Segment (5.0)",
        "3.1 B First Air Phase: Strike Segment (3.2, 5.0)",
    )
    assert "3.1 B First Air Phase: Air Transfer Segment (Day) (4.4; moderated from stage 5)" in (
        air.steps()
    )
    last = rounds(slots)[-1]
    assert last.steps()[-1].startswith(
        "3.1 I End of the Game Turn: Game-Turn marker advanced (3.1 I"
    )


def test_a_round_crossing_a_cycle_lists_the_strategic_turn() -> None:
    slots = schedule(5, 1)
    crossing = next(r for r in rounds(slots) if r.name == "T4-naval3-plot")
    assert any(s.strategic for s in crossing.slots)
    assert any(step.startswith("50.0 A Merchant Shipping Phase") for step in crossing.steps())
    assert crossing.steps()[-1].startswith("3.1 B First Air Phase")  # Game-Turn 5's, up to its plot
