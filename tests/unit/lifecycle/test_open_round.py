"""A mail with refused lines keeps the round open for its side: the accepted lines
are sealed, but the phase is not adjudicated early until a corrected mail, a DONE
line or the deadline. The answer says which lines were refused and that the
round waits. (Issue 13; the same for every ruleset: the demo ruleset here.)"""

from __future__ import annotations

import email
import email.policy
import itertools
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import select

from pbem.intake.sheet import parse_sheet
from pbem.intake.signatures import sign_block
from pbem.lifecycle.mailroom import Mailroom, file_mail
from pbem.lifecycle.moderator import execute
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.storage.enums import PhaseStatus
from pbem.storage.models import InboundMail, OutboundMail, Phase, Plot

from .conftest import T0, Table

Keys = dict[str, tuple[bytes, str]]
_nonces = itertools.count(1)


def _mail(table: Table, keys: Keys, side: str, *orders: str) -> str:
    """Send ``side``'s signed order mail for turn 1 through the mailroom; its answer."""
    number = next(_nonces)
    sheet = (
        f"Game: g1\nSide: {side}\nTurn: 1\nPhase: plot\nNonce: nonce{number:08d}\n\n"
        + "\n".join(orders)
        + "\n"
    )
    msg = EmailMessage()
    msg["From"] = f"{side}@example.org"
    msg["To"] = "moderator@pbem.example"
    msg["Subject"] = "orders"
    msg["Message-ID"] = f"<m{number}@example.org>"
    msg.set_content(sign_block(sheet, keys[side][0]))

    def go(gm):  # type: ignore[no-untyped-def]
        row = file_mail(gm.desk.session, f"ref{number}", msg.as_bytes(), gm.desk.now, gm.desk.key)
        assert row is not None
        Mailroom(gm).process(row)
        out = gm.desk.session.scalars(
            select(OutboundMail)
            .where(OutboundMail.kind == "answer")
            .order_by(OutboundMail.id.desc())
            .limit(1)
        ).one()
        parsed = email.message_from_bytes(
            open_outbound(gm.desk.key, out), policy=email.policy.default
        )
        assert isinstance(parsed, EmailMessage)
        body = parsed.get_body(("plain",))
        assert body is not None
        return " ".join(str(body.get_content()).split())

    return str(table.run(go))


def _tick(table: Table) -> list[str]:
    return list(table.run(lambda gm: gm.clock.tick("g1")))


def _first_phase_status(table: Table) -> PhaseStatus:
    def go(gm):  # type: ignore[no-untyped-def]
        return gm.desk.session.scalars(select(Phase).where(Phase.seq == 1)).one().status

    return PhaseStatus(table.run(go))


def _orders_used(table: Table, side: str) -> list[str]:
    def go(gm):  # type: ignore[no-untyped-def]
        done = [
            e for e in journal.entries(gm.desk.session, "g1") if e["kind"] == "phase-adjudicated"
        ]
        return done[0]["payload"]["plots"][side]["orders"]

    return list(table.run(go))


@pytest.fixture
def south_in(table: Table, demo_game: str, keys: Keys) -> None:
    """g1 (early adjudication) with south's clean orders sealed: north completes the round."""
    assert "round waits" not in _mail(table, keys, "south", "SEND SQN-2 B")
    assert _tick(table) == []


def test_refused_line_does_not_close_the_round(table: Table, south_in: None, keys: Keys) -> None:
    answer = _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-9 B")
    assert "Accepted (1)" in answer and "line 2: SEND SQN-9 B" in answer
    assert "The round waits for you: line 2 was refused" in answer
    assert "a mail with the single line DONE" in answer and "Deadline:" in answer
    assert _tick(table) == []
    assert _first_phase_status(table) == PhaseStatus.OPEN
    assert table.run(lambda gm: gm.lookups.who_holds(gm.lookups.open_phase("g1"))) == {
        "north": True,
        "south": False,
    }


def test_corrected_mail_closes_the_round(table: Table, south_in: None, keys: Keys) -> None:
    _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-9 B")
    answer = _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-3 B")
    assert "round waits" not in answer and "replace the set you sent before" in answer
    assert _tick(table) == ["adjudicated turn 1 phase plot: all orders in"]
    assert _orders_used(table, "north") == ["SEND SQN-1 A", "SEND SQN-3 B"]


def test_done_alone_lets_the_accepted_orders_stand(
    table: Table, south_in: None, keys: Keys
) -> None:
    first = _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-9 B")
    commitment = first.split("Commitment: ")[1].split()[0]
    answer = _mail(table, keys, "north", "done")
    assert "DONE. The orders you sent before stand as sealed" in answer
    assert f"Commitment: {commitment}" in answer and "round no longer waits" in answer
    assert _tick(table) == ["adjudicated turn 1 phase plot: all orders in"]
    assert _orders_used(table, "north") == ["SEND SQN-1 A"]
    done = [e["payload"] for e in _record(table) if e["kind"] == "done-said"]
    assert done == [{"phase_seq": 1, "side": "north", "commitment": commitment, "stood": True}]


