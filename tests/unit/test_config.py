"""The configuration refuses what it does not understand, resolves every path from the
file's folder, and never shows a secret."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from pbem.config import (
    Config,
    DatabaseConfig,
    ImapConfig,
    IntakeConfig,
    IntakeTransport,
    LogLevel,
    MetricsConfig,
    NoOrdersPolicy,
    OutboxTransport,
    RedactingFilter,
    SecretsConfig,
    SmtpConfig,
    example_config,
    load_config,
    redact,
)
from pbem.core.errors import ConfigError


def write(folder: Path, text: str) -> Path:
    path = folder / "pbem.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_example_loads_with_closed_types(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, example_config()), environ={})
    assert config.intake.transport is IntakeTransport.MAILDIR
    assert config.outbox.transport is OutboxTransport.MAILDIR
    assert config.games.no_orders_policy is NoOrdersPolicy.STANDING
    assert config.log.level is LogLevel.INFO
    assert len(config.secrets.key_bytes()) == 32


def test_the_deployment_example_loads() -> None:
    example = Path(__file__).resolve().parents[2] / "deploy" / "pbem.example.toml"
    config = load_config(example, environ={"PBEM_IMAP_PASSWORD": "from-the-environment"})
    assert config.intake.transport is IntakeTransport.IMAP
    assert config.outbox.transport is OutboxTransport.SMTP
    assert config.imap.password == "from-the-environment"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('[intake]\ntransport = "IMAP"\n', ["[intake] transport", "'IMAP'", '"maildir"', '"imap"']),
        ('[outbox]\ntransport = "smpt"\n', ["[outbox] transport", "'smpt'", '"smtp"']),
        ('[imap]\ntls = "ture"\n', ["[imap] tls", "'ture'", "true or false"]),
        ('[smtp]\nstarttls = "true"\n', ["[smtp] starttls", "true or false"]),
        ("[games]\nearly_adjudication = 1\n", ["[games] early_adjudication", "true or false"]),
        ('[games]\nno_orders_policy = "pass"\n', ["no_orders_policy", '"standing"', '"forfeit"']),
        ('[log]\nlevel = "LOUD"\n', ["[log] level", '"DEBUG"', '"ERROR"']),
        ('[intake]\nmax_size = "1MB"\n', ["[intake] max_size", "a whole number"]),
        ("[intake]\nworkers = 0\n", ["[intake] workers", "1 or more"]),
        ("[imap]\nport = 70000\n", ["[imap] port", "1 to 65535"]),
        ("[intake]\npoll_interval = 0\n", ["[intake] poll_interval", "more than 0"]),
        ("[intake]\nwrokers = 2\n", ["[intake]", "'wrokers'", "workers"]),
        ("[imap_server]\n", ["[imap_server]", "imap", "smtp"]),
        ('intake = "imap"\n', ["[intake] must be a table"]),
        ('[database]\nurl = "mysql://u:pw@h/db"\n', ["[database] url", "SQLite", "PostgreSQL"]),
        ("[database\n", ["not valid TOML"]),
        ("[outbox]\nretry_cap = 10.0\n", ["[outbox] retry_cap (10.0)", "retry_base (30.0)"]),
        ("[smtp]\nconnections = 0\n", ["[smtp] connections", "more than 0"]),
    ],
)
def test_what_is_not_understood_is_refused_by_name(
    tmp_path: Path, text: str, names: list[str]
) -> None:
    with pytest.raises(ConfigError) as refused:
        load_config(write(tmp_path, text), environ={})
    for name in names:
        assert name in str(refused.value)


def test_the_environment_is_held_to_the_same_rules(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    assert load_config(path, environ={"PBEM_IMAP_TLS": "true"}).imap.tls is True
    assert load_config(path, environ={"PBEM_IMAP_PORT": "993"}).imap.port == 993
    environ = {"PBEM_INTAKE_TRANSPORT": "imap"}
    assert load_config(path, environ=environ).intake.transport is IntakeTransport.IMAP
    for environ, named in (
        ({"PBEM_IMAP_TLS": "ture"}, "PBEM_IMAP_TLS"),
        ({"PBEM_IMAP_TLS": "yes"}, "PBEM_IMAP_TLS"),
        ({"PBEM_IMAP_PORT": "many"}, "PBEM_IMAP_PORT"),
        ({"PBEM_INTAKE_TRANSPORT": "IMAP"}, "[intake] transport"),
        ({"PBEM_DATABASE_URLL": "sqlite://"}, "PBEM_DATABASE_URLL"),
    ):
        with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
            load_config(path, environ=environ)
    # Variables of no section are not the configuration's business.
    load_config(path, environ={"PBEM_UPDATE_GOLDEN": "1"})


def test_an_older_file_with_max_attempts_still_loads_and_is_told_what_changed(
    tmp_path: Path,
) -> None:
    config = load_config(write(tmp_path, "[outbox]\nmax_attempts = 8\n"), environ={})
    [note] = config.outbox.notes()
    assert "max_attempts is no longer used" in note and "retry_cap" in note
    assert load_config(write(tmp_path, example_config()), environ={}).outbox.notes() == []


def test_a_missing_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="pbem init"):
        load_config(tmp_path / "nope.toml", environ={})


def test_no_file_at_all_says_how_to_make_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"no configuration file.*pbem init"):
        load_config(None, environ={})


def test_every_relative_path_is_relative_to_the_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    write(
        folder,
        '[database]\nurl = "sqlite:///data/pbem.sqlite3?timeout=5"\n'
        '[intake]\nmaildir = "mail/in"\n[outbox]\nmaildir = "/var/out"\n',
    )
    monkeypatch.chdir(tmp_path)  # not the file's folder
    config = load_config(Path("etc/pbem.toml"), environ={})
    assert config.base_dir == folder
    assert config.database.url == f"sqlite:///{folder}/data/pbem.sqlite3?timeout=5"
    assert config.intake.maildir == folder / "mail" / "in"
    assert config.outbox.maildir == Path("/var/out")


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:////srv/pbem.sqlite3",
        "postgresql+psycopg://pbem@127.0.0.1:5432/pbem",
    ],
)
def test_other_database_urls_stay_as_written(tmp_path: Path, url: str) -> None:
    assert Config(database=DatabaseConfig(url=url), base_dir=tmp_path).database.url == url


def test_sections_made_in_code_are_checked_too() -> None:
    assert IntakeConfig(transport="imap").transport is IntakeTransport.IMAP  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="transport"):
        IntakeConfig(transport="IMAP")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="tls"):
        ImapConfig(tls="false")  # type: ignore[arg-type]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "::1", "localhost"])
def test_a_loopback_metrics_host_is_taken(host: str) -> None:
    assert MetricsConfig(host=host, port=9464).host == host


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "2001:db8::1", "metrics.example.org"]
)
def test_a_metrics_host_other_than_loopback_is_refused_by_name(tmp_path: Path, host: str) -> None:
    """The endpoint has no access control: only this machine may reach it."""
    with pytest.raises(ConfigError, match=r"\[metrics\] host must be a loopback address"):
        MetricsConfig(host=host, port=9464)
    config = tmp_path / "pbem.toml"
    config.write_text(f'[metrics]\nhost = "{host}"\nport = 9464\n')
    with pytest.raises(ConfigError, match=rf"\[metrics\] host .*not '{re.escape(host)}'"):
        load_config(config)


def test_secrets_never_show(tmp_path: Path) -> None:
    config = Config(
        database=DatabaseConfig(url="postgresql+psycopg://pbem:hunter%402@db/pbem"),
        secrets=SecretsConfig(plot_key="c2VjcmV0LXBsb3Qta2V5"),
        imap=ImapConfig(password="imap-secret"),
        smtp=SmtpConfig(password="smtp-secret"),
        base_dir=tmp_path,
    )
    shown = repr(config)
    for secret in ("hunter", "c2VjcmV0LXBsb3Qta2V5", "imap-secret", "smtp-secret"):
        assert secret not in shown
    assert "pbem:***@db" in shown
    said = config.redact(
        "login pbem/hunter@2 imap-secret smtp-secret key c2VjcmV0LXBsb3Qta2V5 at "
        "postgresql+psycopg://pbem:hunter%402@db/pbem"
    )
    assert said == "login pbem/*** *** *** key *** at postgresql+psycopg://pbem:***@db/pbem"


def test_redact_takes_out_whole_secrets_only() -> None:
    assert (
        redact("LOGIN moderator pw; passwords: pw", ["pw"]) == "LOGIN moderator ***; passwords: ***"
    )


def test_redact_takes_the_password_out_of_any_url() -> None:
    assert redact("to imaps://me:pw@host:993/ and x") == "to imaps://me:***@host:993/ and x"
    assert redact("postgresql://pbem@host/pbem") == "postgresql://pbem@host/pbem"


def test_logged_secrets_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("pbem.test-redaction")
    caplog.handler.addFilter(RedactingFilter(["imap-secret"]))
    with caplog.at_level(logging.INFO, logger=logger.name):
        logger.info("LOGIN %s %s", "moderator", "imap-secret")
    assert caplog.records[0].getMessage() == "LOGIN moderator ***"
