"""The order sheet: header lines naming game, side, turn and phase, then orders.

::

    Game: coral-1
    Side: allied
    Turn: 1
    Phase: A-3
    Nonce: 5b1c0e7a9d2f4e11

    MOVE CV-5 0790 0791
    # comments start with '#'

The header is the run of ``Name: value`` lines at the top (comment lines may
sit among them); it ends at the first blank line or the first line of another
shape. The canonical signed text has no blank lines, so the shape alone must
be enough. Every header is required exactly once: the Nonce makes each signed
sheet unique, so the digest of its signature can serve as the replay key even
when a player sends the same orders twice.

A line ``DONE`` alone (any case) in the order part is not an order: it says
"my orders stand as accepted" and closes the round for the side even if some
lines were refused (without it, refused lines keep the round open for a
corrected mail until the deadline). It is the same for every ruleset.

``Side: moderator`` sheets carry moderator commands in the same format. The
parser does not know which sides a game has (that is the ruleset's business,
and the seat check compares the side with the sender's seat); pass ``sides``
to restrict it, e.g. ``pbem.core.sides.SIDES``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Collection
from dataclasses import dataclass

from pbem.core.errors import IntakeError

__all__ = ["DONE", "HEADERS", "MODERATOR", "OrderSheet", "add_nonce", "parse_sheet"]

# Canonical spelling and order of the header names.
HEADERS = ("Game", "Side", "Turn", "Phase", "Nonce")
DONE = "DONE"  # the order-part line that closes the round for the side
MODERATOR = "moderator"  # the side name of moderator command sheets

_HEADER_LINE = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):\s*(.*?)\s*$")
_SIDE = re.compile(r"^[a-z][a-z0-9-]*$")
_GAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_PHASE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]*$")
# Long enough that two sheets of one player never collide by accident.
_NONCE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_NONCE_BYTES = 8  # randomness in a generated nonce: 16 hex digits


@dataclass(frozen=True)
class OrderSheet:
    """A parsed order sheet.

    ``lines`` holds (line number, text) for each order line; numbers are
    1-based within the order part and count blank and comment lines, which
    are dropped, so a reply can point at the line the player wrote.
    ``done`` is whether a ``DONE`` line was among them (it is not in ``lines``).
    """

    game: str
    side: str
    turn: int
    phase: str
    nonce: str
    lines: tuple[tuple[int, str], ...]
    done: bool = False


def _bad(message: str) -> IntakeError:
    return IntakeError("bad-sheet", message)


def _split(text: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Split a sheet into its header (name, value) pairs and the order-part lines."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    headers: list[tuple[str, str]] = []
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1  # leading blank lines
    while index < len(lines):
        line = lines[index].strip()
        if not line:
            index += 1  # the blank line that ends the header belongs to neither part
            break
        if line.startswith("#"):
            index += 1
            continue
        match = _HEADER_LINE.match(line)
        if match is None:
            break
        headers.append((match.group(1), match.group(2)))
        index += 1
    order_part = lines[index:]
    if order_part and order_part[-1] == "":
        order_part.pop()  # the final newline does not start another line
    return headers, order_part


def parse_sheet(text: str, *, sides: Collection[str] | None = None) -> OrderSheet:
    """Parse a (verified, canonical) sheet text; ``IntakeError("bad-sheet", ...)`` if wrong.

    With ``sides``, the Side header must name one of them or ``moderator``.
    """
    headers, order_part = _split(text)
    values: dict[str, str] = {}
    known = {name.lower(): name for name in HEADERS}
    for name, value in headers:
        canonical_name = known.get(name.lower())
        if canonical_name is None:
            raise _bad(f"unknown header {name!r} (the headers are {', '.join(HEADERS)})")
        if canonical_name in values:
            raise _bad(f"duplicate header {canonical_name!r}")
        if not value:
            raise _bad(f"header {canonical_name!r} has no value")
        values[canonical_name] = value
    missing = [name for name in HEADERS if name not in values]
    if missing:
        raise _bad(f"missing header{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")

    game = values["Game"]
    if not _GAME.match(game):
        raise _bad(f"Game must be a game name such as coral-1, not {game!r}")
    side = values["Side"].lower()
    if not _SIDE.match(side):
        raise _bad(f"Side must be a side name such as allied, not {values['Side']!r}")
    if sides is not None and side != MODERATOR and side not in sides:
        names = ", ".join((*sides, MODERATOR))
        raise _bad(f"Side must be one of {names}, not {values['Side']!r}")
    turn_text = values["Turn"]
    if not turn_text.isascii() or not turn_text.isdigit():
        raise _bad(f"Turn must be a whole number, not {turn_text!r}")
    turn = int(turn_text)
    if turn < 1:
        raise _bad(f"Turn must be 1 or more, not {turn}")
    phase = values["Phase"]
    if not _PHASE.match(phase):
        raise _bad(f"Phase must be a phase name such as A-3, not {phase!r}")
    nonce = values["Nonce"]
    if not _NONCE.match(nonce):
        raise _bad(f"Nonce must be 8 to 64 letters, digits, '-' or '_', not {nonce!r}")

    written = [
        (number, line.strip())
        for number, line in enumerate(order_part, start=1)
        if line.strip() and not line.strip().startswith("#")
    ]
    # Moderator sheets carry commands, never a round to close.
    done = side != MODERATOR and any(text.upper() == DONE for _, text in written)
    orders = tuple(
        (number, text) for number, text in written if not (done and text.upper() == DONE)
    )
    return OrderSheet(
        game=game, side=side, turn=turn, phase=phase, nonce=nonce, lines=orders, done=done
    )


def add_nonce(text: str) -> str:
    """Return ``text`` with a fresh random ``Nonce:`` header if it has none.

    The nonce goes after the last header line, so the blank line separating
    header and orders stays where the player put it.
    """
    headers, _ = _split(text)
    if any(name.lower() == "nonce" for name, _ in headers):
        return text
    nonce = secrets.token_hex(_NONCE_BYTES)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    last_header = -1
    seen = 0
    for index, line in enumerate(lines):
        if seen == len(headers):
            break
        if _HEADER_LINE.match(line.strip()) and not line.strip().startswith("#"):
            last_header = index
            seen += 1
    lines.insert(last_header + 1, f"Nonce: {nonce}")
    return "\n".join(lines)
