"""Ed25519 order blocks: canonical form, armour, and survival of real mail encodings."""

from __future__ import annotations

import email.policy
import subprocess
from collections.abc import Callable
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.errors import SignatureError
from pbem.intake.htmltext import html_to_text
from pbem.intake.mime import parse_mail
from pbem.intake.signatures import (
    ArmouredBlock,
    canonical_orders,
    find_blocks,
    generate_keypair,
    key_fingerprint,
    sign_block,
    unflow,
    verify_block,
    verify_text,
)

SHEET = (
    "Game: coral-1\n"
    "Side: allied\n"
    "Turn: 1\n"
    "Phase: A-3\n"
    "Nonce: 5b1c0e7a9d2f4e11\n"
    "\n"
    "MOVE CV-5 0790 0791\n"
    "# comments start with '#': Ångström, café, 珊瑚海\n"
    "From 0790 the carriers strike\n"
)

# A fixed key (seed bytes 0..31) whose fingerprint ssh-keygen -l printed as below.
FIXED_SEED = bytes(range(32))
FIXED_PUBLIC = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAOhB7/zzhC+HXDdGOdLwJln5NYwm6UNXx3chmQSVTG4 fixed"
)
FIXED_FINGERPRINT = "SHA256:lbmsoA0yIEcEiVDRnMWuzm+nV+3ZEEpVIURqFoeSspg"


@pytest.fixture(scope="module")
def keypair() -> tuple[bytes, str]:
    return generate_keypair("allied@example.org")


@pytest.fixture(scope="module")
def keys(keypair: tuple[bytes, str]) -> dict[str, str]:
    return {key_fingerprint(keypair[1]): keypair[1]}


@pytest.fixture(scope="module")
def block(keypair: tuple[bytes, str]) -> str:
    return sign_block(SHEET, keypair[0])


# --- canonical form -------------------------------------------------------------------


def test_canonical_orders_normalises_what_mail_changes() -> None:
    damaged = (
        "\n\r\nGame:  coral-1 \r\n\tSide: allied\t\r\n\r\n>From 0790\u00a0on\r\nCafe\u0301\r\n\n"
    )
    assert canonical_orders(damaged) == "Game: coral-1\nSide: allied\nFrom 0790 on\nCafé\n"


def test_canonical_orders_keeps_deeper_from_stuffing_and_is_idempotent() -> None:
    text = ">>From x\n> quoted\n#  note  \n"
    once = canonical_orders(text)
    assert once == ">>From x\n> quoted\n# note\n"
    assert canonical_orders(once) == once


def test_canonical_orders_of_blank_text_is_empty() -> None:
    assert canonical_orders(" \n\t\r\n") == ""


def test_unflow_joins_soft_breaks_and_removes_stuffing() -> None:
    flowed = "MOVE CV-5 0790 \n0791 0792\n From here\n-- \nsig"
    assert unflow(flowed) == "MOVE CV-5 0790 0791 0792\nFrom here\n-- \nsig"
    assert unflow("MOVE CV-5 07 \n90", delsp=True) == "MOVE CV-5 0790"


# --- keys -----------------------------------------------------------------------------


def test_key_fingerprint_matches_ssh_keygen_known_answer() -> None:
    assert key_fingerprint(FIXED_PUBLIC) == FIXED_FINGERPRINT


