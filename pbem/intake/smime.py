"""S/MIME signed order mail (``multipart/signed``), as real mail clients send it.

Verification uses public APIs only: ``asn1crypto`` reads the CMS SignedData,
``cryptography`` checks the signature. The steps are RFC 5652 section 5.4:
find the signer by issuer and serial number (or subject key identifier) among
the certificates registered for the game, check the ``messageDigest``
attribute against the signed part, then check the signature over the signed
attributes, DER-encoded as a SET. A player's certificate is usually
self-signed; the trust anchor is the registration itself, so no chain is
built, but validity dates and key usage are checked.

The signed part must be hashed as the bytes that arrived: re-serialising it
with the ``email`` package can refold headers and change line endings, so
``signed_part_bytes`` cuts it out of the raw message at the boundary lines.
"""

from __future__ import annotations

import datetime
import email.policy
import hashlib
import re
from collections.abc import Mapping
from email.message import EmailMessage, MIMEPart
from email.parser import BytesHeaderParser, BytesParser
from email.utils import formatdate, make_msgid

from asn1crypto import cms as asn1_cms
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.hazmat.primitives.serialization import pkcs7
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from pbem.core.errors import IntakeError, MailSignatureError
from pbem.intake.flowed import unflow
from pbem.intake.signatures import VerifiedSheet, orders_in_text
from pbem.secrecy import certificates

__all__ = [
    "OPAQUE_TYPES",
    "SIGNATURE_TYPES",
    "certificate_fingerprint",
    "is_smime",
    "make_self_signed_certificate",
    "sign_smime",
    "signed_entity_text",
    "signed_part_bytes",
    "signer_certificate_fingerprints",
    "verify_smime",
    "verify_smime_bytes",
]

# Both names are in use: x-pkcs7-signature by older clients and ``openssl smime``.
SIGNATURE_TYPES = ("application/pkcs7-signature", "application/x-pkcs7-signature")

OPAQUE_TYPES = ("application/pkcs7-mime", "application/x-pkcs7-mime")

# SHA-1 and MD5 are refused: a collision would let a signature cover other orders.
_HASHES: dict[str, type[hashes.HashAlgorithm]] = {
    "sha224": hashes.SHA224,
    "sha256": hashes.SHA256,
    "sha384": hashes.SHA384,
    "sha512": hashes.SHA512,
}


def certificate_fingerprint(pem: bytes) -> str:
    """SHA-256 hex of the certificate's DER encoding (how certificates are registered)."""
    return x509.load_pem_x509_certificate(pem).fingerprint(hashes.SHA256()).hex()


# --- raw MIME -------------------------------------------------------------------------


def is_smime(message: EmailMessage) -> bool:
    """Whether a mail is S/MIME signed: ``multipart/signed`` with a pkcs7-signature
    protocol (detached), or ``application/pkcs7-mime`` (opaque signed-data)."""
    ctype = message.get_content_type()
    if ctype == "multipart/signed":
        return str(message.get_param("protocol") or "").lower() in SIGNATURE_TYPES
    return ctype in OPAQUE_TYPES


def signed_part_bytes(raw: bytes) -> tuple[bytes, bytes]:
    """Cut the two parts of a ``multipart/signed`` message out of its raw bytes.

    Returns (signed part, signature part) exactly as received, each without
    the line break before the next boundary line, which RFC 2046 counts as
    part of the boundary.
    """
    headers = BytesHeaderParser(policy=email.policy.default).parsebytes(raw)
    boundary = headers.get_boundary()
    if headers.get_content_type() != "multipart/signed" or not boundary:
        raise MailSignatureError("not an S/MIME signed mail (multipart/signed with a boundary)")
    separator = re.search(rb"\r?\n\r?\n", raw)
    if separator is None:
        raise MailSignatureError("malformed S/MIME mail: no blank line after the headers")
    body = raw[separator.end() :]
    delimiter = re.compile(
        rb"^--" + re.escape(boundary.encode("ascii")) + rb"(--)?[ \t]*\r?$", re.M
    )
    marks = list(delimiter.finditer(body))
    parts: list[bytes] = []
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        if mark.group(1):  # the close delimiter
            break
        start = mark.end() + 1
        if following is None:
            parts.append(body[start:])
            break
        end = following.start()
        end -= 2 if body[end - 2 : end] == b"\r\n" else 1
        parts.append(body[start:end])
    if len(parts) != 2:
        raise MailSignatureError(
            f"malformed S/MIME mail: {len(parts)} parts in multipart/signed, not 2"
        )
    return parts[0], parts[1]


