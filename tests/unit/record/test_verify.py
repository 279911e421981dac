"""``pbem verify``: a finished game's archive passes; every kind of tampering fails, named.

The game (demonstration ruleset, three turns) includes a missed turn (standing
orders), a rollback with re-adjudication, a moderator's correcting edit and a
held round closed by DONE, so verification covers every kind of entry the
lifecycle writes.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.cli import main
from pbem.config import Config, SecretsConfig
from pbem.core.errors import LifecycleError
from pbem.intake.signatures import generate_keypair
from pbem.lifecycle.desk import Desk
from pbem.lifecycle.games import GameMaster
from pbem.lifecycle.publishing import Publisher
from pbem.record.archive import export, verify_archive
from pbem.record.chain import GENESIS, entry_hash
from pbem.storage.db import create_all, make_engine, make_sessionmaker

Entries = list[dict[str, Any]]
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _play(url: str, folder: Path, *, finish: bool = True) -> Path:
    """Play g1 to the end (or not) and export it; returns the archive folder."""
    engine = make_engine(url)
    create_all(engine)
    sessions = make_sessionmaker(engine)
    config = Config(
        secrets=SecretsConfig(plot_key=base64.b64encode(os.urandom(32)).decode()), base_dir=folder
    )
    now = [T0]

    def run(fn: Callable[[GameMaster], Any]) -> Any:
        with sessions.begin() as s:
            return fn(GameMaster(Desk(s, config, config.secrets.key_bytes(), now[0]), Publisher()))

    def setup(gm: GameMaster) -> None:
        gm.acts.create_game("g1", "demo", "duel")
        for side in ("north", "south"):
            gm.acts.assign("g1", side, f"{side}@example.org", public_key=generate_keypair()[1])
        gm.acts.add_observer("g1", "press@example.org", None)
        gm.acts.start("g1")

    run(setup)
    run(lambda gm: gm.phases.submit("g1", "north", 1, "plot", ["SEND SQN-1 A", "SEND SQN-2 B"]))
    run(lambda gm: gm.phases.submit("g1", "south", 1, "plot", ["SEND SQN-1 B", "SEND SQN-3 C"]))
    run(lambda gm: gm.clock.tick("g1"))
    # Turn 2: south misses deadline and grace; standing orders apply.
    run(lambda gm: gm.phases.submit("g1", "north", 2, "plot", ["SEND SQN-3 A"]))
    now[0] += timedelta(hours=97)
    run(lambda gm: gm.clock.tick("g1"))
    # An upheld dispute: back to turn 2, a correcting edit, the same orders and seed again.
    run(lambda gm: gm.corrections.rollback("g1", 2, "plot"))
    run(lambda gm: gm.corrections.edit_state("g1", "/forces/south/SQN-2", 4))
    run(lambda gm: gm.phases.adjudicate_now("g1"))
    if finish:
        # North's mail had a refused line (the round is held for it), then DONE alone.
        run(lambda gm: gm.phases.submit("g1", "north", 3, "plot", ["SEND SQN-1 C"], held=True))
        run(lambda gm: gm.phases.submit("g1", "south", 3, "plot", ["SEND SQN-2 C"]))
        assert run(lambda gm: gm.clock.tick("g1")) == []  # held
        run(lambda gm: gm.phases.stand(gm.lookups.game("g1"), gm.lookups.open_phase("g1"), "north"))
        run(lambda gm: gm.clock.tick("g1"))
        assert run(lambda gm: gm.lookups.game("g1").status) == "over"
    with sessions() as s:
        out = export(s, "g1", folder / "archive", unfinished=not finish)
    engine.dispose()
    return out


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("verify")
    return _play(f"sqlite:///{folder / 'pbem.sqlite3'}", folder)


@pytest.fixture
def copy_of(archive: Path, tmp_path: Path) -> Iterator[Callable[[], Path]]:
    def make() -> Path:
        target = tmp_path / f"copy-{len(list(tmp_path.iterdir()))}"
        shutil.copytree(archive, target)
        return target

    yield make


def read(folder: Path) -> Entries:
    text = (folder / "record.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def write(folder: Path, entries: Entries) -> None:
    lines = [json.dumps(e, sort_keys=True, ensure_ascii=False) for e in entries]
    (folder / "record.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def rechain(entries: Entries) -> Entries:
    """A forger who recomputes the chain after his change: the replay must still see it."""
    prev = GENESIS
    for seq, e in enumerate(entries, start=1):
        e["seq"] = seq
        e["prev_hash"] = prev
        e["hash"] = prev = entry_hash(seq, e["at"], e["kind"], e["payload"], prev)
    return entries


def first(entries: Entries, kind: str, n: int = 0) -> dict[str, Any]:
    return [e for e in entries if e["kind"] == kind][n]["payload"]


# ------------------------------------------------------------------ the good archive


def test_verify_passes_on_the_export_and_counts_what_it_checked(archive: Path) -> None:
    result = verify_archive(archive)
    assert result.problems == []
    entries = read(archive)
    adjudicated = [e for e in entries if e["kind"] == "phase-adjudicated"]
    assert result.phases == len(adjudicated) == 4  # turn 2 twice
    assert result.rolls == 6 * 4
    # Receipted plots only: turn 2's standing orders for south carry no commitment.
    assert result.commitments == 2 + 1 + 1 + 2


def test_done_is_in_the_record_and_names_the_plot_that_stood(archive: Path) -> None:
    entries = read(archive)
    done = [e for e in entries if e["kind"] == "done-said"]
    assert [d["payload"]["side"] for d in done] == ["north"]
    said = done[0]["payload"]
    sealed = [e for e in entries if e["kind"] == "orders-sealed" and e["seq"] < done[0]["seq"]][
        -2
    ]  # north's turn-3 orders; south's came after
    assert sealed["payload"]["side"] == "north"
    assert said == {
        "phase_seq": sealed["payload"]["phase_seq"],
        "side": "north",
        "commitment": sealed["payload"]["commitment"],
        "stood": True,
    }
    turn3 = first(entries, "phase-adjudicated", 3)
    assert turn3["plots"]["north"]["commitment"] == said["commitment"]


def test_verify_cli_says_ok(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(archive)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("OK: ") and "4 phases re-adjudicated" in out


def test_archive_holds_every_report_the_record_says_was_sent(archive: Path) -> None:
    sent = [e["payload"] for e in read(archive) if e["kind"] == "report-queued"]
    files = {
        hashlib.sha256(p.read_bytes()).hexdigest(): p.name
        for p in (archive / "reports").glob("*.txt")
    }
    assert len(sent) == len(files)  # each report once; the reports/ folder has them all
    for s in sent:
        assert files[s["text_sha256"]].endswith(f"-{s['audience']}.txt")


def test_unfinished_game_is_not_disclosed(tmp_path: Path) -> None:
    engine_url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    out = _play(engine_url, tmp_path, finish=False)  # the moderator's own copy
    assert verify_archive(out).problems == []
    engine = make_engine(engine_url)
    try:
        with make_sessionmaker(engine)() as s, pytest.raises(LifecycleError, match="not over"):
            export(s, "g1", tmp_path / "public")
    finally:
        engine.dispose()


# ------------------------------------------------------------------ tampering


def roll(entries: Entries) -> Entries:
    r = first(entries, "phase-adjudicated")["rolls"][0]
    r[0] = r[0] % 6 + 1
    return entries


def order(entries: Entries) -> Entries:
    first(entries, "phase-adjudicated")["plots"]["north"]["orders"][0] = "SEND SQN-1 C"
    return entries


def plot_and_commitment(entries: Entries) -> Entries:
    """Orders changed and a commitment forged to match: not what was receipted."""
    from pbem.secrecy.plots import PlotContent

    plot = first(entries, "phase-adjudicated")["plots"]["north"]
    plot["orders"] = ["SEND SQN-1 C"]
    plot["commitment"] = PlotContent(
        "g1", "north", 1, "plot", ("SEND SQN-1 C",), plot["nonce"]
    ).commitment()
    return entries


def seed(entries: Entries) -> Entries:
    first(entries, "phase-adjudicated")["seed"] = "00" * 32
    return entries


def announced_seed(entries: Entries) -> Entries:
    first(entries, "phase-opened")["seed_commitment"] = hashlib.sha256(b"x").hexdigest()
    return entries


def event(entries: Entries) -> Entries:
    first(entries, "phase-adjudicated")["events"][0]["data"]["winner"] = "nobody"
    return entries


def result(entries: Entries) -> Entries:
    first(entries, "phase-adjudicated")["result_hash"] = "0" * 64
    return entries


def edit_value(entries: Entries) -> Entries:
    first(entries, "state-edited")["value"] = 5
    return entries


def drop_edit(entries: Entries) -> Entries:
    return [e for e in entries if e["kind"] != "state-edited"]


def done_plot(entries: Entries) -> Entries:
    first(entries, "done-said")["commitment"] = "0" * 64
    return entries


def initial_state(entries: Entries) -> Entries:
    first(entries, "game-started")["state_hash"] = "f" * 64
    return entries


CHAINED: list[tuple[Callable[[Entries], Entries], str]] = [
    (roll, "die rolls differ from the record"),
    (order, "north's plot does not match its commitment"),
    (plot_and_commitment, "north's plot is not the one receipted to the player"),
    (seed, "revealed seed does not match its commitment"),
    (announced_seed, "the seed used is not the one committed to at phase open"),
    (event, "events differ from the record"),
    (result, "resulting state differs from the record"),
    (edit_value, "the edit at /forces/south/SQN-2 gives another state"),
    (drop_edit, "resulting state differs from the record"),
    (initial_state, "the scenario's initial state differs from the record's"),
    (done_plot, "north's DONE names a plot not receipted"),
]


@pytest.mark.parametrize(("tamper", "problem"), CHAINED, ids=[t.__name__ for t, _ in CHAINED])
def test_tampering_fails_even_with_a_recomputed_chain(
    copy_of: Callable[[], Path], tamper: Callable[[Entries], Entries], problem: str
) -> None:
    folder = copy_of()
    write(folder, rechain(tamper(read(folder))))
    problems = verify_archive(folder).problems
    assert any(problem in p for p in problems), problems


@pytest.mark.parametrize(("tamper", "problem"), CHAINED, ids=[t.__name__ for t, _ in CHAINED])
def test_tampering_breaks_the_chain(
    copy_of: Callable[[], Path], tamper: Callable[[Entries], Entries], problem: str
) -> None:
    folder = copy_of()
    write(folder, tamper(read(folder)))
    problems = verify_archive(folder).problems
    assert any("hash mismatch, content altered" in p or "expected sequence" in p for p in problems)


def test_a_changed_hash_breaks_the_link(copy_of: Callable[[], Path]) -> None:
    folder = copy_of()
    entries = read(folder)
    entries[5]["hash"] = "a" * 64
    write(folder, entries)
    problems = verify_archive(folder).problems
    assert "record entry 6 (" in problems[0] and "hash mismatch" in problems[0]
    assert "record entry 7: previous-hash link broken" in problems


def test_removed_and_reordered_entries_are_seen(copy_of: Callable[[], Path]) -> None:
    folder = copy_of()
    entries = read(folder)
    write(folder, entries[:3] + entries[4:])
    assert "record entry 5: expected sequence number 4" in verify_archive(folder).problems
    swapped = copy.deepcopy(entries)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    write(folder, swapped)
    assert any("previous-hash link broken" in p for p in verify_archive(folder).problems)


def test_game_json_must_agree_with_the_record(copy_of: Callable[[], Path]) -> None:
    folder = copy_of()
    meta = json.loads((folder / "game.json").read_text())
    meta["scenario"] = "long-duel"
    (folder / "game.json").write_text(json.dumps(meta))
    assert "game.json's scenario differs from the record's" in verify_archive(folder).problems


def test_unreadable_archive_fails_loudly(
    copy_of: Callable[[], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_of()
    with (folder / "record.jsonl").open("a") as f:
        f.write('{"seq": 99, "kind": \n')
    assert verify_archive(folder).problems[0].startswith("unreadable archive")
    (folder / "record.jsonl").unlink()
    assert main(["verify", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "FAILED: 1 problem(s)" in err and "unreadable archive" in err


def test_an_older_record_with_report_sent_entries_still_verifies(
    copy_of: Callable[[], Path],
) -> None:
    """Older pbem wrote report-sent where report-queued is written now: such an
    archive verifies, and its reports are still checked against reports/."""
    folder = copy_of()
    entries = read(folder)
    for e in entries:
        if e["kind"] == "report-queued":
            e["kind"] = "report-sent"
    write(folder, rechain(entries))
    assert verify_archive(folder).ok
    report = sorted((folder / "reports").glob("*.txt"))[0]
    report.write_text(report.read_text(encoding="utf-8") + "\nP.S.\n", encoding="utf-8")
    assert any("is not in reports/ as sent" in p for p in verify_archive(folder).problems)


def test_verify_counts_what_became_of_the_reports_and_refuses_an_unqueued_delivery(
    copy_of: Callable[[], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_of()
    entries = read(folder)
    queued = [e["payload"] for e in entries if e["kind"] == "report-queued"]
    last = entries[-1]["at"]
    entries.append(
        {
            "at": last,
            "kind": "report-delivered",
            "payload": {"message_id": queued[0]["message_id"], "to": queued[0]["to"]},
        }
    )
    entries.append(
        {
            "at": last,
            "kind": "report-failed",
            "payload": {
                "message_id": queued[1]["message_id"],
                "to": queued[1]["to"],
                "reason": "550",
            },
        }
    )
    write(folder, rechain(entries))
    assert main(["verify", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"reports: {len(queued)} queued, 1 delivered, 1 failed" in out

    entries.append(
        {"at": last, "kind": "report-delivered", "payload": {"message_id": "<x@y>", "to": "a@b"}}
    )
    write(folder, rechain(entries))
    result = verify_archive(folder)
    assert [p for p in result.problems if "a report the record never queued" in p] == [
        f"record entry {len(entries)}: report-delivered of <x@y>, a report the record never queued"
    ]


def test_verify_fails_on_an_edited_report(copy_of: Callable[[], Path]) -> None:
    """A report changed after it was sent no longer matches its report-queued entry."""
    folder = copy_of()
    report = sorted((folder / "reports").glob("*.txt"))[0]
    report.write_text(report.read_text(encoding="utf-8") + "\nP.S. north wins.\n", encoding="utf-8")
    result = verify_archive(folder)
    assert not result.ok
    assert any("is not in reports/ as sent" in p for p in result.problems)