def test_generated_keys_are_read_by_ssh_keygen(tmp_path: Path) -> None:
    private_pem, public_line = generate_keypair("player")
    key_file = tmp_path / "id"
    key_file.write_bytes(private_pem)
    key_file.chmod(0o600)
    derived = subprocess.run(
        ["ssh-keygen", "-y", "-f", str(key_file)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert derived[:2] == public_line.split()[:2]
    (tmp_path / "id.pub").write_text(public_line + "\n")
    listed = subprocess.run(
        ["ssh-keygen", "-l", "-f", str(tmp_path / "id.pub")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert listed[1] == key_fingerprint(public_line)


def test_sign_block_accepts_pkcs8_keys_too() -> None:
    private = Ed25519PrivateKey.from_private_bytes(FIXED_SEED)
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    signed = sign_block(SHEET, pem)
    assert f"Key: ed25519 {FIXED_FINGERPRINT}" in signed
    assert verify_text(signed, {FIXED_FINGERPRINT: FIXED_PUBLIC}).key_fingerprint == (
        FIXED_FINGERPRINT
    )


# --- armour ---------------------------------------------------------------------------


def test_sign_block_layout(block: str, keypair: tuple[bytes, str]) -> None:
    lines = block.split("\n")
    assert lines[0] == "-----BEGIN PBEM ORDERS-----"
    assert lines[1:10] == SHEET.rstrip("\n").split("\n")
    assert lines[10] == "-----BEGIN PBEM SIGNATURE-----"
    assert lines[11] == f"Key: ed25519 {key_fingerprint(keypair[1])}"
    assert [len(line) for line in lines[12:14]] == [64, 24]  # 64 bytes -> 88 base64 chars
    assert lines[14:] == ["-----END PBEM ORDERS-----", ""]


def test_verify_returns_canonical_text_and_replay_digest(block: str, keys: dict[str, str]) -> None:
    sheet = verify_text(block, keys)
    assert sheet.text == canonical_orders(SHEET)
    assert sheet.method == "ed25519"
    assert len(sheet.signature_digest) == 64
    again = verify_text("Here are my orders:\n\n" + block + "\nthanks\n", keys)
    assert again.signature_digest == sheet.signature_digest  # the same mail replayed


def test_nonce_makes_each_signature_unique(
    keypair: tuple[bytes, str], keys: dict[str, str]
) -> None:
    other = sign_block(SHEET.replace("5b1c0e7a9d2f4e11", "0000000000000001"), keypair[0])
    assert (
        verify_text(other, keys).signature_digest
        != verify_text(sign_block(SHEET, keypair[0]), keys).signature_digest
    )


def test_sign_block_refuses_armour_lines_and_empty_text(keypair: tuple[bytes, str]) -> None:
    with pytest.raises(ValueError, match="-----"):
        sign_block(SHEET + "-----END PBEM ORDERS-----\n", keypair[0])
    with pytest.raises(ValueError, match="empty"):
        sign_block("\n  \n", keypair[0])


def test_tampered_order_fails(block: str, keys: dict[str, str]) -> None:
    with pytest.raises(SignatureError, match=r"does not match the order text \(was it edited"):
        verify_text(block.replace("0791", "0792"), keys)


def test_added_order_line_fails(block: str, keys: dict[str, str]) -> None:
    tampered = block.replace("MOVE CV-5 0790 0791\n", "MOVE CV-5 0790 0791\nMOVE CV-6 0790 0791\n")
    with pytest.raises(SignatureError, match="does not match"):
        verify_text(tampered, keys)


def test_unregistered_key_fails(block: str) -> None:
    _, other_public = generate_keypair()
    with pytest.raises(SignatureError, match=r"key SHA256:\S+ is not registered"):
        verify_text(block, {key_fingerprint(other_public): other_public})


def test_mislabelled_registered_key_does_not_stand_in(
    block: str, keypair: tuple[bytes, str]
) -> None:
    """The mapping's fingerprint is recomputed, so another key under our name is no match."""
    _, other_public = generate_keypair()
    with pytest.raises(SignatureError, match="is not registered"):
        verify_text(block, {key_fingerprint(keypair[1]): other_public})


def test_wrong_key_with_forged_fingerprint_fails(block: str, keypair: tuple[bytes, str]) -> None:
    """A block claiming a registered fingerprint but signed by another key."""
    other_private, _ = generate_keypair()
    forged = sign_block(SHEET, other_private)
    forged_lines = forged.split("\n")
    forged_lines[11] = f"Key: ed25519 {key_fingerprint(keypair[1])}"
    with pytest.raises(SignatureError, match="does not match"):
        verify_text("\n".join(forged_lines), {key_fingerprint(keypair[1]): keypair[1]})


def test_no_block_found(keys: dict[str, str]) -> None:
    with pytest.raises(SignatureError, match=r"^no PBEM ORDERS block found$"):
        verify_text("MOVE CV-5 0790 0791\n", keys)


def test_quoted_block_is_flagged_and_not_taken_as_new_orders(
    block: str, keys: dict[str, str]
) -> None:
    reply = "On Monday the moderator wrote:\n" + "".join(
        f"> {line}\n" for line in block.split("\n")
    )
    (found,) = find_blocks(reply)
    assert found.quoted
    assert found.problem is None
    with pytest.raises(SignatureError, match="only quoted ones"):
        verify_text(reply, keys)
    with pytest.raises(SignatureError, match="quoted from an earlier mail"):
        verify_block(found, keys)
    # Still a genuine signature, should anyone want to check an old block.
    assert verify_block(found, keys, allow_quoted=True).text == canonical_orders(SHEET)


def test_new_block_above_a_doubly_quoted_old_one(
    keypair: tuple[bytes, str], keys: dict[str, str], block: str
) -> None:
    new = sign_block(SHEET.replace("0791", "0801"), keypair[0])
    old = "".join(f">> {line}\n" for line in block.split("\n"))
    blocks = find_blocks(new + "\n> Earlier:\n" + old)
    assert [b.quoted for b in blocks] == [False, True]
    assert "0801" in verify_text(new + "\n> Earlier:\n" + old, keys).text


def test_two_fresh_blocks_are_refused(block: str, keys: dict[str, str]) -> None:
    with pytest.raises(SignatureError, match="2 PBEM ORDERS blocks found"):
        verify_text(block + block, keys)


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda b: b.replace("-----END PBEM ORDERS-----\n", ""), "no END PBEM ORDERS line"),
        (lambda b: b.replace("-----BEGIN PBEM SIGNATURE-----\n", ""), "no BEGIN PBEM SIGNATURE"),
        (lambda b: b.replace("Key: ed25519", "Key: rsa"), "unsupported key type 'rsa'"),
        (lambda b: b.replace("Key: ed25519 ", "Key:"), "no 'Key:' line"),
        (
            lambda b: b.replace("Key: ed25519 SHA256:", "Key: ed25519 MD5:"),
            "should start with SHA256:",
        ),
        (lambda b: b.replace("==\n", "=*\n"), "not valid base64"),
        (lambda b: b.replace("==\n", "\n").replace("\n-----END", "AA==\n-----END"), "66 bytes"),
    ],
)
def test_malformed_armour(
    block: str, keys: dict[str, str], damage: Callable[[str], str], problem: str
) -> None:
    (found,) = find_blocks(damage(block))
    assert found.problem is not None and problem in found.problem
    with pytest.raises(SignatureError, match=r"^malformed armour: "):
        verify_block(found, keys)


def test_signature_lines_may_be_rewrapped(block: str, keys: dict[str, str]) -> None:
    lines = block.split("\n")
    rewrapped = [*lines[:12], lines[12][:30], lines[12][30:] + lines[13], *lines[14:]]
    assert verify_text("\n".join(rewrapped), keys).text == canonical_orders(SHEET)


# --- real mail encodings ----------------------------------------------------------------


def _mail_bytes(body: str, *, cte: str, charset: str, subtype: str = "plain") -> bytes:
    message = EmailMessage(policy=email.policy.default)
    message["From"] = "allied@example.org"
    message["To"] = "moderator@example.org"
    message["Subject"] = "orders"
    message.set_content(body, subtype=subtype, charset=charset, cte=cte)
    return message.as_bytes()


def _received_text(raw: bytes) -> str:
    """What a plain reader gets: the decoded text part, nothing undone."""
    message = BytesParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    part = message.get_body(preferencelist=("plain",))
    assert part is not None
    content = part.get_content()
    assert isinstance(content, str)
    return content


@pytest.mark.parametrize("cte", ["quoted-printable", "base64", "8bit"])
@pytest.mark.parametrize("charset", ["utf-8", "iso-8859-1"])
@pytest.mark.parametrize("crlf", [False, True])
def test_block_survives_transfer_encodings(
    keypair: tuple[bytes, str], keys: dict[str, str], cte: str, charset: str, crlf: bool
) -> None:
    # iso-8859-1 cannot carry the CJK comment; keep the Latin-1 letters.
    body = SHEET if charset == "utf-8" else SHEET.replace(", 珊瑚海", "")
    signed = sign_block(body, keypair[0])
    raw = _mail_bytes("Orders follow.\n\n" + signed + "\n-- \nAllied\n", cte=cte, charset=charset)
    if crlf:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")  # as IMAP returns it
    assert verify_text(_received_text(raw), keys).text == canonical_orders(body)
    assert verify_text(parse_mail(raw).text, keys).text == canonical_orders(body)


def test_block_survives_mbox_from_stuffing(block: str, keys: dict[str, str]) -> None:
    stuffed = block.replace("\nFrom 0790", "\n>From 0790")
    assert stuffed != block
    assert verify_text(stuffed, keys).text == canonical_orders(SHEET)


def test_block_survives_trailing_spaces_added_by_a_client(block: str, keys: dict[str, str]) -> None:
    padded = "\n".join(line + "  " for line in block.split("\n"))
    assert verify_text(padded, keys).text == canonical_orders(SHEET)


def _flow(text: str, width: int = 30) -> str:
    """Encode as format=flowed the way a client does: soft breaks after a space, stuffing."""
    out = []
    for line in text.split("\n"):
        while len(line) > width and " " in line[:width]:
            cut = line.rindex(" ", 0, width) + 1
            out.append(line[:cut])
            line = line[cut:]
        if line.startswith((" ", ">", "From ")):
            line = " " + line
        out.append(line)
    return "\n".join(out)


def test_block_survives_format_flowed(keypair: tuple[bytes, str], keys: dict[str, str]) -> None:
    """A long order wrapped with soft breaks: decoded or not, the signature holds."""
    body = SHEET + "MOVE CV-5 0790 0791 0792 0793 0794 0795 0796 0797\n"
    flowed = _flow(sign_block(body, keypair[0]))
    assert " \n0794" in flowed or " \n07" in flowed  # really wrapped
    message = EmailMessage(policy=email.policy.default)
    message["From"] = "allied@example.org"
    message.set_content(flowed, cte="quoted-printable")
    message.set_param("format", "flowed")
    raw = message.as_bytes()
    # A reader that undoes format=flowed (pbem.intake.mime), and one that does not.
    assert verify_text(parse_mail(raw).text, keys).text == canonical_orders(body)
    assert verify_text(_received_text(raw), keys).text == canonical_orders(body)


@pytest.mark.parametrize(
    "wrap",
    [
        lambda line: f"<div>{line}</div>",
        lambda line: f'<p class="MsoNormal">{line}<o:p></o:p></p>',
        lambda line: f"{line}<br>",
    ],
    ids=["div", "outlook-p", "br"],
)
def test_block_survives_html_only_mail_converted_to_text(
    block: str, keys: dict[str, str], wrap: Callable[[str], str]
) -> None:
    import html

    lines = [html.escape(line).replace("  ", " &nbsp;") for line in block.split("\n")]
    page = "<html><body>" + "".join(wrap(line) if line else wrap("<br>") for line in lines)
    page += "</body></html>"
    raw = _mail_bytes(page, cte="quoted-printable", charset="utf-8", subtype="html")
    assert verify_text(html_to_text(page), keys).text == canonical_orders(SHEET)
    assert verify_text(parse_mail(raw).text, keys).text == canonical_orders(SHEET)


# --- properties -----------------------------------------------------------------------

_ORDER_CHARS = st.characters(
    blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x85"
)
_order_line = st.text(_ORDER_CHARS, min_size=1, max_size=40).filter(
    lambda line: not line.lstrip().startswith("-----") and line.strip() != ""
)
_ascii_line = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=40
).filter(lambda line: not line.lstrip().startswith("-----") and line.strip() != "")
_HEADER = "Game: coral-1\nSide: japanese\nTurn: 2\nPhase: J-1\nNonce: 0123456789abcdef\n\n"
_FIXED_PRIVATE_PEM = Ed25519PrivateKey.from_private_bytes(FIXED_SEED).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
)
_FIXED_KEYS = {FIXED_FINGERPRINT: FIXED_PUBLIC}


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_order_line, min_size=1, max_size=8), st.booleans())
def test_property_sign_verify_round_trip(orders: list[str], crlf: bool) -> None:
    body = _HEADER + "\n".join(orders) + "\n"
    block = sign_block(body, _FIXED_PRIVATE_PEM)
    received = block.replace("\n", " \r\n") if crlf else block
    assert verify_text(received, _FIXED_KEYS).text == canonical_orders(body)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ascii_line, min_size=1, max_size=6), st.data())
