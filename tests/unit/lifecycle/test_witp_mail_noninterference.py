"""Noninterference on the mail itself, for War in the Pacific (issue 16, "Must hold"):
every mail a side receives, as the mailroom and the publisher compose it, is the
same in two worlds that side cannot tell apart.

Two worlds share the viewer's knowledge (the public part, its own private part and
the disclosures addressed to it: knowledge.projection) and differ at random in the
rest: the other side's private part (its forces, where they are, its plots), the
moderator's part, and facts disclosed to the other side alone (with the events that
told them). Each world is put into a real WitP game's open phase (SQLite); the same
signed order mail goes through ``Mailroom.process``; the answer (Subject and every
header) and the phase's report (Subject, text, HTML, the map PNG) are read back from
the outbox as composed, and must be byte-identical (mailworlds.py masks only a
receipt's commitment, which hashes a fresh nonce).
"""

from __future__ import annotations

import copy
import email
import email.policy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pbem import rulesets
from pbem.core.dice import SeededDice
from pbem.core.events import Event
from pbem.core.sides import SIDES, enemy_of
from pbem.rulesets.witp.knowledge import MODERATOR, PRIVATE, PUBLIC, Fact, disclose
from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.ruleset import WitpRuleset
from tests.unit.rulesets.witp.journal import Told

from .mailworlds import COMMITMENT, Harness, masked, open_harness, subject_and_text

GAME = "w1"
PLACES = ("Rabaul", "Truk", "Tulagi", "Port Moresby", "Noumea", "Coral Sea", "E2418", "Lae")
NAMES = st.sampled_from(("Shokaku", "Zuikaku", "Yorktown", "Lexington", "Kamikaze", "Neosho"))
IDS = st.sampled_from(("tf17", "tf44", "mo-striking-force", "kido", "decoy", "tf-99"))
FACTS = st.fixed_dictionaries(
    {
        # The other side's secrets of search (13.5.3 the chit it drew, 13.5.4 its
        # losses, 13.5.7 a report refused by its chit) and of intelligence.
        "kind": st.sampled_from(
            (
                "sighting",
                "sigint",
                "chit",
                "search-chit",
                "deception-refused",
                "intensive-search-loss",
                "si-capabilities",
                "magic-drawn",
                "jn25-counters",
            )
        ),
        "at": st.sampled_from(PLACES),
    }
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=6,
)


RULESET = WitpRuleset(load_library(), load_map())


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    folder: Path = tmp_path_factory.mktemp("witp-mail-noninterference")
    patch = pytest.MonkeyPatch()
    patch.setitem(rulesets._FACTORIES, "witp", lambda: RULESET)
    h, engine, public = open_harness(folder, SIDES)
    h.start_game(GAME, "witp", "coral-sea-1942", public)
    yield h
    engine.dispose()
    patch.undo()


# --- the worlds ----------------------------------------------------------------------


@st.composite
def forces(draw: st.DrawFn) -> dict[str, Any]:
    """The other side's forces: which there are, what ships, where."""
    out: dict[str, Any] = {}
    for fid in draw(st.lists(IDS, max_size=4, unique=True)):
        ships = draw(st.lists(st.tuples(st.sampled_from(("CV", "CA", "DD")), NAMES), max_size=3))
        out[fid] = {
            "value": {"name": draw(NAMES), "at": draw(st.sampled_from(PLACES)), "ships": ships},
            "provenance": "illustrative",
            "source": "a hidden world",
            "pack": "hidden",  # a force item as the game holds it (datapack.PackItem)
        }
    return out


@dataclass(frozen=True)
class Hidden:
    """What the viewer may not know of one world."""

    forces: dict[str, Any]
    plots: dict[str, Any]
    moderator: Any
    told_other: list[dict[str, Any]]
    intelligence: dict[str, Any]  # 42: the other side's Sigint, ruses, Magic, calls
    jn25: dict[str, Any]  # 42.8: the Japanese counters held, a committed play
    card: Any  # 42.9: a dummy plot card
    card_lines: Any  # each TF's card lines (what Sigint would show)


