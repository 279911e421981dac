"""Compose outgoing mail as bytes: answers to order mails and side reports.

Pure: the Date and Message-ID are parameters and MIME boundaries are derived
from the content, so composing the same answer twice gives the same bytes and
a resend after a crash carries the same Message-ID (the outbox and players'
mail clients can recognise it).
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import re
from collections.abc import Sequence
from datetime import datetime
from email.generator import NLCRE, BytesGenerator  # type: ignore[attr-defined]
from email.message import EmailMessage
from io import BytesIO

from pbem.emailpolicy import DEFAULT

__all__ = ["compose_reply", "reply_subject", "stable_message_id"]

# Matched whole (fullmatch): "$" alone would let a trailing newline through.
_LABEL_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
_DOMAIN_RE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")
_MSGID_RE = re.compile(r"<[^<>\s@]+@[^<>\s@]+>")
_AUTO_SUBMITTED = ("auto-replied", "auto-generated")
# Threads grow without bound; RFC 5322 §3.6.4 allows trimming the middle.
_MAX_REFERENCES = 12
_FOLD_AT = 78  # RFC 5322 §2.1.1: a line SHOULD be at most 78 characters
_MAX_LINE = 998  # and MUST be at most 998


def stable_message_id(*parts: str, domain: str) -> str:
    """A Message-ID determined by ``parts`` alone, e.g. ``<pbem.answer.3f2a…@host>``.

    The first part, when it is a short lower-case word ("answer", "report"),
    is kept readable; all parts go into a SHA-256 digest.
    """
    if not parts:
        raise ValueError("stable_message_id needs at least one part")
    if not _DOMAIN_RE.fullmatch(domain):
        raise ValueError(f"not a usable Message-ID domain: {domain!r}")
    # JSON keeps part boundaries unambiguous: ("a", "bc") differs from ("ab", "c").
    digest = hashlib.sha256(json.dumps(list(parts)).encode("utf-8")).hexdigest()[:32]
    label = parts[0] if _LABEL_RE.fullmatch(parts[0]) else None
    local = f"pbem.{label}.{digest}" if label else f"pbem.{digest}"
    return f"<{local}@{domain}>"


def reply_subject(original: str) -> str:
    """``Re: original`` unless it already starts with Re:."""
    subject = " ".join(original.split())
    if subject.lower().startswith("re:"):
        return subject
    return f"Re: {subject}" if subject else "Re: your mail"


def compose_reply(
    *,
    to: str,
    sender: str,
    subject: str,
    text: str,
    html: str | None = None,
    in_reply_to: str | None,
    references: Sequence[str] = (),
    message_id: str,
    loop_token: str,
    date: datetime,
    attachments: Sequence[tuple[str, str, bytes]] = (),
    auto_submitted: str = "auto-replied",
    linesep: str = "\r\n",
) -> bytes:
    """One outgoing mail as bytes (CRLF line endings by default, for SMTP).

    ``auto_submitted`` is "auto-replied" for answers to a mail and
    "auto-generated" for reports (RFC 3834 §5). ``attachments`` are
    (filename, content type, data), e.g. ("map.png", "image/png", png).
    Precedence is deliberately not set (RFC 3834 §3.1.8 discourages it).
    """
    if auto_submitted not in _AUTO_SUBMITTED:
        raise ValueError(f"auto_submitted must be one of {_AUTO_SUBMITTED}")
    if date.tzinfo is None or date.utcoffset() is None:
        raise ValueError("date must be timezone-aware")
    if not _MSGID_RE.fullmatch(message_id):
        raise ValueError(f"not a Message-ID: {message_id!r}")
    if not loop_token or _has_line_break(loop_token):
        raise ValueError("loop_token must be a non-empty single line")

    msg = EmailMessage(policy=DEFAULT)
    msg["From"] = sender
    msg["To"] = to
    # Subjects come from strangers' mail: a line break must not inject headers.
    _set_subject(msg, " ".join(subject.split()))
    msg["Date"] = email.utils.format_datetime(date)
    msg["Message-ID"] = message_id
    thread = _thread(in_reply_to, references)
    if in_reply_to and in_reply_to in thread:
        msg["In-Reply-To"] = in_reply_to
    if thread:
        msg["References"] = " ".join(thread)
    msg["Auto-Submitted"] = auto_submitted
    msg["X-Pbem-Loop"] = loop_token
    # Ask Exchange/Outlook not to send out-of-office replies to us.
    msg["X-Auto-Response-Suppress"] = "All"

    msg.set_content(_lines(text), charset="utf-8", cte=_cte(text))
    if html is not None:
        msg.add_alternative(_lines(html), subtype="html", charset="utf-8", cte=_cte(html))
    for filename, content_type, data in attachments:
        maintype, _, subtype = content_type.partition("/")
        if not maintype or not subtype:
            raise ValueError(f"not a content type: {content_type!r}")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)

    for part in msg.walk():
        if part is not msg:
            del part["MIME-Version"]  # the email package repeats it on sub-parts
    _stable_boundaries(
        msg, message_id, [text.encode(), (html or "").encode(), *(a[2] for a in attachments)]
    )
    out = BytesIO()
    # refold_source="none": the Subject folded here is sent as folded (the only
    # header set raw; the others are header objects, folded by the email package).
    policy = DEFAULT.clone(linesep=linesep, refold_source="none")
    _Generator(out, mangle_from_=False, policy=policy).flatten(msg)
    return out.getvalue()


class _Generator(BytesGenerator):
    """``BytesGenerator`` writing a body's lines in one piece, not two writes a line:
    the same bytes, but a report's base64 map (thousands of lines) costs a
    fraction of the time."""

    def _write_lines(self, lines: str) -> None:
        if not lines:
            return
        parts = NLCRE.split(lines)
        if len(parts) > 1:
            self.write(self._NL.join(parts[:-1]) + self._NL)  # type: ignore[attr-defined]
        if parts[-1]:
            self.write(parts[-1])


def _set_subject(msg: EmailMessage, subject: str) -> None:
    """The Subject, folded at spaces with its first words on the Subject: line.

    The email package moves a long subject that fits a line of its own to the line
    after "Subject:", and some mail clients then show it with a leading blank. Plain
    printable ASCII is folded here instead (RFC 5322 §2.2.3: lines of at most 78
    characters where the words allow, never over 998); anything else needs encoded
    words, which the email package folds.
    """
    words = subject.split(" ")
    plain = subject and all(" " <= c <= "~" for c in subject) and "=?" not in subject
    if not plain or max(map(len, words)) > _MAX_LINE - len("Subject: "):
        msg["Subject"] = subject
        return
    lines = [words[0]]
    for word in words[1:]:
        head = len("Subject: ") if len(lines) == 1 else 0
        if head + len(lines[-1]) + 1 + len(word) > _FOLD_AT:
            lines.append("")
        lines[-1] += " " + word
    msg.set_raw("Subject", "\n".join(lines))  # each line after the first starts with a space


def _has_line_break(value: str) -> bool:
    return "\r" in value or "\n" in value


def _cte(text: str) -> str | None:
    """Quoted-printable for non-ASCII text: not every relay takes 8-bit mail,
    and QP keeps an armoured order block readable in the raw message."""
    return None if text.isascii() else "quoted-printable"


def _lines(text: str) -> str:
    """LF line endings and a final newline: the generator adds the linesep."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text if text.endswith("\n") else text + "\n"


