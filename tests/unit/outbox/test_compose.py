"""pbem.outbox.compose: answers and reports as bytes (issue 2, answers and outbox)."""

from __future__ import annotations

import email.generator
import os
import re
from datetime import UTC, datetime, timedelta, timezone
from email.message import EmailMessage
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.intake.mime import message_object, parse_mail
from pbem.outbox import compose
from pbem.outbox.compose import compose_reply, reply_subject, stable_message_id
from tests.unit.intake.mailfixtures import ARMOURED_BLOCK, contains_block

WHEN = datetime(2026, 11, 29, 20, 30, tzinfo=UTC)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
MSGID_RE = re.compile(r"^<[^<>\s@]+@[^<>\s@]+>$")


def answer(**overrides: Any) -> bytes:
    args: dict[str, Any] = {
        "to": "player@example.org",
        "sender": "U.S.N. Moderator <moderator@pbem.example>",
        "subject": "Re: Orders for turn 3",
        "text": "Orders understood:\n" + "\n".join(ARMOURED_BLOCK) + "\n",
        "in_reply_to": "<orders.1@example.org>",
        "references": ("<pbem.report.1@pbem.example>",),
        "message_id": "<pbem.answer.abc@pbem.example>",
        "loop_token": "pbem-7f3a9c",
        "date": WHEN,
    }
    args.update(overrides)
    return compose_reply(**args)


def test_answer_headers_for_threading_and_rfc3834() -> None:
    msg = message_object(answer())
    assert msg["Message-ID"] == "<pbem.answer.abc@pbem.example>"
    assert msg["In-Reply-To"] == "<orders.1@example.org>"
    assert msg["References"] == "<pbem.report.1@pbem.example> <orders.1@example.org>"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["X-Pbem-Loop"] == "pbem-7f3a9c"
    assert msg["Precedence"] is None  # RFC 3834 §3.1.8
    assert msg["Date"].datetime == WHEN
    assert msg["To"] == "player@example.org"


def test_report_is_auto_generated_without_parent() -> None:
    msg = message_object(answer(auto_submitted="auto-generated", in_reply_to=None, references=()))
    assert msg["Auto-Submitted"] == "auto-generated"
    assert msg["In-Reply-To"] is None
    assert msg["References"] is None


def test_same_input_gives_the_same_bytes() -> None:
    attachments = [("map.png", "image/png", PNG)]
    first = answer(html="<p>hi</p>", attachments=attachments)
    assert first == answer(html="<p>hi</p>", attachments=attachments)
    assert first != answer(html="<p>hi</p>", attachments=attachments, text="other\n")


def test_text_roundtrips_through_intake() -> None:
    mail = parse_mail(answer())
    assert contains_block(mail.text)
    assert mail.message_id == "<pbem.answer.abc@pbem.example>"
    assert mail.from_addr == "moderator@pbem.example"


def test_html_alternative_and_png_attachment() -> None:
    raw = answer(
        html="<p>Orders <b>understood</b></p>",
        attachments=[("map.png", "image/png", PNG)],
        linesep="\n",
    )
    msg = message_object(raw)
    assert msg.get_content_type() == "multipart/mixed"
    body = msg.get_body(preferencelist=("plain",))
    assert isinstance(body, EmailMessage)
    assert body.get_content().startswith("Orders understood:\n")
    html = msg.get_body(preferencelist=("html",))
    assert isinstance(html, EmailMessage)
    assert "<b>understood</b>" in html.get_content()
    (png,) = list(msg.iter_attachments())
    assert png.get_filename() == "map.png"
    assert png.get_content_type() == "image/png"
    assert png.get_content() == PNG
    assert parse_mail(raw).attachments == ("map.png",)
    assert raw.count(b"MIME-Version") == 1


def test_non_ascii_text_is_quoted_printable_and_7bit_clean() -> None:
    raw = answer(text="Kidō Butai – Zuikaku sighted.\n")
    assert raw.isascii()
    assert b"Content-Transfer-Encoding: quoted-printable" in raw
    assert parse_mail(raw).text == "Kidō Butai – Zuikaku sighted.\n"


def test_crlf_by_default_lf_on_request() -> None:
    assert b"\r\n" in answer() and b"\n\n" not in answer().replace(b"\r\n", b"")
    assert b"\r" not in answer(linesep="\n")


def test_subject_from_a_stranger_cannot_inject_headers() -> None:
    msg = message_object(answer(subject="Re: x\r\nBcc: victim@example.org"))
    assert msg["Bcc"] is None
    assert msg["Subject"] == "Re: x Bcc: victim@example.org"


