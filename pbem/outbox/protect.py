"""Outgoing mail signed with the game's key and, for a player who opted in,
encrypted to the player's key: the MIME work, on a composed mail's bytes.

- PGP/MIME (RFC 3156): ``multipart/signed; protocol="application/pgp-signature"``,
  and ``multipart/encrypted; protocol="application/pgp-encrypted"`` holding one
  OpenPGP message that is signed and encrypted at once (RFC 3156 §6.2, as
  Thunderbird sends it).
- S/MIME (RFC 8551): ``multipart/signed; protocol="application/pkcs7-signature"``
  (detached), and ``application/pkcs7-mime; smime-type=enveloped-data`` around
  the signed entity (sign, then encrypt).

The mail's content headers and body (text, HTML, the map picture: all of it)
become the signed entity; From, To, Subject, Date, Message-ID and the thread
headers stay outside, where the mail system needs them. A signature covers the
entity's bytes exactly as they go on the wire, CRLF line ends included, so
those bytes are built here by hand and first made safe for any mail path
(quoted-printable instead of trailing blanks and 8-bit text).
"""

from __future__ import annotations

import binascii
import hashlib
import re
from email.message import EmailMessage
from email.parser import BytesParser

import pysequoia
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.serialization import pkcs7

from pbem.emailpolicy import DEFAULT
from pbem.outbox.gamekeys import GameKeys, SmimeIdentity

__all__ = [
    "EncryptionKey",
    "encrypt_pgp_mime",
    "encrypt_smime",
    "protect",
    "sign",
    "sign_pgp_mime",
    "sign_smime",
]

# What a player's mail may be encrypted to: an OpenPGP certificate or an S/MIME one.
EncryptionKey = pysequoia.Cert | x509.Certificate

_CRLF = b"\r\n"
# RFC 3156 §5 micalg names; pysequoia's hash values compare but do not hash.
_MICALG = (
    (pysequoia.packet.HashAlgorithm.SHA256, "pgp-sha256"),
    (pysequoia.packet.HashAlgorithm.SHA384, "pgp-sha384"),
    (pysequoia.packet.HashAlgorithm.SHA512, "pgp-sha512"),
    (pysequoia.packet.HashAlgorithm.SHA224, "pgp-sha224"),
)


def protect(raw: bytes, keys: GameKeys, *, encrypt_to: EncryptionKey | None = None) -> bytes:
    """``raw`` signed with the game's key, and encrypted to ``encrypt_to`` if given.

    OpenPGP is the signature of choice; S/MIME signs when the game has no
    OpenPGP key, and when the mail is encrypted to an S/MIME certificate (a
    client that reads one reads the other).
    """
    if isinstance(encrypt_to, pysequoia.Cert):
        if keys.openpgp is not None:
            return encrypt_pgp_mime(raw, encrypt_to, signer=keys.openpgp)
        # No OpenPGP key of our own: the S/MIME signature (if any) travels inside.
        return encrypt_pgp_mime(sign(raw, keys), encrypt_to, signer=None)
    if isinstance(encrypt_to, x509.Certificate):
        return encrypt_smime(sign(raw, keys, prefer_smime=True), encrypt_to)
    return sign(raw, keys)


def sign(raw: bytes, keys: GameKeys, *, prefer_smime: bool = False) -> bytes:
    """``raw`` signed with the game's OpenPGP or S/MIME key; unchanged if it has none."""
    if keys.smime is not None and (prefer_smime or keys.openpgp is None):
        return sign_smime(raw, keys.smime)
    if keys.openpgp is not None:
        return sign_pgp_mime(raw, keys.openpgp)
    return raw


def sign_pgp_mime(raw: bytes, key: pysequoia.Tsk) -> bytes:
    """A PGP/MIME signed mail (RFC 3156 §5) with a detached signature of the entity."""
    headers, entity = _split(_wire_safe(raw))
    armoured = pysequoia.sign(key.signer(), entity, mode=pysequoia.SignatureMode.DETACHED)
    signature = pysequoia.Sig.from_bytes(armoured)
    micalg = next((n for h, n in _MICALG if h == signature.hash_algorithm), None)
    if micalg is None:  # never with Sequoia's defaults; refuse rather than mislabel
        raise ValueError(f"unexpected OpenPGP hash algorithm {signature.hash_algorithm!r}")
    boundary = _boundary("signed", entity)
    body = _multipart(
        boundary,
        b"This is an OpenPGP/MIME signed message (RFC 4880 and 3156)",
        entity,
        _part(
            [
                b'Content-Type: application/pgp-signature; name="signature.asc"',
                b"Content-Description: OpenPGP digital signature",
                b'Content-Disposition: attachment; filename="signature.asc"',
            ],
            _crlf(armoured),
        ),
    )
    content_type = (
        f"multipart/signed; micalg={micalg};\r\n"
        f' protocol="application/pgp-signature";\r\n boundary="{boundary}"'
    )
    return _join(headers, content_type, body)


