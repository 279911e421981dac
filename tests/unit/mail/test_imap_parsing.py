"""Parsing aioimaplib responses, without a server (the e2e tests cover Dovecot itself)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pbem.core.errors import TransportError
from pbem.mail.imap import (
    _messages_from_fetch,
    _quote_mailbox,
    _uids_from_search,
    parse_internaldate,
)


def test_fetch_with_uid_before_body() -> None:
    # As Dovecot answers: "* 1 FETCH (UID 7 BODY[] {n}" literal ")".
    lines = [
        b"1 FETCH (UID 7 BODY[] {5}",
        bytearray(b"a\r\nb\r"),
        b")",
        b"2 FETCH (UID 9 BODY[] {2}",
        bytearray(b"c\n"),
        b")",
        b"Fetch completed.",
    ]
    assert _messages_from_fetch(lines) == {7: (b"a\r\nb\r", None), 9: (b"c\n", None)}


def test_fetch_with_uid_after_body() -> None:
    # Some servers put UID after the literal: "* 1 FETCH (BODY[] {n}" literal " UID 7)".
    lines = [b"1 FETCH (BODY[] {3}", bytearray(b"xyz"), b" UID 7)", b"Fetch completed."]
    assert _messages_from_fetch(lines) == {7: (b"xyz", None)}


def test_fetch_ignores_flag_updates() -> None:
    lines = [
        b"3 FETCH (UID 4 FLAGS (\\Seen))",
        b"1 FETCH (UID 2 BODY[] {1}",
        bytearray(b"m"),
        b")",
        b"done",
    ]
    assert _messages_from_fetch(lines) == {2: (b"m", None)}


def test_fetch_reads_internaldate_before_or_after_the_body() -> None:
    lines = [
        b'1 FETCH (UID 7 INTERNALDATE "01-Dec-2026 19:09:02 +0100" BODY[] {1}',
        bytearray(b"a"),
        b")",
        b"2 FETCH (UID 8 BODY[] {1}",
        bytearray(b"b"),
        b' INTERNALDATE " 2-Dec-2026 00:00:59 -0500")',
        b"Fetch completed.",
    ]
    assert _messages_from_fetch(lines) == {
        7: (b"a", datetime(2026, 12, 1, 18, 9, 2, tzinfo=UTC)),
        8: (b"b", datetime(2026, 12, 2, 5, 0, 59, tzinfo=UTC)),
    }


def test_malformed_internaldate_is_unknown() -> None:
    assert parse_internaldate(b"yesterday") is None
    assert parse_internaldate(b"31-Feb-2026 10:00:00 +0000") is None


def test_search_uids_skip_the_status_line() -> None:
    assert _uids_from_search([b"3 5 8", b"Search completed (0.001 secs) 42"]) == [3, 5, 8]
    assert _uids_from_search([b"", b"Search completed."]) == []


def test_mailbox_names_are_quoted_and_checked() -> None:
    assert _quote_mailbox("pbem-processed") == '"pbem-processed"'
    assert _quote_mailbox('a"b\\c') == '"a\\"b\\\\c"'
    with pytest.raises(TransportError):
        _quote_mailbox("bad\r\nA1 DELETE INBOX")
    with pytest.raises(TransportError):
        _quote_mailbox("Ablage/Erledigt-ä")
