"""The player's docs reach the player: attached to a game's first mail when no docs
URL is published, never again after; linked instead when ``[reports] docs_url`` is set."""

from __future__ import annotations

from dataclasses import replace
from email import message_from_bytes, policy

from sqlalchemy import select

from pbem.config import Config, ReportsConfig
from pbem.lifecycle.games import GameMaster
from pbem.outbox.queue import open_outbound
from pbem.storage.enums import OutboundKind
from pbem.storage.models import OutboundMail

from .conftest import Table


def _reports(table: Table) -> list[tuple[str, list[str], str]]:
    """Each report mail: recipient, its attachments' file names, its plain text."""
    with table.sessions() as s:
        rows = s.scalars(
            select(OutboundMail)
            .where(OutboundMail.kind == OutboundKind.REPORT)
            .order_by(OutboundMail.id)
        ).all()
        out = []
        for row in rows:
            raw = open_outbound(table.config.secrets.key_bytes(), row)  # sealed at rest
            mail = message_from_bytes(raw, policy=policy.default)
            names = [p.get_filename() for p in mail.iter_attachments()]
            body = mail.get_body(preferencelist=("plain",))
            text = body.get_content() if body is not None else ""
            out.append((row.recipient, [n for n in names if n], text))
        return out


def _play_turn_1(table: Table) -> None:
    def orders(gm: GameMaster) -> None:
        gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A"])
        gm.phases.adjudicate_now("g1")

    table.run(orders)


def test_the_first_report_of_a_game_carries_the_guide_and_no_later_one_does(
    table: Table, demo_game: str
) -> None:
    first = _reports(table)
    assert {to for to, _, _ in first} == {"north@example.org", "south@example.org"}
    for _, names, text in first:
        assert "pbem-demo-guide.html" in names
        assert "see the attached guide" in " ".join(text.split())
    _play_turn_1(table)
    later = _reports(table)[len(first) :]
    assert later
    for _, names, _ in later:
        assert "pbem-demo-guide.html" not in names


def test_with_a_docs_url_the_first_report_links_the_guide_instead(
    table: Table,
    config: Config,
    keys,  # type: ignore[no-untyped-def]
) -> None:
    table.config = replace(config, reports=ReportsConfig(docs_url="https://pbem.example.org/docs"))

    def setup(gm: GameMaster) -> None:
        gm.acts.create_game("g1", "usn", "coral-sea")
        gm.acts.assign("g1", "japanese", "j@example.org", public_key=keys["north"][1])
        gm.acts.assign("g1", "allied", "a@example.org", public_key=keys["south"][1])
        gm.acts.start("g1")

    table.run(setup)
    reports = _reports(table)
    assert reports
    for _, names, text in reports:
        assert not [n for n in names if n.endswith("-guide.html")]
        flat = " ".join(text.split())
        assert "https://pbem.example.org/docs/usn-guide.html" in flat
        assert "https://pbem.example.org/docs/usn-rule-index.html#" in flat