def _record(table: Table) -> list[dict[str, Any]]:
    return list(table.run(lambda gm: journal.entries(gm.desk.session, "g1")))


def test_done_in_the_mail_itself_closes_the_round(table: Table, south_in: None, keys: Keys) -> None:
    answer = _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-9 B", "DONE")
    assert "line 2: SEND SQN-9 B" in answer and "round waits" not in answer
    assert "round no longer waits" in answer
    assert _tick(table) == ["adjudicated turn 1 phase plot: all orders in"]
    assert _orders_used(table, "north") == ["SEND SQN-1 A"]


def test_the_deadline_closes_a_held_round(table: Table, south_in: None, keys: Keys) -> None:
    _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-9 B")
    table.now = T0 + timedelta(hours=71, minutes=59)
    assert _tick(table) == ["reminded north"]  # held: a correction or DONE is still due
    table.now = T0 + timedelta(hours=72)  # the deadline, not the end of grace
    assert _tick(table) == ["adjudicated turn 1 phase plot: all orders in"]
    assert _orders_used(table, "north") == ["SEND SQN-1 A"]


def test_a_held_side_is_reminded_and_shown_held(table: Table, south_in: None, keys: Keys) -> None:
    """A side whose mail had refused lines owes a correction or DONE: the reminder
    goes to it, and the moderator's STATUS says "held", not "in"."""
    _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-9 B")
    status = table.run(lambda gm: execute(gm, "STATUS g1"))
    assert "north: held" in status and "south: in" in status
    table.now = T0 + timedelta(hours=71, minutes=59)
    assert _tick(table) == ["reminded north"]
    _mail(table, keys, "north", "DONE")
    status = table.run(lambda gm: execute(gm, "STATUS g1"))
    assert "north: in" in status and "held" not in status


def test_all_refused_seals_nothing_and_says_no_more(
    table: Table, south_in: None, keys: Keys
) -> None:
    """Probing stays possible (it is how a player corrects); it changes nothing."""
    answer = _mail(table, keys, "north", "SEND SQN-9 B")
    assert "Nothing was sealed: every order was refused" in answer and "Receipt" not in answer
    assert _tick(table) == []
    answer = _mail(table, keys, "north", "SEND SQN-9 B", "DONE")
    assert "so DONE was not applied" in answer
    assert _tick(table) == []
    assert table.run(lambda gm: len(gm.desk.session.scalars(select(Plot)).all())) == 1


def test_clean_mail_still_closes_the_round_at_once(
    table: Table, south_in: None, keys: Keys
) -> None:
    answer = _mail(table, keys, "north", "SEND SQN-1 A")
    assert "round waits" not in answer and "DONE" not in answer
    assert _tick(table) == ["adjudicated turn 1 phase plot: all orders in"]


def test_done_with_nothing_on_file_seals_no_orders(
    table: Table, demo_game: str, keys: Keys
) -> None:
    answer = _mail(table, keys, "north", "DONE")
    assert "You had no orders on file" in answer
    assert table.run(lambda gm: gm.lookups.who_has_plotted(gm.lookups.open_phase("g1")))["north"]
    outcomes = table.run(
        lambda gm: [r.outcome for r in gm.desk.session.scalars(select(InboundMail))]
    )
    assert outcomes == ["done: the orders on file stand"]
    kinds = [e["kind"] for e in _record(table)]
    assert kinds[-2:] == ["orders-sealed", "done-said"]  # an empty plot sealed, then DONE
    said = _record(table)[-1]["payload"]
    assert not said["stood"] and said["commitment"] == _record(table)[-2]["payload"]["commitment"]


def test_done_is_a_sheet_directive_not_an_order() -> None:
    sheet = parse_sheet("Game: g\nSide: north\nTurn: 1\nPhase: p\nNonce: n1234567\n\nA\nDone\n")
    assert sheet.done and sheet.lines == ((1, "A"),)
    plain = parse_sheet("Game: g\nSide: north\nTurn: 1\nPhase: p\nNonce: n1234567\n\nA DONE\n")
    assert not plain.done and plain.lines == ((1, "A DONE"),)
    command = parse_sheet("Game: g\nSide: moderator\nTurn: 1\nPhase: p\nNonce: n1234567\n\nDONE\n")
    assert not command.done and command.lines == ((1, "DONE"),)


def test_refused_lines_after_the_deadline_hold_nothing(
    table: Table, south_in: None, keys: Keys
) -> None:
    """Within grace a late mail completes the round at once, refused lines or not."""
    table.now = T0 + timedelta(hours=73)
    answer = _mail(table, keys, "north", "SEND SQN-1 A", "SEND SQN-9 B")
    assert "line 2: SEND SQN-9 B" in answer and "round waits" not in answer
    assert _tick(table) == ["adjudicated turn 1 phase plot: all orders in"]