def _subject_lines(mail: bytes) -> list[str]:
    """The Subject header's lines as sent, the folded continuation lines included."""
    lines = mail.split(b"\r\n\r\n")[0].decode("ascii").split("\r\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("Subject:"))
    end = next(i for i in range(at + 1, len(lines)) if not lines[i].startswith(" "))
    return lines[at:end]


def test_a_long_subject_folds_after_its_first_words_not_after_subject() -> None:
    """The email package would move this subject (one line long by itself) to the line
    after "Subject:", which some readers show with a leading blank."""
    subject = "Re: [pbem coral-sea-1942] dispute 3 by allied on phase T1-air1-allocation: x"
    lines = _subject_lines(answer(subject=subject))
    assert lines[0].startswith("Subject: Re: [pbem coral-sea-1942] dispute")
    assert len(lines) == 2 and all(len(line) <= 78 for line in lines)
    assert message_object(answer(subject=subject))["Subject"] == subject


@given(st.lists(st.text("abcXYZ019[]:;,.-=?", min_size=1, max_size=30), min_size=1, max_size=20))
@example(["x" * 69, "y"])  # a word as long as the first line allows
@example(["x" * 70, "y"])  # one longer: a longer first line, not "Subject:" alone
def test_any_printable_subject_starts_on_the_subject_line_and_reads_back(
    words: list[str],
) -> None:
    subject = " ".join(words)
    lines = _subject_lines(answer(subject=subject))
    read = message_object(answer(subject=subject))["Subject"]
    if "=?" in subject:  # encoded words: the email package folds (and may indent) them
        assert read.strip() == subject.strip()
    else:
        assert read == subject
        assert lines[0].startswith("Subject: ") and lines[0] != "Subject:"
    longest = max(map(len, words))
    assert all(len(line) <= max(78, len("Subject: ") + longest) for line in lines)


def test_malformed_references_are_dropped_and_long_threads_trimmed() -> None:
    refs = ["not-an-id", *(f"<r{i}@example.org>" for i in range(30))]
    msg = message_object(answer(references=refs))
    kept = str(msg["References"]).split()
    assert len(kept) == 12
    assert kept[0] == "<r0@example.org>"  # the thread's root is kept
    assert kept[-1] == "<orders.1@example.org>"  # the parent is last
    assert "not-an-id" not in kept


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"date": datetime(2026, 11, 29)}, "timezone-aware"),
        ({"message_id": "no-brackets@x"}, "Message-ID"),
        ({"auto_submitted": "no"}, "auto_submitted"),
        ({"loop_token": ""}, "loop_token"),
        ({"attachments": [("x", "png", b"")]}, "content type"),
    ],
)
def test_programming_errors_are_refused(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        answer(**overrides)


def test_date_keeps_its_offset() -> None:
    tokyo = datetime(2026, 11, 30, 5, 30, tzinfo=timezone(timedelta(hours=9)))
    assert b"Date: Mon, 30 Nov 2026 05:30:00 +0900" in answer(date=tokyo)


# -- Message-IDs and subjects -------------------------------------------------


def test_stable_message_id_is_deterministic_and_well_formed() -> None:
    first = stable_message_id("answer", "usn-demo", "<orders.1@example.org>", domain="pbem.example")
    again = stable_message_id("answer", "usn-demo", "<orders.1@example.org>", domain="pbem.example")
    assert first == again
    assert MSGID_RE.match(first)
    assert first.startswith("<pbem.answer.") and first.endswith("@pbem.example>")
    assert message_object(answer(message_id=first))["Message-ID"] == first


def test_stable_message_id_separates_parts_unambiguously() -> None:
    assert stable_message_id("a", "bc", domain="x.org") != stable_message_id(
        "ab", "c", domain="x.org"
    )
    assert stable_message_id("report", "allied", domain="x.org") != stable_message_id(
        "report", "japanese", domain="x.org"
    )


def test_stable_message_id_without_readable_label() -> None:
    mid = stable_message_id("Not A Label", domain="x.org")
    assert re.fullmatch(r"<pbem\.[0-9a-f]{32}@x\.org>", mid)


@pytest.mark.parametrize("domain", ["", "bad domain", "a@b", "<x>", "-x.org"])
def test_stable_message_id_rejects_bad_domains(domain: str) -> None:
    with pytest.raises(ValueError):
        stable_message_id("answer", domain=domain)


@settings(max_examples=200)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=5))
@example(parts=["0\n"])  # a label with a trailing newline once slipped through "$"
def test_stable_message_id_is_always_a_valid_msg_id(parts: list[str]) -> None:
    assert MSGID_RE.match(stable_message_id(*parts, domain="pbem.example"))


def test_reply_subject() -> None:
    assert reply_subject("Orders turn 3") == "Re: Orders turn 3"
    assert reply_subject("RE: Orders") == "RE: Orders"
    assert reply_subject("  ") == "Re: your mail"


_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\x00"),
    max_size=400,
)


@settings(max_examples=200, deadline=None)
@given(_TEXT)
def test_any_text_survives_compose_and_parse(text: str) -> None:
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    if not expected.endswith("\n"):
        expected += "\n"
    assert parse_mail(answer(text=text)).text == expected


def test_a_report_with_a_map_is_the_standard_generator_s_bytes() -> None:
    """compose_reply writes each body in one piece (pbem.outbox.compose._Generator):
    the bytes are exactly what the email package's own generator writes."""
    args = {
        "to": "a@players.example",
        "sender": "Moderator <m@pbem.example>",
        "subject": "[pbem g1] turn 1 report",
        "text": "Ünïcode line\r\nand a plain one\n" * 40,
        "html": "<p>x</p>\n" * 40,
        "in_reply_to": None,
        "message_id": "<pbem.report.abc@pbem.example>",
        "loop_token": "m@pbem.example",
        "date": datetime(2026, 1, 1, tzinfo=UTC),
        "attachments": [("map.png", "image/png", os.urandom(50_000))],
        "auto_submitted": "auto-generated",
    }
    ours = compose.compose_reply(**args)
    with mock.patch.object(compose, "_Generator", email.generator.BytesGenerator):
        standard = compose.compose_reply(**args)
    assert ours == standard
    assert ours.count(b"=_pbem_") >= 4
