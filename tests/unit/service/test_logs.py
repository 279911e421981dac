"""[log] format = "json": one JSON object per line, secrets redacted, tracebacks kept."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import replace

import pytest

from pbem.config import Config, ImapConfig, LogConfig, LogFormat, load_config
from pbem.core.errors import ConfigError
from pbem.service.logs import setup_logging


@pytest.fixture(autouse=True)
def _restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:], root.level = handlers, level


def test_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    config = Config(imap=ImapConfig(password="hunter22"), log=LogConfig(format=LogFormat.JSON))
    setup_logging(config, None)
    log = logging.getLogger("pbem.test")
    log.info("mail filed from %s", "ana\u00efs@example.org", extra={"game": "g1", "mail": 7})
    log.debug("not shown at INFO")
    try:
        raise RuntimeError("login with hunter22 failed\nsecond line")
    except RuntimeError:
        log.exception("a round failed; password hunter22")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["level"] == "INFO" and first["logger"] == "pbem.test"
    assert first["message"] == "mail filed from ana\u00efs@example.org"
    assert first["game"] == "g1" and first["mail"] == 7
    assert first["time"].endswith("+00:00") and "T" in first["time"]
    assert "exception" not in first
    assert second["level"] == "ERROR"
    assert second["message"] == "a round failed; password ***"
    assert "Traceback" in second["exception"]
    assert "RuntimeError: login with *** failed\nsecond line" in second["exception"]
    assert "hunter22" not in "".join(lines)
    assert all(line.isascii() for line in lines)


def test_text_stays_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    setup_logging(Config(), "DEBUG")
    logging.getLogger("pbem.test").debug("hello", extra={"side": "north"})
    line = capsys.readouterr().err.strip()
    assert line.endswith("DEBUG pbem.test: hello  side=north")


def test_the_format_is_a_closed_choice(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "pbem.toml"
    path.write_text('[log]\nformat = "JSON"\n')
    with pytest.raises(
        ConfigError, match=r'\[log\] format: .JSON. is not allowed; use one of "text", "json"'
    ):
        load_config(path, environ={})
    path.write_text('[log]\nformat = "json"\n')
    assert load_config(path, environ={}).log.format is LogFormat.JSON
    assert replace(LogConfig(), format=LogFormat.TEXT).format is LogFormat.TEXT
