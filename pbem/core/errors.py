"""The pbem error tree.

PbemError
├── ConfigError          the configuration file or environment is wrong
├── DataError            scenario / map / table data refused by the loader
├── OrderError           one order line is wrong (carries line, text, rule)
│   ├── OrderSyntaxError     cannot be parsed
│   ├── IllegalOrderError    parses, but the rules forbid it (rule required)
│   └── AmbiguousOrderError  could mean more than one thing
├── IntakeError          a mail cannot be attributed, verified or used
│   └── SignatureError       signature missing, malformed or wrong
├── LifecycleError       a game command does not fit the game's state
├── TransportError       IMAP / SMTP / Maildir failure at the edge (retried)
└── AdjudicationError    a broken invariant in a ruleset: a bug, the phase aborts
"""

from __future__ import annotations


class PbemError(Exception):
    """Base of every error pbem raises on purpose."""


class ConfigError(PbemError):
    pass


class DataError(PbemError):
    """Bad scenario data. ``where`` names file and line or key."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


class OrderError(PbemError):
    def __init__(self, message: str, *, line: int = 0, text: str = "", rule: str | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.text = text
        self.rule = rule


class OrderSyntaxError(OrderError):
    pass


class IllegalOrderError(OrderError):
    rule: str

    def __init__(self, message: str, *, rule: str, line: int = 0, text: str = "") -> None:
        super().__init__(message, line=line, text=text, rule=rule)


class AmbiguousOrderError(OrderError):
    pass


class IntakeError(PbemError):
    """A mail that cannot be used. ``code`` selects the reply template."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class SignatureError(IntakeError):
    def __init__(self, message: str, code: str = "bad-signature") -> None:
        super().__init__(code, message)


class MailSignatureError(SignatureError):
    """A whole-mail signature (S/MIME, OpenPGP) refused: the player's mail program
    signed, so the hints for pasted PBEM ORDERS blocks do not apply."""


class LifecycleError(PbemError):
    pass


class TransportError(PbemError):
    pass


class AdjudicationError(PbemError):
    pass
