"""OpenPGP signed order mail: PGP/MIME (RFC 3156) and inline clear-signed text.

Players' clients sign this way: Thunderbird and most others send
``multipart/signed; protocol="application/pgp-signature"`` whose first part is
signed as its bytes on the wire (CRLF line ends, the part's headers
included) and whose second part is the armoured detached signature; older
clients and players who paste ``gpg --clearsign`` output send an inline
``-----BEGIN PGP SIGNED MESSAGE-----`` text.

Verification is Sequoia's (``pysequoia``). Only certificates registered for
the game are ever offered to it (the ``store`` callback), never a key that
came with the mail: a key attached to a mail (Thunderbird's
``application/pgp-keys``) can only add its revocations to the registered
certificate of the same fingerprint, never stand in for it. Sequoia's errors
do not say why a signature failed, so the reasons players hear (unknown key,
expired, revoked, text changed) are found here before and after it runs.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage

import pysequoia
from pysequoia.packet import HashAlgorithm, PacketPile, Tag

from pbem.core.errors import IntakeError, MailSignatureError
from pbem.intake.signatures import VerifiedSheet, orders_in_text
from pbem.intake.smime import signed_entity_text, signed_part_bytes

__all__ = [
    "BEGIN_SIGNED",
    "PGP_SIGNATURE_TYPE",
    "PgpSignature",
    "certificate_fingerprint",
    "certificate_problem",
    "find_signature",
    "key_handles",
    "offered_keys",
    "read_certificate",
    "revocation_target",
    "revoked_with",
    "verify_openpgp",
]

PGP_SIGNATURE_TYPE = "application/pgp-signature"
PGP_KEYS_TYPE = "application/pgp-keys"
BEGIN_SIGNED = "-----BEGIN PGP SIGNED MESSAGE-----"
_END_SIGNATURE = "-----END PGP SIGNATURE-----"
_CLEARSIGNED = re.compile(
    r"^[ \t]*" + re.escape(BEGIN_SIGNED) + r".*?^[ \t]*" + re.escape(_END_SIGNATURE) + r"[ \t]*$",
    re.M | re.S,
)
_SIGNATURE_ARMOUR = re.compile(
    r"^-----BEGIN PGP SIGNATURE-----\s*$.*?^-----END PGP SIGNATURE-----\s*$", re.M | re.S
)


def _reason(exc: Exception) -> str:
    """Sequoia's message without the backtrace it may append."""
    return str(exc).strip().split("\n", 1)[0] or type(exc).__name__


# --- certificates ---------------------------------------------------------------------


def read_certificate(data: bytes) -> pysequoia.Cert:
    """A player's OpenPGP public key (armoured or binary, as ``gpg --export`` writes it);
    ``ValueError`` saying what is wrong otherwise. A secret key is refused: it
    must never travel to the moderator."""
    if b"PRIVATE KEY BLOCK" in data:
        raise ValueError("this is a secret key; send the public key (gpg --armor --export ADDRESS)")
    try:
        with warnings.catch_warnings():
            # pysequoia warns when the bytes hold a secret key: refused below anyway.
            warnings.simplefilter("ignore", DeprecationWarning)
            certificate = pysequoia.Cert.from_bytes(data)
    except Exception as exc:  # pysequoia raises RuntimeError/ValueError for any bad input
        raise ValueError(f"not a readable OpenPGP public key: {_reason(exc)}") from None
    secret = (Tag.SecretKey, Tag.SecretSubkey)
    if any(packet.tag in secret for packet in PacketPile.from_bytes(data)):
        raise ValueError("this is a secret key; send the public key (gpg --armor --export ADDRESS)")
    return certificate


def certificate_fingerprint(data: bytes) -> str:
    """The primary key's fingerprint, lowercase hex (how OpenPGP keys are registered)."""
    return read_certificate(data).fingerprint.lower()


def key_handles(certificate: pysequoia.Cert) -> frozenset[str]:
    """Fingerprints and key IDs (lowercase hex) of the primary key and every subkey:
    a signature names its signing key by one of these."""
    handles: set[str] = set()
    for packet in PacketPile.from_bytes(bytes(certificate)):
        if packet.tag in (Tag.PublicKey, Tag.PublicSubkey):
            for handle in (packet.fingerprint, packet.key_id):
                if handle:
                    handles.add(handle.lower())
    return frozenset(handles)


