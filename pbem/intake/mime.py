"""Raw mail bytes → ParsedMail: the readable text, the sender, threading headers.

``parse_mail`` never raises: real-world mail is often malformed, and every mail
must be filed somewhere and (maybe) answered. What could not be read is listed
in ``ParsedMail.defects``. Signature checks work on ``message_object`` instead,
because they need the exact signed MIME part, not our cleaned-up text.
"""

from __future__ import annotations

import codecs
import email.parser
import email.policy
import email.utils
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage, Message
from email.policy import EmailPolicy
from types import MappingProxyType
from typing import Any

from pbem.emailpolicy import CachedHeaderRegistry
from pbem.intake.flowed import unflow
from pbem.intake.htmltext import html_to_text

__all__ = [
    "HYGIENE_HEADERS",
    "MAX_HEADER_CHARS",
    "MAX_MIME_DEPTH",
    "TOO_DEEP",
    "ParsedMail",
    "message_object",
    "parse_mail",
    "unreadable",
]

# The headers hygiene.classify looks at (lower-case names). Kept small so the
# ParsedMail stays a summary, not a second copy of the mail.
HYGIENE_HEADERS: tuple[str, ...] = (
    "auto-submitted",
    "precedence",
    "list-id",
    "list-unsubscribe",
    "list-post",
    "x-pbem-loop",
    "x-loop",
    "x-autoreply",
    "x-autorespond",
    "x-failed-recipients",
    "content-type",
    "sender",
)

# Above this size only the header block is parsed: the mail is far beyond any
# sane order mail and will be refused as oversized anyway.
BODY_PARSE_LIMIT = 16 * 1024 * 1024

# Python's header parser is slow on long hostile values (a 700 kB Subject of
# encoded words takes a minute): parse at most this much of any one header.
MAX_HEADER_CHARS = 4096
MAX_MIME_DEPTH = 24  # MIME nesting deeper than this is hostile, not a mail client
TOO_DEEP = "MIME structure too deep"  # the defect that says so
_MAX_DEFECTS = 64
_MSGID_RE = re.compile(r"<[^<>\s]+>")
_PKCS7_PROTOCOLS = ("application/pkcs7-signature", "application/x-pkcs7-signature")


