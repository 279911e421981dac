"""When a mail arrived, as far as our own servers can vouch for it.

Lateness is judged by the time the moderator's mailbox received a mail, not by
when the daemon happened to fetch it: a mail delivered on time stays on time
through an IMAP outage or a daemon restart. The mailbox's own time (IMAP
INTERNALDATE, a Maildir file's time) is bounded:

- never earlier than the newest date in the Received headers our own servers
  wrote (the trusted hosts): an INTERNALDATE set from the mail's own Date, say by
  an APPEND, cannot make a mail earlier than our servers saw it. Only the run of
  trusted headers at the very top counts: a sender can write any Received header
  below ours, including one naming our hosts;
- never later than the fetch: nothing is received in the future.

Pure: no clock, no I/O.
"""

from __future__ import annotations

import email.utils
import re
from collections.abc import Collection
from datetime import UTC, datetime

__all__ = ["arrival_time", "trusted_received_dates"]

_BY_HOST = re.compile(r"\bby\s+([^\s;()]+)", re.IGNORECASE)
# Received headers read at most (a hostile mail may carry thousands).
_MAX_RECEIVED = 50


def _received_headers(raw: bytes) -> list[str]:
    """The Received headers of the header block, top first, unfolded."""
    head = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[0]
    found: list[str] = []
    current: list[str] | None = None
    for line in head.decode("utf-8", errors="replace").splitlines():
        if line[:1] in (" ", "\t"):
            if current is not None:
                current.append(line.strip())
            continue
        if current is not None:
            found.append(" ".join(current))
            if len(found) >= _MAX_RECEIVED:
                return found
        name, colon, value = line.partition(":")
        current = [value.strip()] if colon and name.strip().lower() == "received" else None
    if current is not None:
        found.append(" ".join(current))
    return found


def _trusted(host: str, trusted_hosts: Collection[str]) -> bool:
    host = host.lower().rstrip(".")
    for pattern in trusted_hosts:
        if pattern.startswith("*.") and host.endswith(pattern[1:]):
            return True
        if host == pattern:
            return True
    return False


def trusted_received_dates(raw: bytes, trusted_hosts: Collection[str]) -> list[datetime]:
    """The dates (aware UTC) of the Received headers at the top of ``raw`` that a
    trusted host wrote ("by HOST"), up to the first header it did not."""
    dates: list[datetime] = []
    if not trusted_hosts:
        return dates
    for header in _received_headers(raw):
        by = _BY_HOST.search(header.rpartition(";")[0] or header)
        if by is None or not _trusted(by.group(1), trusted_hosts):
            break  # from here down anyone could have written it
        try:
            when = email.utils.parsedate_to_datetime(header.rpartition(";")[2].strip())
        except (TypeError, ValueError, IndexError):
            continue  # our own server wrote no usable date: no bound from it
        if when.tzinfo is not None:
            dates.append(when.astimezone(UTC))
    return dates


def arrival_time(
    raw: bytes,
    *,
    delivered_at: datetime | None,
    fetched_at: datetime,
    trusted_hosts: Collection[str] = (),
) -> datetime:
    """When the mailbox received ``raw``: ``delivered_at`` (the mailbox's time, or
    the fetch if it has none), no earlier than our own servers' Received dates and
    no later than ``fetched_at``."""
    when = delivered_at if delivered_at is not None else fetched_at
    ours = trusted_received_dates(raw, trusted_hosts)
    if ours:
        when = max(when, *ours)
    return min(when, fetched_at)