def _crlf(data: bytes) -> bytes:
    """The canonical CRLF form the signer hashed (RFC 8551 section 3.1.1)."""
    return re.sub(rb"\r?\n", b"\r\n", data)


# --- verification ---------------------------------------------------------------------


def verify_smime_bytes(
    raw: bytes,
    certificates: Mapping[str, bytes],
    *,
    now: datetime.datetime | None = None,
) -> VerifiedSheet:
    """Verify a raw S/MIME signed mail; see ``verify_smime``."""
    message = BytesParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    return verify_smime(message, certificates, raw=raw, now=now)


def verify_smime(
    message: EmailMessage,
    certificates: Mapping[str, bytes],
    *,
    raw: bytes | None = None,
    now: datetime.datetime | None = None,
) -> VerifiedSheet:
    """Verify an S/MIME signed order mail against the game's registered certificates.

    ``certificates`` maps fingerprint (``certificate_fingerprint``) to PEM;
    the fingerprints are recomputed, not trusted. Pass the mail's ``raw``
    bytes as received whenever you have them: without them the message is
    re-serialised, which is only safe for a message that was never changed.
    Returns the canonical text of the signed text/plain part, up to a ``-- ``
    signature separator.
    """
    if message.get_content_type() in OPAQUE_TYPES:
        der, signed = _opaque(message)
    else:
        der, signed = _detached(message, raw)
    now = now or datetime.datetime.now(datetime.UTC)
    certificate, signer_info = _find_signer(der, certificates, now)
    _check_certificate(certificate, now)
    _check_digest(signer_info, signed)
    _check_signature(signer_info, certificate, _embedded(der))

    text = signed_entity_text(signed)
    if not text:
        raise IntakeError("no-text", "the signed text/plain part is empty")
    signature = signer_info["signature"].native
    return VerifiedSheet(
        text=text,
        key_fingerprint=certificate.fingerprint(hashes.SHA256()).hex(),
        method="smime",
        signature_digest=hashlib.sha256(signature).hexdigest(),
    )


def _detached(message: EmailMessage, raw: bytes | None) -> tuple[bytes, bytes]:
    """(signature DER, signed part bytes as received) of a multipart/signed mail."""
    protocol = (message.get_param("protocol") or "") if message.is_multipart() else ""
    if message.get_content_type() != "multipart/signed" or str(protocol).lower() not in (
        SIGNATURE_TYPES
    ):
        raise MailSignatureError("not an S/MIME signed mail (multipart/signed, pkcs7-signature)")
    if raw is None:
        raw = message.as_bytes(policy=message.policy.clone(linesep="\r\n"))
    signed, _ = signed_part_bytes(raw)
    payload = message.get_payload()
    assert isinstance(payload, list)
    signature_part = payload[1] if len(payload) == 2 else None
    if not isinstance(signature_part, EmailMessage):
        raise MailSignatureError("malformed S/MIME mail: multipart/signed needs exactly 2 parts")
    if signature_part.get_content_type() not in SIGNATURE_TYPES:
        raise MailSignatureError(
            f"the second part is {signature_part.get_content_type()}, not a pkcs7-signature"
        )
    der = signature_part.get_payload(decode=True)
    if not isinstance(der, bytes) or not der:
        raise MailSignatureError("malformed S/MIME signature: the signature part is empty")
    return der, signed


