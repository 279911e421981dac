"""The moderator's season tools (pbem.lifecycle.season) through ``moderator.execute``,
the one entry point of mail and CLI alike."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle import moderator
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.record.archive import export, verify_archive
from pbem.storage.enums import OutboundKind
from pbem.storage.models import Game, OutboundMail, RecordEntry, Report, Seat
from tests.e2e.helpers import body_text, parse
from tests.unit.lifecycle.conftest import Table


def run(table: Table, line: str) -> str:
    return str(table.run(lambda gm: moderator.execute(gm, line)))


def refused(table: Table, line: str) -> str:
    with pytest.raises(LifecycleError) as caught:
        run(table, line)
    return str(caught.value)


def notices(table: Table, to: str, part: str = "plain") -> list[str]:
    with table.sessions() as s:
        rows = s.scalars(
            select(OutboundMail).where(
                OutboundMail.recipient == to, OutboundMail.kind == OutboundKind.NOTICE
            )
        ).all()
        key = table.config.secrets.key_bytes()
        mails = [parse(open_outbound(key, r)) for r in rows]
    if part == "html":
        return [str(m.get_body(("html",)).get_content()) for m in mails]  # type: ignore[union-attr]
    return [f"Subject: {m['Subject']}\n\n{body_text(m)}" for m in mails]


def test_list_names_the_late_side_once_the_deadline_passed(table: Table, demo_game: str) -> None:
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    before = run(table, "LIST")
    assert "g1 (demo duel): running, turn 1 plot" in before
    assert "awaiting: south" in before and "LATE" not in before
    table.now += timedelta(days=30)
    after = run(table, "LIST")
    assert "LATE: south" in after and "north" not in after.split("LATE")[1]


def test_seats_shows_addresses_keys_zones_and_retired_players(
    table: Table, demo_game: str, keys: dict[str, tuple[bytes, str]]
) -> None:
    _, new_key = generate_keypair("south2")
    table.run(
        lambda gm: gm.acts.replace_player(
            "g1", "south", "south2@example.org", public_key=new_key, timezone="Asia/Tokyo"
        )
    )
    seats = run(table, "SEATS g1")
    assert "north player: north@example.org, key ed25519 SHA256:" in seats
    assert "south player: south2@example.org" in seats and "time zone Asia/Tokyo" in seats
    assert "south@example.org" in seats and "[retired" in seats
    assert refused(table, "SEATS nope") == "no game 'nope'"


def test_disputes_open_and_ruled_per_game(table: Table, demo_game: str) -> None:
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.phases.adjudicate_now("g1"))
    table.run(lambda gm: gm.disputes.file("g1", "south", 1, "plot", "DISPUTE the dice\nwhy"))
    table.run(lambda gm: gm.disputes.file("g1", "north", 1, "plot", "DISPUTE me too"))
    run(table, "RULE g1 1 DISMISSED the dice were fair")
    listed = run(table, "DISPUTES g1")
    assert "g1: 1 open, 1 ruled" in listed
    assert "#1 DISMISSED by south on turn 1 plot" in listed
    assert "ruling: the dice were fair" in listed and "#2 OPEN by north" in listed
    assert run(table, "DISPUTES").startswith("g1: 1 open, 1 ruled")


def test_status_of_a_finished_game_gives_its_outcome(table: Table, demo_game: str) -> None:
    run(table, "END g1 north conceded")
    assert run(table, "STATUS g1") == ("g1: over; outcome: ended by the moderator: north conceded")
    assert "outcome: ended by the moderator: north conceded" in run(table, "LIST")


def test_message_goes_to_one_side_or_all_and_is_recorded(table: Table, demo_game: str) -> None:
    run(table, "OBSERVE g1 watch@example.org")
    answer = run(table, "MESSAGE g1 south 'Turn 2 waits for you'")
    assert answer == "message to south of g1 mailed to south@example.org"
    assert any("Turn 2 waits for you" in m for m in notices(table, "south@example.org"))
    assert notices(table, "north@example.org") == []
    run(table, "MESSAGE g1 all Holiday: deadlines move a week")
    for who in ("north@example.org", "south@example.org", "watch@example.org"):
        assert any("Holiday: deadlines move a week" in m for m in notices(table, who))
    assert "no side 'east'" in refused(table, "MESSAGE g1 east hello")
    with table.sessions() as s:
        kinds = [e["kind"] for e in journal.entries(s, "g1")]
    assert kinds.count("moderator-message") == 2


def test_resend_mails_the_stored_report_marked_as_a_copy(table: Table, demo_game: str) -> None:
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.phases.adjudicate_now("g1"))
    answer = run(table, "RESEND g1 south 1 plot")
    assert "resent to south@example.org" in answer
    with table.sessions() as s:
        first = s.scalars(
            select(Report).where(Report.audience == "south").order_by(Report.id)
        ).first()
        assert first is not None
        original = first.text
    (copy,) = notices(table, "south@example.org")
    assert "RESENT at the moderator's request" in copy and "Subject: [pbem g1] RESENT:" in copy
    assert original.splitlines()[0] in copy
    (html,) = notices(table, "south@example.org", part="html")
    assert re.search(r"<body[^>]*><p><b>RESENT at the moderator's request", html)
    assert "no report to south of g1 for turn 9" in refused(table, "RESEND g1 south 9")


def test_set_changes_settings_with_a_reason_and_refuses_the_rest(
    table: Table, demo_game: str
) -> None:
    answer = run(table, "SET g1 grace_hours=2 max_pauses=5 holiday week")
    assert answer.startswith("g1: grace_hours=2.0, max_pauses=5 (holiday week)")
    with table.sessions() as s:
        game = s.get(Game, "g1")
        assert game is not None and game.settings["grace_hours"] == 2.0
        last = journal.entries(s, "g1")[-1]
    assert last["kind"] == "settings-changed" and last["payload"]["reason"] == "holiday week"
    assert "must be above 0" in refused(table, "SET g1 deadline_hours=-4")
    assert "not a valid value" in refused(table, "SET g1 deadline_hours=nan")
    assert "unknown no-orders policy" in refused(table, "SET g1 no_orders_policy=pray")
    nope = refused(table, "SET g1 colour=red")
    assert "SET cannot change 'colour'; it takes: deadline_hours" in nope
    assert "usage: SET game" in refused(table, "SET g1 only a reason")


def test_set_options_before_start_only_and_verify_follows(table: Table, tmp_path: Path) -> None:
    run(table, "CREATE u1 usn coral-sea")
    assert "fog='double-blind'" in run(table, "SET u1 fog=double-blind players asked")
    assert "fog takes" in refused(table, "SET u1 fog=thick")
    for side in ("japanese", "allied"):
        table.run(
            lambda gm, side=side: gm.acts.assign(
                "u1", side, f"{side}@example.org", public_key=generate_keypair(side)[1]
            )
        )
    run(table, "START u1")
    assert "in effect since START" in refused(table, "SET u1 fog=open")
    with table.sessions() as s:
        out = export(s, "u1", tmp_path / "u1", unfinished=True)
    result = verify_archive(out)
    assert result.ok, result.problems


def test_delete_only_a_game_not_started(table: Table, demo_game: str) -> None:
    assert "only a game not started is deleted" in refused(table, "DELETE g1")
    run(table, "CREATE g2 demo duel")
    run(table, "OBSERVE g2 watch@example.org")
    assert run(table, "DELETE g2") == "game g2 deleted with its 1 seat(s) and 2 record entries"
    with table.sessions() as s:
        assert s.get(Game, "g2") is None
        assert not s.scalars(select(RecordEntry).where(RecordEntry.game_id == "g2")).all()
    assert "created" in run(table, "CREATE g2 demo duel")  # the name is free again


def test_observers_one_copy_each_and_unobserve(table: Table, demo_game: str) -> None:
    run(table, "OBSERVE g1 Watch@example.org north")
    run(table, "OBSERVE g1 watch@example.org north")  # again: nothing changes
    assert "UNOBSERVE it first" in refused(table, "OBSERVE g1 watch@example.org south")
    with table.sessions() as s:
        seats = s.scalars(select(Seat).where(Seat.email == "watch@example.org")).all()
    assert len(seats) == 1
    assert run(table, "UNOBSERVE g1 watch@example.org") == "watch@example.org no longer observes g1"
    assert "does not observe" in refused(table, "UNOBSERVE g1 watch@example.org")
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.phases.adjudicate_now("g1"))
    with table.sessions() as s:
        to_watch = s.scalars(
            select(OutboundMail).where(
                OutboundMail.recipient == "watch@example.org",
                OutboundMail.kind == OutboundKind.REPORT,
            )
        ).all()
    assert to_watch == []


def test_audit_lists_the_moderators_acts_only(table: Table, demo_game: str) -> None:
    table.run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"]))
    run(table, "EXTEND g1 2")
    run(table, "PAUSE g1 flu")
    run(table, "RESUME g1")
    run(table, "SET g1 grace_hours=3 because")
    audit = run(table, "AUDIT g1")
    lines = audit.splitlines()
    assert lines[0] == "g1: 8 act(s) of the moderator"
    for act in ("CREATE demo duel", "ASSIGN north", "START", "EXTEND by 2 h", "PAUSE: flu"):
        assert any(act in line for line in lines), act
    assert "SET grace_hours" in lines[-1] and "(because)" in lines[-1]
    assert "orders-sealed" not in audit and "phase-opened" not in audit
    assert run(table, "AUDIT").startswith("g1: 8 act(s)")
