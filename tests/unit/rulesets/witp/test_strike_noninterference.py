"""Noninterference extended to strikes, air combat and damage (issue 17, "Must hold"):
two Coral Sea worlds that differ only in what a side may not know of a naval
strike give that side the same knowledge and byte-identical report text and HTML.

The worlds (strikeworld.cases) share the open dice and differ at random in the
other side's plots, its CAP grounded over another TF (5.3.6), the moderator's part,
facts told to the other side alone, and the dice of the rolls only the other side
is told: the owner's critical-hit rolls (16.7: told to the striker on doubles
only) when the viewer struck, the striker's extended-range doubling (6.3.3) and
its extreme-range return roll (5.15, at 13 hexes) when the viewer was struck. Each strike is resolved by ``naval_strike.resolve`` itself,
so the property covers what the rules module discloses as well as what the report
makes of it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, event, given, settings

from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import indistinguishable
from pbem.rulesets.witp.ruleset import WitpRuleset
from pbem.rulesets.witp.sides import ALLIED, JAPANESE

from .strikeworld import (
    Bases,
    Case,
    RoutedSecret,
    cases,
    doubles_told,
    report,
    resolved,
    strike_section,
    world,
)
from .test_air_world import told


@pytest.fixture(scope="module")
def bases(witp: WitpRuleset) -> Bases:
    return Bases.of(witp)


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
