"""42.4.1 Strike Sequence chits and 42.4.3 "Planes on Deck": the Allies' Magic chits
filed with the Air Strike Plot (air/magic.py) and played in the naval strike.

42.4.1: 'A "Strike Sequence (2)" chit may be used to provide a DRM (of either +2 or
-2, at his discretion) to any single Strike Sequence Table DR.' 42.4.3: 'The US
player (only) may claim a "Planes on Deck" column shift on the Naval CRT, in
resolving air-surface attacks vs. IJN carriers ... 2D6 are rolled for any nominated
attacking wave. The US player gains a column shift (Right) equal to the DR
differential ... for each individual carrier attacked by that wave.'"""

from __future__ import annotations

from typing import Any

import pytest

from pbem.core.dice import SeededDice
from pbem.core.errors import IllegalOrderError
from pbem.core.sides import ALLIED, JAPANESE
from pbem.rulesets.witp import intelligence
from pbem.rulesets.witp.air import magic, plot
from pbem.rulesets.witp.air.coordination import Ratings
from pbem.rulesets.witp.air.strike.plotted import AirStrike as Plotted
from pbem.rulesets.witp.air.strike.plotted import Resolution, StrikeContext
from pbem.rulesets.witp.air.strikes import AirStrike, PlanesOnDeck, SequenceChit
from pbem.rulesets.witp.air.tables import value
from pbem.rulesets.witp.draws import SecretDice
from pbem.rulesets.witp.knowledge import DISCLOSURES, MODERATOR
from pbem.rulesets.witp.sentences import sentence
from pbem.rulesets.witp.taskforces import Ship
from pbem.rulesets.witp.work import Work

from .test_air_world import knowing, resolve_stored, ship, told, world

TIME = "T1/air1/strike"
SEQ2, SEQ1 = "strike-sequence-2", "strike-sequence-1"
STRIKE = "STRIKE S1 FROM TF2 4xSBD-3/D 2xTBD-1/T TARGET TF1"
ON_DECK = f"{STRIKE}\nMAGIC PLANES-ON-DECK S1 WAVE 1 STRIKE-SEQUENCE-2 STRIKE-SEQUENCE-1"


def holding(state: dict[str, Any], *chits: str) -> dict[str, Any]:
    """``state`` with the Allies holding ``chits`` (through intelligence's accessors)."""
    work = Work.begin(state)
    intelligence.put_holdings(work, intelligence.Holdings(magic=chits))
    return work.finish().to_json()


def held(state: dict[str, Any]) -> tuple[str, ...]:
    return intelligence.allied_holdings(Work.begin(state)).chits


def judged(state: dict[str, Any], text: str, side: str = ALLIED) -> tuple[Any, list[Any]]:
    return plot.judge(knowing(state, side), side, text)


def refusals(state: dict[str, Any], text: str, side: str = ALLIED) -> list[tuple[str, str]]:
    _, errors = judged(state, text, side)
    return [(e.rule or "", e.message) for e in errors]


def strike_of(state: dict[str, Any], text: str) -> AirStrike:
    p, errors = judged(state, text)
    assert errors == []
    return p.air_strikes["S1"]


def run(state: dict[str, Any], text: str, seed: int, **kw: Any) -> tuple[dict[str, Any], list[Any]]:
    dice = SeededDice(bytes([seed]) * 16, "g", 1, "air1")
    secret = SecretDice(bytes([seed + 1]) * 12, "secret")
    return resolve_stored(state, strike_of(state, text), dice, secret, TIME, **kw)


def attacks(state: dict[str, Any]) -> list[dict[str, Any]]:
    return told(state, ALLIED, "air-surface-attack")


# -- 42.4.3 Planes on Deck ----------------------------------------------------------


