"""A game keeps its rules across an upgrade of pbem: the daemon holds a game whose
rules (ruleset version, data fingerprint) are not the code's instead of adjudicating
it by other rules; the moderator's UPGRADE moves it, announced and recorded, and
``pbem verify`` re-adjudicates from the UPGRADE on. CREATE refuses an option twice."""

from __future__ import annotations

import email
from email.policy import default
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbem.core.errors import LifecycleError
from pbem.lifecycle import moderator
from pbem.outbox.queue import open_outbound
from pbem.record import journal
from pbem.record.archive import export, verify_archive
from pbem.rulesets.demo import RaidRuleset
from pbem.rulesets.usn.ruleset import UsnRuleset
from pbem.storage.models import Game, OutboundMail, Report


def do(table, line: str) -> str:  # type: ignore[no-untyped-def]
    return table.run(lambda gm: moderator.execute(gm, line))  # type: ignore[no-any-return]


def entries(table) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return table.run(lambda gm: journal.entries(gm.desk.session, "g1"))  # type: ignore[no-any-return]


def plot(table, turn: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Both sides plot turn ``turn``; the clock ticks; what it did."""
    table.run(lambda gm: gm.phases.submit("g1", "north", turn, "plot", ["SEND SQN-1 A"]))
    table.run(lambda gm: gm.phases.submit("g1", "south", turn, "plot", ["SEND SQN-1 B"]))
    return table.run(lambda gm: gm.clock.tick("g1"))  # type: ignore[no-any-return]


def mails(table) -> list[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """Every mail queued: (recipient, subject, text)."""

    def read(gm):  # type: ignore[no-untyped-def]
        rows = gm.desk.session.scalars(select(OutboundMail).order_by(OutboundMail.id))
        found = []
        for row in rows:
            mail = email.message_from_bytes(open_outbound(gm.desk.key, row), policy=default)
            body = mail.get_body(("plain",))
            found.append((row.recipient, str(mail["Subject"]), body.get_content() if body else ""))
        return found

    return table.run(read)  # type: ignore[no-any-return]


def notices(table, subject: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [to for to, title, _ in mails(table) if subject in title]


def adjudications(table) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return [e["payload"] for e in entries(table) if e["kind"] == "phase-adjudicated"]


def test_the_record_names_the_rules_of_the_set_up_and_every_adjudication(table, demo_game):  # type: ignore[no-untyped-def]
    plot(table, 1)
    started = next(e["payload"] for e in entries(table) if e["kind"] == "game-started")
    named = [started["rules"]] + [p["rules"] for p in adjudications(table)]
    assert {r["version"] for r in named} == {RaidRuleset.version}
    assert {r["data"] for r in named} == {RaidRuleset.data_fingerprint}
    assert table.run(lambda gm: gm.lookups.game("g1").rules) == named[0]


def test_a_game_whose_rules_changed_is_held_not_adjudicated_by_other_rules(  # type: ignore[no-untyped-def]
    table, demo_game, monkeypatch
):
    plot(table, 1)
    monkeypatch.setattr(RaidRuleset, "version", "2")  # pbem upgraded: the raid's rules changed
    did = plot(table, 2)
    assert did == ["held turn 2 phase plot: rules changed: version 1 -> 2"]
    assert [p["turn"] for p in adjudications(table)] == [1]
    assert entries(table)[-2]["kind"] == "rules-held"  # then the moderator's digest
    assert sorted(notices(table, "game held: the rules changed")) == [
        "north@example.org",
        "south@example.org",
    ]
    digest = [text for _, title, text in mails(table) if "digest" in title]
    assert any("the game plays by rules version 1" in text for text in digest)
    # Neither ADJUDICATE nor RESUME runs it by other rules; nothing is recorded.
    before = len(entries(table))
    for line in ("ADJUDICATE g1", "RESUME g1"):
        with pytest.raises(LifecycleError, match=r"plays by demo rules version 1 .*UPGRADE g1"):
            do(table, line)
    assert len(entries(table)) == before
    with pytest.raises(LifecycleError, match="orders are taken again once he releases it"):
        table.run(lambda gm: gm.phases.submit("g1", "north", 2, "plot", ["SEND SQN-2 A"]))


def test_upgrade_moves_the_game_announced_and_verify_runs_from_it(  # type: ignore[no-untyped-def]
    table, demo_game, monkeypatch, tmp_path: Path
):
    plot(table, 1)
    monkeypatch.setattr(RaidRuleset, "version", "2")
    plot(table, 2)  # held
    said = do(table, "UPGRADE g1 the raid table corrected")
    assert said.startswith("g1 now plays by demo rules version 2 with data fingerprint ")
    assert said.endswith("from turn 2 plot on; the players were told")
    game = table.run(lambda gm: gm.lookups.game("g1"))
    assert game.held is None and game.rules["version"] == "2"
    upgraded = next(e for e in entries(table) if e["kind"] == "rules-upgraded")["payload"]
    assert (upgraded["old"]["version"], upgraded["new"]["version"]) == ("1", "2")
    assert upgraded["phase_seq"] == 2 and upgraded["state"]["turn"] == 2
    assert len(notices(table, "the game moves to new rules")) == 2
    # The phase due is adjudicated by the new rules at the next tick, and says so.
    assert table.run(lambda gm: gm.clock.tick("g1")) == [
        "adjudicated turn 2 phase plot: all orders in"
    ]
    assert [p["rules"]["version"] for p in adjudications(table)] == ["1", "2"]
    with pytest.raises(LifecycleError, match="before the UPGRADE"):
        do(table, "ROLLBACK g1 1 plot")
    do(table, "ROLLBACK g1 2 plot")  # after it: replayed from the state it recorded
    do(table, "ADJUDICATE g1")

    with table.sessions() as s:
        export(s, "g1", tmp_path / "g1", unfinished=True)
    result = verify_archive(tmp_path / "g1")
    assert result.problems == []
    assert result.phases == 2  # turn 2, twice (the rollback); turn 1 was played by version 1
    assert len(result.notes) == 1 and "demo rules version 1" in result.notes[0]
    monkeypatch.setattr(RaidRuleset, "version", "1")  # an older pbem cannot verify it
    refused = verify_archive(tmp_path / "g1").problems
    assert len(refused) == 1
    assert "this record was adjudicated by demo rules version 2" in refused[0]
    assert "has demo rules version 1 with data fingerprint" in refused[0]


def test_upgrade_of_a_game_on_these_rules_is_refused(table, demo_game):  # type: ignore[no-untyped-def]
    with pytest.raises(LifecycleError, match="already plays by demo rules version 1"):
        do(table, "UPGRADE g1")


def test_a_game_from_before_rules_were_recorded_plays_by_the_legacy_rules(table, demo_game):  # type: ignore[no-untyped-def]
    """games.rules is None for a game of an older database (migration 0013): it plays
    by its ruleset's legacy rules, which are this pbem's demo rules."""

    def forget(gm) -> None:  # type: ignore[no-untyped-def]
        gm.desk.session.get(Game, "g1").rules = None

    table.run(forget)
    assert plot(table, 1) == ["adjudicated turn 1 phase plot: all orders in"]


def test_create_refuses_an_option_given_twice(table):  # type: ignore[no-untyped-def]
    with pytest.raises(LifecycleError) as refused:
        do(table, "CREATE g2 usn coral-sea subs=true subs=false")
    assert str(refused.value) == "option subs is given twice (subs=true, subs=false): give it once"
    assert table.run(lambda gm: gm.desk.session.get(Game, "g2")) is None


def test_a_table_override_at_create_is_kept_and_reports_say_what_the_game_rests_on(  # type: ignore[no-untyped-def]
    table, keys
):
    said = do(
        table,
        "CREATE g2 usn coral-sea "
        "\"overrides=tables = {victory_levels = {3 = {level = 'Overwhelming'}}}\"",
    )
    assert said == "game g2 created (usn, coral-sea); options: fog=open subs=false"

    def start(gm) -> None:  # type: ignore[no-untyped-def]
        for side in ("japanese", "allied"):
            gm.acts.assign(
                "g2",
                side,
                f"{side}@example.org",
                public_key=keys["north" if side == "japanese" else "south"][1],
            )
        gm.acts.start("g2")

    table.run(start)
    state = table.run(lambda gm: dict(gm.lookups.state_of(gm.lookups.open_phase("g2"))))
    assert state["options"]["overrides"] == {
        "tables": {"victory_levels": {"3": {"level": "Overwhelming"}}}
    }
    texts = table.run(
        lambda gm: [
            r.text for r in gm.desk.session.scalars(select(Report).where(Report.game_id == "g2"))
        ]
    )
    assert texts and all(
        "Per-game data corrections: overrides: tables.victory_levels.3.level." in t
        and f"Rules: usn rules version {UsnRuleset.version} with data fingerprint" in t
        for t in texts
    )


def test_a_game_whose_data_changed_is_held_too(table, demo_game, monkeypatch):  # type: ignore[no-untyped-def]
    """Same version, other data files (a table corrected in the package): held as well."""
    old = RaidRuleset.data_fingerprint
    monkeypatch.setattr(RaidRuleset, "data_fingerprint", "f" * 64)
    assert plot(table, 1) == [
        f"held turn 1 phase plot: rules changed: data {old[:16]} -> {'f' * 16}"
    ]
    assert adjudications(table) == []
