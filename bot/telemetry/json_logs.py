"""Log lines as JSON (LOG_FORMAT=json): one object a line, for a log pipeline (Loki, ELK, Cloud
Logging) to query by game, chat or update.

Every object has `time` (UTC, ISO 8601 with milliseconds), `level`, `logger`, `message` and
`instance` (this process: host and pid); `update`, `chat` and `game` where they are known
(`bot.telemetry.log_context`); `exc_info` (the traceback, as one string) when an exception
goes with the line, and `stack_info` likewise. A newline inside any of them is escaped by
JSON, so a line is always one object.

The formatter writes what the record holds once the handler's filters have run: the token
scrubbing (`bot.run.RedactToken`) rewrites the message and the traceback text before this
formats them, as it does for the text format.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from datetime import UTC, datetime
from typing import Any

from bot.telemetry import log_context


def instance_name() -> str:
    """This process, as it names itself in its log lines: host and pid (a container's host
    name is its id)."""
    return f"{socket.gethostname()}:{os.getpid()}"


class JsonFormatter(logging.Formatter):
    """One JSON object a line (see the module's docstring)."""

    def __init__(self, instance: str | None = None) -> None:
        super().__init__()
        self.instance = instance or instance_name()

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _utc(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "instance": self.instance,
        }
        for key, variable in (
            ("update", log_context.update_id),
            ("chat", log_context.chat_id),
            ("game", log_context.game_id),
        ):
            value = variable.get()
            if value is not None:
                line[key] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exc_info"] = record.exc_text
        if record.stack_info:
            line["stack_info"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def _utc(created: float) -> str:
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