def _thread(in_reply_to: str | None, references: Sequence[str]) -> list[str]:
    """References for the reply: the parent's references plus the parent.

    Only well-formed ids are kept; malformed ones from a stranger's mail
    would otherwise make the header unparseable.
    """
    ids = [r.strip() for r in references if _MSGID_RE.fullmatch(r.strip())]
    if in_reply_to and _MSGID_RE.fullmatch(in_reply_to) and in_reply_to not in ids:
        ids.append(in_reply_to)
    ids = list(dict.fromkeys(ids))
    if len(ids) > _MAX_REFERENCES:
        ids = ids[:1] + ids[-(_MAX_REFERENCES - 1) :]
    return ids


def _stable_boundaries(msg: EmailMessage, message_id: str, content: Sequence[bytes]) -> None:
    """Boundaries from a digest of the content instead of random numbers.

    Quoted-printable and base64 bodies cannot contain "=_", and the digest
    makes a clash with a 7bit/8bit text body practically impossible. The
    digest is of what the parts were made from (decoding the encoded parts
    again would cost more than all the rest of composing a report).
    """
    if not msg.is_multipart():
        return
    seed = hashlib.sha256(message_id.encode("utf-8"))
    for data in content:
        seed.update(hashlib.sha256(data).digest())  # each part's bounds stay unambiguous
    digest = seed.hexdigest()[:24]
    for index, part in enumerate(p for p in msg.walk() if p.is_multipart()):
        part.set_boundary(f"=_pbem_{digest}_{index}")
