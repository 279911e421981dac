"""The order sheet: header lines, numbered order lines, and the errors players see."""

from __future__ import annotations

import pytest

from pbem.core.errors import IntakeError
from pbem.core.sides import SIDES as USN_SIDES
from pbem.intake.sheet import OrderSheet, add_nonce, parse_sheet
from pbem.intake.signatures import canonical_orders

SHEET = """Game: coral-1
Side: allied
Turn: 1
Phase: A-3
Nonce: 5b1c0e7a9d2f4e11

MOVE CV-5 0790 0791
# comments start with '#'

MOVE BB-2 0688 0689
"""


def test_parse_sheet_headers_and_numbered_lines() -> None:
    sheet = parse_sheet(SHEET)
    assert sheet == OrderSheet(
        game="coral-1",
        side="allied",
        turn=1,
        phase="A-3",
        nonce="5b1c0e7a9d2f4e11",
        lines=((1, "MOVE CV-5 0790 0791"), (4, "MOVE BB-2 0688 0689")),
    )


def test_parse_sheet_of_the_canonical_signed_text() -> None:
    """The signed canonical text has no blank lines: the header ends by its shape."""
    sheet = parse_sheet(canonical_orders(SHEET))
    assert (sheet.game, sheet.side, sheet.turn, sheet.phase) == ("coral-1", "allied", 1, "A-3")
    assert sheet.lines == ((1, "MOVE CV-5 0790 0791"), (3, "MOVE BB-2 0688 0689"))


def test_parse_sheet_header_names_are_case_insensitive_and_side_is_lowercased() -> None:
    text = SHEET.replace("Side: allied", "side: Japanese").replace("Turn: 1", "TURN:12")
    sheet = parse_sheet(text)
    assert (sheet.side, sheet.turn) == ("japanese", 12)


def test_parse_sheet_moderator_side() -> None:
    sheet = parse_sheet(SHEET.replace("Side: allied", "Side: moderator"))
    assert sheet.side == "moderator"


def test_parse_sheet_restricted_to_the_games_sides() -> None:
    assert parse_sheet(SHEET, sides=USN_SIDES).side == "allied"
    assert parse_sheet(SHEET.replace("allied", "moderator"), sides=USN_SIDES).side == "moderator"
    with pytest.raises(IntakeError, match="Side must be one of japanese, allied, moderator"):
        parse_sheet(SHEET.replace("Side: allied", "Side: axis"), sides=USN_SIDES)
    assert parse_sheet(SHEET.replace("Side: allied", "Side: north")).side == "north"


def test_parse_sheet_comment_lines_among_headers() -> None:
    text = "# my orders\n" + SHEET.replace("Turn: 1\n", "Turn: 1\n# phase next\n")
    assert parse_sheet(text).phase == "A-3"


def test_parse_sheet_without_orders_is_an_empty_sheet() -> None:
    assert parse_sheet(SHEET.split("\n\n")[0]).lines == ()


def test_header_shaped_line_in_the_order_part_is_an_order() -> None:
    sheet = parse_sheet(SHEET + "Note: this is an order line\n")
    assert sheet.lines[-1] == (5, "Note: this is an order line")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (SHEET.replace("Turn: 1\n", ""), "missing header: Turn"),
        (
            SHEET.replace("Game: coral-1\n", "").replace("Nonce: 5b1c0e7a9d2f4e11\n", ""),
            "missing headers: Game, Nonce",
        ),
        (SHEET.replace("Turn: 1\n", "Turn: 1\nturn: 2\n"), "duplicate header 'Turn'"),
        (SHEET.replace("Turn: 1\n", "Turn: 1\nPassword: hunter2\n"), "unknown header 'Password'"),
        (SHEET.replace("Turn: 1", "Turn: one"), "Turn must be a whole number, not 'one'"),
        (SHEET.replace("Turn: 1", "Turn: -1"), "Turn must be a whole number, not '-1'"),
        (SHEET.replace("Turn: 1", "Turn: 0"), "Turn must be 1 or more"),
        (SHEET.replace("Turn: 1", "Turn: ١"), "Turn must be a whole number"),
        (SHEET.replace("Side: allied", "Side: the allies"), "Side must be a side name"),
        (SHEET.replace("Game: coral-1", "Game: coral 1"), "Game must be a game name"),
        (SHEET.replace("Phase: A-3", "Phase: A 3"), "Phase must be a phase name"),
        (SHEET.replace("5b1c0e7a9d2f4e11", "abc"), "Nonce must be 8 to 64"),
        (SHEET.replace("Phase: A-3", "Phase:"), "header 'Phase' has no value"),
        ("MOVE CV-5 0790 0791\n", "missing headers"),
    ],
)
def test_parse_sheet_refuses_bad_headers(text: str, message: str) -> None:
    with pytest.raises(IntakeError) as caught:
        parse_sheet(text)
    assert caught.value.code == "bad-sheet"
    assert message in caught.value.message


def test_add_nonce_inserts_after_the_headers() -> None:
    text = SHEET.replace("Nonce: 5b1c0e7a9d2f4e11\n", "")
    with_nonce = add_nonce(text)
    lines = with_nonce.split("\n")
    assert lines[:4] == ["Game: coral-1", "Side: allied", "Turn: 1", "Phase: A-3"]
    assert lines[4].startswith("Nonce: ") and len(lines[4]) == len("Nonce: ") + 16
    assert lines[5:] == text.split("\n")[4:]
    assert parse_sheet(with_nonce).nonce == lines[4].removeprefix("Nonce: ")
    assert add_nonce(text) != with_nonce  # fresh each time


def test_add_nonce_leaves_an_existing_nonce() -> None:
    assert add_nonce(SHEET) == SHEET
