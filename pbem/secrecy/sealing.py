"""AES-256-GCM sealing at rest, under the key from the configuration.

Everything that can reveal a sealed plot is stored sealed: the plots and dice
seeds themselves, and the mail that carried or echoed orders (the player's
order mail as received, the answer that lists the accepted orders). The
``context`` is bound as associated data, so a sealed blob cannot be moved to
another row and opened there.
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from pbem.core.errors import PbemError

NONCE_BYTES = 12


class SealError(PbemError):
    pass


def seal(key: bytes, plaintext: bytes, context: str) -> bytes:
    nonce = os.urandom(NONCE_BYTES)
    return nonce + AESGCM(key).encrypt(nonce, plaintext, f"pbem-seal-v1|{context}".encode())


def unseal(key: bytes, blob: bytes, context: str) -> bytes:
    try:
        return AESGCM(key).decrypt(
            blob[:NONCE_BYTES], blob[NONCE_BYTES:], f"pbem-seal-v1|{context}".encode()
        )
    except (InvalidTag, ValueError):
        raise SealError(f"sealed data ({context}) does not open with this key") from None


def inbound_context(digest: str) -> str:
    return f"inbound|{digest}"


def outbound_context(message_id: str) -> str:
    return f"outbound|{message_id}"
