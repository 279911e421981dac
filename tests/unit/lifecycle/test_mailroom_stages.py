"""The mailroom's stages one at a time, at their seams: hygiene's rate limit, verify's
armoured blocks, attribution (address, replay), the orders act, the answer, the
moderator's notices. The whole way through the Mailroom: test_seat_keys,
test_moderator and the e2e pipeline tests."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pbem.config import IntakeConfig
from pbem.core.errors import IntakeError
from pbem.core.ruleset import LineError, Validation
from pbem.intake.mime import parse_mail
from pbem.intake.sheet import add_nonce, parse_sheet
from pbem.intake.signatures import find_blocks, sign_block
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import Answer, file_mail, notices, orders, refusal
from pbem.lifecycle.mailroom.attribute import Attribution
from pbem.lifecycle.mailroom.dispute import is_dispute
from pbem.lifecycle.mailroom.hygiene import Screen
from pbem.lifecycle.mailroom.keyring import SeatKeys
from pbem.lifecycle.mailroom.verify import verify_armoured
from pbem.storage.enums import OutboundKind
from pbem.storage.models import InboundMail, Seat


def _sheet(side: str, lines: list[str]) -> str:
    return add_nonce(f"Game: g1\nSide: {side}\nTurn: 1\nPhase: plot\n\n" + "\n".join(lines))


def _row(gm: GameMaster, text: str) -> InboundMail:
    raw = f"From: north@example.org\r\nSubject: orders\r\n\r\n{text}\r\n".encode()
    row = file_mail(gm.desk.session, "ref", raw, gm.desk.now, gm.desk.key)
    assert row is not None
    return row


# --- hygiene --------------------------------------------------------------------------


def test_the_rate_limit_counts_this_batch_and_spares_the_moderator(table, config) -> None:
    table.config = replace(config, intake=IntakeConfig(rate_limit=2))

    def go(gm: GameMaster) -> None:
        screen = Screen(gm.desk)
        assert [screen.within_rate_limit("a@example.org") for _ in range(3)] == [
            True,
            True,
            False,
        ]
        human = gm.desk.config.moderator.human
        assert all(screen.within_rate_limit(human) for _ in range(3))

    table.run(go)


# --- verify ---------------------------------------------------------------------------


def test_verify_refuses_a_mail_without_blocks_one_quoted_or_two(table, keys) -> None:
    block = sign_block(_sheet("north", ["SEND X A"]), keys["north"][0])
    quoted = "\n".join("> " + line for line in block.splitlines())

    def refusal_of(text: str) -> str:
        def go(gm: GameMaster) -> str:
            with pytest.raises(IntakeError) as caught:
                verify_armoured(find_blocks(text), SeatKeys(gm.desk.session), "")
            assert caught.value.code == "no-block"
            return caught.value.message

        return str(table.run(go))

    assert "no signed PBEM ORDERS block" in refusal_of("hello")
    assert "quoted from an earlier mail" in refusal_of(quoted)
    assert "holds 2 PBEM ORDERS blocks" in refusal_of(block + "\n" + block)


# --- attribute ------------------------------------------------------------------------


def test_attribution_takes_the_seat_from_its_address_and_a_signature_once(
    table, keys, demo_game
) -> None:
    block = sign_block(_sheet("north", ["SEND X A"]), keys["north"][0])

    def go(gm: GameMaster) -> None:
        seat_keys = SeatKeys(gm.desk.session)
        attribution = Attribution(gm.desk, seat_keys)
        verified = verify_armoured(find_blocks(block), seat_keys, "")
        sheet = parse_sheet(verified.text)
        row = _row(gm, block)
        with pytest.raises(IntakeError, match="under another address") as caught:
            attribution.attribute(row, "mallory@example.org", verified, sheet)
        assert caught.value.code == "wrong-address"
        signed = attribution.attribute(row, "North@Example.org", verified, sheet)
        assert signed.seat is not None and signed.seat.side == "north"
        assert (signed.sheet, signed.verified) == (sheet, verified)
        with pytest.raises(IntakeError) as again:
            attribution.attribute(row, "north@example.org", verified, sheet)
        assert again.value.code == "replay"

    table.run(go)


# --- act: orders ----------------------------------------------------------------------


def test_done_alone_with_nothing_on_file_seals_no_orders(table, demo_game) -> None:
    sheet = parse_sheet(_sheet("north", ["DONE"]))

    def go(gm: GameMaster) -> None:
        seat = gm.desk.session.get(Seat, gm.lookups.player("g1", "north").id)
        assert seat is not None
        reply = orders.take_orders(gm, _row(gm, "DONE"), sheet, seat)
        assert reply.outcome == "done: the orders on file stand"
        assert reply.to == "north@example.org"
        assert reply.answer.round == "done"
        assert reply.answer.notes == (
            "You had no orders on file: no orders (do nothing) are sealed.",
        )

    table.run(go)


def test_refused_lines_are_numbered_as_the_player_wrote_them() -> None:
    sheet = parse_sheet(_sheet("north", ["# plan", "SEND X A", "", "BOGUS"]))
    validation = Validation(("SEND X A",), (LineError(2, "BOGUS", "unknown order", "R1"),))
    refused = orders._refused(sheet, validation)
    assert refused == ({"line": 4, "text": "BOGUS", "message": "unknown order", "rule": "R1"},)
    assert not is_dispute(sheet)
    assert is_dispute(parse_sheet(_sheet("north", ["DISPUTE the dice"])))


# --- answer ---------------------------------------------------------------------------


def test_an_answer_renders_what_it_holds() -> None:
    answer = Answer(
        game="g1",
        side="north",
        turn=1,
        phase="plot",
        accepted=("SEND X A",),
        refused=({"line": 4, "text": "BOGUS", "message": "unknown order", "rule": ""},),
    )
    text = answer.text()
    assert "Game g1, north, turn 1 plot\n" in text
    assert "Accepted (1), as understood:\n  SEND X A" in text
    assert "line 4: BOGUS\n    -> unknown order" in text
    oversized = refusal.oversized(5000, 4000)
    assert oversized.outcome == "refused: oversized" and oversized.to is None
    assert "Your mail is 5000 bytes; the limit is 4000." in oversized.answer.text()


# --- notices --------------------------------------------------------------------------


def test_a_letter_forwarded_names_its_game_only_when_the_sender_plays_one(config) -> None:
    row = InboundMail(id=7, digest="d" * 64)
    mail = parse_mail(b"From: north@example.org\r\nSubject: hello\r\n\r\nHow are you?\r\n")
    one = [Seat(game_id="g1", side="north", role="player")]
    two = [*one, Seat(game_id="g2", side=None, role="observer")]
    letter = notices.forwarded(config, row, mail, one)
    assert (letter.kind, letter.to, letter.game_id) == (
        OutboundKind.NOTICE,
        config.moderator.human,
        "g1",
    )
    assert letter.cause == ("forward", row.digest)
    assert "How are you?" in letter.text and "north player in g1" in letter.text
    both = notices.forwarded(config, row, mail, two)
    assert both.game_id is None
    assert both.subject == "[pbem g1, g2] mail from north@example.org: hello"
    assert "observer (omniscient) of g2" in both.text
