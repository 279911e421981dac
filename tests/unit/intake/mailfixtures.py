"""Shared access to the hand-written mail fixtures in tests/fixtures/mail."""

from __future__ import annotations

from pathlib import Path

FIXTURE_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "mail"

# The armoured order block pasted into most fixtures. Its format is only an
# illustration for MIME tests; the real armour belongs to intake/signatures.
ARMOURED_BLOCK = (
    "-----BEGIN PBEM ORDERS-----",
    "Game: usn-demo",
    "Side: allied",
    "Turn: 3 Phase: allied-movement",
    "CV Enterprise: move 1205 1306 1407",
    "BB Nevada: stay",
    "-----BEGIN PBEM SIGNATURE-----",
    "q6x3ZbQk3o0r6qz8d0y1S0m3VgX7tH2cWm9e7pJ4yLk=",
    "-----END PBEM ORDERS-----",
)


def fixture(name: str) -> bytes:
    return (FIXTURE_DIR / f"{name}.eml").read_bytes()


def all_fixture_names() -> list[str]:
    return sorted(p.stem for p in FIXTURE_DIR.glob("*.eml"))


def contains_block(text: str) -> bool:
    """The block appears as consecutive, identical lines."""
    lines = text.split("\n")
    n = len(ARMOURED_BLOCK)
    return any(tuple(lines[i : i + n]) == ARMOURED_BLOCK for i in range(len(lines) - n + 1))