def _cp1252_fallback(exc: UnicodeError) -> tuple[str, int]:
    """Codec error handler: bytes that are not UTF-8 are read as Windows-1252,
    the usual legacy charset of unlabelled 8-bit mail."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return bytes(bad).decode("windows-1252", "replace"), exc.end


codecs.register_error("pbem.cp1252", _cp1252_fallback)


@dataclass(frozen=True)
class ParsedMail:
    """What intake needs from one incoming mail.

    ``return_path`` is None when the header is absent and "" for the null
    reverse-path ``<>`` (a bounce). ``sender_addr`` is the Sender header's address:
    with ``reply_to`` and ``return_path`` it is where an answer may go when the
    From is missing or unusable (``from_addr`` None). ``text`` is the best readable text with LF
    line endings. ``headers`` holds only ``HYGIENE_HEADERS`` (lower-case keys;
    repeated headers joined with newlines).
    """

    message_id: str | None
    from_addr: str | None
    from_display: str
    reply_to: str | None
    return_path: str | None
    sender_addr: str | None
    subject: str
    date: datetime | None
    in_reply_to: str | None
    references: tuple[str, ...]
    text: str
    smime_signed: bool
    attachments: tuple[str, ...]
    headers: Mapping[str, str] = field(hash=False)
    size: int
    defects: tuple[str, ...]


def unreadable(mail: ParsedMail) -> str | None:
    """Why a mail's text could not be read as it was sent, if its defects say so:
    nesting deeper than any mail program makes, or broken base64. Said to the
    sender when no signed orders were found in what could be read."""
    if TOO_DEEP in mail.defects:
        return (
            f"your mail's MIME parts are nested more than {MAX_MIME_DEPTH} deep, deeper "
            "than any mail program makes them, so its text was not read"
        )
    if any("InvalidBase64" in defect for defect in mail.defects):
        return (
            "a part of your mail is base64-encoded and the encoding is broken (characters "
            "that are not base64, or a cut end), so its text could not be read as sent"
        )
    return None


class _BoundedPolicy(EmailPolicy):
    """policy.default, but long header values are cut before parsing.

    References keeps its end: the parent, the id that matters, comes last.
    """

    def header_fetch_parse(self, name: str, value: str) -> Any:
        if isinstance(value, str) and len(value) > MAX_HEADER_CHARS:
            if name.lower() == "references":
                value = value[-MAX_HEADER_CHARS:]
            else:
                value = value[:MAX_HEADER_CHARS]
        return super().header_fetch_parse(name, value)


_POLICY = _BoundedPolicy(header_factory=CachedHeaderRegistry())


def message_object(raw: bytes) -> EmailMessage:
    """The parsed message (policy default) for the S/MIME verifier.

    Never raises on malformed input: the email parser records defects instead.
    """
    parser = email.parser.BytesParser(policy=email.policy.default)
    msg = parser.parsebytes(raw)
    assert isinstance(msg, EmailMessage)  # guaranteed by policy.default
    return msg


def parse_mail(raw: bytes, *, body_limit: int = BODY_PARSE_LIMIT) -> ParsedMail:
    """Parse any bytes into a ParsedMail; never raises."""
    defects = _Defects()
    if len(raw) <= body_limit:
        try:
            msg = email.parser.BytesParser(policy=_POLICY).parsebytes(raw)
            return _summarise(msg, raw, defects, read_body=True)
        except Exception as exc:  # the parser gave up on the body (e.g. nesting)
            defects.add(f"unparseable mail: {type(exc).__name__}")
    else:
        defects.add(f"body not parsed: {len(raw)} bytes exceeds {body_limit}")
    try:
        head = email.parser.BytesHeaderParser(policy=_POLICY).parsebytes(raw)
        return _summarise(head, raw, defects, read_body=False)
    except Exception as exc:
        defects.add(f"unparseable headers: {type(exc).__name__}")
        return _empty(raw, defects)


class _Defects:
    """An ordered, de-duplicated, bounded list of defect descriptions."""

    def __init__(self) -> None:
        self._items: dict[str, None] = {}

    def add(self, text: str) -> None:
        if len(self._items) < _MAX_DEFECTS:
            self._items.setdefault(_clean(text), None)

    def extend(self, where: str, found: Any) -> None:
        for defect in found or ():
            self.add(f"{where}: {type(defect).__name__}")

    def freeze(self) -> tuple[str, ...]:
        return tuple(self._items)


def _empty(raw: bytes, defects: _Defects) -> ParsedMail:
    return ParsedMail(
        message_id=None,
        from_addr=None,
        from_display="",
        reply_to=None,
        return_path=None,
        sender_addr=None,
        subject="",
        date=None,
        in_reply_to=None,
        references=(),
        text="",
        smime_signed=False,
        attachments=(),
        headers=MappingProxyType({}),
        size=len(raw),
        defects=defects.freeze(),
    )


def _summarise(msg: Message, raw: bytes, defects: _Defects, *, read_body: bool) -> ParsedMail:
    from_addr, from_display = _first_address(msg, "From", defects)
    reply_to, _ = _first_address(msg, "Reply-To", defects)
    sender_addr, _ = _first_address(msg, "Sender", defects)
    text = ""
    attachments: list[str] = []
    signed = False
    if read_body:
        try:
            text = _normalise_text(_extract(msg, 0, attachments, defects))
        except RecursionError:
            defects.add(TOO_DEEP)
        signed = _is_smime_signed(msg, defects)
    for name in _long_header_names(raw):
        defects.add(f"header {name}: longer than {MAX_HEADER_CHARS}, cut")
    # Collected last: decoding the payloads adds defects to the parts.
    for depth, part in enumerate(_walk(msg)):
        defects.extend("message" if depth == 0 else "part", part.defects)
    references_raw = _header(msg, "References", defects) or ""
    return ParsedMail(
        message_id=_first_msgid(_header(msg, "Message-ID", defects)),
        from_addr=from_addr,
        from_display=from_display,
        reply_to=reply_to,
        return_path=_return_path(_header(msg, "Return-Path", defects)),
        sender_addr=sender_addr,
        subject=_unfold(_header(msg, "Subject", defects) or ""),
        date=_date(msg, defects),
        in_reply_to=_first_msgid(_header(msg, "In-Reply-To", defects)),
        references=tuple(_MSGID_RE.findall(references_raw)),
        text=text,
        smime_signed=signed,
        attachments=tuple(attachments),
        headers=MappingProxyType(_hygiene_headers(msg, defects)),
        size=len(raw),
        defects=defects.freeze(),
    )


# -- headers ---------------------------------------------------------------


def _long_header_names(raw: bytes) -> list[str]:
    """Names of top-level headers whose unfolded value exceeds MAX_HEADER_CHARS."""
    found: list[str] = []
    name, length = "", 0
    for line in re.split(rb"\r?\n", raw):
        if line[:1] in (b" ", b"\t"):
            length += len(line)
            continue
        if name and length > MAX_HEADER_CHARS and name not in found:
            found.append(name)
        if not line.strip():
            break
        head, _, value = line.partition(b":")
        name, length = _clean(head.decode("ascii", "replace").strip()), len(value)
    return found


def _clean(text: str) -> str:
    """Make a str safe to store and print: 8-bit header bytes arrive as
    surrogate escapes; most are UTF-8 (RFC 6532), the rest become U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "pbem.cp1252")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def _unfold(text: str) -> str:
    return " ".join(text.split())


