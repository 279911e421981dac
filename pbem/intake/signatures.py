"""Ed25519-signed order blocks in ASCII armour, and OpenSSH public keys.

A player pastes a block like this into any mail::

    -----BEGIN PBEM ORDERS-----
    Game: coral-1
    Side: allied
    Turn: 1
    Phase: A-3
    Nonce: 5b1c0e7a9d2f4e11

    MOVE CV-5 0790 0791
    -----BEGIN PBEM SIGNATURE-----
    Key: ed25519 SHA256:<fingerprint as ssh-keygen -l prints it>
    <base64 Ed25519 signature, wrapped at 64 columns>
    -----END PBEM ORDERS-----

The signature covers ``"pbem-orders-v1\\n" + canonical_orders(body)``. The
canonical form is chosen so that everything mail does to text on the way
(transfer encodings, CRLF, clients adding or trimming spaces, ``>From ``
stuffing, HTML converted back to text with paragraph gaps) is undone, while
every visible character of every order survives. It keeps no blank lines and
no leading, trailing or repeated whitespace: none of them means anything in an
order sheet, and the sheet is parsed from the canonical text itself, so what
the moderator acts on is exactly what was signed.

Format=flowed (RFC 3676) is not undone by the canonical form, because a
trailing space alone cannot tell a flowed soft break from a client's stray
space. The signer signs its own lines; the verifier tries the block as
received and, if some line ends in a space, also with the soft breaks undone.
Each reading is a candidate text; only the one the signature covers is
accepted, so trying several cannot admit an unsigned text.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from pbem.core.errors import SignatureError
from pbem.intake.flowed import unflow

__all__ = [
    "BEGIN_ORDERS",
    "BEGIN_SIGNATURE",
    "DOMAIN",
    "END_ORDERS",
    "ArmouredBlock",
    "VerifiedSheet",
    "canonical_orders",
    "find_blocks",
    "generate_keypair",
    "key_fingerprint",
    "load_public_key",
    "orders_in_text",
    "sign_block",
    "signed_message",
    "unflow",
    "verify_block",
    "verify_text",
]

# Domain separation: a signature over an order sheet can never be passed off
# as a signature over anything else the same key might sign.
DOMAIN = "pbem-orders-v1\n"
BEGIN_ORDERS = "-----BEGIN PBEM ORDERS-----"
BEGIN_SIGNATURE = "-----BEGIN PBEM SIGNATURE-----"
END_ORDERS = "-----END PBEM ORDERS-----"
_ARMOUR_LINES = (BEGIN_ORDERS, BEGIN_SIGNATURE, END_ORDERS)
_SIGNATURE_WRAP = 64
_ED25519_SIGNATURE_SIZE = 64


@dataclass(frozen=True)
class VerifiedSheet:
    """An order text whose signature checked out against a registered key.

    ``text`` is the canonical text that was signed (parse it with
    ``pbem.intake.sheet.parse_sheet``); ``key_fingerprint`` names the key or
    certificate; ``method`` is ``"ed25519"`` or ``"smime"``;
    ``signature_digest`` (SHA-256 hex of the signature bytes) is the replay key.
    """

    text: str
    key_fingerprint: str
    method: str
    signature_digest: str


@dataclass(frozen=True)
class ArmouredBlock:
    """One ``PBEM ORDERS`` block as found in a mail text, not yet verified.

    ``body`` is the text between the BEGIN ORDERS and BEGIN SIGNATURE lines
    with any quote marks removed; ``quoted`` is true for a block quoted from
    an earlier mail (``>`` marks), which must not be taken as new orders;
    ``line`` is the 1-based line of the BEGIN line; ``problem`` says why the
    armour is malformed (``verify_block`` then refuses the block).
    """

    body: str
    key_type: str
    key_id: str
    signature: bytes
    quoted: bool = False
    line: int = 1
    problem: str | None = None


# --- canonical form -------------------------------------------------------------------


def canonical_orders(text: str) -> str:
    """Return the canonical form of an order text (the part that is signed).

    Unicode NFC; any line ending read as LF; in each line every run of
    whitespace (tabs, no-break spaces from HTML) becomes one space and the
    ends are stripped; a ``>From `` line loses the ``>`` that mbox stuffing
    added; blank lines are dropped; one final newline. Idempotent.
    """
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = []
    for raw in text.split("\n"):
        line = " ".join(raw.split())
        if line.startswith(">From "):
            line = line[1:]
        if line:
            lines.append(line)
    return "\n".join(lines) + "\n" if lines else ""


def orders_in_text(content: str) -> str:
    """The canonical order text of a text a whole-mail signature covers (S/MIME,
    OpenPGP): a pasted PBEM ORDERS block's body if there is exactly one (the
    mail's signature covers it), else the text up to a ``-- `` mail signature
    (name, address), which is not part of the orders."""
    pasted = [block for block in find_blocks(content) if not block.quoted and not block.problem]
    if len(pasted) == 1:
        return canonical_orders(pasted[0].body)
    lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if "-- " in lines:
        lines = lines[: lines.index("-- ")]
    return canonical_orders("\n".join(lines))


def signed_message(canonical_text: str) -> bytes:
    """The exact bytes an Ed25519 order signature covers."""
    return (DOMAIN + canonical_text).encode("utf-8")


# --- OpenSSH keys ---------------------------------------------------------------------


def key_fingerprint(public_key_openssh: str) -> str:
    """``SHA256:...`` of an OpenSSH public key line, exactly as ``ssh-keygen -l`` prints it."""
    parts = public_key_openssh.split()
    if len(parts) < 2:
        raise ValueError("not an OpenSSH public key line (expected 'ssh-ed25519 AAAA... comment')")
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except binascii.Error as exc:
        raise ValueError(f"OpenSSH public key is not valid base64: {exc}") from None
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode("ascii").rstrip("=")
    return f"SHA256:{digest}"


def load_public_key(public_key_openssh: str) -> Ed25519PublicKey:
    """Parse an OpenSSH ``ssh-ed25519`` public key line; ``ValueError`` otherwise."""
    try:
        key = serialization.load_ssh_public_key(public_key_openssh.strip().encode("ascii"))
    except (ValueError, UnicodeEncodeError) as exc:
        raise ValueError(f"not an OpenSSH public key: {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError("only ssh-ed25519 keys are accepted for order signatures")
    return key


def generate_keypair(comment: str = "") -> tuple[bytes, str]:
    """A new Ed25519 key: (OpenSSH private key PEM bytes, OpenSSH public key line)."""
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    public = private.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    line = public.decode("ascii")
    return pem, f"{line} {comment}" if comment else line


def _load_private_key(private_key_pem: bytes) -> Ed25519PrivateKey:
    # Accept both the OpenSSH format ``pbem keygen`` and ssh-keygen write and PKCS#8.
    try:
        key: object = serialization.load_ssh_private_key(private_key_pem, password=None)
    except ValueError:
        try:
            key = serialization.load_pem_private_key(private_key_pem, password=None)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"cannot read the private key: {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the private key is not an Ed25519 key")
    return key


# --- signing --------------------------------------------------------------------------


def sign_block(body: str, private_key_pem: bytes) -> str:
    """Sign ``body`` (header lines, blank line, orders) and return the whole armoured block.

    The block shows the body as written (NFC, trailing spaces removed, outer
    blank lines dropped) so that the player recognises it; the signature is
    over its canonical form.
    """
    key = _load_private_key(private_key_pem)
    text = unicodedata.normalize("NFC", body.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("-----"):
            raise ValueError(f"line {number} starts with '-----', which would break the armour")
    canonical = canonical_orders("\n".join(lines))
    if not canonical:
        raise ValueError("nothing to sign: the order text is empty")
    signature = key.sign(signed_message(canonical))
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    encoded = base64.b64encode(signature).decode("ascii")
    wrapped = [encoded[i : i + _SIGNATURE_WRAP] for i in range(0, len(encoded), _SIGNATURE_WRAP)]
    armour = [
        BEGIN_ORDERS,
        *lines,
        BEGIN_SIGNATURE,
        f"Key: ed25519 {key_fingerprint(public.decode('ascii'))}",
        *wrapped,
        END_ORDERS,
    ]
    return "\n".join(armour) + "\n"


# --- finding blocks -------------------------------------------------------------------


def _unquote(line: str) -> tuple[int, str]:
    """Split a line into (quote depth, content): ``> > x`` and ``>> x`` are depth 2."""
    depth = 0
    rest = line.lstrip()
    while rest.startswith(">"):
        depth += 1
        rest = rest[1:].lstrip(" ")
    return depth, rest


def _strip_quotes(line: str, depth: int) -> str | None:
    """Remove exactly ``depth`` quote marks; None if the line is less deeply quoted.

    Spaces after a quote mark go too: leading spaces are not part of the
    canonical form anyway.
    """
    if depth == 0:
        return line
    rest = line.lstrip()
    for _ in range(depth):
        if not rest.startswith(">"):
            return None
        rest = rest[1:].lstrip(" ")
    return rest


def find_blocks(text: str) -> list[ArmouredBlock]:
    """Every ``PBEM ORDERS`` block in a mail text, in order of appearance.

    Tolerant: markers may carry stray spaces, signature lines may be rewrapped,
    and blocks quoted in a reply (``> `` prefixes, at any depth) are still
    found but flagged ``quoted=True``. A block with broken armour is returned
    with ``problem`` set rather than dropped, so the player hears why.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[ArmouredBlock] = []
    index = 0
    while index < len(lines):
        depth, content = _unquote(lines[index])
        if content.strip() != BEGIN_ORDERS:
            index += 1
            continue
        block, index = _read_block(lines, index, depth)
        blocks.append(block)
    return blocks


