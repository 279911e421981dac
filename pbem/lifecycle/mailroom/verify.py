"""Verify: the signed order text of a mail, by whichever scheme signed it.

A mail is signed whole by the player's mail program (S/MIME, OpenPGP: PGP/MIME
or clear-signed) or carries a pasted Ed25519 armoured block (``pbem sign``).
Each scheme has its verifier in ``pbem.intake``; here each is given the
registered keys that could have signed. Which seat signed is decided after
(pbem.lifecycle.mailroom.attribute).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from email.message import EmailMessage

from pbem.core.errors import IntakeError, MailSignatureError
from pbem.intake.mime import ParsedMail, message_object, unreadable
from pbem.intake.openpgp import BEGIN_SIGNED, PgpSignature, find_signature, verify_openpgp
from pbem.intake.signatures import ArmouredBlock, VerifiedSheet, key_fingerprint, verify_block
from pbem.intake.smime import is_smime, signer_certificate_fingerprints, verify_smime
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.mailroom.filing import Opened
from pbem.lifecycle.mailroom.keyring import SeatKeys
from pbem.storage.enums import KeyKind

# Content types of a mail signed as a whole (S/MIME opaque, PGP/MIME), lower case.
_WHOLE_MAIL_CONTENT_TYPES = (b"pkcs7-mime", b"pgp-signature", b"pgp-encrypted")


class Verifier:
    def __init__(self, desk: Desk, keys: SeatKeys) -> None:
        self.desk = desk
        self.keys = keys

    def verify(self, opened: Opened) -> VerifiedSheet:
        """The mail's signed order text; raises ``IntakeError`` (``MailSignatureError``
        for a mail signed whole) saying why there is none."""
        raw, mail = opened.raw, opened.mail
        fresh = [b for b in opened.blocks if not b.quoted]
        if _maybe_signed_whole(opened):
            message = message_object(raw)
            if mail.smime_signed or is_smime(message):
                return verify_smime_mail(message, raw, mail, self.keys)
            pgp = find_signature(message, raw, mail.text)
            if pgp is not None:
                try:
                    return verify_openpgp_mail(pgp, mail, self.keys, self.desk.now)
                except MailSignatureError as exc:
                    # A mail program that signs every mail with a key pbem does not
                    # know, around a pasted PBEM ORDERS block: the block decides.
                    if exc.code != "unknown-key" or not fresh:
                        raise
        try:
            return verify_armoured(opened.blocks, self.keys, self.desk.config.moderator.public_key)
        except IntakeError as exc:
            # No block, or a broken one, in a mail that could not be read as sent:
            # the sender hears why it could not be read, not that nothing was signed.
            why = unreadable(mail)
            if why is None or not (exc.code == "no-block" or any(b.problem for b in fresh)):
                raise
            raise IntakeError("unreadable", why) from None


def _maybe_signed_whole(opened: Opened) -> bool:
    """Whether parsing the whole mail again is worth it: it may be signed whole."""
    lowered = opened.raw.lower()
    return (
        opened.mail.smime_signed
        or any(mark in lowered for mark in _WHOLE_MAIL_CONTENT_TYPES)
        or BEGIN_SIGNED in opened.mail.text
    )


def verify_smime_mail(
    message: EmailMessage, raw: bytes, mail: ParsedMail, keys: SeatKeys
) -> VerifiedSheet:
    """S/MIME: against the sender's certificates and those the mail carries."""
    carried = signer_certificate_fingerprints(message, raw)
    return verify_smime(message, keys.for_mail(KeyKind.SMIME, mail.from_addr, carried), raw=raw)


def verify_openpgp_mail(
    pgp: PgpSignature, mail: ParsedMail, keys: SeatKeys, now: datetime
) -> VerifiedSheet:
    """OpenPGP: against the sender's certificates and those the signature names."""
    certs = keys.for_mail(KeyKind.OPENPGP, mail.from_addr, pgp.issuers)
    return verify_openpgp(pgp, certs, now=now)


def verify_armoured(
    blocks: Sequence[ArmouredBlock], keys: SeatKeys, moderator_key: str
) -> VerifiedSheet:
    """An Ed25519 armoured block: exactly one not quoted from an earlier mail, signed
    by a registered player key (active or retired) or the moderator's."""
    fresh = [b for b in blocks if not b.quoted]
    if not fresh:
        if blocks:
            raise IntakeError(
                "no-block",
                "the only PBEM ORDERS block in your mail is quoted from an earlier "
                "mail ('>' marks); quoted blocks are never taken as new orders",
            )
        raise IntakeError(
            "no-block",
            "no signed PBEM ORDERS block found in your mail, and the mail is not "
            "signed (OpenPGP or S/MIME) either",
        )
    if len(fresh) > 1:
        raise IntakeError(
            "no-block",
            f"your mail holds {len(fresh)} PBEM ORDERS blocks; send one block per mail",
        )
    known = keys.ed25519(fresh[0].key_id)
    if moderator_key:
        known[key_fingerprint(moderator_key)] = moderator_key
    return verify_block(fresh[0], known)
