"""The moderator's reads kept in the audit store (``moderator_reads``): by CLI and
by mail, in the command's transaction, shown by AUDIT, never in a game's record
nor in its exported archive, and naming no local user or host."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from pbem.lifecycle import moderator, readlog
from pbem.record import archive
from pbem.storage.models import ModeratorRead
from tests.unit.lifecycle.test_moderator import _mail, _sheet
from tests.unit.lifecycle.test_moderator_desk import CLI, config, do, entries, umpire_key

__all__ = ["config", "umpire_key"]  # the fixtures, shared with the desk's tests

READS = ("STATUS g1", "SEATS g1", "AUDIT g1", "DISPUTES g1", "KEY g1 north LIST", "LIST")


def kept(table) -> list[tuple[str | None, str, str, str, str, str]]:  # type: ignore[no-untyped-def]
    """(game, command, line, via, by, origin) of every read on file, oldest first."""

    def read(gm):  # type: ignore[no-untyped-def]
        rows = gm.desk.session.scalars(select(ModeratorRead).order_by(ModeratorRead.id))
        return [(r.game_id, r.command, r.line, r.via, r.by, r.origin) for r in rows]

    return table.run(read)


def test_cli_reads_are_kept_without_user_or_host_and_acts_are_not(table, demo_game):  # type: ignore[no-untyped-def]
    for line in READS:
        do(table, line, CLI)
    do(table, "PAUSE g1 rain", CLI)  # an act: in the record, not among the reads
    do(table, "STATUS g1")  # no actor (the lifecycle's own callers): nothing to keep
    rows = kept(table)
    assert [(game, command, line) for game, command, line, *_ in rows] == [
        ("g1", "STATUS", "STATUS g1"),
        ("g1", "SEATS", "SEATS g1"),
        ("g1", "AUDIT", "AUDIT g1"),
        ("g1", "DISPUTES", "DISPUTES g1"),
        ("g1", "KEY", "KEY g1 north LIST"),
        (None, "LIST", "LIST"),
    ]
    assert {tuple(r[3:]) for r in rows} == {("cli", "moderator", "command line")}
    assert "alice" not in repr(rows) and "desk-pc" not in repr(rows)
    assert [
        e["payload"]["command"] for e in entries(table) if e["kind"] == "moderator-command"
    ] == ["PAUSE"]


def test_audit_shows_the_reads_of_a_game_and_those_of_none(table, demo_game):  # type: ignore[no-untyped-def]
    do(table, "SEATS g1", CLI)
    do(table, "LIST", CLI)
    of_g1 = do(table, "AUDIT g1")
    assert "g1: 1 read(s), not in the record" in of_g1
    assert "UTC SEATS g1 by moderator by cli (command line)" in of_g1
    assert "LIST" not in of_g1
    everything = do(table, "AUDIT")
    assert "no one game: 1 read(s)" in everything
    assert "UTC LIST by moderator by cli (command line)" in everything


def test_mail_reads_are_kept_with_sender_and_message_id_even_in_a_refused_mail(
    table, demo_game, umpire_key
):  # type: ignore[no-untyped-def]
    sender, key = "umpire@example.org", umpire_key[0]
    outcome, _ = _mail(table, sender, key, _sheet("moderator", 1, ["STATUS g1", "LIST"]))
    assert outcome == "moderator: 2 done"
    # A mail refused at its second line: its PAUSE is undone, its read (answered) kept.
    outcome, answer = _mail(
        table, sender, key, _sheet("moderator", 1, ["SEATS g1", "PAUSE g1 rain", "ROLLBACK g1 9 x"])
    )
    assert "line 3 failed" in outcome and "north@example.org" in answer
    rows = kept(table)
    assert [(r[0], r[2], r[3], r[4]) for r in rows] == [
        ("g1", "STATUS g1", "mail", sender),
        (None, "LIST", "mail", sender),
        ("g1", "SEATS g1", "mail", sender),
    ]
    origins = [r[5] for r in rows]
    assert all(o.startswith("<") and o.endswith("@example.org>") for o in origins)
    assert origins[0] == origins[1] != origins[2]  # one Message-ID per mail
    assert "paused" not in do(table, "STATUS g1")


def test_the_exported_archive_holds_no_read(table, demo_game, tmp_path: Path):  # type: ignore[no-untyped-def]
    for line in ("SEATS g1", "DISPUTES g1", "AUDIT g1"):
        do(table, line, moderator.Actor(by="umpire@example.org", via="mail", origin="<r@x>"))
    do(table, "END g1 the season is over", CLI)
    assert len(kept(table)) == 3
    out = table.run(lambda gm: archive.export(gm.desk.session, "g1", tmp_path / "archive"))
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "record.jsonl" for p in files)
    for path in files:
        text = path.read_text(errors="replace")
        for word in ("SEATS", "DISPUTES", "AUDIT", "<r@x>"):
            assert word not in text, (path.name, word)


def test_audit_lists_the_newest_reads_and_counts_them_all(table, demo_game, monkeypatch):  # type: ignore[no-untyped-def]
    """A season's reads grow without end: AUDIT shows the newest SHOWN, oldest first,
    and says how many there are."""
    monkeypatch.setattr(readlog, "SHOWN", 2)
    for line in ("STATUS g1", "SEATS g1", "DISPUTES g1"):
        do(table, line, CLI)
    of_g1 = do(table, "AUDIT g1")
    assert "g1: 3 read(s), not in the record; the newest 2 below" in of_g1
    assert "UTC STATUS g1 by" not in of_g1
    assert of_g1.index("UTC SEATS g1 by") < of_g1.index("UTC DISPUTES g1 by")