def sign_smime(raw: bytes, identity: SmimeIdentity) -> bytes:
    """An S/MIME signed mail (RFC 8551 §3.5.3) with a detached CMS signature."""
    headers, entity = _split(_wire_safe(raw))
    der = (
        pkcs7.PKCS7SignatureBuilder()
        .set_data(entity)
        .add_signer(identity.certificate, identity.key, hashes.SHA256())
        # Binary: the entity is canonical already and must be signed byte for byte.
        .sign(
            serialization.Encoding.DER,
            [pkcs7.PKCS7Options.DetachedSignature, pkcs7.PKCS7Options.Binary],
        )
    )
    boundary = _boundary("signed", entity)
    body = _multipart(
        boundary,
        b"This is an S/MIME signed message",
        entity,
        _part(
            [
                b'Content-Type: application/pkcs7-signature; name="smime.p7s"',
                b"Content-Transfer-Encoding: base64",
                b'Content-Disposition: attachment; filename="smime.p7s"',
                b"Content-Description: S/MIME Cryptographic Signature",
            ],
            _base64(der),
        ),
    )
    content_type = (
        'multipart/signed; protocol="application/pkcs7-signature";\r\n'
        f' micalg=sha-256; boundary="{boundary}"'
    )
    return _join(headers, content_type, body)


def encrypt_pgp_mime(
    raw: bytes, recipient: pysequoia.Cert, *, signer: pysequoia.Tsk | None
) -> bytes:
    """A PGP/MIME encrypted mail (RFC 3156 §4): the entity encrypted to ``recipient``
    and, with ``signer``, signed inside the same OpenPGP message (§6.2)."""
    headers, entity = _split(_wire_safe(raw))
    try:
        armoured = pysequoia.encrypt(
            entity,
            recipients=[recipient],
            signer=signer.signer() if signer is not None else None,
        )
    except Exception as exc:  # pysequoia raises plain Exceptions
        raise ValueError(f"cannot encrypt to OpenPGP key {recipient.fingerprint}: {exc}") from None
    boundary = _boundary("encrypted", armoured)
    body = _multipart(
        boundary,
        b"This is an OpenPGP/MIME encrypted message (RFC 4880 and 3156)",
        _part(
            [
                b"Content-Type: application/pgp-encrypted",
                b"Content-Description: PGP/MIME version identification",
            ],
            b"Version: 1\r\n",
        ),
        _part(
            [
                b'Content-Type: application/octet-stream; name="encrypted.asc"',
                b"Content-Description: OpenPGP encrypted message",
                b'Content-Disposition: inline; filename="encrypted.asc"',
            ],
            _crlf(armoured),
        ),
    )
    content_type = (
        f'multipart/encrypted; protocol="application/pgp-encrypted";\r\n boundary="{boundary}"'
    )
    return _join(headers, content_type, body)


def encrypt_smime(raw: bytes, recipient: x509.Certificate) -> bytes:
    """An S/MIME encrypted mail (RFC 8551 §3.3): the entity as CMS enveloped-data
    for ``recipient`` (an RSA certificate), AES-256-CBC."""
    if not isinstance(recipient.public_key(), rsa.RSAPublicKey):
        raise ValueError(
            "cannot encrypt to this S/MIME certificate: only RSA certificates are supported"
        )
    headers, entity = _split(_wire_safe(raw))
    der = (
        pkcs7.PKCS7EnvelopeBuilder()
        .set_data(entity)
        .set_content_encryption_algorithm(algorithms.AES256)
        .add_recipient(recipient)
        .encrypt(serialization.Encoding.DER, [pkcs7.PKCS7Options.Binary])
    )
    content_type = (
        "application/pkcs7-mime; smime-type=enveloped-data;\r\n"
        ' name="smime.p7m"\r\n'
        "Content-Transfer-Encoding: base64\r\n"
        'Content-Disposition: attachment; filename="smime.p7m"'
    )
    return _join(headers, content_type, _base64(der))


# --- bytes on the wire ----------------------------------------------------------------


def _crlf(data: bytes) -> bytes:
    if data.count(b"\n") == data.count(_CRLF):
        return data  # CRLF already, as compose writes it: no regex over a map picture
    return re.sub(rb"\r?\n", _CRLF, data)


