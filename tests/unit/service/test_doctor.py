"""`pbem doctor` on an embedded installation (SQLite, Maildirs): no servers needed.
The checks against IMAP, SMTP and PostgreSQL are in tests/e2e/test_doctor.py."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pbem.config import example_config
from pbem.service.doctor import Failed, check_maildir, run_doctor
from pbem.storage.db import upgrade


def test_a_fresh_embedded_installation(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text(example_config())
    out = io.StringIO()
    assert run_doctor(str(path), out) == 1
    assert f"FAIL database: the SQLite file {tmp_path / 'pbem.sqlite3'} does not exist" in (
        out.getvalue()
    )
    assert not (tmp_path / "pbem.sqlite3").exists()  # the doctor made nothing
    upgrade(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    out = io.StringIO()
    assert run_doctor(str(path), out) == 0
    assert [line.split(":")[0] for line in out.getvalue().splitlines()] == [
        "OK   configuration",
        "OK   database",
        "OK   keys",
        "OK   signing",
        "OK   moderator",
        "SKIP clock",
        "OK   seat keys",
        "SKIP metrics",
        "OK   intake maildir",
        "OK   outbox maildir",
    ]


def test_a_plot_key_that_is_not_32_bytes(tmp_path: Path) -> None:
    path = tmp_path / "pbem.toml"
    path.write_text('[secrets]\nplot_key = "c2hvcnQ="\n')
    upgrade(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    out = io.StringIO()
    assert run_doctor(str(path), out) == 1
    failed = [line for line in out.getvalue().splitlines() if line.startswith("FAIL")]
    assert failed == ["FAIL keys: [secrets] plot_key must be base64 of 32 bytes (run `pbem init`)"]


def test_maildir_checks(tmp_path: Path) -> None:
    (tmp_path / "box" / "new").mkdir(parents=True)
    assert check_maildir(tmp_path / "box") == f"{tmp_path / 'box'} (the daemon adds cur, tmp)"
    assert "does not exist yet; the daemon creates it in" in check_maildir(tmp_path / "a" / "b")
    (tmp_path / "file").write_text("")
    with pytest.raises(Failed, match="is not a folder"):
        check_maildir(tmp_path / "file" / "inbox")