def _opaque(message: EmailMessage) -> tuple[bytes, bytes]:
    """(signature DER, signed entity) of an opaque ``application/pkcs7-mime`` signed-data
    mail: the signed MIME entity travels inside the CMS structure (RFC 8551 3.5.2)."""
    kind = str(message.get_param("smime-type") or "").lower()
    der = message.get_payload(decode=True)
    if not isinstance(der, bytes) or not der:
        raise MailSignatureError("malformed S/MIME mail: the pkcs7-mime body is empty")
    try:
        info = asn1_cms.ContentInfo.load(der)
        content_type = info["content_type"].native
        if content_type == "enveloped_data" or kind == "enveloped-data":
            raise MailSignatureError(
                "your mail is S/MIME-encrypted; send orders signed but not encrypted",
                "encrypted",
            )
        if content_type != "signed_data":
            raise MailSignatureError(f"the S/MIME mail holds {content_type}, not signed data")
        signed = info["content"]["encap_content_info"]["content"].native
    except (ValueError, TypeError, KeyError) as exc:
        raise MailSignatureError(f"malformed S/MIME signed-data: {exc}") from None
    if not isinstance(signed, bytes) or not signed:
        raise MailSignatureError("the S/MIME signed-data carries no content (detached?)")
    return der, signed


def _embedded(der: bytes) -> list[x509.Certificate]:
    """The certificates the signer put in the signature (clients include their own)."""
    try:
        info = asn1_cms.ContentInfo.load(der)
        choices = info["content"]["certificates"]
        found = []
        for choice in choices or []:
            if choice.name == "certificate":
                found.append(x509.load_der_x509_certificate(choice.chosen.dump()))
        return found
    except (ValueError, TypeError, KeyError):
        return []


def signer_certificate_fingerprints(message: EmailMessage, raw: bytes | None = None) -> set[str]:
    """Fingerprints of the certificates an S/MIME mail carries (best effort, never
    raises): the mailroom looks them up among registered certificates, so a mail
    signed with another player's certificate is found and refused by name."""
    try:
        if message.get_content_type() in OPAQUE_TYPES:
            der, _ = _opaque(message)
        else:
            der, _ = _detached(message, raw)
    except IntakeError:
        return set()
    return {c.fingerprint(hashes.SHA256()).hex() for c in _embedded(der)}


def _matches(sid: asn1_cms.SignerIdentifier, certificate: x509.Certificate) -> bool:
    parsed = asn1_x509.Certificate.load(certificate.public_bytes(serialization.Encoding.DER))
    if sid.name == "issuer_and_serial_number":
        return bool(
            parsed.issuer == sid.chosen["issuer"]
            and parsed.serial_number == sid.chosen["serial_number"].native
        )
    return bool(parsed.key_identifier == sid.chosen.native)


def _name(name: x509.Name) -> str:
    """A certificate name as people read it: its common name, else its e-mail address."""
    for oid in (NameOID.COMMON_NAME, NameOID.EMAIL_ADDRESS):
        values = name.get_attributes_for_oid(oid)
        if values:
            return f"'{values[0].value!s}'"
    return name.rfc4514_string() or "(no name)"


def _authority_key(certificate: x509.Certificate) -> bytes | None:
    try:
        extension = certificate.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier)
    except x509.ExtensionNotFound:
        return None
    return extension.value.key_identifier


def _look_alike(signer: x509.Certificate, registered: list[x509.Certificate]) -> bool:
    """Whether the signer's CA has the name of a registered certificate's CA but
    none of their keys (a CA made to look like the player's)."""
    same_name = [c for c in registered if c.issuer == signer.issuer]
    return bool(same_name) and not any(
        _authority_key(c) is not None and _authority_key(c) == _authority_key(signer)
        for c in same_name
    )


