"""The mailroom: one stored incoming mail → exactly one answer (or a reasoned silence).

``file_mail`` (``file_mails`` for a batch; ``file_batch``, the intake's, without
ORM rows) stores the raw bytes (before the transport may drop them);
``Mailroom.process`` then, in one transaction, runs the mail through the
stages, one module each, in this order:

- ``hygiene``: not answered at all (bounces, auto-replies, lists, loops), a
  copy of an earlier mail, a sender over the rate limit;
- ``verify``: the signature, by its scheme (S/MIME, OpenPGP, an Ed25519
  armoured block), against the registered keys (``keyring``);
- ``attribute``: the seat that signed, for the game, side, turn and phase the
  sheet names, from its address; a replayed signature is refused;
- act: ``orders`` (validated and sealed, or DONE), ``dispute``, ``commands``
  (the moderator's), or ``refusal`` (with what it sets off: an alert, a letter
  forwarded to the moderator; ``notices`` are what he is told);
- ``answer``: the one answer queued, the row closed. Its Message-ID derives
  from the mail's digest, so a mail processed again after a crash cannot be
  answered twice.

``room`` holds the ``Mailroom`` that runs them. What an unverified sender hears
depends only on what he sent, never on the state of any game.
"""

from pbem.lifecycle.mailroom.answer import Answer, Reply
from pbem.lifecycle.mailroom.filing import (
    Opened,
    digest,
    file_batch,
    file_mail,
    file_mails,
    open_inbound,
    open_mail,
)
from pbem.lifecycle.mailroom.room import Mailroom

__all__ = [
    "Answer",
    "Mailroom",
    "Opened",
    "Reply",
    "digest",
    "file_batch",
    "file_mail",
    "file_mails",
    "open_inbound",
    "open_mail",
]