def test_property_single_character_change_fails(orders: list[str], data: st.DataObject) -> None:
    """Any visible character of any order line, changed to another, breaks the signature."""
    body = _HEADER + "\n".join(orders) + "\n"
    block = sign_block(body, _FIXED_PRIVATE_PEM)
    lines = block.split("\n")
    first_order = 1 + _HEADER.count("\n")  # BEGIN line + header + blank line
    row = data.draw(st.integers(first_order, first_order + len(orders) - 1))
    visible = [i for i, char in enumerate(lines[row]) if not char.isspace()]
    column = data.draw(st.sampled_from(visible))
    old = lines[row][column]
    new = data.draw(
        st.characters(min_codepoint=0x21, max_codepoint=0x7E).filter(lambda c: c != old)
    )
    lines[row] = lines[row][:column] + new + lines[row][column + 1 :]
    with pytest.raises(SignatureError):
        verify_text("\n".join(lines), _FIXED_KEYS)


@settings(max_examples=300)
@given(st.lists(_order_line, min_size=1, max_size=6), st.data())
def test_property_any_change_to_the_canonical_text_fails(
    orders: list[str], data: st.DataObject
) -> None:
    """With any Unicode: a change fails exactly when it changes the canonical text."""
    body = _HEADER + "\n".join(orders) + "\n"
    block = sign_block(body, _FIXED_PRIVATE_PEM)
    found = find_blocks(block)[0]
    body_lines = found.body.split("\n")
    row = data.draw(st.integers(len(body_lines) - len(orders), len(body_lines) - 1))
    column = data.draw(st.integers(0, len(body_lines[row]) - 1))
    new = data.draw(_ORDER_CHARS)
    body_lines[row] = body_lines[row][:column] + new + body_lines[row][column + 1 :]
    changed = ArmouredBlock(
        body="\n".join(body_lines),
        key_type=found.key_type,
        key_id=found.key_id,
        signature=found.signature,
    )
    if canonical_orders(changed.body) == canonical_orders(found.body):
        assert verify_block(changed, _FIXED_KEYS).text == canonical_orders(body)
    else:
        with pytest.raises(SignatureError, match="does not match"):
            verify_block(changed, _FIXED_KEYS)


@given(st.text(_ORDER_CHARS | st.sampled_from("\n\r\t >"), max_size=80))
def test_property_canonical_form_is_idempotent(text: str) -> None:
    once = canonical_orders(text)
    assert canonical_orders(once) == once