def certificate_problem(certificate: pysequoia.Cert, now: datetime.datetime) -> str | None:
    """Why a certificate cannot sign now (revoked, expired), or None."""
    if certificate.is_revoked:
        return f"the OpenPGP key {certificate.fingerprint.lower()} is revoked"
    expiration = certificate.expiration
    if expiration is not None and expiration <= now:
        return f"the OpenPGP key {certificate.fingerprint.lower()} expired on {expiration:%Y-%m-%d}"
    return None


# --- revocations ----------------------------------------------------------------------

_KEY_ARMOUR = re.compile(
    r"^-----BEGIN PGP PUBLIC KEY BLOCK-----\s*$.*?^-----END PGP PUBLIC KEY BLOCK-----\s*$",
    re.M | re.S,
)


def offered_keys(message: EmailMessage, text: str) -> tuple[bytes, ...]:
    """Every OpenPGP key a mail carries, wherever it is: ``application/pgp-keys``
    parts (Thunderbird attaches the sender's key) and armoured key blocks pasted
    into the text (gpg's revocation certificate is one). Each may revoke a
    registered key: a revocation is signed by the key itself, so whoever sends it."""
    found = [
        content
        for part in message.walk()
        if part.get_content_type() == PGP_KEYS_TYPE
        and isinstance(content := part.get_payload(decode=True), bytes)
    ]
    found += [m.group(0).encode("ascii", "replace") for m in _KEY_ARMOUR.finditer(text)]
    return tuple(found)


def revocation_target(data: bytes) -> str | None:
    """The fingerprint of the key ``data`` says is revoked, if it says so: a revoked
    copy of a key (as gpg exports it once the revocation is imported) or a bare
    revocation signature (gpg's revocation certificate). Not yet checked against
    the registered key: ``revoked_with`` does that."""
    try:
        certificate = read_certificate(data)
    except ValueError:
        try:
            signature = pysequoia.Sig.from_bytes(data)
        except Exception:  # neither a key nor a signature: nothing revoked
            return None
        return signature.issuer_fingerprint.lower() if signature.issuer_fingerprint else None
    return certificate.fingerprint.lower() if certificate.is_revoked else None


def revoked_with(registered: bytes, data: bytes) -> bytes | None:
    """The registered certificate with the revocation ``data`` holds for the same
    key (see ``revocation_target``), or None if it holds none the key itself
    signed: Sequoia keeps only revocations whose signature verifies."""
    certificate = read_certificate(registered)
    try:
        other = read_certificate(data)
        merged = certificate.merge(other) if other.fingerprint == certificate.fingerprint else None
    except ValueError:
        merged = _with_bare_revocation(certificate, data)
    except Exception:  # a key Sequoia cannot merge revokes nothing
        merged = None
    if merged is None or not merged.is_revoked or certificate.is_revoked:
        return None
    return str(merged).encode("ascii")


def _with_bare_revocation(certificate: pysequoia.Cert, data: bytes) -> pysequoia.Cert | None:
    try:
        signature = pysequoia.Sig.from_bytes(data)
        return pysequoia.Cert.from_bytes(bytes(certificate) + bytes(signature))
    except Exception:  # not a signature, or one Sequoia will not attach
        return None


# --- finding the signature ------------------------------------------------------------


@dataclass(frozen=True)
class PgpSignature:
    """An OpenPGP signature found in a mail, not yet verified.

    ``issuers`` are the handles (fingerprints, key IDs; lowercase hex) the
    signature names; ``candidates`` the byte strings it may cover, most
    likely first (PGP/MIME: the signed part in CRLF form, then as received);
    ``signature`` the detached signature (None for clear-signed text, where
    ``candidates`` holds the whole armoured text); ``attached_keys`` the
    ``application/pgp-keys`` parts the mail carried.
    """

    issuers: frozenset[str]
    candidates: tuple[bytes, ...]
    signature: bytes | None
    attached_keys: tuple[bytes, ...] = ()
    pgp_mime: bool = False
    weak_hash: str | None = None  # "SHA-1", "MD5", ...: refused before verifying


