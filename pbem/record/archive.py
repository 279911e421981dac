"""Exporting a game's archive to a folder anyone can read, and verifying one.

Layout of an export::

    game.json        the game: ruleset, scenario, options, settings, seats, outcome
    record.jsonl     the hash-chained record, one entry per line
    reports/         every report as it was sent: NNNN-<audience>.txt
    VERIFY.txt       how to check it: `pbem verify FOLDER`

``verify_archive`` walks the hash chain, re-runs every adjudication from the
scenario with the revealed seeds and plots (re-deriving every die roll), and
checks every seed and plot against the commitment published before.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem import rulesets
from pbem.core.errors import LifecycleError
from pbem.record import journal, rules
from pbem.record.chain import verify_chain
from pbem.record.replay import replay
from pbem.storage.enums import GameStatus
from pbem.storage.models import Game, Report, Seat, SeatKey

VERIFY_TEXT = """\
This folder is the complete record of a pbem game.

record.jsonl is an append-only log; each entry's hash covers the previous
entry, so no entry can be changed, removed or reordered unnoticed. Every
adjudicated phase lists the revealed dice seed (committed to by its SHA-256
before orders were in), both sides' orders with the nonces behind the
commitments mailed to them as receipts, every die roll and every event.

To check all of it:  pbem verify {folder}
"""


def export(session: Session, game_id: str, out: Path, *, unfinished: bool = False) -> Path:
    game = session.get(Game, game_id)
    if game is None:
        raise LifecycleError(f"no game {game_id!r}")
    if game.status != GameStatus.OVER and not unfinished:
        raise LifecycleError(
            f"game {game_id} is not over; its archive holds adjudicated plots, so it is "
            "disclosed at game end (use --unfinished for the moderator's own copy)"
        )
    out.mkdir(parents=True, exist_ok=True)
    seats = list(session.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.id)))
    keys: dict[int, list[SeatKey]] = {}
    for key in session.scalars(
        select(SeatKey).where(SeatKey.seat_id.in_([s.id for s in seats])).order_by(SeatKey.id)
    ):
        keys.setdefault(key.seat_id, []).append(key)
    meta = {
        "id": game.id,
        "ruleset": game.ruleset,
        "scenario": game.scenario,
        "options": game.options,
        "settings": game.settings,
        "status": game.status,
        "outcome": game.outcome,
        "seats": [
            {
                "role": s.role,
                "side": s.side,
                "email": s.email,
                "keys": [
                    {
                        "kind": k.kind,
                        "fingerprint": k.fingerprint,
                        "retired": k.retired_at is not None,
                    }
                    for k in keys.get(s.id, [])
                ],
                "active": s.active,
            }
            for s in seats
        ],
    }
    (out / "game.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    with (out / "record.jsonl").open("w", encoding="utf-8") as f:
        for entry in journal.entries(session, game_id):
            f.write(json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n")
    reports = out / "reports"
    reports.mkdir(exist_ok=True)
    for r in session.scalars(select(Report).where(Report.game_id == game_id).order_by(Report.id)):
        (reports / f"{r.id:04d}-{r.audience}.txt").write_text(r.text, encoding="utf-8")
        if r.html:
            (reports / f"{r.id:04d}-{r.audience}.html").write_text(r.html, encoding="utf-8")
        if r.png:
            (reports / f"{r.id:04d}-{r.audience}.png").write_bytes(r.png)
    (out / "VERIFY.txt").write_text(VERIFY_TEXT.format(folder=out))
    return out


@dataclass
class Verification:
    problems: list[str] = field(default_factory=list)
    entries: int = 0
    phases: int = 0
    rolls: int = 0
    commitments: int = 0
    # The reports the record says were queued, delivered (accepted by the SMTP server)
    # and failed; a report of an older record (report-sent) counts as queued only.
    reports: dict[str, int] = field(default_factory=dict)
    # What was checked otherwise than in full, and why (a game moved to newer rules).
    notes: list[str] = field(default_factory=list)
    rules: str = ""  # the rules the record needs (its last adjudication's)

    @property
    def ok(self) -> bool:
        return not self.problems


def _check_reports(folder: Path, entries: list[dict[str, Any]]) -> list[str]:
    """Every report the record says was sent is in reports/, word for word."""
    on_disk = {
        hashlib.sha256(p.read_text(encoding="utf-8").encode("utf-8")).hexdigest()
        for p in (folder / "reports").glob("*.txt")
    }
    return [
        f"record entry {e['seq']}: the report sent to {e['payload']['audience']} "
        f"({e['payload']['message_id']}) is not in reports/ as sent"
        for e in entries
        # report-sent: older records' name for report-queued.
        if e["kind"] in ("report-queued", "report-sent")
        and e["payload"]["text_sha256"] not in on_disk
    ]


def options_at_start(entries: list[dict[str, Any]]) -> Any:
    """The options the game started with: CREATE's, or the last SET before START."""
    options = None
    for e in entries:
        if e["kind"] == "game-started":
            break
        changed = e["kind"] == "settings-changed" and e["payload"].get("options") is not None
        if e["kind"] == "game-created" or changed:
            options = e["payload"]["options"]
    return options


def _count_reports(entries: list[dict[str, Any]], result: Verification) -> None:
    """What became of each report queued; a delivery of a report never queued is a
    problem (the record was edited)."""
    queued = {
        e["payload"]["message_id"] for e in entries if e["kind"] in ("report-queued", "report-sent")
    }
    result.reports = {"queued": len(queued), "delivered": 0, "failed": 0}
    for e in entries:
        outcome = {"report-delivered": "delivered", "report-failed": "failed"}.get(e["kind"])
        if outcome is None:
            continue
        result.reports[outcome] += 1
        if e["payload"]["message_id"] not in queued:
            result.problems.append(
                f"record entry {e['seq']}: {e['kind']} of {e['payload']['message_id']}, "
                "a report the record never queued"
            )


def verify_archive(folder: Path) -> Verification:
    try:
        meta: dict[str, Any] = json.loads((folder / "game.json").read_text())
        entries = [
            json.loads(line)
            for line in (folder / "record.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
    except (OSError, ValueError) as exc:
        return Verification(problems=[f"unreadable archive: {exc}"])
    result = Verification(entries=len(entries))
    result.problems += verify_chain(entries)
    created = next((e["payload"] for e in entries if e["kind"] == "game-created"), None)
    if created is None:
        result.problems.append("the record has no game-created entry")
        return result
    options = options_at_start(entries)
    for key, recorded in (
        ("ruleset", created["ruleset"]),
        ("scenario", created["scenario"]),
        ("options", options),
    ):
        if recorded != meta.get(key):
            result.problems.append(f"game.json's {key} differs from the record's")
    ruleset = rulesets.get(created["ruleset"])
    # The rules the record was played by must be this pbem's (or its UPGRADE's).
    found = rules.check(created["ruleset"], entries, ruleset)
    result.rules = found.needs
    if found.refusal:
        result.problems.append(found.refusal)
        return result
    result.notes += found.notes
    try:
        report = replay(
            ruleset, meta["id"], created["scenario"], options, entries, start=found.start
        )
    except Exception as exc:  # a tampered record can break the ruleset itself
        result.problems.append(f"re-adjudication failed: {type(exc).__name__}: {exc}")
        return result
    result.problems += report.problems
    result.problems += _check_reports(folder, entries)
    _count_reports(entries, result)
    result.phases = report.phases_checked
    result.rolls = report.rolls_checked
    result.commitments = report.commitments_checked
    return result
