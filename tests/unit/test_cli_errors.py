"""A user's mistake gets one line on stderr that says what to do, never a traceback.

Each case runs the real command line (``python -m pbem``) as a new user would.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command as alembic
from alembic.config import Config as AlembicConfig
from alembic.script import ScriptDirectory

from pbem.cli import command as cli
from tests.conftest import make_database

ROOT = Path(__file__).resolve().parents[2]
ORDERS = "Game: g1\nSide: allied\nTurn: 1\nPhase: setup\n\n# nothing yet\n"


def pbem(cwd: Path, *args: str, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PYTHONPATH=str(ROOT), **environ)
    return subprocess.run(
        [sys.executable, "-m", "pbem", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """The one line a refusal printed; checks it names ``words``."""
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder set up as the README says: pbem init, db upgrade."""
    folder = tmp_path_factory.mktemp("moderator")
    assert pbem(folder, "init", "pbem.toml").returncode == 0
    assert pbem(folder, "-c", "pbem.toml", "db", "upgrade").returncode == 0
    return folder


def readme_commands() -> list[list[str]]:
    """The pbem commands of the README's "Using it" block, in its order (``serve``
    and ``doctor`` left out: they need the mail servers)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Using it", 1)[1].split("\n\n", 2)[1]
    commands = []
    for line in block.splitlines():
        for command in line.split("#", 1)[0].split("&&"):
            words = shlex.split(command)
            if words and words[0] == "pbem" and not {"serve", "doctor"} & set(words):
                commands.append(words[1:])
    return commands


def test_the_readme_by_hand(tmp_path: Path) -> None:
    """The README's "Using it", as written and in its order: each step works, the
    files it names (@alice.pub) made by a step before it."""
    steps = readme_commands()
    assert ["keygen", "--out", "alice.key"] in steps and any("ASSIGN" in s for s in steps)
    for step in steps:
        result = pbem(tmp_path, *step)
        assert result.returncode == 0, (step, result.stderr)
    (tmp_path / "orders.txt").write_text(ORDERS, encoding="utf-8")
    signed = pbem(tmp_path, "sign", "orders.txt", "--key", "alice.key")
    assert signed.returncode == 0 and "BEGIN PBEM ORDERS" in signed.stdout


def test_assign_with_a_key_file_named_without_its_at_says_to_write_it(installed: Path) -> None:
    (installed / "carol.pub").write_text("ssh-ed25519 AAAA carol\n", encoding="utf-8")
    refused(
        pbem(installed, "mod", "ASSIGN", "g9", "allied", "carol@example.org", "carol.pub"),
        "carol.pub",
        "write @carol.pub",
    )


def _revisions() -> tuple[str, str]:
    """The newest schema revision and the one before it."""
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", "pbem:migrations")
    head = ScriptDirectory.from_config(cfg).get_revision("head")
    assert head is not None and isinstance(head.down_revision, str)
    return head.revision, head.down_revision


def _alembic_upgrade(url: str, revision: str) -> None:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", "pbem:migrations")
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    alembic.upgrade(cfg, revision)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_db_upgrade_says_what_it_did(tmp_path: Path, kind: str) -> None:
    """Created on an empty database, up to date when run again, and upgraded from the
    schema before: each said, on SQLite and on PostgreSQL alike."""
    head, before = _revisions()
    for url in make_database(kind, tmp_path):
        (tmp_path / "pbem.toml").write_text(f'[database]\nurl = "{url}"\n', encoding="utf-8")
        first = pbem(tmp_path, "-c", "pbem.toml", "db", "upgrade")
        assert first.returncode == 0, first.stderr
        assert first.stdout.startswith("created pbem's tables in the database at "), first
        assert first.stdout.rstrip().endswith(f"(schema {head})")
        again = pbem(tmp_path, "-c", "pbem.toml", "db", "upgrade")
        assert again.returncode == 0 and again.stdout.rstrip().endswith(
            f"is up to date (schema {head})"
        ), again
    (tmp_path / "older").mkdir()
    for url in make_database(kind, tmp_path / "older"):
        _alembic_upgrade(url, before)  # a database pbem left at the schema before
        (tmp_path / "pbem.toml").write_text(f'[database]\nurl = "{url}"\n', encoding="utf-8")
        upgraded = pbem(tmp_path, "-c", "pbem.toml", "db", "upgrade")
        assert upgraded.returncode == 0, upgraded.stderr
        assert upgraded.stdout.startswith("upgraded the database at "), upgraded
        assert upgraded.stdout.rstrip().endswith(f"from schema {before} to {head}")


def test_mailkeys_shows_signing_paths_as_init_wrote_them(tmp_path: Path) -> None:
    """init writes [signing] paths relative to the configuration's folder; mailkeys
    --force on them says they are named already, else shows them the same way."""
    assert pbem(tmp_path, "init", "pbem.toml").returncode == 0
    same = pbem(tmp_path, "-c", "pbem.toml", "mailkeys", "--force")
    assert same.returncode == 0 and "names them already" in same.stdout, same
    config = tmp_path / "pbem.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('openpgp_key = "keys/openpgp.key"', 'openpgp_key = ""'))
    shown = pbem(tmp_path, "-c", "pbem.toml", "mailkeys", "--force")
    assert shown.returncode == 0 and 'openpgp_key = "keys/openpgp.key"' in shown.stdout
    assert (
        "must name" not in shown.stdout and str(tmp_path) not in shown.stdout.split("[signing]")[1]
    )


def test_serve_without_a_configuration_file_says_to_make_one(tmp_path: Path) -> None:
    refused(pbem(tmp_path, "serve", "--once"), "no configuration file", "pbem init")


def test_a_named_configuration_file_that_is_missing(tmp_path: Path) -> None:
    refused(pbem(tmp_path, "-c", "pbem.toml", "db", "upgrade"), "pbem.toml", "pbem init")


def test_a_command_before_db_upgrade_says_to_run_it(tmp_path: Path) -> None:
    assert pbem(tmp_path, "init", "pbem.toml").returncode == 0
    for command in (["mod", "STATUS", "g1"], ["archive", "export", "g1", "--out", "x"]):
        line = refused(pbem(tmp_path, "-c", "pbem.toml", *command))
        assert line == "pbem: the database has no tables yet: run `pbem -c pbem.toml db upgrade`"


def test_a_configuration_value_it_does_not_understand(tmp_path: Path) -> None:
    (tmp_path / "pbem.toml").write_text('[intake]\ntransport = "IMAP"\n')
    refused(pbem(tmp_path, "-c", "pbem.toml", "db", "upgrade"), "[intake] transport", '"imap"')


def test_an_unknown_ruleset(installed: Path) -> None:
    result = pbem(installed, "-c", "pbem.toml", "mod", "CREATE", "g9", "chess", "duel")
    refused(result, "unknown ruleset 'chess'", "usn")


def test_a_missing_at_file(installed: Path) -> None:
    result = pbem(installed, "-c", "pbem.toml", "mod", "ASSIGN", "g1", "allied", "a@b.c", "@x.pub")
    refused(result, "@x.pub", "cannot read x.pub")
    result = pbem(installed, "-c", "pbem.toml", "mod", "CREATE", "g9", "usn", "coral-sea",
                  "overrides=@fixes.toml")  # fmt: skip
    refused(result, "overrides=@fixes.toml", "cannot read fixes.toml")


def test_an_unknown_game(installed: Path) -> None:
    refused(pbem(installed, "-c", "pbem.toml", "archive", "html", "g9", "--out", "x"), "'g9'")


def test_demo_with_an_unknown_scenario_writes_nothing(tmp_path: Path) -> None:
    refused(pbem(tmp_path, "demo", "--scenario", "nope", "--dir", "d"), "'nope'", "coral-sea")
    refused(pbem(tmp_path, "demo", "--ruleset", "nope", "--dir", "d"), "unknown ruleset 'nope'")
    assert not (tmp_path / "d").exists()


def test_demo_leaves_a_real_installation_alone(installed: Path) -> None:
    refused(pbem(installed, "demo", "--dir", "."), "did not write", "--dir")
    assert (installed / "pbem.sqlite3").exists()


def test_an_unknown_log_level(tmp_path: Path) -> None:
    result = pbem(tmp_path, "--log-level", "LOUD", "mod", "STATUS", "g1")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "invalid choice: 'LOUD'" in result.stderr and "'DEBUG'" in result.stderr


def test_numbers_that_must_be_above_zero(tmp_path: Path) -> None:
    for argv in (["map", "usn", "--out", "m.png", "--scale", "0"], ["demo", "--timeout", "-1"]):
        result = pbem(tmp_path, *argv)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert "is not above 0" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_send_with_a_missing_certificate_file_names_it(tmp_path: Path) -> None:
    assert pbem(tmp_path, "keygen", "--out", "alice.key").returncode == 0
    (tmp_path / "orders.txt").write_text(ORDERS, encoding="utf-8")
    result = pbem(tmp_path, "send", "orders.txt", "--key", "alice.key", "--to", "m@x.test",
                  "--from", "a@x.test", "--smtp", "127.0.0.1:1", "--cafile", "ca.pem")  # fmt: skip
    refused(result, "--cafile ca.pem", "No such file")


def test_sign_with_the_public_key_names_the_key(tmp_path: Path) -> None:
    assert pbem(tmp_path, "keygen", "--out", "alice.key").returncode == 0
    (tmp_path / "orders.txt").write_text(ORDERS, encoding="utf-8")
    line = refused(pbem(tmp_path, "sign", "orders.txt", "--key", "alice.pub"))
    assert "alice.pub is a public key" in line and "alice.key" in line
    assert "orders.txt" not in line
    line = refused(pbem(tmp_path, "sign", "orders.txt", "--key", "orders.txt"))
    assert "--key orders.txt is not a private key" in line


def test_sign_without_a_key(tmp_path: Path) -> None:
    (tmp_path / "orders.txt").write_text(ORDERS, encoding="utf-8")
    refused(pbem(tmp_path, "sign", "orders.txt", "--key", "none.key"), "none.key", "pbem keygen")


def test_keygen_refuses_a_public_key_name(tmp_path: Path) -> None:
    refused(pbem(tmp_path, "keygen", "--out", "alice.pub"), "alice.key")


def test_a_file_that_cannot_be_written(tmp_path: Path) -> None:
    refused(pbem(tmp_path, "init", "no/such/folder/pbem.toml"), "no/such/folder/pbem.toml")


def test_an_unreachable_database_is_named_without_its_password(tmp_path: Path) -> None:
    (tmp_path / "pbem.toml").write_text(
        '[database]\nurl = "postgresql+psycopg://pbem:hunter2@127.0.0.1:1/pbem"\n'
    )
    line = refused(pbem(tmp_path, "-c", "pbem.toml", "db", "upgrade"), "cannot use the database")
    assert "pbem:***@127.0.0.1:1/pbem" in line and "hunter2" not in line


def test_db_upgrade_shows_the_url_without_its_password(tmp_path: Path) -> None:
    for url in make_database("postgresql", tmp_path):
        user, _, rest = url.partition("://")[2].partition("@")
        if ":" not in user:  # trust authentication: any password is let in
            user += ":hunter2"
        password = user.partition(":")[2]
        (tmp_path / "pbem.toml").write_text(
            f'[database]\nurl = "postgresql+psycopg://{user}@{rest}"\n'
        )
        result = pbem(tmp_path, "-c", "pbem.toml", "db", "upgrade")
        assert result.returncode == 0, result.stderr
        assert password not in result.stdout + result.stderr
        assert f"{user.partition(':')[0]}:***@" in result.stdout


def test_send_into_a_folder_that_is_not_a_maildir(tmp_path: Path) -> None:
    assert pbem(tmp_path, "keygen", "--out", "alice.key").returncode == 0
    (tmp_path / "orders.txt").write_text(ORDERS, encoding="utf-8")
    result = pbem(tmp_path, "send", "orders.txt", "--key", "alice.key", "--to", "m@x.test",
                  "--from", "a@x.test", "--maildir", "nowhere")  # fmt: skip
    refused(result, "nowhere is not a Maildir")


def test_a_bug_still_shows_its_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only expected errors become one line: a bug must not be hidden."""

    def broken(args: argparse.Namespace) -> int:
        raise RuntimeError("a bug")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser.set_defaults(func=broken)
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main([])


def test_a_read_by_the_command_line_leaves_an_audit_line_and_no_record_entry(
    installed: Path,
) -> None:
    """``pbem mod`` logs where the daemon logs (stderr, the configured [log] format and
    level): a STATUS is in the audit log, and the game's record does not grow."""
    mod = ("-c", "pbem.toml", "mod")
    assert pbem(installed, *mod, "CREATE", "g7", "demo", "duel").returncode == 0
    before = pbem(installed, *mod, "AUDIT", "g7").stdout
    status = pbem(installed, *mod, "STATUS", "g7")
    assert status.returncode == 0, status.stderr
    assert "pbem.audit" in status.stderr and "moderator read STATUS by" in status.stderr
    assert "via cli" in status.stderr
    after = pbem(installed, *mod, "AUDIT", "g7").stdout
    # The acts (the record) are as before; the reads are kept apart, in the audit store.
    acts, _, reads = after.partition("g7: 2 read(s), not in the record")
    assert acts == before and "CREATE demo duel" in acts and "STATUS" not in acts
    assert "UTC STATUS g7 by moderator by cli (command line)" in reads