def _read_block(lines: list[str], start: int, depth: int) -> tuple[ArmouredBlock, int]:
    """Read one block whose BEGIN line is ``lines[start]``; return it and the next index."""
    body: list[str] = []
    tail: list[str] = []
    section = body
    index = start + 1
    while index < len(lines):
        content = _strip_quotes(lines[index], depth)
        if content is None:
            if lines[index].strip() == "" and section is body:
                # A quoted block may lose the quote mark on its blank lines.
                body.append("")
                index += 1
                continue
            return _broken(start, depth, "the block ends before its END PBEM ORDERS line"), index
        marker = content.strip()
        if marker == BEGIN_ORDERS:
            return _broken(start, depth, "a second BEGIN PBEM ORDERS before the END line"), index
        if marker == BEGIN_SIGNATURE and section is body:
            section = tail
        elif marker == END_ORDERS:
            if section is body:
                problem = "no BEGIN PBEM SIGNATURE line (was the block signed?)"
                return _broken(start, depth, problem), index + 1
            return _finish(body, tail, start, depth), index + 1
        else:
            section.append(content)
        index += 1
    return _broken(start, depth, "no END PBEM ORDERS line"), index


def _broken(start: int, depth: int, problem: str) -> ArmouredBlock:
    return ArmouredBlock("", "", "", b"", quoted=depth > 0, line=start + 1, problem=problem)


