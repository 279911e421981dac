"""Moderator commands by mail: all or nothing, each line run as ``pbem mod`` runs it.

The lines run in order in one savepoint; the first that fails undoes them all.
The answer goes through it line by line (done, or which failed and why, undone,
not run), to the sender and, if he wrote from another registered address, a
copy to the moderator.
"""

from __future__ import annotations

from typing import Any

from pbem.core.errors import LifecycleError
from pbem.intake.mime import ParsedMail
from pbem.intake.sheet import OrderSheet
from pbem.lifecycle import moderator, readlog
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.mailroom import notices
from pbem.lifecycle.mailroom.answer import Answer, Reply
from pbem.lifecycle.mailroom.keyring import SeatKeys
from pbem.outbox.queue import enqueue
from pbem.storage.models import InboundMail


def run_commands(
    gm: GameMaster, row: InboundMail, mail: ParsedMail, sheet: OrderSheet, keys: SeatKeys
) -> Reply:
    assert mail.from_addr is not None
    actor = moderator.Actor(
        by=mail.from_addr.lower(), via="mail", origin=mail.message_id or row.digest
    )
    keys.forget()  # commands may register, replace or retire keys: ask the seats afresh after
    commands = _run(gm, sheet, actor)
    answer = Answer(commands=tuple(commands))
    failed = next((c["line"] for c in commands if c["status"] == "FAILED"), None)
    if failed is None:
        outcome = f"moderator: {sum(c['status'] == 'done' for c in commands)} done"
    else:
        outcome = f"moderator: refused, line {failed} failed; nothing done"
    config = gm.desk.config
    if mail.from_addr.lower() != config.moderator.human.lower():
        copy = notices.answer_copy(config, row, mail, answer.text())
        enqueue(gm.desk.session, config, copy, gm.desk.now)
    return Reply(answer, outcome)


def _run(gm: GameMaster, sheet: OrderSheet, actor: moderator.Actor) -> list[dict[str, Any]]:
    """Each line's line, text, status and result, all of them undone if one failed."""
    reads = len(gm.desk.reads)
    nested = gm.desk.session.begin_nested()
    commands: list[dict[str, Any]] = []
    failed = False
    with gm.corrections.batched() as edits:  # a mail's EDITs: one notice per seat
        for number, line in sheet.lines:
            entry: dict[str, Any] = {"line": number, "text": line, "result": ""}
            commands.append(entry)
            if failed:
                entry["status"] = "not run"
                continue
            try:
                entry["result"] = moderator.execute(gm, line, actor)
                entry["status"] = "done"
            except LifecycleError as exc:
                failed = True
                entry.update(status="FAILED", result=str(exc))
        if failed:
            edits.clear()  # undone below: nothing to announce
    if failed:
        nested.rollback()
        readlog.kept(gm.desk, reads)  # their answers go out: the reads stay on file
        gm.lookups.forget()
        for entry in commands:
            if entry["status"] == "done":
                entry["status"] = "undone"
    else:
        nested.commit()
    return commands
