"""``pbem demo --option``: the demonstration plays double-blind with submarines (issue 13).

The whole demo runs as a user would start it: the daemon is a separate process, the
moderator's CREATE goes by signed mail, and the archive is verified at the end.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.unit.test_cli_errors import pbem, refused


def test_demo_plays_double_blind_with_subs_and_verifies(tmp_path: Path) -> None:
    run = pbem(
        tmp_path, "demo", "--dir", "d", "--option", "fog=double-blind", "--option", "subs=true"
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr
    assert "CREATE (fog=double-blind subs=true)" in run.stdout
    assert "verify: OK" in run.stdout
    with sqlite3.connect(tmp_path / "d" / "pbem.sqlite3") as db:
        (options,) = db.execute("SELECT options FROM games WHERE id = 'demo-1'").fetchone()
    assert json.loads(options) == {"fog": "double-blind", "subs": True}


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("fog=doubleblind", ("fog='doubleblind'", "open, double-blind")),
        ("subs", ("key=value",)),
        ("periscopes=up", ("unknown option(s) periscopes", "fog (open, double-blind)")),
    ],
)
def test_demo_refuses_a_bad_option_before_writing_anything(
    tmp_path: Path, option: str, words: tuple[str, ...]
) -> None:
    refused(pbem(tmp_path, "demo", "--dir", "d", "--option", option), *words)
    assert not (tmp_path / "d").exists()