INTEL = st.fixed_dictionaries(
    {
        "si_difference": st.integers(-3, 3),
        "sigint_left": st.integers(0, 5),
        "ruses_left": st.integers(0, 2),
        "magic": st.lists(st.sampled_from(("blank", "reveal-1-tf", "report-false")), max_size=3),
        "calls": st.lists(st.sampled_from((["SIGINT"], ["SIGINT", "RUSE"])), max_size=1),
    }
)
JN25 = st.fixed_dictionaries(
    {"held": st.integers(0, 6), "committed_cycle": st.sampled_from((None, 1))}
)
# A card as 42.9 files it (intelrecords.DummyPlotCard): its face anything legal.
CARD = st.none() | st.fixed_dictionaries(
    {
        "card": st.fixed_dictionaries(
            {
                "tf": st.sampled_from(("TF30", "TF9")),
                "speed": st.sampled_from(("SC1", "SC2", "SC3")),
                "composition": st.lists(st.text(max_size=8), max_size=3),
                "lines": st.lists(st.text(max_size=12), max_size=3),
            }
        ),
        "turn": st.just(1),
        "time": st.just("T1/naval1/plot"),
    }
)

hidden = st.builds(
    Hidden,
    forces(),
    # a plot's lines by game time (sidepart.SidePart's ``plots``): any text
    st.dictionaries(
        st.sampled_from(("T1/naval1/plot", "T1/naval2/plot")), st.lists(st.text(max_size=16))
    ),
    JSON,
    st.lists(FACTS, max_size=3),
    INTEL,
    JN25,
    CARD,
    st.dictionaries(st.sampled_from(("TF1", "TF2")), st.lists(st.text(max_size=8), max_size=2)),
)


def world(base: Mapping[str, Any], viewer: str, h: Hidden) -> tuple[dict[str, Any], list[Event]]:
    """``base`` with the other side's part replaced by ``h``, and the events of the
    round: the disclosures to the other side alone."""
    other = enemy_of(viewer)
    state = copy.deepcopy(dict(base))
    state[PRIVATE][other] = {
        "forces": h.forces,
        "plots": h.plots,
        "intelligence": h.intelligence,
        "jn25": h.jn25,
        "card_lines": h.card_lines,
        # a 42.9 dummy plot card, if one was filed (the key is kept only then)
        **({} if h.card is None else {"dummy_plot_card": h.card}),
    }
    state[MODERATOR] = {"ledger": h.moderator}
    events = [
        disclose(Told(state), Fact.from_json(f), [other], "T1/naval1/plot", "13.5")
        for f in h.told_other
    ]
    return state, events


@dataclass(frozen=True)
class Case:
    viewer: str
    states: tuple[dict[str, Any], dict[str, Any]]
    events: tuple[list[Event], list[Event]]
    text: str


def _played(rounds: int) -> dict[str, Any]:
    """The scenario's state after ``rounds`` rounds of PASS (the same in both
    worlds), or at its end if it has fewer."""
    state = RULESET.initial_state("coral-sea-1942", {})
    for n in range(rounds):
        d = RULESET.pending(state)
        if d is None:
            break
        orders = {s: ["PASS"] for s in d.sides}
        state = RULESET.adjudicate(state, orders, SeededDice(b"s", GAME, n, d.phase)).state
    return dict(state)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    viewer = draw(st.sampled_from(SIDES))
    base = _played(draw(st.integers(1, 5)))  # 1: past the automatic T1-open
    h1, h2 = draw(hidden), draw(hidden)
    (s1, e1), (s2, e2) = world(base, viewer, h1), world(base, viewer, h2)
    # Orders that name the hidden worlds' forces, ships and places, the side's own
    # (PASS), and lines the kernel refuses (a mission card; nonsense).
    probe = st.sampled_from([*h1.forces, *h2.forces, "TF", "PASS"]).flatmap(
        lambda w: st.sampled_from([f"MOVE {w}", f"TF {w} MOVE Tulagi", w, f"REGP {w}"])
    )
    line = st.one_of(st.just("PASS"), probe, NAMES, st.text(max_size=12))
    text = "\n".join(draw(st.lists(line, min_size=0, max_size=4)))
    return Case(viewer, (s1, s2), (e1, e2), text)


def _both(harness: Harness, case: Case, report: bool) -> list[dict[str, bytes]]:
    raw = harness.order_mail(GAME, case.viewer, case.text)
    return [
        harness.mails(GAME, case.viewer, raw, state, events, report)
        for state, events in zip(case.states, case.events, strict=True)
    ]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases())
