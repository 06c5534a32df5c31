"""Logging for `perudo serve`: plain lines, or JSON lines (`PERUDO_LOG_JSON=true`) that a log
collector reads field by field. Room events carry `room` (and `event`) as extra fields."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

EVENT_FIELDS = ("event", "room", "instance", "rooms", "game_id")


class JsonLines(logging.Formatter):
    """One JSON object per record: time, level, logger, message, the event fields, and the
    traceback if there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in EVENT_FIELDS:
            if hasattr(record, name):
                line[name] = getattr(record, name)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def log_config(json_lines: bool) -> dict[str, Any]:
    """A `logging.config.dictConfig` for the app and uvicorn alike."""
    formatter: dict[str, Any] = (
        {"()": JsonLines}
        if json_lines
        else {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "default",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"handlers": ["stderr"], "level": "INFO"},
        "loggers": {
            "uvicorn": {"handlers": [], "propagate": True},
            "uvicorn.error": {"handlers": [], "propagate": True},
            "uvicorn.access": {"handlers": [], "propagate": True, "level": "WARNING"},
        },
    }
