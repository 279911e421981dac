"""When a mail arrived: the mailbox's time, bounded by our own servers' Received headers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbem.intake.arrival import arrival_time, trusted_received_dates

FETCHED = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
OURS = ("mx.pbem.example", "*.mail.pbem.example")


def mail(*received: str) -> bytes:
    head = "".join(f"Received: {r}\r\n" for r in received)
    return (
        head + "From: a@b.example\r\nSubject: orders\r\n\r\nReceived: by mx.pbem.example; x\r\n"
    ).encode()


def hop(by: str, when: datetime) -> str:
    return f"from client.example (client [192.0.2.1])\r\n\tby {by} with ESMTP id 1;\r\n\t{when:%a, %d %b %Y %H:%M:%S +0000}"


def test_the_mailbox_time_counts_not_the_fetch() -> None:
    delivered = FETCHED - timedelta(hours=30)
    assert arrival_time(mail(), delivered_at=delivered, fetched_at=FETCHED) == delivered


def test_without_a_mailbox_time_the_fetch_counts() -> None:
    assert arrival_time(mail(), delivered_at=None, fetched_at=FETCHED) == FETCHED


def test_nothing_is_received_in_the_future() -> None:
    later = FETCHED + timedelta(minutes=5)  # a server clock ahead of ours
    assert arrival_time(mail(), delivered_at=later, fetched_at=FETCHED) == FETCHED


def test_our_servers_received_headers_bound_an_early_mailbox_time() -> None:
    # An INTERNALDATE taken from the mail's own Date (an APPEND) says two days ago;
    # our MX saw the mail an hour ago: it cannot have arrived before that.
    mx_saw = FETCHED - timedelta(hours=1)
    raw = mail(
        hop("imap.mail.pbem.example", mx_saw - timedelta(seconds=5)),
        hop("MX.pbem.example.", mx_saw - timedelta(seconds=9)),
    )
    early = FETCHED - timedelta(days=2)
    assert arrival_time(raw, delivered_at=early, fetched_at=FETCHED, trusted_hosts=OURS) == (
        mx_saw - timedelta(seconds=5)
    )


def test_a_received_header_below_a_stranger_is_never_read() -> None:
    # The sender wrote a header naming our MX, with a late date, below his own
    # server's: only the unbroken run of our headers at the top counts.
    ours = hop("mx.pbem.example", FETCHED - timedelta(hours=2))
    theirs = hop("smtp.elsewhere.example", FETCHED - timedelta(hours=3))
    forged = hop("mx.pbem.example", FETCHED - timedelta(minutes=1))
    raw = mail(ours, theirs, forged)
    assert trusted_received_dates(raw, OURS) == [FETCHED - timedelta(hours=2)]
    delivered = FETCHED - timedelta(hours=2, seconds=-3)
    assert (
        arrival_time(raw, delivered_at=delivered, fetched_at=FETCHED, trusted_hosts=OURS)
        == delivered
    )


def test_a_stranger_on_top_means_no_bound_and_no_trusted_hosts_means_none() -> None:
    raw = mail(hop("smtp.elsewhere.example", FETCHED), hop("mx.pbem.example", FETCHED))
    assert trusted_received_dates(raw, OURS) == []
    assert trusted_received_dates(mail(hop("mx.pbem.example", FETCHED)), ()) == []
    # A look-alike host is a stranger.
    assert trusted_received_dates(mail(hop("mx.pbem.example.evil.example", FETCHED)), OURS) == []


def test_an_undated_trusted_header_bounds_nothing_and_body_headers_are_ignored() -> None:
    raw = mail("by mx.pbem.example with LMTP id 7")
    assert trusted_received_dates(raw, OURS) == []
    delivered = FETCHED - timedelta(hours=1)
    assert (
        arrival_time(raw, delivered_at=delivered, fetched_at=FETCHED, trusted_hosts=OURS)
        == delivered
    )
