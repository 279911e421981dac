"""Noninterference on the mail itself, extended to strikes (issue 17, "Must hold"):
the phase report mailed to a side (Subject, text, HTML, the map PNG) after a naval
strike is byte for byte the same in two worlds that differ only in what that side
may not know of it (tests/unit/rulesets/witp/strikeworld.py: the other side's
secret rolls, critical hits without doubles among them, its records and plots, the
moderator's part). Each world is put into a real WitP game's open phase (SQLite)
and the publisher composes the report, as test_witp_mail_noninterference does."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from pbem import rulesets
from pbem.core.sides import SIDES
from pbem.rulesets.witp.loader import load_library
from pbem.rulesets.witp.map import load_map
from pbem.rulesets.witp.ruleset import WitpRuleset
from tests.unit.rulesets.witp.strikeworld import Bases, Case, cases, doubles_told, world

from .mailworlds import Harness, open_harness, subject_and_text

GAME = "w17"
RULESET = WitpRuleset(load_library(), load_map())


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    folder: Path = tmp_path_factory.mktemp("witp-strike-mail-noninterference")
    patch = pytest.MonkeyPatch()
    patch.setitem(rulesets._FACTORIES, "witp", lambda: RULESET)
    h, engine, public = open_harness(folder, SIDES)
    h.start_game(GAME, "witp", "coral-sea-1942", public)
    yield h
    engine.dispose()
    patch.undo()


@pytest.fixture(scope="module")
def bases() -> Bases:
    return Bases.of(RULESET)


def _text(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(cases())
def test_hid_the_strike_report_mail_is_identical_in_worlds_the_side_cannot_tell_apart(
    harness: Harness, bases: Bases, case: Case
) -> None:
    (a, ea), (b, eb) = (world(bases[case.hexes], case, h) for h in case.worlds)
    assume(doubles_told(a, case.viewer) == doubles_told(b, case.viewer))  # 16.7: told
    raw = harness.order_mail(GAME, case.viewer, "PASS")
    mail_a = harness.mails(GAME, case.viewer, raw, a, ea, report=True)["report"]
    mail_b = harness.mails(GAME, case.viewer, raw, b, eb, report=True)["report"]
    subject, _ = subject_and_text(mail_a)
    assert subject.startswith(f"[pbem {GAME}]")
    assert "/strike: " in _text(mail_a)  # the strike (its digest line) is in what is compared
    assert mail_a == mail_b