def test_42_4_3_planes_on_deck_shift_equals_the_dice_difference() -> None:
    """'a column shift (Right) equal to the DR differential (i.e., from 0 to 5 column
    shifts right) on the Naval CRT': the odds column the wave's attack used is the
    damage points' against the defence, moved right by the difference of the 2D6."""
    start = holding(world(), SEQ2, SEQ1)
    columns = value(knowing(start, ALLIED).pack, "tables/naval-crt")["columns"]
    shifts = set()
    for seed in range(1, 17):
        st, _ = run(start, ON_DECK, seed)
        if not attacks(st):  # the wave did not survive the CAP and AA: nothing rolled
            assert told(st, JAPANESE, "planes-on-deck") == [] and held(st) == (SEQ2, SEQ1)
            continue
        (rolled,) = told(st, JAPANESE, "planes-on-deck")  # the dice are open: both told
        assert told(st, ALLIED, "planes-on-deck") == [rolled]
        a, b = rolled["dice"]
        assert rolled["shift"] == abs(a - b) and 0 <= rolled["shift"] <= 5
        (first, *_) = [x for x in attacks(st) if x["wave"] == 1]
        assert first["ship"] == rolled["ship"] and first["type"] == "CV"
        odds = min(5, first["damage_points"] // max(1, first["defence"]))
        assert first["odds"] == columns[min(len(columns) - 1, odds + rolled["shift"])]
        shifts.add(rolled["shift"])
    assert len(shifts) > 1  # the dice, not a constant (and most seeds attacked)


def test_42_4_3_planes_on_deck_chits_are_spent_shown_and_returned_to_the_cup() -> None:
    """42.4.2: 'Magic chits are revealed openly when played (then placed back into
    their cup)'; 42.5.2: each chit played is an SI +1 counter for the Japanese cup."""
    start = holding(world(), SEQ2, SEQ1, SEQ1)
    cup = intelligence.magic_cup(Work.begin(start))
    st, _ = run(start, ON_DECK, 3)
    assert held(st) == (SEQ1,)  # the two played; the third still held
    shown = told(st, JAPANESE, "magic-played")
    assert sorted(f["chit"] for f in shown) == [SEQ1, SEQ2]
    after = intelligence.magic_cup(Work.begin(st))
    assert after[SEQ2] == cup[SEQ2] + 1 and after[SEQ1] == cup[SEQ1] + 1
    assert st[MODERATOR]["si_plus_one"] == 2


def _resolution(state: dict[str, Any], strike: AirStrike) -> Resolution:
    context = StrikeContext(SeededDice(b"p" * 16, "g", 1, "air1"), SecretDice(b"s" * 12, "s"), TIME)
    return Resolution(Work.begin(state), Plotted.of(strike), context)


def _ship(name: str, t: str, cls: str) -> Ship:
    return Ship.from_json(ship(name, t, cls))


def test_42_4_3_planes_on_deck_applies_to_ijn_carriers_of_that_wave_only() -> None:
    """'to every Japanese carrier attacked by any single attacking wave': the
    nominated wave's attack on a carrier shifts; the same wave's attack on another
    ship, and another wave's on a carrier, do not (and play no chit)."""
    start = holding(world(), SEQ2, SEQ1)
    strike = strike_of(start, ON_DECK)
    zuikaku = _ship("Zuikaku", "CV", "ship-cv-shokaku")
    for wave, target in ((1, _ship("Myoko", "CA", "ship-ca-myoko")), (2, zuikaku)):
        r = _resolution(start, strike)
        assert magic.planes_on_deck(r, wave, target) == (0, [])
        assert intelligence.allied_holdings(r.work).chits == (SEQ2, SEQ1)
    r = _resolution(start, strike)
    shift, events = magic.planes_on_deck(r, 1, zuikaku)
    assert [e.kind for e in events] == ["magic-played", "magic-played", "planes-on-deck"]
    assert shift == events[-1].data["shift"]
    assert intelligence.allied_holdings(r.work).chits == ()


def test_42_4_3_planes_on_deck_a_wave_that_attacks_no_carrier_keeps_the_chits() -> None:
    """A TF without carriers: no roll, no shift, the chits stay held and the Allies
    are told why."""
    cruisers = [ship("Myoko", "CA", "ship-ca-myoko"), ship("DesDiv 7", "DD", "ship-dd-ijn-fleet")]
    start = holding(world(japanese=cruisers), SEQ2, SEQ1)
    st, _ = run(start, ON_DECK, 3)
    assert told(st, ALLIED, "planes-on-deck") == [] and told(st, ALLIED, "magic-played") == []
    (kept,) = told(st, ALLIED, "magic-not-played")
    assert kept["chits"] == [SEQ2, SEQ1] and "attacked no Japanese carrier" in kept["why"]
    assert told(st, JAPANESE, "magic-not-played") == []
    assert held(st) == (SEQ2, SEQ1)


def test_42_4_3_planes_on_deck_is_refused_for_the_japanese() -> None:
    """'The US player (only)'."""
    start = world(located=("allied:TF2",))
    text = (
        "STRIKE S1 FROM TF1 2xD3A1/D TARGET TF2\n"
        "MAGIC PLANES-ON-DECK S1 WAVE 1 STRIKE-SEQUENCE-2 STRIKE-SEQUENCE-1"
    )
    assert refusals(start, text, JAPANESE) == [
        ("42.4.3", "only the US player claims Planes on Deck")
    ]


def test_42_4_3_planes_on_deck_is_refused_without_the_chits_strike_or_wave() -> None:
    start = holding(world(), SEQ2)
    assert refusals(start, ON_DECK) == [("42.4", "you hold no (more) Magic chit strike-sequence-1")]
    both = holding(world(), SEQ2, SEQ1)
    no_strike = "MAGIC PLANES-ON-DECK S9 WAVE 1 STRIKE-SEQUENCE-2 STRIKE-SEQUENCE-1"
    assert refusals(both, f"{STRIKE}\n{no_strike}") == [("42.4.3", "no STRIKE S9 above this line")]
    (rule, why), *_ = refusals(both, ON_DECK.replace("WAVE 1", "WAVE 2"))
    assert rule == "42.4.3" and "wave 1 to 1 at most" in why
    (rule, _), *_ = refusals(both, ON_DECK.replace("STRIKE-SEQUENCE-1", "REVEAL-1-TF"))
    assert rule == "42.4.3"
    # one chit a roll: a Strike Sequence line after it needs a third chit
    seq = f"{ON_DECK}\nMAGIC STRIKE-SEQUENCE-2 S1 -2"
    assert refusals(both, seq) == [("42.4", "you hold no (more) Magic chit strike-sequence-2")]


def test_42_4_3_planes_on_deck_is_kept_with_the_filed_plot() -> None:
    start = holding(world(), SEQ2, SEQ1, SEQ1)
    strike = strike_of(start, f"{ON_DECK}\nMAGIC STRIKE-SEQUENCE-1 S1 +1")
    assert strike.planes_on_deck == PlanesOnDeck(1, (SEQ2, SEQ1))
    assert strike.sequence == SequenceChit(SEQ1, 1)
    assert AirStrike.from_json(strike.to_json()) == strike
    assert "planes_on_deck" not in strike_of(start, STRIKE).to_json()  # none: no key


# -- 42.4.1 Strike Sequence chits ---------------------------------------------------

RATINGS = {ALLIED: Ratings("R.Adm. Fletcher", 9, 7), JAPANESE: Ratings("R.Adm. Hara", 6, 6)}


@pytest.mark.parametrize(("chit", "drm"), [(SEQ2, -2), (SEQ2, 2), (SEQ1, -1), (SEQ1, 1)])
def test_42_4_1_strike_sequence_chit_gives_its_drm_to_the_sequence_roll(
    chit: str, drm: int
) -> None:
    """'a DRM (of either +2 or -2, at his discretion) to any single Strike Sequence
    Table DR': the striker's roll takes it (7 vs 6 Air Ratings: no other DRM); the
    chit is shown to both, spent and back in the cup, an SI +1 counter owed."""
    start = holding(world(), chit)
    text = f"{STRIKE}\nMAGIC {chit.upper()} S1 {drm:+d}"
    st, _ = run(start, text, 3, ratings=RATINGS, target_plotted=True)
    (seq,) = told(st, JAPANESE, "strike-sequence")
    assert seq["drm"] == drm
    (played,) = told(st, JAPANESE, "strike-sequence-chit")
    assert played == {"kind": "strike-sequence-chit", "tf": "TF1", "chit": chit, "drm": drm}
    assert [f["chit"] for f in told(st, JAPANESE, "magic-played")] == [chit]
    assert held(st) == () and st[MODERATOR]["si_plus_one"] == 1
    kinds = [d["fact"]["kind"] for d in st[DISCLOSURES]]
    assert kinds.index("strike-sequence-chit") < kinds.index("strike-sequence")


def test_42_4_1_strike_sequence_chit_not_sequenced_is_not_played() -> None:
    """A strike whose target has no strike plotted is not sequenced (12.0): the chit
    stays held."""
    start = holding(world(), SEQ2)
    st, _ = run(start, f"{STRIKE}\nMAGIC STRIKE-SEQUENCE-2 S1 -2", 3, ratings=RATINGS)
    assert told(st, ALLIED, "strike-sequence") == [] and held(st) == (SEQ2,)


def test_42_4_1_strike_sequence_chit_is_refused_precisely() -> None:
    start = holding(world(), SEQ2)
    line = "MAGIC STRIKE-SEQUENCE-2 S1 -2"
    assert refusals(start, f"{STRIKE}\n{line.replace('-2 S1 -2', '-2 S1 +1')}") == [
        ("42.4.1", "strike-sequence-2 gives a DRM of +2 or -2")
    ]
    assert refusals(start, f"{STRIKE}\nMAGIC STRIKE-SEQUENCE-1 S1 -1") == [
        ("42.4", "you hold no (more) Magic chit strike-sequence-1")
    ]
    assert refusals(start, line) == [("42.4.1", "no STRIKE S1 above this line")]
    assert refusals(start, f"{STRIKE}\n{line}\n{line}")[0][0] == "42.4.1"  # one chit a roll
    jap = world(located=("allied:TF2",))
    assert refusals(jap, f"STRIKE S1 FROM TF1 2xD3A1/D TARGET TF2\n{line}", JAPANESE) == [
        ("42.4", "only the Allies hold Magic chits")
    ]


def test_42_4_the_magic_facts_read_as_sentences() -> None:
    said = sentence(
        "planes-on-deck",
        {"tf": "TF1", "wave": 1, "ship": "Akagi", "dice": [6, 2], "shift": 4},
        ALLIED,
        "42.4.3",
    )
    assert said == (
        "Planes on Deck: wave 1 attacks Akagi of TF1, 2D6 6-2, 4 columns right on the "
        "Naval CRT. [42.4.3]"
    )
    chit = {"tf": "TF1", "chit": SEQ2, "drm": -2}
    assert "a DRM of -2" in sentence("strike-sequence-chit", chit, ALLIED, "42.4.1")


def test_play_magic_refuses_a_chit_not_held() -> None:
    with pytest.raises(IllegalOrderError) as e:
        intelligence.play_magic(Work.begin(world()), SEQ2, TIME)
    assert e.value.rule == "42.4"
