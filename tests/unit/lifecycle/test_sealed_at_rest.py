"""Nothing in the database reveals a sealed plot before adjudication: not the plot,
not the order mail as received, not the answer that echoes the accepted orders."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select

from pbem.intake.sheet import add_nonce
from pbem.intake.signatures import sign_block
from pbem.lifecycle.mailroom import Mailroom, file_mail, open_inbound
from pbem.outbox.queue import open_outbound
from pbem.storage.models import InboundMail, OutboundMail

ORDER = "SEND SQN-3 C"


def test_order_text_is_nowhere_in_the_database_file(table, demo_game, keys, tmp_path: Path):
    msg = EmailMessage()
    msg["From"] = "north@example.org"
    msg["To"] = "moderator@pbem.example"
    msg["Subject"] = "orders"
    msg["Message-ID"] = "<sealed-1@example.org>"
    sheet = f"Game: {demo_game}\nSide: north\nTurn: 1\nPhase: plot\n\n{ORDER}\n"
    msg.set_content(sign_block(add_nonce(sheet), keys["north"][0]))

    def go(gm):  # type: ignore[no-untyped-def]
        row = file_mail(gm.desk.session, "ref", msg.as_bytes(), gm.desk.now, gm.desk.key)
        assert Mailroom(gm).process(row) == "accepted 1, refused 0"

    table.run(go)

    def rows(gm):  # type: ignore[no-untyped-def]
        inbound = gm.desk.session.scalars(select(InboundMail)).one()
        answer = gm.desk.session.scalars(
            select(OutboundMail).where(OutboundMail.kind == "answer")
        ).one()
        assert ORDER.encode() not in inbound.raw and ORDER.encode() not in answer.raw
        # ... and yet both open with the key, as they were.
        assert ORDER.encode() in open_inbound(gm.desk.key, inbound)
        assert ORDER.encode() in open_outbound(gm.desk.key, answer)

    table.run(rows)
    url = table.sessions.kw["bind"].url
    if url.get_backend_name() != "sqlite":
        return  # the row checks above ran; the file check is SQLite's
    database = Path(url.database)
    for f in database.parent.glob(database.name + "*"):  # the file, its WAL and shm
        assert ORDER.encode() not in f.read_bytes(), f.name
