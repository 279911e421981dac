"""Noninterference extended to strikes, air combat and damage (issue 17, "Must hold"):
two Coral Sea worlds that differ only in what a side may not know of a naval
strike give that side the same knowledge and byte-identical report text and HTML.

The worlds (strikeworld.cases) share the open dice and differ at random in the
other side's plots, its CAP grounded over another TF (5.3.6), the moderator's part,
facts told to the other side alone, and the dice of the rolls only the other side
is told: the owner's critical-hit rolls (16.7: told to the striker on doubles
only) when the viewer struck, the striker's extended-range doubling (6.3.3) and
its extreme-range return roll (5.15, at 13 hexes) when the viewer was struck, the
striker's SUPPRESS (7.9) while it peels off the same fighters in both worlds
(mostly none), the struck side's CAP order (R135) at the levels the strike does
not fly, where 6.1.1 shows the striker nothing, and green APs (58.1) away from the
fight. Each strike is resolved by ``naval_strike.resolve_into`` itself, so the property
covers what the rules module discloses as well as what the report makes of it.
A second property plays whole Strike Segments that differ in the RECIPROCAL
choice of the side losing 12.3.2 Step 2's roll (R125); a third, whole Naval Phases
that differ in an unused Naval Cover line of the naval plot (5.3.4, R138).
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from pbem.core.sides import ALLIED, JAPANESE, enemy_of
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PRIVATE, indistinguishable
from pbem.rulesets.witp.ruleset import WitpRuleset

from .strikeworld import (
    Bases,
    Case,
    RoutedSecret,
    cases,
    doubles_told,
    peeled,
    report,
    resolved,
    strike_section,
    world,
)
from .test_air_navalcover import MOVE, AirPhase, air_phase  # noqa: F401  (the fixture)
from .test_air_play import play
from .test_air_reciprocal import Battle, segment, winner
from .test_air_world import told


@pytest.fixture(scope="module")
def bases(witp: WitpRuleset) -> Bases:
    return Bases.of(witp)


@pytest.fixture(scope="module")
def battle(witp: WitpRuleset) -> Battle:
    return Battle.of(witp)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases())
def test_hid_a_strike_report_is_identical_in_worlds_the_side_cannot_tell_apart(
    witp: WitpRuleset, bases: Bases, case: Case
) -> None:
    (a, ea), (b, eb) = (world(bases[case.hexes], case, h) for h in case.worlds)
    # a critical hit from doubles is told to the striker (16.7): those worlds differ
    assume(doubles_told(a, case.viewer) == doubles_told(b, case.viewer))
    # fighters peeled off to suppress AA fly in the open (7.9.1): a SUPPRESS stays
    # secret while both worlds fly the same (mostly none: the CAP outnumbers them)
    assume(peeled(a) == peeled(b))
    assert indistinguishable(a, b, case.viewer)
    seen = [[e.to_json() for e in es if e.seen_by(case.viewer)] for es in (ea, eb)]
    assert seen[0] == seen[1]
    text_a, html_a = report(witp, a, ea, case.viewer)
    text_b, html_b = report(witp, b, eb, case.viewer)
    role = "striker" if case.viewer == case.striker else "struck"
    event(f"{role}, {case.hexes} hexes")
    assert strike_section(text_a)
    assert text_a == text_b
    assert html_a == html_b


def test_the_comparison_can_fail_the_owner_reads_the_secret_rolls(
    witp: WitpRuleset, bases: Bases
) -> None:
    """The same strike with other critical-hit rolls: the owner's report changes
    (it reads every roll, 16.7); the striker's only when doubles made a hit."""
    base = bases[6]
    seed = next(s for s in range(60) if told(resolved(base, s)[0], JAPANESE, "critical-hit-rolls"))
    a, ea = resolved(base, seed, b"one")
    for n in range(200):
        b, eb = resolved(base, seed, n.to_bytes(2, "big") * 2)
        rolls = [told(w, JAPANESE, "critical-hit-rolls") for w in (a, b)]
        if rolls[0] != rolls[1] and doubles_told(a, ALLIED) == doubles_told(b, ALLIED):
            break
    assert report(witp, a, ea, JAPANESE) != report(witp, b, eb, JAPANESE)
    assert report(witp, a, ea, ALLIED) == report(witp, b, eb, ALLIED)


def test_5_15_the_comparison_can_fail_the_striker_reads_its_extreme_range_roll(
    witp: WitpRuleset, bases: Bases
) -> None:
    """The same extreme-range strike with another return roll: the striker's report
    changes (its own roll, 5.15); the struck side's does not."""
    base, worlds = bases[13], []
    for n in range(40):
        extreme = SecretDice(n.to_bytes(4, "big"), "secret")
        secret = RoutedSecret(SecretDice(b"one", "secret"), extreme, "extreme range")
        worlds.append(resolved(base, 5, hexes=13, secret_dice=secret))
    rolls = [told(w, ALLIED, "extreme-range-losses")[0]["roll"] for w, _ in worlds]
    b = next(i for i, r in enumerate(rolls) if r != rolls[0])
    (a, ea), (b_, eb) = worlds[0], worlds[b]
    assert report(witp, a, ea, ALLIED) != report(witp, b_, eb, ALLIED)
    assert report(witp, a, ea, JAPANESE) == report(witp, b_, eb, JAPANESE)


