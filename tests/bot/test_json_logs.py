"""LOG_FORMAT=json: one JSON object a line, with what the line is about (update, chat, game)
where it is known, tracebacks inside the object, and the token scrubbed as in the text
format (`bot.run.RedactToken` runs before either formatter)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from bot.run import RedactToken
from bot.telemetry import log_context
from bot.telemetry.json_logs import JsonFormatter

TOKEN = "7412589630:AAF-secretPart_ForTests-xyz"
WEBHOOK_SECRET = "hook-secret_123"


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger of its own, writing JSON lines to a string, scrubbed as the bot's are."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RedactToken(TOKEN, WEBHOOK_SECRET))
    handler.setFormatter(JsonFormatter(instance="host:1"))
    logger = logging.getLogger("tests.json_logs")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    # What a test says its lines are about stays with the test.
    variables = (log_context.update_id, log_context.chat_id, log_context.game_id)
    tokens = [variable.set(None) for variable in variables]
    try:
        yield logger, out
    finally:
        logger.removeHandler(handler)
        for variable, token in zip(variables, tokens, strict=True):
            variable.reset(token)


def lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_line_is_one_object_with_what_it_is_about(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    logger.info("before any update")
    log_context.about_update(42, -1001)
    log_context.about_game(7)
    logger.warning("game %s moved\nand a second line", 7)
    [first, second] = lines(out)
    assert set(first) == {"time", "level", "logger", "message", "instance"}
    assert first["logger"] == "tests.json_logs" and first["instance"] == "host:1"
    assert str(first["time"]).endswith("+00:00")
    assert second["level"] == "WARNING"
    assert second["message"] == "game 7 moved\nand a second line"
    assert (second["update"], second["chat"], second["game"]) == (42, -1001, 7)


def test_a_game_scope_ends_with_its_block(logged: tuple[logging.Logger, io.StringIO]) -> None:
    logger, out = logged
    log_context.about_update(5, 1001)
    with log_context.game_scope(9, update=False):
        logger.info("a listener")
    logger.info("the update again")
    listener, update = lines(out)
    assert listener["game"] == 9 and "update" not in listener and "chat" not in listener
    assert update["update"] == 5 and update["chat"] == 1001 and "game" not in update


def test_an_exception_goes_inside_the_object_without_the_token(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    try:
        raise ValueError(f"https://api.telegram.org/bot{TOKEN}/getMe {WEBHOOK_SECRET}")
    except ValueError:
        logger.exception("calling %s failed", f"bot{TOKEN}")
    logger.info("stack", stack_info=True)
    text = out.getvalue()
    assert len(text.splitlines()) == 2
    assert TOKEN not in text and TOKEN.split(":")[1] not in text and WEBHOOK_SECRET not in text
    failed, stacked = lines(out)
    assert failed["message"] == "calling bot<token> failed"
    assert str(failed["exc_info"]).startswith("Traceback (most recent call last):")
    assert "ValueError: https://api.telegram.org/bot<token>/getMe <secret>" in str(
        failed["exc_info"]
    )
    assert "Stack (most recent call last)" in str(stacked["stack_info"])
