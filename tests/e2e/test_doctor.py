"""`pbem doctor` against the real servers: all well, then one part broken at a time,
each named on its own FAIL line with the reason, and a non-zero exit code."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config as AlembicConfig
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pbem.cli import main
from pbem.service.clock import utcnow
from pbem.service.doctor import CHECKS, Failed, check_clock
from pbem.storage.db import make_engine
from tests.e2e.helpers import ModeratorDesk, game_keys, moderator_desk
from tests.maillab import MailLab, free_port


@pytest.fixture
def desk(mail_lab: MailLab, database_url: str, tmp_path: Path) -> ModeratorDesk:
    return moderator_desk(mail_lab, database_url, tmp_path)


def doctor(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str], **edits: str
) -> tuple[int, dict[str, str]]:
    """Run `pbem -c FILE doctor` on the desk's configuration with ``edits``
    (old text -> new text) applied; (exit code, check -> its line)."""
    text = desk.toml()
    for old, new in edits.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "doctor.toml"
    path.write_text(text)
    code = main(["-c", str(path), "doctor"])
    out = capsys.readouterr().out
    lines = {}
    for line in out.splitlines():
        verdict, _, rest = line.partition(" ")
        check, _, detail = rest.strip().partition(": ")
        lines[check] = f"{verdict} {detail}"
    return code, lines


def verdicts(lines: dict[str, str]) -> dict[str, str]:
    return {check: line.split()[0] for check, line in lines.items()}


def test_all_well(desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = doctor(desk, tmp_path, capsys)
    postgres = desk.url.startswith("postgresql")
    assert verdicts(lines) == {
        "configuration": "OK",
        "database": "OK",
        "keys": "OK",
        "signing": "OK",
        "moderator": "OK",
        "clock": "OK" if postgres else "SKIP",
        "seat keys": "OK",
        "metrics": "SKIP",
        "imap": "OK",
        "smtp": "OK",
    }, lines
    assert code == 0
    assert "schema at revision" in lines["database"]
    assert f"logged in as {desk.address}" in lines["imap"]
    assert "accepted EHLO" in lines["smtp"]
    if postgres:
        assert "of the database's clock" in lines["clock"]


def only_failure(code: int, lines: dict[str, str], check: str) -> str:
    failed = [c for c, v in verdicts(lines).items() if v == "FAIL"]
    assert failed == [check], lines
    assert code == 1
    return lines[check]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_broken_configuration_is_the_one_line(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = doctor(desk, tmp_path, capsys, **{"[smtp]\n": "[smtp]\nstarttls = 1\n"})
    assert lines == {
        "configuration": "FAIL [smtp] starttls: 1 is not allowed; use true or false (no quotes)"
    }
    assert code == 1


def test_a_database_out_of_reach(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    broken = (
        f"postgresql+psycopg://pbem:s3cret-pw@127.0.0.1:{port}/pbem"
        if desk.url.startswith("postgresql")
        else f"sqlite:///{tmp_path / 'missing' / 'pbem.sqlite3'}"
    )
    code, lines = doctor(desk, tmp_path, capsys, **{desk.url: broken})
    line = only_failure(code, lines, "database")
    if desk.url.startswith("postgresql"):
        assert "cannot connect" in line and str(port) in line
        assert "s3cret-pw" not in line
    else:
        assert "does not exist: run `pbem db upgrade`" in line
    assert lines["clock"] == "SKIP the database is out of reach"


def test_a_database_behind_the_migrations(
    mail_lab: MailLab,
    database_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    desk = moderator_desk(mail_lab, database_url, tmp_path)
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", "pbem:migrations")
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    command.stamp(cfg, "base")  # tables, but no revision
    code, lines = doctor(desk, tmp_path, capsys)
    assert "no schema version in the database: run `pbem db upgrade`" in only_failure(
        code, lines, "database"
    )
    command.stamp(cfg, "0003")
    code, lines = doctor(desk, tmp_path, capsys)
    line = only_failure(code, lines, "database")
    assert "schema at revision 0003, the newest is" in line


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_wrong_imap_password(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = 'password = "not-the-password"'
    code, lines = doctor(
        desk, tmp_path, capsys, **{f'password = "{desk.moderator_password}"': wrong}
    )
    line = only_failure(code, lines, "imap")
    assert f"LOGIN as {desk.address} refused" in line
    assert "not-the-password" not in line


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_imap_server_that_is_down(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    code, lines = doctor(
        desk, tmp_path, capsys, **{f"port = {desk.config.imap.port}": f"port = {port}"}
    )
    assert f"cannot connect to 127.0.0.1:{port}" in only_failure(code, lines, "imap")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_smtp_server_that_is_down(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    code, lines = doctor(
        desk, tmp_path, capsys, **{f"port = {desk.config.smtp.port}": f"port = {port}"}
    )
    line = only_failure(code, lines, "smtp")
    assert f"127.0.0.1:{port}" in line


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_smtp_login_the_server_cannot_take(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The lab's server offers no AUTH: a configured login cannot succeed there.
    login = '[smtp]\nusername = "moderator"\npassword = "smtp-secret"\n'
    code, lines = doctor(desk, tmp_path, capsys, **{"[smtp]\n": login})
    line = only_failure(code, lines, "smtp")
    assert "AUTH" in line
    assert "smtp-secret" not in line


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_moderator_key_of_the_wrong_type(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rsa_line = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        .public_key()
        .public_bytes(Encoding.OpenSSH, PublicFormat.OpenSSH)
        .decode()
    )
    key = f'[moderator]\npublic_key = "{rsa_line} umpire"\n'
    code, lines = doctor(desk, tmp_path, capsys, **{"[moderator]\n": key})
    line = only_failure(code, lines, "keys")
    assert "[moderator] public_key: only ssh-ed25519 keys are accepted" in line


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_seat_key_that_cannot_be_read(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.e2e.helpers import new_player

    north, south = new_player(desk.lab, "north"), new_player(desk.lab, "south")
    desk.demo_game("g1", [north, south])
    with desk.sessions.begin() as s:
        from sqlalchemy import select, update

        from pbem.storage.models import Seat, SeatKey

        south_seat = select(Seat.id).where(Seat.side == "south").scalar_subquery()
        s.execute(
            update(SeatKey)
            .where(SeatKey.seat_id == south_seat)
            .values(material=b"ssh-ed25519 AAAA")
        )
    code, lines = doctor(desk, tmp_path, capsys)
    line = only_failure(code, lines, "seat keys")
    assert (
        f"game g1, south ({south.address}): ed25519 key not readable: not an OpenSSH public key"
        in line
    )
    assert north.address not in line


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_clock_off_the_database_clock(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        assert "of the database's clock" in (check_clock(engine, utcnow) or "")
        with pytest.raises(Failed, match=r"this host's clock is 9\d\.\d s ahead of the database"):
            check_clock(engine, lambda: utcnow() + timedelta(seconds=95))
        with pytest.raises(Failed, match=r"behind the database"):
            check_clock(engine, lambda: utcnow() - timedelta(seconds=60))
    finally:
        engine.dispose()


def serve_once(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`pbem -c doctor.toml serve --once` (the file `doctor` wrote last), in a process
    of its own: the daemon's start, as an operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "pbem", "-c", str(tmp_path / "doctor.toml"), "serve", "--once"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )


def serve_refuses_what_doctor_fails(tmp_path: Path, lines: dict[str, str]) -> None:
    """The daemon does not start, naming each failure the doctor named, word for word."""
    served = serve_once(tmp_path)
    assert served.returncode == 1, served.stderr
    assert "the daemon does not start" in served.stderr and "Traceback" not in served.stderr
    for check, line in lines.items():
        if line.startswith("FAIL"):
            assert f"{check}: {line.removeprefix('FAIL ')}" in served.stderr, served.stderr


def test_a_signing_key_file_that_is_missing_fails_doctor_and_serve(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = tmp_path / "keys" / "openpgp.key"  # never made
    code, lines = doctor(desk, tmp_path, capsys, **{str(game_keys().openpgp_key): str(gone)})
    line = only_failure(code, lines, "signing")
    assert f"[signing] openpgp_key: cannot read {gone}" in line and "pbem mailkeys" in line
    serve_refuses_what_doctor_fails(tmp_path, lines)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_empty_moderator_address_fails_doctor_and_serve(
    desk: ModeratorDesk, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = doctor(desk, tmp_path, capsys, **{f'address = "{desk.address}"': 'address = ""'})
    line = only_failure(code, lines, "moderator")
    assert "[moderator] address '': not a mail address" in line
    serve_refuses_what_doctor_fails(tmp_path, lines)


def test_serve_runs_every_start_up_check_the_doctor_runs() -> None:
    """One list: the doctor's checks that serve skips are the mail servers (the daemon
    rides out their being down) and the players' keys (one seat's matter)."""
    assert {c.name for c in CHECKS if not c.at_start} == {"imap", "smtp", "seat keys"}