def _split(raw: bytes) -> tuple[list[bytes], bytes]:
    """(the header fields that stay outside, the MIME entity: content headers and body)."""
    raw = _crlf(raw)
    end = raw.find(_CRLF + _CRLF)
    if end < 0:
        raise ValueError("not a mail: no blank line after the headers")
    fields: list[bytes] = []
    for line in raw[:end].split(_CRLF):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] += _CRLF + line  # a folded field goes on
        else:
            fields.append(line)
    outer: list[bytes] = []
    content: list[bytes] = []
    for field in fields:
        name = field.partition(b":")[0].strip().lower()
        if name.startswith(b"content-"):
            content.append(field)
        elif name != b"mime-version":  # the outer message says it once
            outer.append(field)
    if not content:  # RFC 2045 §5.2: the default, said explicitly in the entity
        content.append(b"Content-Type: text/plain; charset=us-ascii")
    return outer, _CRLF.join(content) + raw[end:]  # raw[end:]: the blank line, the body


def _join(headers: list[bytes], content_type: str, body: bytes) -> bytes:
    head = [*headers, b"MIME-Version: 1.0", b"Content-Type: " + content_type.encode("ascii")]
    return _CRLF.join(head) + _CRLF + _CRLF + body


def _part(headers: list[bytes], body: bytes) -> bytes:
    return _CRLF.join(headers) + _CRLF + _CRLF + body


def _multipart(boundary: str, preamble: bytes, *parts: bytes) -> bytes:
    """A multipart body; each part's last line break belongs to the delimiter after
    it (RFC 2046 §5.1.1), so a part ending in CRLF gets one more."""
    delimiter = b"--" + boundary.encode("ascii")
    out = [preamble, _CRLF]
    for part in parts:
        out += [delimiter, _CRLF, part, _CRLF]
    out += [delimiter, b"--", _CRLF]
    return b"".join(out)


def _boundary(kind: str, content: bytes) -> str:
    """A boundary from the content's digest: not in the content (checked), stable."""
    digest = hashlib.sha256(content).hexdigest()
    for length in range(24, 65, 8):
        boundary = f"=_pbem_{kind}_{digest[:length]}"
        if boundary.encode("ascii") not in content:
            return boundary
    raise ValueError("no MIME boundary outside the content")  # a SHA-256 preimage


def _base64(data: bytes) -> bytes:
    encoded = binascii.b2a_base64(data, newline=False)
    return b"".join(encoded[i : i + 76] + _CRLF for i in range(0, len(encoded), 76))


def _wire_safe(raw: bytes) -> bytes:
    """``raw`` with every leaf part that a mail path could alter made safe: 7bit or
    8bit text with 8-bit bytes, a trailing blank or a line starting "From " becomes
    quoted-printable (RFC 3156 §3, RFC 8551 §3.1.2), and "From " at the start of
    a quoted-printable line becomes "=46rom " (the same text, but an mbox on the way
    cannot turn it into ">From "). Unchanged if no part needs it."""
    if raw.isascii() and _RISKY_LINE.search(raw) is None:
        return raw  # the common case, without parsing: nothing a mail path could alter
    message = BytesParser(policy=DEFAULT).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    changed = False
    for part in message.walk():
        if part.is_multipart():
            continue
        cte = str(part.get("Content-Transfer-Encoding", "7bit")).lower()
        if cte in ("7bit", "8bit"):
            payload = part.get_payload(decode=True)
            if not isinstance(payload, bytes) or not _at_risk(payload):
                continue
            text = payload.replace(b"\r\n", b"\n")
            encoded = binascii.b2a_qp(text, quotetabs=False, istext=True, header=False)
            part.set_payload(_escape_from(encoded.decode("ascii")))
            del part["Content-Transfer-Encoding"]
            part["Content-Transfer-Encoding"] = "quoted-printable"
            changed = True
        elif cte == "quoted-printable":
            encoded_text = part.get_payload(decode=False)
            if isinstance(encoded_text, str) and _escape_from(encoded_text) != encoded_text:
                part.set_payload(_escape_from(encoded_text))
                changed = True
    if not changed:
        return raw
    return message.as_bytes(policy=DEFAULT.clone(linesep="\r\n"))


def _escape_from(quoted_printable: str) -> str:
    return re.sub(r"^From ", "=46rom ", quoted_printable, flags=re.M)


_RISKY_LINE = re.compile(rb"[ \t]\r?$|^From ", re.M)


def _at_risk(payload: bytes) -> bool:
    return not payload.isascii() or _RISKY_LINE.search(payload) is not None
