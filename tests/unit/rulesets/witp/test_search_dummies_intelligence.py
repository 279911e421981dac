"""13.6 dummy TFs and 42 strategic intelligence (Sigint, Magic, dummy plot cards)."""

from __future__ import annotations

import pytest

from pbem.core.errors import IllegalOrderError
from pbem.rulesets.witp import chits, dummies, intelligence, located
from pbem.rulesets.witp.clock import schedule
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, projection

from .searchworld import tf, world

SLOTS = {s.time: s for s in schedule(3, 1)}
PLOT = SLOTS["T1/naval1/plot"]


def test_13_6_allotments_follow_the_tables() -> None:
    pub = world()[PUBLIC]
    for seed in range(40):
        n, rolls = dummies.japanese_allotment(pub, SecretDice(bytes([seed]), "t"))
        total = rolls[0] + rolls[1]
        expect = {2: 0, 3: 0, 4: 1, 5: 1, 6: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3}
        assert n == (rolls[2] if total == 7 else expect[total])
    n, (a, b) = dummies.allied_allotment(3, SecretDice(b"x", "t"))
    assert n == 3 + abs(a - b)


def test_13_6_7_17_11_dummies_sortie_within_the_allotment_into_a_friendly_hex() -> None:
    state = world(japanese={"1": tf("E1010", "CA")})
    dummies.set_allotment(state, "japanese", 5, 1, [2, 3], PLOT)
    with pytest.raises(IllegalOrderError) as e:
        dummies.deploy(state, "japanese", "9", "E1011")
    assert e.value.rule == "17.11"
    dummies.deploy(state, "japanese", "9", "E1010")
    with pytest.raises(IllegalOrderError) as e:
        dummies.deploy(state, "japanese", "8", "E1010")
    assert e.value.rule == "13.6.7"
    allied = projection(state, "allied")
    assert not allied["disclosures"] and "dummy_allotment" not in allied["private"]


def test_13_6_3_a_revealed_dummy_leaves_the_map_and_its_chits_return() -> None:
    state = world(allied={"9": tf("E1010", dummy=True)})
    chits.draw(state, "allied", "9", "cup2", SecretDice(b"s", "t"))
    located.place(state, "allied", "9", "E1010", "air", PLOT)
    events = dummies.reveal(state, "allied", "9", "surface TF contact", PLOT)
    assert [e.kind for e in events] == ["located-removed", "dummy-revealed"]
    assert "9" not in state[PRIVATE]["allied"]["tfs"] and not chits.held(state, "allied", "9")


def test_42_3_1_sigint_sees_ten_percent_a_pip_and_the_japanese_only_an_event() -> None:
    tfs = {str(i): tf("E1010", "DD") for i in range(12)}
    state = world(japanese=tfs)
    state[PRIVATE]["allied"]["intelligence"] = {"sigint_left": 2, "ruses_left": 1}
    assert intelligence.japanese_plot_first(state)
    events = intelligence.sigint(state, PLOT, SecretDice(b"s", "t"))
    seen = events[-1].data
    assert len(seen["cards"]) == min(12, -(-12 * seen["pips"] // 10))
    japanese = projection(state, "japanese")["disclosures"]
    assert [d["fact"] for d in japanese] == [{"kind": "sigint-event"}]
    with pytest.raises(IllegalOrderError) as e:
        intelligence.sigint(state, PLOT, SecretDice(b"s", "t"), ruse=True)
    assert e.value.rule == "42.3.2"


def test_42_3_5_a_ruse_looks_the_same_to_the_japanese() -> None:
    a, b = world(japanese={"1": tf("E1010", "CA")}), world(japanese={"1": tf("E1010", "CA")})
    for s in (a, b):
        s[PRIVATE]["allied"]["intelligence"] = {"sigint_left": 1, "ruses_left": 1}
    intelligence.sigint(a, PLOT, SecretDice(b"s", "t"))
    intelligence.sigint(b, PLOT, SecretDice(b"s", "t"), ruse=True)
    assert projection(a, "japanese")["disclosures"] == projection(b, "japanese")["disclosures"]


def test_42_9_dummy_plot_card_only_before_jn25_and_sampled_like_a_real_card() -> None:
    state = world(japanese={"1": tf("E1010", "CA")})
    with pytest.raises(IllegalOrderError) as e:
        intelligence.file_dummy_plot_card(state, "7", "MOVE E1010 E1020", PLOT)
    assert e.value.rule == "42.9"
    state[PRIVATE]["japanese"]["jn25_play_turn"] = 3
    intelligence.file_dummy_plot_card(state, "7", "MOVE E1010 E1020", PLOT)
    assert [c["tf"] for c in intelligence.plot_cards(state, PLOT)] == ["1", "7"]


def test_42_4_2_magic_is_shown_when_played_except_report_false() -> None:
    state = world()
    intelligence.draw_magic(state, 5, SecretDice(b"m", "t"), PLOT)
    state[PRIVATE]["allied"]["intelligence"]["magic"] += ["report-false", "reveal-dummy-tf"]
    state["moderator"]["magic_cup"]["report-false"] -= 1
    state["moderator"]["magic_cup"]["reveal-dummy-tf"] -= 1
    hidden = intelligence.play_magic(state, "report-false", PLOT)
    shown = intelligence.play_magic(state, "reveal-dummy-tf", PLOT)
    assert hidden.witnesses == ("allied",) and shown.witnesses is None
    assert sum(state["moderator"]["magic_cup"].values()) == 62 - 5
