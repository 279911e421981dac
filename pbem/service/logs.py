"""The daemon's log format: one line per event, filterable by level."""

from __future__ import annotations

import logging
import sys

from pbem.config import Config, RedactingFilter


def setup_logging(config: Config, override: str | None) -> None:
    """One line per event: time, level, logger, message, then game/side/message id if known."""

    class Fields(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            line = super().format(record)
            extra = [
                f"{k}={getattr(record, k)}"
                for k in ("game", "side", "message_id", "phase", "mail", "ref", "owner")
                if getattr(record, k, None) is not None
            ]
            return line + ("  " + " ".join(extra) if extra else "")

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(Fields("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter(config.secret_values()))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel((override or config.log.level).upper())
