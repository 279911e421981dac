"""pbem.intake.mime: any bytes in, a ParsedMail out (issue 2, intake)."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import default

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.intake.htmltext import html_to_text
from pbem.intake.mime import MAX_HEADER_CHARS, ParsedMail, message_object, parse_mail
from tests.unit.intake.mailfixtures import (
    ARMOURED_BLOCK,
    all_fixture_names,
    contains_block,
    fixture,
)

BLOCK_TEXT = "\n".join(ARMOURED_BLOCK) + "\n"


def _mail(**headers: str) -> EmailMessage:
    msg = EmailMessage(policy=default)
    msg["From"] = headers.pop("from_", "Player <player@example.org>")
    msg["To"] = "moderator@pbem.example"
    msg["Subject"] = headers.pop("subject", "orders")
    msg["Message-ID"] = "<built.1@example.org>"
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    return msg


# -- real-world shapes (fixtures) ---------------------------------------------


def test_thunderbird_alternative_prefers_plain_text() -> None:
    mail = parse_mail(fixture("thunderbird_alternative_qp"))
    assert contains_block(mail.text)
    assert "HTML VERSION" not in mail.text
    assert "my orders – see below" in mail.text  # quoted-printable UTF-8
    assert mail.from_addr == "alice@example.org"  # lower-cased addr-spec
    assert mail.from_display == "Alice Müller"  # RFC 2047 encoded word
    assert mail.return_path == "alice@example.org"
    assert mail.message_id == "<0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b@example.org>"
    assert mail.in_reply_to == "<pbem.report.1a2b3c@pbem.example>"
    assert mail.references == (
        "<pbem.report.0a0b0c@pbem.example>",
        "<pbem.report.1a2b3c@pbem.example>",
    )
    assert mail.date == datetime(2026, 11, 28, 17, 4, 11, tzinfo=UTC)
    assert mail.defects == ()
    assert not mail.smime_signed


def test_outlook_html_only_windows1252_keeps_block_lines() -> None:
    mail = parse_mail(fixture("outlook_html_windows1252"))
    assert contains_block(mail.text)
    assert mail.text.startswith("Here are my “orders” – café time.\n")
    assert "MsoNormal" not in mail.text  # the <style> content is not text
    assert mail.subject == "Orders – turn 3"
    assert mail.from_display == "Smith, Bob"


def test_gmail_html_only_blockquote_is_marked_as_quoted() -> None:
    mail = parse_mail(fixture("gmail_html_only"))
    assert contains_block(mail.text)
    assert "> CV Enterprise: move 9999" in mail.text.split("\n")


def test_base64_utf8_body_and_encoded_subject() -> None:
    mail = parse_mail(fixture("base64_utf8"))
    assert mail.text.startswith("Orders from the Kidō Butai – ✓\n")
    assert contains_block(mail.text)
    assert mail.subject == "命令 orders"


def test_iso_8859_1_plain_and_8bit_display_name() -> None:
    mail = parse_mail(fixture("latin1_plain"))
    assert mail.text.startswith("Señor moderador, órdenes:")
    assert contains_block(mail.text)
    assert mail.subject == "Órdenes"
    assert mail.from_display == "José"  # raw Latin-1 byte in a header


def test_format_flowed_is_unwrapped() -> None:
    lines = parse_mail(fixture("format_flowed")).text.split("\n")
    assert lines[0] == (
        "This paragraph was long, so the mail client broke it into several "
        "lines with a trailing space on each soft break."
    )
    assert lines[1] == "From here on the line was space-stuffed."
    assert lines[2] == "> quoted text that was also flowed over two lines"
    assert lines[3] == "-- "  # the signature separator is not a soft break


def test_smime_multipart_signed_is_flagged_and_text_is_the_signed_part() -> None:
    mail = parse_mail(fixture("smime_signed"))
    assert mail.smime_signed
    assert mail.text == BLOCK_TEXT
    assert mail.attachments == ()  # the signature is not an attachment


def test_dsn_bounce_has_null_return_path() -> None:
    mail = parse_mail(fixture("dsn_bounce"))
    assert mail.return_path == ""
    assert mail.from_addr == "mailer-daemon@mx.example.org"
    assert "message/delivery-status" in mail.attachments
    assert "multipart/report" in mail.headers["content-type"]
    assert mail.headers["auto-submitted"] == "auto-replied"


def test_vacation_and_list_headers_are_kept_for_hygiene() -> None:
    vacation = parse_mail(fixture("vacation_autoreply"))
    assert vacation.headers["auto-submitted"] == "auto-replied (vacation)"
    assert vacation.headers["x-autoreply"] == "yes"
    listed = parse_mail(fixture("mailing_list"))
    assert listed.headers["list-id"] == "Wargames discussion <wargames.lists.example.org>"
    assert listed.headers["precedence"] == "list"


def test_attachments_only_yields_no_text() -> None:
    mail = parse_mail(fixture("attachments_only"))
    assert mail.text == ""
    assert mail.attachments == ("map.png", "orders.txt")


def test_empty_body() -> None:
    mail = parse_mail(fixture("empty_body"))
    assert mail.text == ""
    assert mail.subject == ""
    assert mail.from_addr == "heidi@example.org"


def test_malformed_boundary_reads_what_is_there() -> None:
    mail = parse_mail(fixture("malformed_boundary"))
    assert "Orders are in here somewhere." in mail.text
    assert any("StartBoundaryNotFound" in d for d in mail.defects)


def test_bad_header_encoding_and_unknown_charset() -> None:
    mail = parse_mail(fixture("bad_header_encoding"))
    assert mail.from_addr == "judy@example.org"
    assert mail.date is None
    assert mail.references == ("<ok.1@example.org>",)
    assert mail.text.startswith("Orders are here")
    assert "header Date: unparseable" in mail.defects
    assert "unknown charset 'x-no-such-charset'" in mail.defects


def test_8bit_bytes_in_headers_decode_utf8_then_cp1252() -> None:
    mail = parse_mail(fixture("eightbit_headers"))
    assert mail.from_display == "Kröger été"
    assert mail.subject.startswith("Befehle für Zug 3")
    assert mail.text == "Befehle für Zug 3.\n"


# -- built with the email package ------------------------------------------


def test_mixed_concatenates_inline_text_parts_and_lists_attachments() -> None:
    msg = _mail()
    msg.set_content("first part\n")
    msg.add_attachment("second part\n", disposition="inline")
    msg.add_attachment(b"\x89PNG", maintype="image", subtype="png", filename="map.png")
    msg.add_attachment(b"%PDF", maintype="application", subtype="pdf")
    mail = parse_mail(msg.as_bytes())
    assert mail.text == "first part\nsecond part\n"
    assert mail.attachments == ("map.png", "application/pdf")


def test_nested_signed_part_inside_mixed_is_flagged() -> None:
    signed = EmailMessage(policy=default)
    signed.set_type("multipart/signed")
    signed.set_param("protocol", "application/x-pkcs7-signature")
    body = EmailMessage(policy=default)
    body.set_content(BLOCK_TEXT)
    signature = EmailMessage(policy=default)
    signature.set_content(b"\x30\x80", maintype="application", subtype="x-pkcs7-signature")
    signed.attach(body)
    signed.attach(signature)
    outer = _mail()
    outer.set_type("multipart/mixed")
    outer.attach(signed)
    mail = parse_mail(outer.as_bytes())
    assert mail.smime_signed
    assert contains_block(mail.text)


def test_pgp_signed_is_not_smime() -> None:
    msg = _mail()
    msg.set_type("multipart/signed")
    msg.set_param("protocol", "application/pgp-signature")
    body = EmailMessage(policy=default)
    body.set_content("orders\n")
    msg.attach(body)
    assert not parse_mail(msg.as_bytes()).smime_signed


def test_forwarded_message_text_is_not_the_senders_text() -> None:
    inner = _mail(subject="old")
    inner.set_content(BLOCK_TEXT)
    msg = _mail()
    msg.set_content("see the forwarded mail\n")
    msg.add_attachment(inner)
    mail = parse_mail(msg.as_bytes())
    assert mail.text == "see the forwarded mail\n"
    assert "message/rfc822" in mail.attachments


def test_us_ascii_label_with_utf8_bytes_is_read_as_utf8() -> None:
    raw = (
        b"From: a@example.org\nContent-Type: text/plain; charset=us-ascii\n"
        b"Content-Transfer-Encoding: 8bit\n\nZuik\xc3\xa1ku\n"
    )
    assert parse_mail(raw).text == "Zuikáku\n"


def test_non_text_codec_as_charset_is_refused() -> None:
    raw = b"From: a@example.org\nContent-Type: text/plain; charset=zlib\n\nplain words\n"
    mail = parse_mail(raw)
    assert mail.text == "plain words\n"
    assert "unknown charset 'zlib'" in mail.defects


def test_crlf_line_endings_are_normalised() -> None:
    raw = b"From: a@example.org\r\nSubject: x\r\n\r\nline one\r\nline two\r\n"
    assert parse_mail(raw).text == "line one\nline two\n"


def test_return_path_absent_is_none() -> None:
    assert parse_mail(b"From: a@example.org\n\nhi\n").return_path is None


def test_multiple_from_addresses_take_the_first_and_record_a_defect() -> None:
    mail = parse_mail(b"From: a@example.org, b@example.org\n\nhi\n")
    assert mail.from_addr == "a@example.org"
    assert "header From: several addresses" in mail.defects


def test_unusable_from_gives_no_sender() -> None:
    mail = parse_mail(b"From: nobody\n\nhi\n")
    assert mail.from_addr is None


def test_body_over_limit_parses_headers_only() -> None:
    raw = b"From: a@example.org\nSubject: big\n\n" + b"x" * 2000
    mail = parse_mail(raw, body_limit=1000)
    assert mail.subject == "big"
    assert mail.text == ""
    assert mail.size == len(raw)
    assert any(d.startswith("body not parsed") for d in mail.defects)


def test_deep_mime_nesting_is_cut_off_without_error() -> None:
    depth = 200
    lines = [b"From: a@example.org", b"MIME-Version: 1.0"]
    for i in range(depth):
        lines += [
            f'Content-Type: multipart/mixed; boundary="b{i}"'.encode(),
            b"",
            f"--b{i}".encode(),
        ]
    lines += [b"Content-Type: text/plain", b"", b"deep"]
    for i in reversed(range(depth)):
        lines.append(f"--b{i}--".encode())
    mail = parse_mail(b"\n".join(lines) + b"\n")
    assert isinstance(mail, ParsedMail)
    assert "MIME structure too deep" in mail.defects


def test_parser_giving_up_on_the_body_still_yields_the_headers() -> None:
    # 5000 nested multiparts exhaust the email parser's recursion.
    nest = b"".join(
        f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n'.encode() for i in range(5000)
    )
    mail = parse_mail(b"From: a@example.org\nSubject: deep\n" + nest + b"\nx\n")
    assert mail.from_addr == "a@example.org"
    assert mail.subject == "deep"
    assert "unparseable mail: RecursionError" in mail.defects


def test_long_hostile_headers_are_cut_before_parsing() -> None:
    # Uncut, Python's header parser needs about a minute for this Subject.
    words = b"=?utf-8?q?x?= " * 50_000
    refs = b" ".join(f"<r{i}@example.org>".encode() for i in range(20_000))
    raw = b"From: a@example.org\nSubject: " + words + b"\nReferences: " + refs + b"\n\nx\n"
    mail = parse_mail(raw)
    assert "header Subject: longer than 4096, cut" in mail.defects
    assert mail.subject.startswith("x")
    assert len(mail.subject) <= MAX_HEADER_CHARS
    assert mail.references[-1] == "<r19999@example.org>"  # the parent survives the cut


def test_message_object_returns_email_message() -> None:
    msg = message_object(fixture("smime_signed"))
    assert isinstance(msg, EmailMessage)
    assert msg.get_content_type() == "multipart/signed"


# -- HTML to text ----------------------------------------------------------


def test_html_br_p_div_pre_and_entities() -> None:
    html = (
        "<html><head><title>t</title><script>x=1</script></head><body>"
        "<p>A &amp; B</p><div>one<br>two</div><pre>  keep\n    indent</pre>"
        "<p>&nbsp;</p><span>a</span>   <b>b</b>\n c</body></html>"
    )
    assert html_to_text(html) == "A & B\none\ntwo\n  keep\n    indent\n\na b c"


def test_html_to_text_survives_broken_markup() -> None:
    assert html_to_text("<p>unclosed <b>bold <div>x</p></b>&#xZZZ;<").startswith("unclosed bold")


# -- never raises ----------------------------------------------------------


def _assert_well_formed(mail: ParsedMail, raw: bytes) -> None:
    assert isinstance(mail, ParsedMail)
    assert mail.size == len(raw)
    for text in (mail.text, mail.subject, mail.from_display, *mail.defects):
        text.encode("utf-8")  # no lone surrogates escape into the rest of pbem
    assert mail.from_addr is None or mail.from_addr == mail.from_addr.lower()


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4000))
def test_parse_mail_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    _assert_well_formed(parse_mail(raw), raw)


_FIXTURES = [fixture(name) for name in all_fixture_names()]


@st.composite
def _mutated_fixture(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(_FIXTURES)))
    for _ in range(draw(st.integers(1, 12))):
        pos = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(("flip", "insert", "delete", "cut")))
        if action == "flip" and pos < len(data):
            data[pos] = draw(st.integers(0, 255))
        elif action == "insert":
            data[pos:pos] = draw(
                st.sampled_from([b"\n", b"\r\n", b"--", b"=?", b"?=", b";", b'"', b"\xff", b"<>"])
            )
        elif action == "delete":
            del data[pos : pos + draw(st.integers(1, 40))]
        else:
            del data[pos:]
    return bytes(data)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_mutated_fixture())
def test_parse_mail_never_raises_on_mutated_fixtures(raw: bytes) -> None:
    _assert_well_formed(parse_mail(raw), raw)


_HEADER_NAMES = st.sampled_from(
    ["From", "Reply-To", "Return-Path", "Date", "Message-ID", "References", "In-Reply-To",
     "Subject", "Content-Type", "Content-Transfer-Encoding", "Auto-Submitted", "List-Id"]
)  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(_HEADER_NAMES, st.binary(max_size=80)), max_size=12),
    st.binary(max_size=400),
)
def test_parse_mail_never_raises_on_hostile_headers(
    headers: list[tuple[str, bytes]], body: bytes
) -> None:
    raw = b"".join(name.encode() + b": " + value + b"\n" for name, value in headers) + b"\n" + body
    _assert_well_formed(parse_mail(raw), raw)