def _unregistered(
    signer: x509.Certificate, registered: list[x509.Certificate], now: datetime.datetime
) -> MailSignatureError:
    """Why the certificate that signed is not one of the registered ones, precisely.
    An expired one is refused as expired first: registering it would not help
    (unless its CA is a look-alike, which matters more)."""
    fingerprint = signer.fingerprint(hashes.SHA256()).hex()
    issuer, subject = _name(signer.issuer), _name(signer.subject)
    expired = now > signer.not_valid_after_utc
    if expired and not _look_alike(signer, registered):
        return MailSignatureError(
            f"the mail is signed with an S/MIME certificate that expired on "
            f"{signer.not_valid_after_utc:%Y-%m-%d} ({subject}, issued by {issuer}, "
            f"fingerprint {fingerprint[:16]}...); it is not registered for this game "
            "either, and an expired certificate is never taken",
            "expired-key",
        )
    also = f"; it also expired on {signer.not_valid_after_utc:%Y-%m-%d}" if expired else ""
    return MailSignatureError(_why_unregistered(signer, registered) + also, "unknown-key")


def _why_unregistered(signer: x509.Certificate, registered: list[x509.Certificate]) -> str:
    fingerprint = signer.fingerprint(hashes.SHA256()).hex()
    issuer, subject = _name(signer.issuer), _name(signer.subject)
    if signer.issuer == signer.subject:
        return (
            f"the mail is signed with a self-signed certificate ({subject}, fingerprint "
            f"{fingerprint[:16]}...) that is not registered for this game"
        )
    if _look_alike(signer, registered):
        return (
            f"the mail is signed with a certificate from a CA that has the name of your "
            f"registered certificate's CA ({issuer}) but another key: a look-alike CA, "
            "refused"
        )
    if any(c.issuer == signer.issuer for c in registered):
        return (
            f"the mail is signed with another certificate from the CA of your registered "
            f"one ({issuer}, fingerprint {fingerprint[:16]}...); the moderator must "
            "register it first (KEY game side ADD)"
        )
    return (
        f"the mail is signed with a certificate issued by {issuer}, a CA none of the "
        f"certificates registered for you comes from (fingerprint {fingerprint[:16]}...)"
    )


def _find_signer(
    der: bytes, certificates: Mapping[str, bytes], now: datetime.datetime
) -> tuple[x509.Certificate, asn1_cms.SignerInfo]:
    """The first SignerInfo whose signer is a registered certificate, and that certificate."""
    try:
        info = asn1_cms.ContentInfo.load(der)
        if info["content_type"].native != "signed_data":
            raise MailSignatureError(
                "malformed S/MIME signature: the CMS content is not SignedData"
            )
        signer_infos = list(info["content"]["signer_infos"])
    except (ValueError, TypeError, KeyError) as exc:
        raise MailSignatureError(f"malformed S/MIME signature: {exc}") from None
    registered = [x509.load_pem_x509_certificate(pem) for pem in certificates.values()]
    for signer_info in signer_infos:
        for certificate in registered:
            if _matches(signer_info["sid"], certificate):
                return certificate, signer_info
    if not signer_infos:
        raise MailSignatureError("malformed S/MIME signature: no signer")
    embedded = _embedded(der)
    for signer_info in signer_infos:
        for certificate in embedded:
            if _matches(signer_info["sid"], certificate):
                raise _unregistered(certificate, registered, now)
    sid = signer_infos[0]["sid"]
    if sid.name == "issuer_and_serial_number":
        issuer = sid.chosen["issuer"].human_friendly
        described = f"issuer {issuer}, serial {sid.chosen['serial_number'].native}"
    else:
        described = f"key identifier {sid.chosen.native.hex()}"
    raise MailSignatureError(
        f"the S/MIME signer's certificate ({described}) is not in the mail and not "
        "registered for this game",
        "unknown-key",
    )


def _check_certificate(certificate: x509.Certificate, now: datetime.datetime) -> None:
    if now < certificate.not_valid_before_utc:
        raise MailSignatureError(
            f"the S/MIME certificate is not valid before {certificate.not_valid_before_utc:%Y-%m-%d}",
            "expired-key",
        )
    if now > certificate.not_valid_after_utc:
        raise MailSignatureError(
            f"the S/MIME certificate expired on {certificate.not_valid_after_utc:%Y-%m-%d}",
            "expired-key",
        )
    try:
        usage = certificate.extensions.get_extension_for_class(x509.KeyUsage).value
    except x509.ExtensionNotFound:
        pass
    else:
        if not (usage.digital_signature or usage.content_commitment):
            raise MailSignatureError("the S/MIME certificate's key usage does not allow signing")
    try:
        extended = certificate.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    except x509.ExtensionNotFound:
        pass
    else:
        allowed = {ExtendedKeyUsageOID.EMAIL_PROTECTION, ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE}
        if not allowed.intersection(extended):
            raise MailSignatureError("the S/MIME certificate is not for e-mail protection")