def test_7_9_the_comparison_can_fail_the_striker_reads_its_suppress(
    witp: WitpRuleset, bases: Bases
) -> None:
    """A SUPPRESS that peels none off (the CAP outnumbers the escort): the striker's
    report tells it (its own, 7.9), the struck side's is unchanged. With no CAP the
    fighters peel off, and the struck side sees them fly in (7.9.1)."""
    base = bases[9]
    for seed in range(60):
        b, eb = resolved(base, seed, hexes=9, suppress=2)
        if not peeled(b):
            break
    a, ea = resolved(base, seed, hexes=9)
    assert told(b, ALLIED, "aa-suppressors") and not told(b, JAPANESE, "aa-suppressors")
    assert report(witp, a, ea, ALLIED) != report(witp, b, eb, ALLIED)
    assert report(witp, a, ea, JAPANESE) == report(witp, b, eb, JAPANESE)
    bare = copy.deepcopy(base)
    for name in ("Shokaku", "Zuikaku"):
        bare[PRIVATE][JAPANESE]["ships"][name]["air"]["A6M2"] = 0
    c, ec = resolved(bare, seed, hexes=9)
    d, ed = resolved(bare, seed, hexes=9, suppress=2)
    assert peeled(d) == [{"F4F-3": 2}]
    seen = strike_section(report(witp, d, ed, JAPANESE)[1])
    assert report(witp, c, ec, JAPANESE) != report(witp, d, ed, JAPANESE)
    flat = " ".join(seen.split())
    assert "AA suppression in the" in flat and "F4F-3 (F/L)" in flat
    assert (
        max(len(line) for line in strike_section(report(witp, d, ed, JAPANESE)[0]).splitlines())
        <= 72
    )


# -- 12.3.2 Step 2 (R125): the loser's RECIPROCAL choice is never told ----------------


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.binary(min_size=8, max_size=8), st.sampled_from(("BEFORE", "AFTER")))
def test_12_3_2_step_2_worlds_differing_in_the_losers_reciprocal_choice_look_alike(
    witp: WitpRuleset,
    battle: Battle,
    seed: bytes,
    mine: str,
) -> None:
    """Three or more carrier strikes, reciprocal and not: worlds that differ in the
    RECIPROCAL line of the side that loses Step 2's roll give the winner the same
    knowledge, and both sides byte-identical reports; flipping the winner's (the
    control) changes its report."""
    first = segment(witp, battle, seed, mine, mine)
    won = winner(first)
    flip = {"BEFORE": "AFTER", "AFTER": "BEFORE"}[mine]

    def choosing(side: str) -> tuple[str, str]:
        return (flip if side == ALLIED else mine, flip if side == JAPANESE else mine)

    other = segment(witp, battle, seed, *choosing(enemy_of(won)))
    assert indistinguishable(first.state, other.state, won)  # the loser's plot aside
    for side in (ALLIED, JAPANESE):  # the loser's choice changes nothing told
        assert report(witp, first.state, list(first.events), side) == report(
            witp, other.state, list(other.events), side
        )
    control = segment(witp, battle, seed, *choosing(won))
    assert report(witp, control.state, list(control.events), won) != report(
        witp, first.state, list(first.events), won
    )


def test_r135_the_comparison_can_fail_the_cap_order(witp: WitpRuleset, bases: Bases) -> None:
    """The owner's CAP order: a share where the strike does not fly changes the
    owner's report alone (his order is echoed to him); a share where it flies moves
    the CAP the striker meets, and the striker's report changes (6.1.1)."""
    base = bases[6]
    a = resolved(base, 2, cap_split={"L": 1, "M": 1, "H": 0})
    b = resolved(base, 2, cap_split={"L": 1, "M": 1, "H": 5})
    assert report(witp, *a, ALLIED) == report(witp, *b, ALLIED)
    assert report(witp, *a, JAPANESE) != report(witp, *b, JAPANESE)
    for seed in range(40):
        a = resolved(base, seed, cap_split={"L": 1})
        c = resolved(base, seed, cap_split={"M": 1})
        if told(a[0], ALLIED, "air-combat"):
            break
    assert report(witp, *a, ALLIED) != report(witp, *c, ALLIED)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from(["TF1", "Rabaul"]),
    st.sampled_from(["TF1", "TF4"]),
    st.sampled_from([b"a", b"b", b"c"]),
)
def test_5_3_4_an_unused_naval_cover_plot_leaves_the_enemys_report_alone(
    witp: WitpRuleset,
    air_phase: AirPhase,  # noqa: F811
    base: str,
    over: str,
    seed: bytes,
) -> None:
    """Noninterference (16.3: the plot is secret): Naval Cover plotted over a TF no
    special strike meets (TF1 at sea, TF4 in port), from a carrier or a land base:
    the Allies' knowledge and report are those of the plot without it."""
    cover = f"NAVALCOVER C1 FROM {base} 1xA6M2 OVER {over}"
    a = play(witp, air_phase.state, seed, japanese=MOVE, allied="PASS")
    b = play(witp, air_phase.state, seed, japanese=f"{MOVE}\n{cover}", allied="PASS")
    assert [e for e in a.events if e.kind == "special-strike"]
    assert not [e for e in b.events if e.kind == "cover-availability"]
    assert indistinguishable(a.state, b.state, ALLIED)
    seen = [[e.to_json() for e in r.events if e.seen_by(ALLIED)] for r in (a, b)]
    assert seen[0] == seen[1]
    assert witp.view(a.state, a.events, ALLIED) == witp.view(b.state, b.events, ALLIED)
