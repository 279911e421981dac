"""13.6 dummy TFs and 42 strategic intelligence (Sigint, Magic, dummy plot cards)."""

from __future__ import annotations

import pytest

from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp import chits, dummies, intelligence, located
from pbem.rulesets.witp.clock import schedule
from pbem.rulesets.witp.datapack import public_pack
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.hexgrid import HexId
from pbem.rulesets.witp.knowledge import PRIVATE, PUBLIC, projection
from pbem.rulesets.witp.missioncards import MissionCard
from pbem.rulesets.witp.work import Work

from .searchworld import tf, world

SLOTS = {s.time: s for s in schedule(3, 1)}
PLOT = SLOTS["T1/naval1/plot"]


def test_13_6_allotments_follow_the_tables() -> None:
    pub = public_pack(world()[PUBLIC])
    for seed in range(40):
        n, rolls = dummies.japanese_allotment(pub, SecretDice(bytes([seed]), "t"))
        total = rolls[0] + rolls[1]
        expect = {2: 0, 3: 0, 4: 1, 5: 1, 6: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3}
        assert n == (rolls[2] if total == 7 else expect[total])
    n, (a, b) = dummies.allied_allotment(3, SecretDice(b"x", "t"))
    assert n == 3 + abs(a - b)


def test_13_6_7_17_11_dummies_sortie_within_the_allotment_into_a_friendly_hex() -> None:
    work = Work.begin(world(japanese={"1": tf("E1010", "CA")}))
    dummies.set_allotment(work, JAPANESE, 5, 1, [2, 3], PLOT)
    with pytest.raises(IllegalOrderError) as e:
        dummies.deploy(work, JAPANESE, "9", HexId("E1011"))
    assert e.value.rule == "17.11"
    dummies.deploy(work, JAPANESE, "9", HexId("E1010"))
    with pytest.raises(IllegalOrderError) as e:
        dummies.deploy(work, JAPANESE, "8", HexId("E1010"))
    assert e.value.rule == "13.6.7"
    allied = projection(work.finish().to_json(), "allied")
    assert not allied["disclosures"] and "dummy_allotment" not in allied["private"]


def test_13_6_3_a_revealed_dummy_leaves_the_map_and_its_chits_return() -> None:
    work = Work.begin(world(allied={"9": tf("E1010", dummy=True)}))
    chits.draw(work, ALLIED, "9", "cup2", SecretDice(b"s", "t"))
    located.place(work, ALLIED, "9", HexId("E1010"), "air", PLOT)
    events = dummies.reveal(work, ALLIED, "9", "surface TF contact", PLOT)
    assert not chits.held(work, ALLIED, "9")
    state = work.finish().to_json()
    assert [e.kind for e in events] == ["located-removed", "dummy-revealed"]
    assert "9" not in state[PRIVATE]["allied"]["tfs"]


def card(tf_id: str, speed: str) -> dict[str, object]:
    """A TF's plot card (16.3) as its TF stores it: sortie from E1010 at ``speed``."""
    return MissionCard(tf_id, HexId("E1010"), speed).to_json()


