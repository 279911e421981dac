"""A report mail's subject names the phase reported on and what is due next, by
when, for this reader (issue 13: "titles and subjects name the next phase, not
the one reported on; say both")."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes
from email.policy import default

from sqlalchemy import select

from pbem.lifecycle.publishing import report_subject
from pbem.outbox.queue import open_outbound
from pbem.storage.models import OutboundMail, Phase

from .conftest import T0, Table
from .test_open_round import Keys, _mail, _tick


def _report_subjects(table: Table) -> dict[str, list[str]]:
    """Recipient -> the subjects of the reports mailed to him, oldest first."""

    def go(gm):  # type: ignore[no-untyped-def]
        rows = gm.desk.session.scalars(
            select(OutboundMail).where(OutboundMail.kind == "report").order_by(OutboundMail.id)
        )
        subjects: dict[str, list[str]] = {}
        for row in rows:
            msg = message_from_bytes(open_outbound(gm.desk.key, row), policy=default)
            subjects.setdefault(row.recipient, []).append(str(msg["Subject"]).strip())
        return subjects

    return dict(table.run(go))


def test_first_report_says_the_game_started_and_what_is_due(table: Table, demo_game: str) -> None:
    got = _report_subjects(table)
    deadline = (T0 + timedelta(hours=72)).strftime("%a %d %b %H:%M UTC")
    assert got["north@example.org"] == [
        f"[pbem g1] game started; next turn 1 plot, orders due {deadline}"
    ]


def test_a_phase_report_names_the_phase_reported_on_and_the_next(
    table: Table, demo_game: str, keys: Keys
) -> None:
    _mail(table, keys, "north", "SEND SQN-1 A")
    _mail(table, keys, "south", "SEND SQN-2 B")
    assert _tick(table) == ["adjudicated turn 1 phase plot: all orders in"]
    deadline = table.run(
        lambda gm: gm.desk.session.scalars(select(Phase).where(Phase.seq == 2)).one().deadline
    )
    due = deadline.strftime("%a %d %b %H:%M UTC")
    got = _report_subjects(table)["south@example.org"]
    assert got[-1] == f"[pbem g1] turn 1 plot report; next turn 2 plot, orders due {due}"
    assert len(got[-1]) <= 80  # fits a mail client's subject column


def test_subject_for_a_side_that_owes_nothing_an_observer_and_the_end() -> None:
    class Next:
        turn, name = 3, "A-3-4"

    previous = {"turn": 3, "phase": "J-2"}
    nxt = Next()
    assert (
        report_subject("c1", previous, nxt, deadline="x", owes=False, player=True)  # type: ignore[arg-type]
        == "[pbem c1] turn 3 J-2 report; next turn 3 A-3-4, no orders from you"
    )
    assert (
        report_subject("c1", previous, nxt, deadline="x", owes=False, player=False)  # type: ignore[arg-type]
        == "[pbem c1] turn 3 J-2 report; next turn 3 A-3-4"
    )
    assert (
        report_subject("c1", previous, None, deadline="", owes=False, player=True)
        == "[pbem c1] turn 3 J-2 report; game over"
    )
    assert report_subject("c1", None, None, deadline="", owes=False, player=True) == (
        "[pbem c1] game over"
    )
    corrected = {**previous, "correction": "Corrected report: it replaces ..."}
    assert report_subject("c1", corrected, nxt, deadline="x", owes=True, player=True) == (  # type: ignore[arg-type]
        "[pbem c1] turn 3 J-2 report (corrected); next turn 3 A-3-4, orders due x"
    )