# A collision in these would let one signature cover other orders; Sequoia refuses
# them too, but silently: the player hears why here.
_WEAK_HASHES = {
    "SHA-1": HashAlgorithm.SHA1,
    "MD5": HashAlgorithm.MD5,
    "RIPEMD-160": HashAlgorithm.RipeMD,
}


def _weak_hash(signature: pysequoia.Sig) -> str | None:
    algorithm = signature.hash_algorithm
    return next((name for name, weak in _WEAK_HASHES.items() if algorithm == weak), None)


def _issuers(signature: pysequoia.Sig) -> frozenset[str]:
    return frozenset(
        h.lower() for h in (signature.issuer_fingerprint, signature.issuer_key_id) if h
    )


def _load_signature(data: bytes) -> pysequoia.Sig:
    try:
        return pysequoia.Sig.from_bytes(data)
    except Exception as exc:
        raise MailSignatureError(f"malformed OpenPGP signature: {_reason(exc)}") from None


def find_signature(message: EmailMessage, raw: bytes, text: str) -> PgpSignature | None:
    """The OpenPGP signature of a mail (PGP/MIME first, then clear-signed ``text``),
    None if it has neither. ``raw`` are the bytes as received, ``text`` the
    mail's readable text (``ParsedMail.text``)."""
    if message.get_content_type() == "multipart/encrypted":
        raise MailSignatureError(
            "your mail is OpenPGP-encrypted; send orders signed but not encrypted", "encrypted"
        )
    if message.get_content_type() == "multipart/signed":
        protocol = str(message.get_param("protocol") or "").lower()
        if protocol == PGP_SIGNATURE_TYPE:
            return _pgp_mime(message, raw)
        return None
    found = [m for m in _CLEARSIGNED.finditer(text) if not _quoted(text, m.start())]
    if not found:
        return None
    if len(found) > 1:
        raise MailSignatureError(
            f"your mail holds {len(found)} PGP signed messages; send one per mail"
        )
    block = found[0].group(0)
    armour = _SIGNATURE_ARMOUR.search(block)
    if armour is None:
        raise MailSignatureError("malformed OpenPGP clear-signed text: no signature block")
    signature = _load_signature(armour.group(0).encode("ascii", "replace"))
    return PgpSignature(
        issuers=_issuers(signature),
        candidates=(block.encode("utf-8"),),
        signature=None,
        weak_hash=_weak_hash(signature),
    )


def _quoted(text: str, start: int) -> bool:
    """Whether the clear-signed text begins on a quoted line (``> ``): old mail in a reply."""
    line_start = text.rfind("\n", 0, start) + 1
    return text[line_start:start].lstrip().startswith(">")


def _pgp_mime(message: EmailMessage, raw: bytes) -> PgpSignature:
    signed, _ = signed_part_bytes(raw)
    payload = message.get_payload()
    assert isinstance(payload, list)
    if len(payload) != 2:
        raise MailSignatureError("malformed PGP/MIME mail: multipart/signed needs exactly 2 parts")
    signature_part = payload[1]
    assert isinstance(signature_part, EmailMessage)
    if signature_part.get_content_type() != PGP_SIGNATURE_TYPE:
        raise MailSignatureError(
            f"malformed PGP/MIME mail: the second part is {signature_part.get_content_type()}, "
            f"not {PGP_SIGNATURE_TYPE}"
        )
    data = signature_part.get_payload(decode=True)
    if not isinstance(data, bytes) or not data.strip():
        raise MailSignatureError("malformed PGP/MIME mail: the signature part is empty")
    signature = _load_signature(data)
    first = payload[0]
    assert isinstance(first, EmailMessage)
    attached = tuple(
        content
        for part in first.walk()
        if part.get_content_type() == PGP_KEYS_TYPE
        and isinstance(content := part.get_payload(decode=True), bytes)
    )
    crlf = re.sub(rb"\r?\n", b"\r\n", signed)
    candidates = (crlf,) if crlf == signed else (crlf, signed)
    return PgpSignature(
        issuers=_issuers(signature),
        candidates=candidates,
        signature=data,
        attached_keys=attached,
        pgp_mime=True,
        weak_hash=_weak_hash(signature),
    )