def _finish(body: list[str], tail: list[str], start: int, depth: int) -> ArmouredBlock:
    # Read the signature section as words, so a client that wrapped the Key
    # line or rewrapped the base64 lines does no harm.
    words = " ".join(tail).split()
    if not words or words[0] != "Key:":
        return _broken(start, depth, "the signature has no 'Key:' line")
    if len(words) < 3:
        return _broken(start, depth, "the Key line should be 'Key: ed25519 SHA256:...'")
    key_type, key_id = words[1], words[2]
    if key_type != "ed25519":
        return _broken(start, depth, f"unsupported key type {key_type!r} (only ed25519)")
    if not key_id.startswith("SHA256:"):
        return _broken(start, depth, f"the key fingerprint should start with SHA256: ({key_id})")
    try:
        signature = base64.b64decode("".join(words[3:]), validate=True)
    except (binascii.Error, ValueError):  # ValueError: non-ASCII in the signature lines
        return _broken(start, depth, "the signature lines are not valid base64")
    if len(signature) != _ED25519_SIGNATURE_SIZE:
        problem = f"the signature is {len(signature)} bytes, an Ed25519 signature is 64"
        return _broken(start, depth, problem)
    return ArmouredBlock(
        body="\n".join(body),
        key_type=key_type,
        key_id=key_id,
        signature=signature,
        quoted=depth > 0,
        line=start + 1,
    )


# --- verifying ------------------------------------------------------------------------


def _readings(body: str) -> Iterator[str]:
    """Candidate canonical texts of a received body, most literal first."""
    seen: set[str] = set()
    candidates = [body]
    if any(line.endswith(" ") for line in body.split("\n")):
        candidates += [unflow(body), unflow(body, delsp=True)]
    for candidate in candidates:
        canonical = canonical_orders(candidate)
        if canonical not in seen:
            seen.add(canonical)
            yield canonical


def verify_block(
    block: ArmouredBlock, keys: Mapping[str, str], *, allow_quoted: bool = False
) -> VerifiedSheet:
    """Check a block's Ed25519 signature against the keys registered for the game.

    ``keys`` maps fingerprint to OpenSSH public key line; the fingerprints are
    recomputed from the lines, so a mislabelled entry cannot stand in for
    another key. Quoted blocks are refused unless ``allow_quoted``.
    """
    if block.problem:
        raise SignatureError(f"malformed armour: {block.problem}")
    if block.quoted and not allow_quoted:
        raise SignatureError(
            "the PBEM ORDERS block is quoted from an earlier mail; paste the new block unquoted"
        )
    registered = {key_fingerprint(line): line for line in keys.values()}
    line = registered.get(block.key_id)
    if line is None:
        raise SignatureError(f"key {block.key_id} is not registered for this game")
    public = load_public_key(line)
    for canonical in _readings(block.body):
        if not canonical:
            continue
        try:
            public.verify(block.signature, signed_message(canonical))
        except InvalidSignature:
            continue
        return VerifiedSheet(
            text=canonical,
            key_fingerprint=block.key_id,
            method="ed25519",
            signature_digest=hashlib.sha256(block.signature).hexdigest(),
        )
    raise SignatureError("signature does not match the order text (was it edited after signing?)")


def verify_text(text: str, keys: Mapping[str, str]) -> VerifiedSheet:
    """Find the one unquoted block in a mail text and verify it.

    Quoted blocks (old orders in a reply) are ignored; more than one fresh
    block is refused rather than guessing which one the player meant.
    """
    blocks = find_blocks(text)
    fresh = [block for block in blocks if not block.quoted]
    if not fresh:
        if blocks:
            raise SignatureError("no PBEM ORDERS block found (only quoted ones from earlier mail)")
        raise SignatureError("no PBEM ORDERS block found")
    if len(fresh) > 1:
        raise SignatureError(f"{len(fresh)} PBEM ORDERS blocks found; send one block per mail")
    return verify_block(fresh[0], keys)
