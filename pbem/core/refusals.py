"""Order errors as a validator reports them.

A ruleset's parser raises ``OrderSyntaxError``, its rules ``IllegalOrderError`` or
``AmbiguousOrderError`` (pbem.core.errors); the validator catches each per line and
answers with ``line_error``, so every refused line reads the same way: its number,
its text, why, and the rule reference.
"""

from __future__ import annotations

from pbem.core.errors import OrderError
from pbem.core.ruleset import LineError


def line_error(number: int, text: str, error: OrderError) -> LineError:
    """The answer for order line ``number`` (1-based) refused with ``error``."""
    return LineError(number, text, error.message, error.rule)
