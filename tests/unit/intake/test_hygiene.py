"""pbem.intake.hygiene: what is never answered, and the flood limit (issue 2, answers)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.intake.hygiene import Hygiene, classify, fallback_addresses, is_no_reply
from pbem.intake.mime import parse_mail
from pbem.outbox.compose import compose_reply
from tests.unit.intake.mailfixtures import all_fixture_names, fixture

OWN = ("moderator@pbem.example",)
TOKEN = "pbem-7f3a9c"
LIMIT = 1_000_000
REASONS = {
    "ok",
    "loop",
    "own-address",
    "bounce",
    "auto-submitted",
    "mailing-list",
    "no-reply",
    "no-from",
    "oversized",
}


def verdict(raw: bytes, *, max_size: int = LIMIT) -> Hygiene:
    return classify(parse_mail(raw), own_addresses=OWN, loop_token=TOKEN, max_size=max_size)


def plain(*headers: str, body: str = "orders\n") -> bytes:
    head = "\n".join(("Message-ID: <h.1@example.org>", *headers))
    return f"{head}\n\n{body}".encode()


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("thunderbird_alternative_qp", "ok"),
        ("outlook_html_windows1252", "ok"),
        ("gmail_html_only", "ok"),
        ("attachments_only", "ok"),  # answered: the reply says no order block was found
        ("empty_body", "ok"),
        ("malformed_boundary", "ok"),
        ("dsn_bounce", "bounce"),
        ("vacation_autoreply", "auto-submitted"),
        ("mailing_list", "mailing-list"),
    ],
)
def test_fixture_verdicts(name: str, reason: str) -> None:
    result = verdict(fixture(name))
    assert result.reason == reason
    assert result.answer == (reason == "ok")
    assert result.process == (reason == "ok")


def test_our_own_composed_mail_is_a_loop() -> None:
    raw = compose_reply(
        to="player@example.org",
        sender="moderator@pbem.example",
        subject="Re: orders",
        text="accepted\n",
        in_reply_to="<o.1@example.org>",
        message_id="<pbem.answer.1@pbem.example>",
        loop_token=TOKEN,
        date=datetime(2026, 11, 29, tzinfo=UTC),
    )
    assert verdict(raw) == Hygiene(answer=False, process=False, reason="loop")


def test_loop_token_of_another_installation_is_not_our_loop() -> None:
    raw = plain("From: p@example.org", "X-Pbem-Loop: pbem-other")
    assert verdict(raw).reason == "ok"


def test_loop_token_among_several_loop_headers() -> None:
    raw = plain("From: p@example.org", "X-Pbem-Loop: pbem-other", f"X-Pbem-Loop: {TOKEN}")
    assert verdict(raw).reason == "loop"


def test_x_loop_naming_our_address_is_a_loop() -> None:
    raw = plain("From: p@example.org", "X-Loop: Moderator@pbem.example")
    assert verdict(raw).reason == "loop"
    assert verdict(plain("From: p@example.org", "X-Loop: list@example.org")).reason == "ok"


def test_mail_from_own_address_is_never_answered() -> None:
    raw = plain("From: Moderator <MODERATOR@pbem.example>")
    assert verdict(raw) == Hygiene(answer=False, process=False, reason="own-address")


@pytest.mark.parametrize(
    "headers",
    [
        ("From: p@example.org", "Return-Path: <>"),
        ("From: MAILER-DAEMON@mx.example.org",),
        ("From: postmaster@example.org",),
        ("From: p@example.org", "X-Failed-Recipients: gone@example.org"),
        (
            "From: p@example.org",
            'Content-Type: multipart/report; report-type="delivery-status"; boundary=b',
        ),
    ],
)
def test_bounces_are_never_answered(headers: tuple[str, ...]) -> None:
    assert verdict(plain(*headers)).reason == "bounce"


@pytest.mark.parametrize(
    "headers",
    [
        ("Auto-Submitted: auto-generated",),
        ("Auto-Submitted: auto-replied",),
        ("Auto-Submitted: auto-notified; owner-email=x@example.org",),
        ("Precedence: auto_reply",),
        ("X-Autorespond: yes",),
        ("Content-Type: multipart/report; report-type=disposition-notification; boundary=b",),
    ],
)
def test_rfc3834_auto_submitted_is_never_answered(headers: tuple[str, ...]) -> None:
    assert verdict(plain("From: p@example.org", *headers)).reason == "auto-submitted"


def test_rfc3834_auto_submitted_no_is_a_person() -> None:
    assert verdict(plain("From: p@example.org", "Auto-Submitted: no")).reason == "ok"


@pytest.mark.parametrize(
    "header",
    [
        "List-Id: <games.lists.example.org>",
        "List-Unsubscribe: <mailto:leave@lists.example.org>",
        "List-Post: <mailto:games@lists.example.org>",
        "Precedence: bulk",
        "Precedence: junk",
        "Precedence: list",
    ],
)
def test_mailing_list_mail_is_never_answered(header: str) -> None:
    assert verdict(plain("From: p@example.org", header)).reason == "mailing-list"


def test_mail_without_usable_from_is_processed_for_another_address() -> None:
    # The mailroom answers the signer's registered address, or Sender/Reply-To/Return-Path.
    assert verdict(plain("Subject: x")) == Hygiene(answer=True, process=True, reason="no-from")
    assert verdict(plain("From: undisclosed-recipients:;")).reason == "no-from"


@pytest.mark.parametrize(
    "sender",
    [
        "noreply@shop.example",
        "no-reply@accounts.example",
        "No_Reply@x.example",
        "donotreply@bank.example",
        "do-not-reply@x.example",
        "noreply-4711@github.example",
        "no-reply+tag@x.example",
        "postmaster@x.example",
    ],
)
def test_no_reply_addresses_are_filed_not_answered(sender: str) -> None:
    result = verdict(plain(f"From: {sender}"))
    assert (result.answer, result.process) == (False, False)
    assert result.reason == ("bounce" if sender.startswith("postmaster") else "no-reply")
    assert is_no_reply(sender)


def test_reply_lookalikes_are_people() -> None:
    for sender in ("norepl@x.example", "replyno@x.example", "noreplyer@x.example"):
        assert not is_no_reply(sender)
        assert verdict(plain(f"From: {sender}")).reason == "ok"


def test_bulk_mail_without_list_id_is_not_answered() -> None:
    # A newsletter: Precedence: bulk, or List-Unsubscribe alone.
    assert verdict(plain("From: news@shop.example", "Precedence: bulk")).reason == "mailing-list"
    unsubscribe = "List-Unsubscribe: <mailto:u@shop.example>"
    assert verdict(plain("From: news@shop.example", unsubscribe)).reason == "mailing-list"
    assert verdict(plain("From: p@x.example", "Auto-Submitted: auto-generated")).answer is False
    assert verdict(plain("From: p@x.example", "Auto-Submitted: no")).reason == "ok"


def test_fallback_addresses_in_order_without_no_reply() -> None:
    mail = parse_mail(
        b"From: broken\nSender: s@x.example\nReply-To: noreply@x.example\n"
        b"Return-Path: <r@x.example>\n\nhi\n"
    )
    assert mail.from_addr is None
    assert fallback_addresses(mail) == ["s@x.example", "r@x.example"]


def test_oversized_mail_is_answered_but_not_processed() -> None:
    raw = plain("From: p@example.org", body="x" * 5000)
    assert verdict(raw, max_size=1000) == Hygiene(answer=True, process=False, reason="oversized")


def test_oversized_bounce_stays_silent() -> None:
    raw = plain("From: p@example.org", "Return-Path: <>", body="x" * 5000)
    assert verdict(raw, max_size=1000).reason == "bounce"


# -- always a verdict --------------------------------------------------------


_FIXTURES = [fixture(name) for name in all_fixture_names()]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=3000), st.sampled_from(_FIXTURES)), st.integers(0, 5000))
def test_classify_always_returns_a_verdict(raw: bytes, max_size: int) -> None:
    result = verdict(raw, max_size=max_size)
    assert result.reason in REASONS
    assert result.process <= result.answer  # nothing is processed silently
    # A mail without a usable From is processed (to find whom to answer) unless oversized.
    if result.reason == "no-from":
        assert result.process == (len(raw) <= max_size)
    else:
        assert result.process == (result.reason == "ok")