def test_42_3_1_sigint_sees_ten_percent_a_pip_and_the_japanese_only_an_event() -> None:
    tfs = {str(i): {**tf("E1010", "DD"), "mission": card(str(i), "SC3")} for i in range(12)}
    state = world(japanese=tfs)
    state[PRIVATE]["allied"]["intelligence"] = {"sigint_left": 2, "ruses_left": 1}
    assert intelligence.japanese_plot_first(
        public_pack(state[PUBLIC])
    )  # R70: public knowledge only
    work = Work.begin(state)
    events = intelligence.sigint(work, PLOT, SecretDice(b"s", "t"))
    seen = events[-1].data
    assert len(seen["cards"]) == min(12, -(-12 * seen["pips"] // 10))
    japanese = projection(work.json, "japanese")["disclosures"]
    assert [d["fact"] for d in japanese] == [{"kind": "sigint-event"}]
    with pytest.raises(IllegalOrderError) as e:
        intelligence.sigint(work, PLOT, SecretDice(b"s", "t"), ruse=True)
    assert e.value.rule == "42.3.2"


def test_42_3_5_a_ruse_looks_the_same_to_the_japanese() -> None:
    a, b = world(japanese={"1": tf("E1010", "CA")}), world(japanese={"1": tf("E1010", "CA")})
    for s in (a, b):
        s[PRIVATE]["allied"]["intelligence"] = {"sigint_left": 1, "ruses_left": 1}
    wa, wb = Work.begin(a), Work.begin(b)
    intelligence.sigint(wa, PLOT, SecretDice(b"s", "t"))
    intelligence.sigint(wb, PLOT, SecretDice(b"s", "t"), ruse=True)
    told = [projection(w.json, "japanese")["disclosures"] for w in (wa, wb)]
    assert told[0] == told[1]


FAKE = intelligence.card_face("TF9", "SC3", ["Shokaku", "Zuikaku"], ["MOVE E1010 EV 2"])


def test_42_9_dummy_plot_card_only_before_jn25_and_sampled_like_a_real_card() -> None:
    work = Work.begin(world(japanese={"TF1": {**tf("E1010", "CA"), "mission": card("TF1", "SC2")}}))
    with pytest.raises(IllegalOrderError) as e:
        intelligence.file_dummy_plot_card(work, FAKE, PLOT)
    assert e.value.rule == "42.9"  # no JN-25 counter to play at the cycle's end (R72)
    work.json[PRIVATE][JAPANESE]["jn25"] = {"held": 2, "committed_cycle": None}
    intelligence.file_dummy_plot_card(work, FAKE, PLOT)
    cards = intelligence.plot_cards(work, PLOT)
    assert [c.tf for c in cards] == ["TF1", "TF9"]
    real, fake = (c.to_json() for c in cards)
    assert {k: type(v) for k, v in real.items()} == {k: type(v) for k, v in fake.items()}


def test_42_4_2_magic_is_shown_when_played_except_report_false() -> None:
    work = Work.begin(world())
    intelligence.draw_magic(work, 5, SecretDice(b"m", "t"), PLOT)
    work.json[PRIVATE][ALLIED]["intelligence"]["magic"] += ["report-false", "reveal-dummy-tf"]
    _out_of_the_cup(work, "report-false")
    _out_of_the_cup(work, "reveal-dummy-tf")
    hidden = intelligence.play_magic(work, "report-false", PLOT)
    shown = intelligence.play_magic(work, "reveal-dummy-tf", PLOT)
    assert hidden.witnesses == ("allied",) and shown.witnesses is None
    assert sum(intelligence.magic_cup(work).values()) == 62 - 5


# -- 42.4.1 Magic Reveal TF and Reveal Dummy TF -----------------------------------


def magic_world(difference: int, *chits_held: str) -> Work:
    """Six Japanese TFs, TF1-TF5 Located (on the Allies' map), TF6 hidden."""
    state = world(japanese={f"TF{i}": tf("E1010", "CA") for i in range(1, 7)})
    for i in range(1, 7):
        state[PRIVATE]["japanese"]["tfs"][f"TF{i}"]["mission"] = card(f"TF{i}", "SC3")
    work = Work.begin(state)
    for i in range(1, 6):
        located.place(work, JAPANESE, f"TF{i}", HexId("E1010"), "air", PLOT)
    state = work.finish().to_json()
    state[PRIVATE]["allied"]["intelligence"] = {"si_difference": difference, "magic": []}
    work = Work.begin(state)
    intelligence.draw_magic(work, 0, SecretDice(b"m", "t"), PLOT)
    for chit in chits_held:
        work.json[PRIVATE][ALLIED]["intelligence"]["magic"].append(chit)
        _out_of_the_cup(work, chit)
    return work


def _out_of_the_cup(work: Work, chit: str) -> None:
    """One ``chit`` fewer in the Magic cup (42.4: the Allies hold it; a test's set-up)."""
    cup = intelligence.magic_cup(work)
    work.put_moderator(work.moderator().put(magic_cup={**cup, chit: cup[chit] - 1}))


def test_42_4_1_reveal_tf_at_plus_1_names_five_on_map_tfs_and_shows_one() -> None:
    work = magic_world(1, "reveal-1-tf")
    for named, why in (
        (["TF1", "TF2", "TF3", "TF4"], "5-5"),
        (["TF2", "TF3", "TF4", "TF5", "TF6"], "on the map"),
    ):
        with pytest.raises(IllegalOrderError) as e:
            intelligence.reveal_tf(work, "reveal-1-tf", named, PLOT, SecretDice(b"s", "t"))
        assert e.value.rule == "42.4.1" and why in str(e.value)
    named = ["TF1", "TF2", "TF3", "TF4", "TF5"]
    events = intelligence.reveal_tf(work, "reveal-1-tf", named, PLOT, SecretDice(b"s", "t"))
    assert [(e.kind, e.witnesses) for e in events] == [
        ("magic-played", None),
        ("magic-reveal-named", None),  # the Japanese hand those cards over
        ("magic-reveal-tf", ("allied",)),  # which one was read stays the Allies'
    ]
    (card,) = events[-1].data["cards"]
    assert card["tf"] in named and card["composition"] == ["CA0"] and card["speed"] == "SC3"


def test_42_4_1_the_japanese_cannot_tell_which_card_was_read() -> None:
    seen, japanese = set(), []
    for seed in (b"a", b"b", b"c", b"d", b"e", b"f"):
        work = magic_world(2, "reveal-2-tf")
        events = intelligence.reveal_tf(
            work, "reveal-2-tf", ["TF1", "TF2", "TF3"], PLOT, SecretDice(seed, "t")
        )
        seen.add(tuple(c["tf"] for c in events[-1].data["cards"]))
        japanese.append(projection(work.json, "japanese"))
    assert len(seen) > 1  # the pick differs with the secret stream ...
    assert all(p == japanese[0] for p in japanese)  # ... and the Japanese see the same


def test_42_4_1_reveal_tf_at_plus_3_reads_any_card_hidden_ones_included() -> None:
    work = magic_world(3, "reveal-1-tf")
    work.json[PRIVATE][JAPANESE]["jn25"] = {"held": 1, "committed_cycle": None}
    intelligence.file_dummy_plot_card(work, FAKE, PLOT)
    events = intelligence.reveal_tf(work, "reveal-1-tf", ["TF6"], PLOT, SecretDice(b"s", "t"))
    assert [(e.kind, e.witnesses) for e in events] == [
        ("magic-played", None),
        ("magic-card-backs", ("allied",)),
        ("magic-reveal-tf", ("allied",)),
    ]
    assert "TF9" in events[1].data["tfs"] and "TF6" in events[1].data["tfs"]
    assert [c["tf"] for c in events[-1].data["cards"]] == ["TF6"]
    with pytest.raises(IllegalOrderError):
        intelligence.reveal_tf(work, "reveal-1-tf", ["TF1"], PLOT, SecretDice(b"s", "t"))  # spent


def test_42_4_1_reveal_dummy_removes_the_japanese_choice_or_burns_a_sortie() -> None:
    work = magic_world(1, "reveal-dummy-tf", "reveal-dummy-tf", "reveal-dummy-tf")
    own = work.json[PRIVATE][JAPANESE]
    own["tfs"]["TF7"] = tf("E1011", dummy=True)
    own["tfs"]["TF8"] = tf("E1012", dummy=True)
    own["standing"] = {intelligence.REVEAL_DUMMY_ORDER: ["TF8"]}
    own["dummy_allotment"] = {"cycle": 5, "allowed": 3, "sorties": 2}
    events = intelligence.reveal_dummy(work, PLOT)
    assert [e.kind for e in events] == ["magic-played", "dummy-revealed"]
    assert events[-1].data["tf"] == "TF8" and events[-1].witnesses is None
    assert intelligence.reveal_dummy(work, PLOT)[-1].data["tf"] == "TF7"
    burnt = intelligence.reveal_dummy(work, PLOT)[-1]  # none at sea: an unused sortie goes
    assert burnt.kind == "dummy-sortie-burnt" and burnt.data["burnt"] == 1
    assert own["dummy_allotment"]["allowed"] == 2
