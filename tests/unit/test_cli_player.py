"""``pbem keygen``, ``pbem sign`` and ``pbem send`` through ``pbem.cli.main``."""

from __future__ import annotations

import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from pbem.cli import main
from pbem.intake.mime import parse_mail
from pbem.intake.sheet import parse_sheet
from pbem.intake.signatures import key_fingerprint, verify_text

ORDER_FILE = "Game: coral-1\nSide: allied\nTurn: 1\nPhase: A-3\n\nMOVE CV-5 0790 0791\n"


@pytest.fixture
def key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "keys" / "id_ed25519"
    assert main(["keygen", "--out", str(path), "--comment", "allied@example.org"]) == 0
    capsys.readouterr()
    public = path.with_name("id_ed25519.pub").read_text().strip()
    return path, {key_fingerprint(public): public}


@pytest.fixture
def order_file(tmp_path: Path) -> Path:
    path = tmp_path / "orders.txt"
    path.write_text(ORDER_FILE, encoding="utf-8")
    return path


def test_keygen_writes_private_key_0600_and_prints_public_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "id"
    assert main(["keygen", "--out", str(path), "--comment", "me@example.org"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")
    public = (tmp_path / "id.pub").read_text().strip()
    assert public.startswith("ssh-ed25519 ") and public.endswith(" me@example.org")
    assert out[0] == public
    assert out[1] == f"fingerprint: {key_fingerprint(public)}"


def test_keygen_names_the_public_key_as_the_readme_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--out alice.key writes alice.key and alice.pub (the README's @alice.pub)."""
    assert main(["keygen", "--out", str(tmp_path / "alice.key")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alice.key", "alice.pub"]
    public = (tmp_path / "alice.pub").read_text().strip()
    assert capsys.readouterr().out.splitlines()[0] == public


def test_keygen_refuses_to_overwrite_the_public_key_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "alice.pub").write_text("ssh-ed25519 AAAA someone else\n")
    assert main(["keygen", "--out", str(tmp_path / "alice.key")]) == 1
    assert "alice.pub already exists" in capsys.readouterr().err
    assert not (tmp_path / "alice.key").exists()


def test_keygen_refuses_to_overwrite_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "id"
    assert main(["keygen", "--out", str(path)]) == 0
    first = path.read_bytes()
    assert main(["keygen", "--out", str(path)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert path.read_bytes() == first
    assert main(["keygen", "--out", str(path), "--force"]) == 0
    assert path.read_bytes() != first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_sign_prints_a_block_that_verifies_with_an_added_nonce(
    key: tuple[Path, dict[str, str]], order_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sign", str(order_file), "--key", str(key[0])]) == 0
    block = capsys.readouterr().out
    assert block.startswith("-----BEGIN PBEM ORDERS-----\nGame: coral-1\n")
    sheet = parse_sheet(verify_text(block, key[1]).text)
    assert (sheet.game, sheet.side, sheet.turn, sheet.phase) == ("coral-1", "allied", 1, "A-3")
    assert len(sheet.nonce) == 16
    assert sheet.lines == ((1, "MOVE CV-5 0790 0791"),)
    assert main(["sign", str(order_file), "--key", str(key[0])]) == 0
    assert parse_sheet(verify_text(capsys.readouterr().out, key[1]).text).nonce != sheet.nonce


def test_sign_reports_a_bad_sheet_before_signing(
    key: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(ORDER_FILE.replace("Turn: 1", "Turn: first"))
    assert main(["sign", str(bad), "--key", str(key[0])]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "pbem: Turn must be a whole number, not 'first'" in captured.err


def test_sign_with_a_missing_key_file_fails_cleanly(
    order_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sign", str(order_file), "--key", str(tmp_path / "nope")]) == 1
    assert "cannot read key file" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["keygen", "sign", "send"])
def test_player_commands_have_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0
    assert f"usage: pbem {command}" in capsys.readouterr().out


# --- send over real SMTP on loopback ---------------------------------------------------


class _Collector:
    def __init__(self) -> None:
        self.received: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def smtp_sink() -> Iterator[tuple[_Collector, int]]:
    collector = _Collector()
    port = _free_port()
    controller = Controller(collector, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield collector, port
    finally:
        controller.stop()


@pytest.mark.e2e
def test_send_mails_a_signed_block_that_verifies_on_arrival(
    key: tuple[Path, dict[str, str]],
    order_file: Path,
    smtp_sink: tuple[_Collector, int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    collector, port = smtp_sink
    argv = [
        "send", str(order_file), "--key", str(key[0]),
        "--to", "moderator@example.org", "--from", "allied@example.org",
        "--smtp", f"127.0.0.1:{port}",
    ]  # fmt: skip
    assert main(argv) == 0
    assert "sent orders coral-1 allied turn 1 phase A-3" in capsys.readouterr().out
    ((sender, recipients, raw),) = collector.received
    assert (sender, recipients) == ("allied@example.org", ["moderator@example.org"])
    mail = parse_mail(raw)
    assert mail.subject == "orders coral-1 allied turn 1 phase A-3"
    sheet = parse_sheet(verify_text(mail.text, key[1]).text)
    assert sheet.lines == ((1, "MOVE CV-5 0790 0791"),)


@pytest.mark.e2e
def test_send_to_a_closed_port_is_a_transport_error(
    key: tuple[Path, dict[str, str]], order_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "send", str(order_file), "--key", str(key[0]),
        "--to", "m@example.org", "--from", "a@example.org",
        "--smtp", f"127.0.0.1:{_free_port()}",
    ]  # fmt: skip
    assert main(argv) == 1
    assert "pbem: cannot send to 127.0.0.1:" in capsys.readouterr().err