def _header(msg: Message, name: str, defects: _Defects) -> str | None:
    """One header as a clean str; None when absent or unreadable.

    policy.default parses headers lazily and may raise on hostile input.
    """
    try:
        value = msg.get(name)
        if value is None:
            return None
        defects.extend(f"header {name}", getattr(value, "defects", ()))
        return _clean(str(value))
    except Exception as exc:
        defects.add(f"header {name}: {type(exc).__name__}")
        return None


def _all_headers(msg: Message, name: str, defects: _Defects) -> list[str]:
    try:
        values = msg.get_all(name) or []
        return [_clean(str(v)) for v in values]
    except Exception as exc:
        defects.add(f"header {name}: {type(exc).__name__}")
        return []


def _first_address(msg: Message, name: str, defects: _Defects) -> tuple[str | None, str]:
    """(lower-cased addr-spec, display name) of the header's first address."""
    try:
        if len(msg.get_all(name) or []) > 1:
            defects.add(f"header {name}: repeated")
    except Exception as exc:
        defects.add(f"header {name}: {type(exc).__name__}")
        return None, ""
    pairs: list[tuple[str, str]] = []
    try:
        value = msg.get(name)
        if value is None:
            return None, ""
        defects.extend(f"header {name}", getattr(value, "defects", ()))
        pairs = [(a.addr_spec, a.display_name) for a in getattr(value, "addresses", ())]
    except Exception as exc:
        defects.add(f"header {name}: {type(exc).__name__}")
    if not pairs:  # the structured parser failed: fall back to the lenient one
        raw = _header(msg, name, defects) or ""
        pairs = [(addr, disp) for disp, addr in email.utils.getaddresses([raw]) if addr]
    if len(pairs) > 1:
        defects.add(f"header {name}: several addresses")
    for addr, display in pairs:
        addr = _clean(addr).strip().lower()
        if "@" in addr and not any(c.isspace() for c in addr):
            return addr, _unfold(_clean(display))
    if pairs:
        defects.add(f"header {name}: no usable address")
    return None, ""


def _first_msgid(value: str | None) -> str | None:
    if not value:
        return None
    found = _MSGID_RE.search(value)
    if found:
        return found.group(0)
    bare = value.strip().split()
    return bare[0] if bare else None


def _return_path(value: str | None) -> str | None:
    if value is None:
        return None
    inner = value.strip()
    if inner.startswith("<") and ">" in inner:
        inner = inner[1 : inner.index(">")]
    return inner.strip().lower()


def _date(msg: Message, defects: _Defects) -> datetime | None:
    try:
        value = msg.get("Date")
        if value is None:
            return None
        when = getattr(value, "datetime", None)
        if when is None:
            defects.add("header Date: unparseable")
        return when if isinstance(when, datetime) else None
    except Exception as exc:
        defects.add(f"header Date: {type(exc).__name__}")
        return None


def _hygiene_headers(msg: Message, defects: _Defects) -> dict[str, str]:
    found: dict[str, str] = {}
    for name in HYGIENE_HEADERS:
        values = _all_headers(msg, name, defects)
        if values:
            found[name] = "\n".join(_unfold(v) for v in values)
    return found


# -- body ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Text:
    text: str
    from_html: bool


def _children(part: Message) -> list[Message]:
    payload = part.get_payload()
    return [p for p in payload if isinstance(p, Message)] if isinstance(payload, list) else []


def _extract(part: Message, depth: int, attachments: list[str], defects: _Defects) -> _Text | None:
    """The readable text of ``part``; non-text leaves are listed as attachments."""
    if depth > MAX_MIME_DEPTH:
        defects.add(TOO_DEEP)
        return None
    try:
        ctype = part.get_content_type()
        if ctype.startswith("message/"):
            # A forwarded or bounced mail is someone else's text, not the sender's.
            attachments.append(_attachment_name(part, ctype))
            return None
        if ctype.startswith("multipart/") and not part.is_multipart():
            # The parser found no parts (broken boundary): read what is there.
            defects.add(f"{ctype} without parts read as text")
            return _Text(_decode_leaf(part, defects), False)
        if part.is_multipart():
            return _extract_multipart(part, ctype, depth, attachments, defects)
        if _is_inline_text(part, ctype):
            body = _decode_leaf(part, defects)
            if ctype == "text/html":
                return _Text(html_to_text(body), True)
            if _param(part, "format") == "flowed":
                delsp = _param(part, "delsp") == "yes"
                body = unflow(body, delsp=delsp, quote_space=True)
            return _Text(body, False)
        attachments.append(_attachment_name(part, ctype))
    except Exception as exc:
        defects.add(f"part unreadable: {type(exc).__name__}")
    return None


