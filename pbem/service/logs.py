"""The daemon's log format: one line per event, filterable by level; as text or,
with ``[log] format = "json"``, as one JSON object per line for a log collector."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime

from pbem.config import Config, LogFormat, RedactingFilter, redact

# The event fields a record may carry (``extra=``), in the order they are shown.
FIELDS = ("game", "side", "message_id", "phase", "mail", "ref", "owner")


class TextFormatter(logging.Formatter):
    """Time, level, logger, message, then game/side/message id if known."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        extra = [
            f"{k}={getattr(record, k)}" for k in FIELDS if getattr(record, k, None) is not None
        ]
        return line + ("  " + " ".join(extra) if extra else "")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, the
    event's fields, and ``exception`` (the traceback) when there is one.

    A traceback may quote a connection string or a password, and the redacting
    filter sees only the message: the exception text is redacted here too.
    """

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.secrets = secrets

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for k in FIELDS:
            value = getattr(record, k, None)
            if value is not None:
                entry[k] = value if isinstance(value, int | float | bool) else str(value)
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info), self.secrets)
        elif record.exc_text:
            entry["exception"] = redact(record.exc_text, self.secrets)
        if record.stack_info:
            entry["stack"] = record.stack_info
        # ensure_ascii: a line stays one line and plain ASCII whatever the mail said.
        return json.dumps(entry, ensure_ascii=True)


def setup_logging(config: Config, override: str | None) -> None:
    """Log to stderr (journald) in the configured format, secrets redacted."""
    secrets = config.secret_values()
    handler = logging.StreamHandler(sys.stderr)
    formatter: logging.Formatter = (
        JsonFormatter(secrets) if config.log.format is LogFormat.JSON else TextFormatter()
    )
    handler.setFormatter(formatter)
    handler.addFilter(RedactingFilter(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel((override or config.log.level).upper())
