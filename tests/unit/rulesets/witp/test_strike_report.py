"""The report's strike section (strikeview.py): each side reads a naval strike as
tables built from the facts disclosed to it, and nothing else (witp-hidden-info
4.1-4.2, 6): the striker its placement face down, the target ring's speeds and the
ships it targeted; the naval player the altitudes before the make-up; both the
air combat, the AA and the attacks with their open dice; critical hits to the
owner roll by roll, to the striker only when doubles produced one (16.7, R100).
Each fact is told once: none is repeated in the event list or "Told to you alone"."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp import strikeview
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.knowledge import DISCLOSURES, PRIVATE, PUBLIC
from pbem.rulesets.witp.ruleset import WitpRuleset

from .strikeworld import opened, report, resolved, strike_section
from .test_air_world import told

RATINGS = {ALLIED: Ratings("R.Adm. Fletcher", 9, 7), JAPANESE: Ratings("R.Adm. Hara", 6, 6)}


@pytest.fixture(scope="module")
def base(witp: WitpRuleset) -> dict[str, Any]:
    return opened(witp)


def _tables(view: Any) -> dict[str, list[list[str]]]:
    (block,) = view["strikes"]
    return {t["key"]: t["rows"] for t in block["tables"]}


def _with_attack(base: dict[str, Any], **kw: Any) -> tuple[dict[str, Any], list[Any]]:
    for seed in range(60):
        st, events = resolved(base, seed, **kw)
        if told(st, ALLIED, "air-surface-attack"):
            return st, events
    raise AssertionError("no attack in 60 seeds")


def test_7_8_1_the_striker_reads_each_attack_with_its_dice(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = _with_attack(base)
    view = witp.view(st, events, ALLIED)
    rows = _tables(view)["attacks"]
    facts = told(st, ALLIED, "air-surface-attack")
    assert len(rows) == len(facts)
    for row, f in zip(rows, facts, strict=True):
        assert row[:2] == [str(f["wave"]), f"{f['type']} {f['ship']}"]
        assert row[3] == str(f["anti_ship"]) and row[6] == str(f["roll"])
        assert row[7] == f"{f['damage_points']}/{f['defence']}"
        assert row[8:10] == [f["odds"], str(f["crt_roll"])]
    text, html = report(witp, st, events, ALLIED)
    section = strike_section(html)  # told in full in the HTML part
    assert "T1/air2/strike: Your strike on japanese TF2" in section
    assert all(f"{f['type']} {f['ship']}" in section for f in facts)
    assert html.count('<article class="strike">') == 1
    line = strike_section(text)  # the plain text: a line a strike, in 72 columns
    assert "T1/air2/strike: Your strike on japanese TF2" in line
    assert all(len(ln) <= 72 for ln in line.splitlines())


def test_7_2_1_placement_and_7_8_1_the_target_ring_are_the_strikers_alone(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = _with_attack(base)
    mine = _tables(witp.view(st, events, ALLIED))
    ships = base[PRIVATE][JAPANESE]["tfs"]["TF2"]["ships"]
    placed = mine["placement"]
    assert len(placed) == len(ships)
    # face down: ring, arc, type and "at least D2", never a name
    assert not any(name in " ".join(row) for row in placed for name in ships)
    assert [r[2] for r in placed].count("CV") == 2
    assert mine["ring"] and mine["targeted"]
    theirs = _tables(witp.view(st, events, JAPANESE))
    assert not {"placement", "ring", "targeted"} & set(theirs)
    text, _ = report(witp, st, events, JAPANESE)
    assert "Placement, face down" not in text and "Target ring" not in text


def test_7_1_b_the_naval_player_learns_altitudes_and_escort_before_the_make_up(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = resolved(base, 3)
    (block,) = witp.view(st, events, JAPANESE)["strikes"]
    before = block["notes"][: next(i for i, n in enumerate(block["notes"]) if "air combat" in n)]
    assert "[7.1 B] altitudes: L unescorted, M escorted" in before
    assert not any(t in " ".join(before) for t in ("SBD", "TBD", "F4F"))


def test_5_0_the_naval_player_is_told_the_launch_hex_not_the_tf(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = resolved(base, 3)
    text, html = report(witp, st, events, JAPANESE)
    section = strike_section(html)
    assert "T1/air2/strike: Enemy (allied) strike on your TF2" in section
    assert "TF3" not in strike_section(text)
    assert "Allied strike launched from E2120 (carrier launch hex). [5.0]" in " ".join(
        section.split()
    )
    assert (
        "TF3" not in section and "TF3" not in html.split('id="strikes"')[1].split("</section>")[0]
    )


def test_8_1_4_each_side_sees_its_own_carrier_coordination_roll(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = resolved(base, 3)
    (mine,) = witp.view(st, events, ALLIED)["strikes"]
    (theirs,) = witp.view(st, events, JAPANESE)["strikes"]
    (cc,) = [f for f in told(st, ALLIED, "carrier-coordination")]
    assert any(
        n.startswith("[8.1.4] carrier coordination, TF3") and f"2D10 {cc['first']}" in n
        for n in mine["notes"]
    )
    assert not any("coordination, TF3" in n for n in theirs["notes"])
    assert any(n.startswith("[8.1.4] CAP carrier coordination, TF2") for n in theirs["notes"])
    assert not any("CAP carrier coordination" in n for n in mine["notes"])


def test_6_1_1_and_10_1_both_sides_read_the_same_air_combat_and_aa(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = resolved(base, 3)
    mine, theirs = (_tables(witp.view(st, events, s)) for s in (ALLIED, JAPANESE))
    for key in ("forces", "air-combat", "waves", "aa"):
        assert mine[key] == theirs[key], key
    steps = [s for f in told(st, JAPANESE, "air-combat") for s in f["steps"]]
    assert [r[3] for r in mine["air-combat"]] == [str(s["roll"]) for s in steps]  # each 2D6
    aa = told(st, JAPANESE, "aa-fire")
    assert [r[4] for r in mine["aa"]] == [str(f["roll"]) for f in aa]


def test_12_0_a_plotted_strike_and_12_1_the_sequence_are_told_to_both(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = resolved(base, 3, ratings=RATINGS, target_plotted=True)
    (seq,) = told(st, ALLIED, "strike-sequence")
    for side in (ALLIED, JAPANESE):
        (block,) = witp.view(st, events, side)["strikes"]
        assert "[12.0] the target's carriers have a strike plotted this phase" in block["notes"]
        assert f"[12.1] strike sequence: 1D6 {seq['roll']}: {seq['result']}" in block["notes"]


def _critical_worlds(base: dict[str, Any], damage: int = 0) -> Any:
    """Worlds whose strike damaged a ship that then rolled for critical hits, on a
    moderator's Critical Hit Table of 10 or more: the shipped pack's 12 comes only on
    doubles, and these tests need criticals rolled without them (R100)."""
    world = copy.deepcopy(base)
    world[PUBLIC]["pack"]["tables/critical-hit"]["value"]["at_least"] = 10
    if damage:
        world[PRIVATE][JAPANESE]["ships"] = {
            n: {**s, "damage": damage} if s["type"] == "CV" else s
            for n, s in world[PRIVATE][JAPANESE]["ships"].items()
        }
    # the first open seed whose strike damages a ship; then the owner's secret stream
    # varies (the open dice, and all the striker is told, stay the same)
    seed = next(s for s in range(60) if told(resolved(world, s)[0], JAPANESE, "critical-hit-rolls"))
    for secret in range(400):
        yield resolved(world, seed, secret=secret.to_bytes(2, "big") * 4)


def test_16_7_the_owner_reads_every_critical_roll_the_striker_only_doubles(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    hidden = doubles = 0
    for st, events in _critical_worlds(base):
        rolls = [r for f in told(st, JAPANESE, "critical-hit-rolls") for r in f["rolls"]]
        owner = _tables(witp.view(st, events, JAPANESE))
        assert len(owner["critical"]) == len(rolls)
        told_doubles = [r for r in rolls if r["critical"] and r["doubles"]]
        striker = _tables(witp.view(st, events, ALLIED))
        assert len(striker.get("critical", [])) == len(told_doubles)
        hidden += sum(1 for r in rolls if r["critical"] and not r["doubles"])
        doubles += len(told_doubles)
        if hidden and doubles:
            break
    assert hidden and doubles  # both kinds were seen


def test_16_7_r100_a_ship_sunk_by_a_hidden_critical_is_not_told_sunk(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    def sunk_unseen(st: dict[str, Any]) -> list[str]:
        return [
            f["ship"]
            for f in told(st, JAPANESE, "critical-hit-rolls")
            if f["rolls"][-1]["damage"] >= 5 and not told(st, ALLIED, "critical-hit")
        ]

    st, events = next(w for w in _critical_worlds(base, damage=3) if sunk_unseen(w[0]))
    sunk = sunk_unseen(st)
    (mine,) = witp.view(st, events, ALLIED)["strikes"]
    (theirs,) = witp.view(st, events, JAPANESE)["strikes"]
    assert f"{sunk[0]} critical hit(s): now D5" in theirs["result"]
    assert sunk[0] in mine["result"] and "D5" not in mine["result"]
    assert not re.search(
        rf"{sunk[0]} (sunk|SUNK)", strike_section(report(witp, st, events, ALLIED)[1])
    )


def test_6_3_3_extended_range_losses_are_the_strikers_own(witp: WitpRuleset) -> None:
    far = opened(witp, hexes=9)
    for seed in range(30):
        st, events = resolved(far, seed, hexes=9)
        if told(st, ALLIED, "extended-range-losses"):
            break
    assert "extended" in _tables(witp.view(st, events, ALLIED))
    assert "extended" not in _tables(witp.view(st, events, JAPANESE))


def test_5_15_the_extreme_range_return_roll_is_the_strikers_own(witp: WitpRuleset) -> None:
    far = opened(witp, hexes=13)
    st, events = resolved(far, 4, hexes=13)  # seed 4: some SBDs come back
    (roll,) = told(st, ALLIED, "extreme-range-losses")
    assert "extreme" in _tables(witp.view(st, events, ALLIED))
    assert "extreme" not in _tables(witp.view(st, events, JAPANESE))
    text = strike_section(report(witp, st, events, ALLIED)[1])
    assert "Extreme range: SBD-3 2D6" in " ".join(text.split())
    plain = strike_section(report(witp, st, events, ALLIED)[0])  # a strike a line
    assert plain and max(len(line) for line in plain.splitlines()) <= 72
    assert "Extreme range" not in strike_section(report(witp, st, events, JAPANESE)[1])
    assert roll["column"] == "X+6"


def test_each_strike_fact_is_told_once_not_in_the_event_list(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    st, events = resolved(base, 3, ratings=RATINGS, target_plotted=True)
    new = st[DISCLOSURES][len(base[DISCLOSURES]) :]
    kinds = {d["fact"]["kind"] for d in new} - {"search-report"}
    assert kinds <= strikeview.SECTIONED
    for side in (ALLIED, JAPANESE, None):
        view = witp.view(st, events, side)
        assert not {e["kind"] for e in view["events"]} & strikeview.SECTIONED
        assert not {t["fact"]["kind"] for t in view["told_you"]} & strikeview.SECTIONED
        text, _ = report(witp, st, events, side)
        assert "'kind': 'air-" not in text and "air surface attack" not in text


def test_12_1_a_sequence_roll_told_before_the_launch_is_that_strikes_own_block(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    """In a Strike Segment the target's side may hear 12.0 and 12.1 before the launch
    (5.0) is announced to it: they open the strike's block, not an enemy "(?)" block
    of their own with nothing in it."""
    st, events = resolved(base, 3, ratings=RATINGS, target_plotted=True)
    early = {"plotted-strike-revealed", "strike-sequence"}
    told_first = [d for d in st[DISCLOSURES] if d["fact"]["kind"] in early]
    st = {**st, DISCLOSURES: told_first + [d for d in st[DISCLOSURES] if d not in told_first]}
    (block,) = witp.view(st, events, JAPANESE)["strikes"]
    assert block["title"] == "T1/air2/strike: Enemy (allied) strike on your TF2"
    assert "[12.0] the target's carriers have a strike plotted this phase" in block["notes"]
    assert any(n.startswith("[5.0] launched from") for n in block["notes"])


def test_two_strikes_in_a_round_are_two_blocks(witp: WitpRuleset, base: dict[str, Any]) -> None:
    st, events = resolved(base, 3)
    st2, events2 = resolved(st, 4, side=JAPANESE)
    view = witp.view(st2, events + events2, ALLIED)
    titles = [b["title"] for b in view["strikes"]]
    assert titles == [
        "T1/air2/strike: Your strike on japanese TF2",
        "T1/air2/strike: Enemy (japanese) strike on your TF3",
    ]


def test_the_strike_section_fits_a_mail_of_72_columns(
    witp: WitpRuleset, base: dict[str, Any]
) -> None:
    for seed in range(6):
        for striker in (ALLIED, JAPANESE):
            st, events = resolved(base, seed, side=striker, ratings=RATINGS)
            for viewer in (ALLIED, JAPANESE):
                section = strike_section(report(witp, st, events, viewer)[0])
                assert section
                assert max(len(line) for line in section.splitlines()) <= 72
