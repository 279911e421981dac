"""pbem: a play-by-email moderator for hex-and-counter Pacific War wargames.

Data flows mail → intake → orders → rules → plots → adjudication → reports → outbox:

- ``pbem.mail``       transports: IMAP/Maildir in, SMTP/Maildir out (bytes only)
- ``pbem.intake``     raw mail → verified, attributed order sheet
- ``pbem.core``       stdlib-only domain kernel: ruleset protocol, dice, events
- ``pbem.rulesets``   one package per game (``usn``), importing only ``core``
- ``pbem.secrecy``    sealed plots, commitments, dice seeds
- ``pbem.lifecycle``  phases, deadlines, moderator acts, disputes
- ``pbem.record``     hash-chained game record, archive export and verify
- ``pbem.reports``    per-side views rendered with Jinja, map pictures
- ``pbem.outbox``     durable outgoing mail
- ``pbem.storage``    SQLAlchemy models and sessions
- ``pbem.service``    the daemon: wiring, supervision, shutdown
"""

# The one place the version is written: pyproject.toml reads it for the wheel.
__version__ = "0.2.0"