def _hash_for(name: str) -> hashes.HashAlgorithm:
    algorithm = _HASHES.get(name)
    if algorithm is None:
        raise MailSignatureError(f"S/MIME digest algorithm {name} is not accepted (use SHA-256)")
    return algorithm()


def _check_digest(signer_info: asn1_cms.SignerInfo, signed: bytes) -> None:
    """The messageDigest attribute must be the hash of the signed part."""
    attributes = signer_info["signed_attrs"]
    if not attributes:
        raise MailSignatureError(
            "the S/MIME signature has no signed attributes (not as clients sign)"
        )
    values = {attribute["type"].native: attribute["values"] for attribute in attributes}
    if "message_digest" not in values or "content_type" not in values:
        raise MailSignatureError(
            "the S/MIME signature lacks the messageDigest or contentType attribute"
        )
    if values["content_type"][0].native != "data":
        raise MailSignatureError("the S/MIME signature does not cover plain data")
    expected = values["message_digest"][0].native
    name = signer_info["digest_algorithm"]["algorithm"].native
    algorithm = _hash_for(name)
    # CRLF is what clients hash; the bytes as received cover signers that sent binary.
    for candidate in (_crlf(signed), signed):
        digest = hashes.Hash(algorithm)
        digest.update(candidate)
        if digest.finalize() == expected:
            return
    raise MailSignatureError(
        "S/MIME signature does not match the signed text (was it edited after signing?)"
    )