# --- verifying ------------------------------------------------------------------------


def _with_revocations(certificate: pysequoia.Cert, attached: tuple[bytes, ...]) -> pysequoia.Cert:
    """The registered certificate plus what a key attached to the mail says about the
    same primary key. Merging can only add signatures (revocations, a new expiry
    the player set), never another key; an unreadable attachment is ignored."""
    for data in attached:
        try:
            other = read_certificate(data)
        except ValueError:
            continue
        if other.fingerprint.lower() == certificate.fingerprint.lower():
            try:
                certificate = certificate.merge(other)
            except Exception:  # a broken attachment must not refuse a good mail
                continue
    return certificate


def verify_openpgp(
    found: PgpSignature,
    certificates: Mapping[str, bytes],
    *,
    now: datetime.datetime | None = None,
) -> VerifiedSheet:
    """Verify a found signature against registered certificates (fingerprint -> key as
    registered; the fingerprints are recomputed). Refuses precisely: a key that
    is not among them, a revoked or expired key, a text that is not what was
    signed. Returns the canonical order text (a pasted PBEM ORDERS block's
    body, or the text up to a ``-- `` mail signature)."""
    now = now or datetime.datetime.now(datetime.UTC)
    signer: pysequoia.Cert | None = None
    for data in certificates.values():
        certificate = read_certificate(data)
        if key_handles(certificate) & found.issuers:
            signer = certificate
            break
    if signer is None:
        named = ", ".join(sorted(found.issuers, key=len, reverse=True)[:1]) or "unnamed"
        raise MailSignatureError(
            f"the OpenPGP key {named} that signed is not registered for this game", "unknown-key"
        )
    if found.weak_hash:
        raise MailSignatureError(
            f"the OpenPGP signature uses {found.weak_hash}, which is not accepted; sign with "
            "SHA-256 (gpg: --digest-algo SHA256)"
        )
    signer = _with_revocations(signer, found.attached_keys)
    problem = certificate_problem(signer, now)
    if problem:
        raise MailSignatureError(problem, "expired-key" if "expired" in problem else "revoked-key")

    def store(_key_ids: list[str]) -> list[pysequoia.Cert]:
        return [signer]  # only the registered certificate is ever tried

    signature = pysequoia.Sig.from_bytes(found.signature) if found.signature else None
    for candidate in found.candidates:
        try:
            result = pysequoia.verify(bytes=candidate, store=store, signature=signature)
        except Exception:  # Sequoia: "no valid signatures found", a bad packet, ...
            continue
        if result.valid_sigs:
            signed = result.bytes if signature is None else candidate
            assert signed is not None
            text = _sheet_text(signed, pgp_mime=found.pgp_mime)
            if not text:
                raise IntakeError("no-text", "the signed text is empty")
            digest_of = found.signature if found.signature is not None else found.candidates[0]
            return VerifiedSheet(
                text=text,
                key_fingerprint=signer.fingerprint.lower(),
                method="openpgp",
                signature_digest=hashlib.sha256(_signature_bytes(digest_of)).hexdigest(),
            )
    raise MailSignatureError(
        "the OpenPGP signature does not match the signed text (was it edited after signing?)"
    )


def _signature_bytes(data: bytes) -> bytes:
    """The signature packet itself, so that re-armouring or re-wrapping a replayed
    signature does not make it new."""
    armour = _SIGNATURE_ARMOUR.search(data.decode("utf-8", "replace"))
    source = armour.group(0).encode("ascii", "replace") if armour else data
    try:
        return bytes(pysequoia.Sig.from_bytes(source))
    except Exception:
        return data


def _sheet_text(signed: bytes, *, pgp_mime: bool) -> str:
    if pgp_mime:
        return signed_entity_text(signed)
    # Clear-signing strips trailing spaces, so the "-- " before a mail signature
    # arrives as "--" (RFC 4880 section 7.1).
    lines = signed.decode("utf-8", "replace").replace("\r\n", "\n").split("\n")
    return orders_in_text("\n".join("-- " if line == "--" else line for line in lines))
