"""Mail hygiene: which mails are answered, which are processed, who floods us.

Answering machine mail breeds mail loops, so auto-replies (RFC 3834),
bounces, list and bulk traffic (Precedence, List-*), no-reply addresses and
our own mail are never answered (they are filed). A mail without a usable
From is processed: the mailroom answers the player its signature names, or
the Sender, Reply-To or envelope sender (see :func:`fallback_addresses`). An
oversized mail is answered with an error but never processed.
Everything here is pure: no clock, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from pbem.intake.mime import ParsedMail

__all__ = ["LOOP_HEADER", "Hygiene", "classify", "fallback_addresses", "is_no_reply"]

# Every mail we send carries this header with the installation's loop token.
LOOP_HEADER = "X-Pbem-Loop"

_BULK_PRECEDENCE = frozenset({"bulk", "list", "junk"})
# Local parts that only ever send machine mail (RFC 5321 §4.5.5, RFC 2142).
_BOUNCE_LOCALPARTS = frozenset({"mailer-daemon", "postmaster"})
_LIST_HEADERS = ("list-id", "list-unsubscribe", "list-post")
# Local parts that say "do not answer": noreply, no-reply, no_reply, donotreply,
# do-not-reply, with or without a tag after them (noreply-1234, no-reply+x).
_NO_REPLY = re.compile(r"^(no[-_.]?reply|do[-_.]?not[-_.]?reply)([-_.+].*)?$")
# Non-standard but widespread auto-reply markers (vacation programs, ticketing).
_AUTOREPLY_HEADERS = ("x-autoreply", "x-autorespond")


@dataclass(frozen=True, slots=True)
class Hygiene:
    """The verdict on one mail.

    ``reason`` is "ok" or one of "loop", "own-address", "bounce",
    "auto-submitted", "mailing-list", "no-reply", "no-from", "oversized".
    ``answer``: send a reply (to ``ParsedMail.from_addr``; "no-from": see the module).
    ``process``: go on to attribution and orders.
    """

    answer: bool
    process: bool
    reason: str


OK = Hygiene(answer=True, process=True, reason="ok")


def _silent(reason: str) -> Hygiene:
    return Hygiene(answer=False, process=False, reason=reason)


def classify(
    mail: ParsedMail, *, own_addresses: Collection[str], loop_token: str, max_size: int
) -> Hygiene:
    """Decide whether ``mail`` is answered and processed.

    The never-answer kinds are checked first, so an oversized bounce stays
    silent; only an otherwise answerable oversized mail gets its error reply.
    """
    headers = mail.headers
    own = {a.strip().lower() for a in own_addresses}
    if loop_token and loop_token in _tokens(headers.get("x-pbem-loop", "")):
        return _silent("loop")
    # The classic X-Loop convention (procmail, list servers) names an address.
    if own & {t.lower() for t in _tokens(headers.get("x-loop", ""))}:
        return _silent("loop")
    if mail.from_addr is not None and mail.from_addr in own:
        return _silent("own-address")
    if mail.return_path and mail.return_path in own:
        return _silent("own-address")
    if _is_bounce(mail):
        return _silent("bounce")
    if _is_auto_submitted(mail):
        return _silent("auto-submitted")
    if _is_list_mail(mail):
        return _silent("mailing-list")
    if is_no_reply(mail.from_addr):
        return _silent("no-reply")
    if mail.from_addr is None:
        # Answered if an address can be found (the signature's player, Sender...).
        return Hygiene(answer=True, process=mail.size <= max_size, reason="no-from")
    if mail.size > max_size:
        return Hygiene(answer=True, process=False, reason="oversized")
    return OK


def is_no_reply(addr: str | None) -> bool:
    """Whether ``addr`` asks not to be answered (noreply@, no-reply-123@ ...) or
    only ever sends machine mail (mailer-daemon@, postmaster@)."""
    local = _localpart(addr)
    return bool(_NO_REPLY.match(local)) or local in _BOUNCE_LOCALPARTS


def fallback_addresses(mail: ParsedMail) -> list[str]:
    """Where an answer may go when the From is missing or unusable, best first:
    the Sender, the Reply-To, the envelope sender (Return-Path); no-reply and
    our machine addresses left out."""
    found: list[str] = []
    for addr in (mail.sender_addr, mail.reply_to, mail.return_path):
        if addr and "@" in addr and not is_no_reply(addr) and addr not in found:
            found.append(addr)
    return found


def _tokens(value: str) -> set[str]:
    return {t.strip() for t in value.replace(",", "\n").split("\n") if t.strip()}


def _localpart(addr: str | None) -> str:
    return (addr or "").rpartition("@")[0].lower()


def _content_type(mail: ParsedMail) -> tuple[str, str]:
    """(type/subtype, report-type) of the top-level part, lower-case."""
    parts = [p.strip().lower() for p in mail.headers.get("content-type", "").split(";")]
    report_type = ""
    for param in parts[1:]:
        key, _, value = param.partition("=")
        if key.strip() == "report-type":
            report_type = value.strip().strip('"')
    return parts[0], report_type


def _is_bounce(mail: ParsedMail) -> bool:
    # RFC 5321 §4.5.5: delivery notifications use the null reverse-path.
    if mail.return_path == "":
        return True
    if _localpart(mail.from_addr) in _BOUNCE_LOCALPARTS:
        return True
    if "x-failed-recipients" in mail.headers:
        return True
    ctype, report_type = _content_type(mail)
    return ctype == "multipart/report" and report_type == "delivery-status"


def _is_auto_submitted(mail: ParsedMail) -> bool:
    headers = mail.headers
    # RFC 3834 §5: any value other than "no" marks machine-sent mail.
    values = [
        v.split(";")[0].strip().lower() for v in headers.get("auto-submitted", "").split("\n")
    ]
    if any(v and v != "no" for v in values):
        return True
    if headers.get("precedence", "").strip().lower() == "auto_reply":
        return True
    if any(name in headers for name in _AUTOREPLY_HEADERS):
        return True
    ctype, _ = _content_type(mail)
    # Other reports (read receipts, feedback loops) are machine mail too.
    return ctype == "multipart/report"


def _is_list_mail(mail: ParsedMail) -> bool:
    headers = mail.headers
    if any(name in headers for name in _LIST_HEADERS):
        return True
    return headers.get("precedence", "").strip().lower() in _BULK_PRECEDENCE