def _extract_multipart(
    part: Message, ctype: str, depth: int, attachments: list[str], defects: _Defects
) -> _Text | None:
    children = _children(part)
    if ctype == "multipart/alternative":
        # The sender's own plain text beats our rendering of their HTML.
        found = [_extract(c, depth + 1, attachments, defects) for c in children]
        found_texts = [t for t in found if t is not None and t.text.strip()]
        plain = [t for t in found_texts if not t.from_html]
        chosen = plain[0] if plain else (found_texts[-1] if found_texts else None)
        return chosen
    if ctype in ("multipart/signed", "multipart/related") and children:
        # signed: the second part is the signature; related: the first is the root.
        for extra in children[1:]:
            if ctype == "multipart/related" or not _is_signature(extra):
                attachments.append(_attachment_name(extra, extra.get_content_type()))
        return _extract(children[0], depth + 1, attachments, defects)
    # mixed, report, digest, unknown: every inline text part, in order
    texts = [_extract(c, depth + 1, attachments, defects) for c in children]
    kept = [t for t in texts if t is not None and t.text.strip()]
    if not kept:
        return None
    joined = "".join(t.text.rstrip("\n") + "\n" for t in kept)
    return _Text(joined, all(t.from_html for t in kept))


def _param(part: Message, name: str) -> str:
    """A Content-Type parameter, lower-case ("" when absent or unreadable)."""
    try:
        value = part.get_param(name)
        if value is None:
            return ""
        return email.utils.collapse_rfc2231_value(value).strip().lower()
    except Exception:
        return ""


def _is_inline_text(part: Message, ctype: str) -> bool:
    if ctype not in ("text/plain", "text/html"):
        return False
    return part.get_content_disposition() != "attachment"


def _is_signature(part: Message) -> bool:
    return part.get_content_type() in (
        *_PKCS7_PROTOCOLS,
        "application/pgp-signature",
    )


def _attachment_name(part: Message, ctype: str) -> str:
    try:
        name = part.get_filename()
    except Exception:
        name = None
    return _unfold(_clean(name)) if name else ctype


def _decode_leaf(part: Message, defects: _Defects) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    return _decode_bytes(payload, charset, defects)


_LEGACY_LABELS = frozenset({"iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii", "windows-1252"})


def _decode_bytes(data: bytes, charset: str | None, defects: _Defects) -> str:
    """Decode with the declared charset; fall back to UTF-8, then Windows-1252.

    Mislabelled mail is common: us-ascii with 8-bit bytes (usually UTF-8) and
    iso-8859-1 holding Windows-1252 quotes (as browsers assume, WHATWG).
    """
    label = (charset or "").strip().lower()
    tries = [label] if label else []
    if label in _LEGACY_LABELS:
        # Valid UTF-8 with 8-bit bytes is almost never meant as Latin-1.
        tries = ["utf-8", "windows-1252"]
    for codec in tries:
        try:
            return data.decode(codec)
        except UnicodeError:
            continue
        except LookupError:  # unknown, or not a text codec (e.g. "zlib")
            defects.add(f"unknown charset {codec!r}")
        except Exception:
            defects.add(f"unusable charset {codec!r}")
    return data.decode("utf-8", "pbem.cp1252")  # never fails: bad bytes as cp1252


def _normalise_text(found: _Text | None) -> str:
    if found is None:
        return ""
    text = found.text.replace("\r\n", "\n").replace("\r", "\n")
    return _clean(text.replace("\x00", ""))


def _walk(part: Message, depth: int = 0) -> Iterator[Message]:
    yield part
    if depth < MAX_MIME_DEPTH:
        for child in _children(part):
            yield from _walk(child, depth + 1)


def _is_smime_signed(msg: Message, defects: _Defects) -> bool:
    try:
        for part in _walk(msg):
            if part.get_content_type() != "multipart/signed":
                continue
            protocol = _param(part, "protocol")
            if protocol in _PKCS7_PROTOCOLS:
                return True
    except Exception as exc:
        defects.add(f"signature structure unreadable: {type(exc).__name__}")
    return False
