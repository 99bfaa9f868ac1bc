"""What a log line is about: the update being handled, its chat, and the game it acts on, as
context variables, so that every line logged meanwhile carries them (`LOG_FORMAT=json`, in
`bot.telemetry.json_logs`) without any logging call passing them.

Each update is handled in a task of its own (`bot.intake.webhook_inbox`), which sets the update
and its chat first; whatever finds the game (a tap on a board, the presenter drawing one, a
game's listeners) says so with `about_game`. A task copies the variables of the task that
starts it: what an update starts in the background is still about that update.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

#: The update being handled (its update_id), its chat, and the game being acted on.
update_id: ContextVar[int | None] = ContextVar("log_update", default=None)
chat_id: ContextVar[int | None] = ContextVar("log_chat", default=None)
game_id: ContextVar[int | None] = ContextVar("log_game", default=None)


def about_update(update: int, chat: int | None) -> None:
    """From here on (in this task), lines are about this update and chat, and no game yet."""
    update_id.set(update)
    chat_id.set(chat)
    game_id.set(None)


def about_game(game: int | None) -> None:
    """From here on (in this task), lines are about this game."""
    game_id.set(game)


@contextlib.contextmanager
def game_scope(game: int, *, update: bool = True) -> Iterator[None]:
    """Lines logged in this block are about this game (and, with `update=False`, about no
    update: a game's listeners act for whichever update changed it, not the one that happened
    to start their task); as before after it."""
    game_token = game_id.set(game)
    update_token = None if update else update_id.set(None)
    chat_token = None if update else chat_id.set(None)
    try:
        yield
    finally:
        game_id.reset(game_token)
        if update_token is not None:
            update_id.reset(update_token)
        if chat_token is not None:
            chat_id.reset(chat_token)
