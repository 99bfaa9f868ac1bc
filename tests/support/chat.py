"""What a person in a chat sees and does, for tests against the fake Bot API server: the board
a message shows, its buttons, taps and messages that wait until the bot is done with them.

Boards of any size: the cells are the first rows of the keyboard, as many rows as the first one
has buttons (3 on the classic board)."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

from tests.support.bot_runner import settle
from tests.support.fake_telegram import FakeTelegram, StoredMessage

#: Cell buttons' labels (the highlighted ones too) as Hyperskill cells.
SYMBOL_TO_MARK = {
    **{"❌": "X", "❎": "X", "⭕": "O", "🅾️": "O", "·": "_", "💡": "_"},
    **{"🔺": "T", "🔻": "T", "🟦": "S", "🔷": "S"},
    # The last move's mark is framed.
    **{
        f"({mark})": letter for mark, letter in (("❌", "X"), ("⭕", "O"), ("🔺", "T"), ("🟦", "S"))
    },
}
#: The result lines a finished board shows.
RESULTS = ("X wins", "O wins", "Draw")

Button = tuple[str, str | None]


def board_rows(tg: FakeTelegram, message: Any, size: int | None = None) -> list[list[Button]]:
    """The keyboard rows that hold the board's cells: `size` rows, by default as many as the
    first row has buttons. With `size`, every one of those rows must have `size` cells."""
    keyboard = tg.keyboard(message)
    if size is None:
        return keyboard[: len(keyboard[0])] if keyboard else []
    rows = keyboard[:size]
    assert all(len(row) == size for row in rows)
    return rows


def board_cells(tg: FakeTelegram, message: Any, size: int | None = None) -> str:
    """The board a message shows, as Hyperskill cells (`X_O______`)."""
    return "".join(SYMBOL_TO_MARK[text] for row in board_rows(tg, message, size) for text, _ in row)


def highlighted(tg: FakeTelegram, message: Any) -> set[int]:
    """The cells shown highlighted (a winning line)."""
    cells = (button for row in board_rows(tg, message) for button in row)
    return {i for i, (text, _) in enumerate(cells) if text in "❎🅾️"}


def last_move(tg: FakeTelegram, message: Any) -> int | None:
    """The cell shown as the last move (its mark framed), if any."""
    cells = [text for row in board_rows(tg, message) for text, _ in row]
    framed = [i for i, text in enumerate(cells) if text.startswith("(")]
    assert len(framed) <= 1, cells
    return framed[0] if framed else None


def button_texts(tg: FakeTelegram, message: Any) -> list[str]:
    """The labels of every button on the message, row by row."""
    return [text for row in tg.keyboard(message) for text, _ in row]


def cell_data(tg: FakeTelegram, message: Any, cell: int, prefix: str = "m:") -> str:
    """The callback data of a board cell; it must start with `prefix` (a move: `m:…`)."""
    keyboard = tg.keyboard(message)
    size = len(keyboard[0])
    data = keyboard[cell // size][cell % size][1]
    assert data is not None and data.startswith(prefix), data
    return data


def game_id_on(tg: FakeTelegram, message: Any) -> int:
    """The id of the game whose board the message shows (from its first cell)."""
    return int(cell_data(tg, message, 0).split(":")[1])


def current(tg: FakeTelegram, message: StoredMessage) -> StoredMessage:
    """The message as it is now (after the bot's edits)."""
    return tg.messages[message.key]  # type: ignore[index]


def state(message: StoredMessage) -> tuple[str, Any, int]:
    """What a message shows and how often it was edited, to compare before and after."""
    return message.text, copy.deepcopy(message.reply_markup), message.edit_count


def words(message: StoredMessage) -> str:
    """The result line (`X wins`, `O wins`, `Draw`) or the empty string."""
    lines = message.text.splitlines()
    return next((w for w in RESULTS if w in lines), "")


def shown_cells(tg: FakeTelegram, message: StoredMessage | None) -> str | None:
    """The board a message shows, or None if it shows none."""
    if message is None:
        return None
    try:
        cells = board_cells(tg, message)
    except (KeyError, IndexError):
        return None
    return cells if len(cells) >= 9 else None


def newest_board(tg: FakeTelegram, chat_id: int) -> StoredMessage | None:
    """The newest message of the bot's in the chat that shows a board."""
    for message in reversed(tg.bot_messages(chat_id)):
        if shown_cells(tg, message) is not None:
            return message
    return None


def free_cells(tg: FakeTelegram, message: StoredMessage, prefix: str = "") -> list[int]:
    """The cells one may tap on a board in play (none on a finished board): free, with a
    button whose data starts with `prefix`."""
    cells = shown_cells(tg, message)
    if cells is None or words(message):
        return []
    free = []
    for cell, mark in enumerate(cells):
        with contextlib.suppress(AssertionError):
            if mark == "_" and cell_data(tg, message, cell, prefix=prefix):
                free.append(cell)
    return free


async def send(
    tg: FakeTelegram,
    user: dict[str, Any],
    text: str,
    chat: dict[str, Any] | None = None,
    reply_to: Any = None,
) -> dict[str, Any]:
    """Send a message (in the user's private chat by default) and wait until the bot is done
    with it; the message sent."""
    sent = tg.send_text(user, text, chat=chat, reply_to=reply_to)
    await settle(tg)
    return sent


async def tap_data(tg: FakeTelegram, user: dict[str, Any], message: Any, data: str) -> dict:
    """Tap with this callback data; returns the answerCallbackQuery params once settled."""
    query_id = tg.tap(user, message, data)
    answer = await tg.answer_to(query_id)
    await settle(tg)
    return answer


async def tap_cell(tg: FakeTelegram, user: dict[str, Any], message: Any, cell: int) -> dict:
    """Tap a board cell (whatever its data: inline boards have no game yet); returns the
    answerCallbackQuery params once the bot is done."""
    return await tap_data(tg, user, message, cell_data(tg, message, cell, prefix=""))


async def press(tg: FakeTelegram, user: dict[str, Any], message: Any, label: str) -> dict:
    """Tap the button labelled `label`; returns the answerCallbackQuery params."""
    query_id = tg.tap_button(user, message, label)
    answer = await tg.answer_to(query_id)
    await settle(tg)
    return answer


async def play_cells(
    tg: FakeTelegram, board: Any, x: dict[str, Any], o: dict[str, Any], cells: list[int]
) -> None:
    """Tap `cells` in turn, X first, each tap by the player to move; all must be played."""
    for i, cell in enumerate(cells):
        mover = x if board_cells(tg, board).count("_") % 2 else o
        answer = await tap_cell(tg, mover, board, cell)
        assert not answer.get("text"), (i, cell, answer)


def successful_answers(tg: FakeTelegram, query_id: str) -> list[dict[str, Any]]:
    """The params of the answerCallbackQuery calls for `query_id` that Telegram took."""
    return [
        call.params
        for call in tg.calls_of("answerCallbackQuery")
        if call.ok and str(call.params.get("callback_query_id")) == query_id
    ]


def assert_every_query_answered(tg: FakeTelegram, exactly_once: bool = True) -> None:
    """Every callback query got an answer (exactly one, unless told otherwise), and no answer
    went to a query that was never asked."""
    asked = list(tg.callback_queries)
    answered = [call.params["callback_query_id"] for call in tg.calls_of("answerCallbackQuery")]
    if exactly_once:
        assert sorted(answered) == sorted(asked)
    else:
        assert set(answered) == set(asked)


def not_modified(tg: FakeTelegram) -> list[Any]:
    """The edits Telegram refused as changing nothing."""
    return [call for call in tg.calls if not call.ok and "not modified" in (call.description or "")]