def test_hid_the_answer_mail_is_identical_in_worlds_the_side_cannot_tell_apart(
    harness: Harness, case: Case
) -> None:
    """The answer to any order mail (accepted lines, refusals with their rules, the
    receipt, notes, deadline; Subject and every header) is byte for byte the same."""
    a, b = _both(harness, case, report=False)
    subject, text = subject_and_text(a["answer"])
    unusable = "Your mail could not be used" in text  # e.g. a NUL broke the signature
    assert subject == "Re: orders" and (unusable or f"Game {GAME}" in text)
    event(
        f"{case.viewer}: {'unusable' if unusable else 'refusals' if 'Refused' in text else 'none refused'}"
    )
    assert len(COMMITMENT.findall(a["answer"])) == len(COMMITMENT.findall(b["answer"]))
    assert masked(a["answer"]) == masked(b["answer"])


def _png(raw: bytes) -> bytes:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    (png,) = [p for p in msg.walk() if p.get_content_type() == "image/png"]
    data = png.get_payload(decode=True)
    assert isinstance(data, bytes) and data.startswith(b"\x89PNG")
    return data


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases())
def test_hid_the_report_mail_is_identical_in_worlds_the_side_cannot_tell_apart(
    harness: Harness, case: Case
) -> None:
    """The phase report mailed to the viewer (Subject, text, HTML, the map PNG) is
    the same, byte for byte."""
    a, b = _both(harness, case, report=True)
    subject, text = subject_and_text(a["report"])
    assert subject.startswith(f"[pbem {GAME}]") and f"Report for {case.viewer}" in text
    assert _png(a["report"]) == _png(b["report"])
    assert a["report"] == b["report"]


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases(), st.sampled_from(("viewer", "other", "both")))
def test_hid_whether_a_report_is_sent_and_its_digest_are_the_same_in_worlds_the_side_cannot_tell_apart(
    harness: Harness, case: Case, owed_by: str
) -> None:
    """Quiet rounds (pbem.lifecycle.quiet): a side that owes no orders in the phase
    opened is sent no report, one that owes them the same report (its digest first)
    in both worlds; whether a mail comes is the same in both, whatever is hidden."""
    other = enemy_of(case.viewer)
    sides = {"viewer": [case.viewer], "other": [other], "both": [*SIDES]}[owed_by]
    a, b = (
        harness.report_if_sent(GAME, case.viewer, state, events, sides)
        for state, events in zip(case.states, case.events, strict=True)
    )
    event(f"{case.viewer}: {'report' if a is not None else 'no report'}")
    assert (a is None) == (case.viewer not in sides)
    assert a == b
    if a is not None:
        _, text = subject_and_text(a)
        assert text.index("Digest") < text.index("Full detail")


def test_the_mail_does_change_with_what_the_side_knows(harness: Harness) -> None:
    """The comparison can fail: the state put into the phase is the one the mail is
    answered and reported from. The same mail in worlds differing in the viewer's
    own knowledge: the public clock (a game already over refuses the PASS), and its
    own TF's hex (the report's text and map move it)."""
    over = _played(99)
    assert RULESET.pending(over) is None
    start = _played(1)  # the open phase T1-naval1-plot-japanese (42.3.1)
    moved = copy.deepcopy(start)
    moved[PRIVATE]["japanese"]["tfs"]["TF1"]["hex"] = "E2418"  # MO Main Force, off Guadalcanal
    assert start[PUBLIC] == moved[PUBLIC]
    raw = harness.order_mail(GAME, "japanese", "PASS")
    answers = [
        subject_and_text(harness.mails(GAME, "japanese", raw, s, [], report=False)["answer"])[1]
        for s in (start, over)
    ]
    assert "Accepted (1)" in answers[0] and "Refused" not in answers[0]
    assert "Refused (1)" in answers[1] and "the game is over" in answers[1]
    reports = [harness.mails(GAME, "japanese", raw, s, [], report=True) for s in (start, moved)]
    texts = [subject_and_text(r["report"])[1] for r in reports]
    assert "E2317" in texts[0] and "E2418" in texts[1]
    assert _png(reports[0]["report"]) != _png(reports[1]["report"])