def _signed_attributes_as_set(signer_info: asn1_cms.SignerInfo) -> bytes:
    """The signed attributes with their [0] IMPLICIT tag replaced by SET (RFC 5652 5.4).

    Built from the contents as received, never re-encoded: the signer signed those bytes.
    """
    contents: bytes = signer_info["signed_attrs"].contents
    length = len(contents)
    if length < 0x80:
        header = bytes([0x31, length])
    else:
        size = length.to_bytes((length.bit_length() + 7) // 8, "big")
        header = bytes([0x31, 0x80 | len(size)]) + size
    return header + contents


def _check_signature(
    signer_info: asn1_cms.SignerInfo,
    certificate: x509.Certificate,
    embedded: list[x509.Certificate],
) -> None:
    data = _signed_attributes_as_set(signer_info)
    signature = signer_info["signature"].native
    algorithm = signer_info["signature_algorithm"]
    kind = algorithm.signature_algo
    key = certificate.public_key()
    digest_name = signer_info["digest_algorithm"]["algorithm"].native
    try:
        if isinstance(key, rsa.RSAPublicKey) and kind == "rsassa_pkcs1v15":
            key.verify(signature, data, padding.PKCS1v15(), _hash_for(digest_name))
        elif isinstance(key, rsa.RSAPublicKey) and kind == "rsassa_pss":
            parameters = algorithm["parameters"]
            mgf_hash = parameters["mask_gen_algorithm"]["parameters"]["algorithm"].native
            pss = padding.PSS(
                mgf=padding.MGF1(_hash_for(mgf_hash)),
                salt_length=parameters["salt_length"].native,
            )
            key.verify(
                signature, data, pss, _hash_for(parameters["hash_algorithm"]["algorithm"].native)
            )
        elif isinstance(key, ec.EllipticCurvePublicKey) and kind == "ecdsa":
            key.verify(signature, data, ec.ECDSA(_hash_for(digest_name)))
        elif isinstance(key, ed25519.Ed25519PublicKey) and kind == "ed25519":
            key.verify(signature, data)
        else:
            raise MailSignatureError(
                f"S/MIME signature algorithm {kind} does not fit the certificate's key"
            )
    except InvalidSignature:
        impostor = [c for c in embedded if _matches(signer_info["sid"], c) and c != certificate]
        if impostor:  # same issuer and serial as the registered one, another key
            raise MailSignatureError(
                "S/MIME signature is not valid for the registered certificate: the mail "
                "carries a certificate with its issuer and serial number but another key "
                f"(from a look-alike of {_name(certificate.issuer)})"
            ) from None
        raise MailSignatureError(
            "S/MIME signature is not valid for the registered certificate"
        ) from None


def _decode_text(part: MIMEPart) -> str:
    """The text of a text/plain part, tolerating a missing or wrong charset label.

    An unlabelled part is US-ASCII by the RFCs, but OpenSSL's ``-text`` and
    some clients send UTF-8 that way; Windows-1252 is the last resort (it
    maps almost every byte), so decoding never fails on a signed text.
    """
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        raise IntakeError("no-text", "the signed text/plain part cannot be decoded")
    declared = part.get_content_charset() or "us-ascii"
    for charset in (declared, "utf-8", "windows-1252"):
        try:
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    return data.decode("latin-1")


def signed_entity_text(signed: bytes) -> str:
    """The canonical order text of a signed MIME entity's text/plain part (S/MIME and
    PGP/MIME sign a whole entity: headers, maybe an attachment, the text)."""
    entity = BytesParser(policy=email.policy.default).parsebytes(signed)
    assert isinstance(entity, EmailMessage)
    part = entity.get_body(preferencelist=("plain",))
    if part is None:
        raise IntakeError("no-text", "the signed part has no text/plain part")
    content = _decode_text(part)
    if str(part.get_param("format", "")).lower() == "flowed":
        content = unflow(content, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return orders_in_text(content)


# --- signing (player tools and tests) -------------------------------------------------


def sign_smime(
    text: str,
    cert_pem: bytes,
    key_pem: bytes,
    headers: Mapping[str, str],
    *,
    cte: str = "quoted-printable",
) -> bytes:
    """A complete ``multipart/signed`` mail carrying ``text``, signed as clients sign.

    ``headers`` (From, To, Subject, ...) go on the outer message; Date and
    Message-ID are added when missing. The signature part is
    ``application/x-pkcs7-signature``, as cryptography writes it.
    """
    certificate = x509.load_pem_x509_certificate(cert_pem)
    key = serialization.load_pem_private_key(key_pem, password=None)
    if not isinstance(key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
        raise ValueError("S/MIME signing needs an RSA or EC private key")
    inner = MIMEPart(policy=email.policy.SMTP)
    inner.set_content(text, subtype="plain", charset="utf-8", cte=cte)
    signed = (
        pkcs7.PKCS7SignatureBuilder()
        .set_data(inner.as_bytes())
        .add_signer(certificate, key, hashes.SHA256())
        .sign(serialization.Encoding.SMIME, [pkcs7.PKCS7Options.DetachedSignature])
    )
    outer = dict(headers)
    outer.setdefault("Date", formatdate(localtime=False))
    outer.setdefault("Message-ID", make_msgid(domain="pbem.invalid"))
    policy = email.policy.SMTP
    head = b"".join(policy.fold_binary(name, value) for name, value in outer.items())
    return head + _crlf(signed)


def make_self_signed_certificate(
    address: str,
    *,
    key_type: str = "ec",
    days: int = 730,
    now: datetime.datetime | None = None,
) -> tuple[bytes, bytes]:
    """A self-signed S/MIME certificate for ``address``: (certificate PEM, PKCS#8 key PEM).

    ``key_type`` is ``"ec"`` (P-256) or ``"rsa"`` (2048 bits).
    """
    key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey
    if key_type == "rsa":
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    elif key_type == "ec":
        key = ec.generate_private_key(ec.SECP256R1())
    else:
        raise ValueError(f"key_type must be 'ec' or 'rsa', not {key_type!r}")
    start = now or datetime.datetime.now(datetime.UTC)
    certificate = certificates.self_signed(
        key,
        address,
        address,
        not_before=start - datetime.timedelta(minutes=5),
        not_after=start + datetime.timedelta(days=days),
    )
    return (
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )
