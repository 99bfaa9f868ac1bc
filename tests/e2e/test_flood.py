"""A group full of games under Telegram's real flood limits: the fake Bot API server answers
429 past 20 messages a minute in a group (a token bucket, as Telegram tolerates bursts) and 30
a second in all, and the bot runs with Telegram's numbers too, on the shortened windows of
`tests.support.time_scale` and on Telegram's clock in the paced tier. Assertions are on what
the fake recorded and on what the bot still has queued, never on timings."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS, FloodGate
from core.notation import format_cells, parse_cells
from core.rules import outcome
from tests.support.bot_runner import BotRunner, quiesce, settle
from tests.support.chat import board_cells, cell_data, game_id_on, words
from tests.support.fake_telegram import FakeTelegram, StoredMessage

GROUP = FakeTelegram.group_chat(-100900, "Spectators")
ALICE = FakeTelegram.user(1001, "Alice")
MATCHES = ("/start easy hard", "/start medium hard", "/start hard hard", "/start easy medium")
#: Time enough for the matches' final boards at one group message every 3 s.
FINALS_TIMEOUT = 90.0


@pytest.fixture
async def paced_bot(telegram: FakeTelegram, database_url: str) -> AsyncIterator[BotRunner]:
    """The bot with Telegram's flood limits, against a fake that enforces them, both on the
    test's clock (`tests.support.time_scale`)."""
    telegram.enforce_flood_limits()  # Telegram's numbers: 20 a minute per group
    limits = TELEGRAM_FLOOD_LIMITS.scaled(telegram.time_scale)
    runner = BotRunner(telegram, database_url, flood_limits=limits)
    await runner.start()
    try:
        yield runner
    finally:
        await runner.stop()


def gate_of(runner: BotRunner) -> FloodGate:
    assert runner.application is not None
    gate = runner.application.bot.rate_limiter
    assert isinstance(gate, FloodGate)
    return gate


async def start_matches(telegram: FakeTelegram) -> list[StoredMessage]:
    """Four AI matches started in the group at once; their board messages."""
    before = {m.key for m in telegram.bot_messages(GROUP["id"])}
    for command in MATCHES:
        telegram.send_text(ALICE, command, chat=GROUP)
    await settle(telegram)
    boards = [m for m in telegram.bot_messages(GROUP["id"]) if m.key not in before]
    # Updates are handled concurrently: the boards come in any order.
    assert sorted(board.text.splitlines()[0] for board in boards) == sorted(
        [
            "❌ Easy AI vs ⭕ Hard AI",
            "❌ Medium AI vs ⭕ Hard AI",
            "❌ Hard AI vs ⭕ Hard AI",
            "❌ Easy AI vs ⭕ Medium AI",
        ]
    )
    return boards


async def test_four_ai_matches_in_a_group_finish_with_no_429(
    both_clocks: str, telegram: FakeTelegram, paced_bot: BotRunner
) -> None:
    boards = await start_matches(telegram)
    await telegram.wait_until(
        lambda: all(words(board) for board in boards),
        timeout=FINALS_TIMEOUT,
        what="every match's final board",
    )
    assert telegram.too_many_requests == []
    assert paced_bot.application is not None
    store = paced_bot.application.bot_data.running.games.store
    for board in boards:
        # The last edit of each board shows the result, on the position the game ended in.
        shown = board_cells(telegram, board)
        assert outcome(parse_cells(shown)) == words(board)
        game = await store.get_game(game_id_on(telegram, board))
        assert game.is_finished and format_cells(game.board) == shown
    # Never more than one edit a move. On Telegram's clock the group has no room for every
    # frame, and those are skipped: fewer edits than moves. (On the shortened windows a busy
    # machine may play the matches slower than the group's tokens come back: every frame fits.)
    edits = sum(board.edit_count for board in boards)
    moves = sum(9 - board_cells(telegram, board).count("_") for board in boards)
    assert edits <= moves
    if both_clocks == "telegram":
        assert edits < moves
    await quiesce(telegram)
    assert gate_of(paced_bot).waiting(GROUP["id"]) == 0


# Telegram's clock only: on shortened windows the group's tokens come back before the matches
# are over, and nothing is left queued for the tap to overtake.
@pytest.mark.paced
async def test_a_tap_in_the_group_goes_before_the_queued_ai_edits(
    telegram: FakeTelegram, paced_bot: BotRunner
) -> None:
    telegram.send_text(ALICE, "/start user hard", chat=GROUP)
    await settle(telegram)
    game = telegram.last_bot_message(GROUP["id"])
    boards = await start_matches(telegram)
    gate = gate_of(paced_bot)

    def finals_queued() -> bool:
        """Every match over; at least two final boards wait for the group's tokens."""
        queued = gate.waiting(GROUP["id"])
        return queued >= 2 and queued + sum(1 for board in boards if words(board)) == len(boards)

    await telegram.wait_until(finals_queued, timeout=30, what="queued final boards")
    queued = [board for board in boards if not words(board)]
    mark = telegram.mark()
    query_id = telegram.tap(ALICE, game, cell_data(telegram, game, 4))
    edit = await telegram.wait_for(
        lambda call: (
            call.method == "editMessageText" and call.params.get("message_id") == game.message_id
        ),
        since=mark,
    )
    assert edit.ok and (await telegram.answer_to(query_id)).get("text") is None
    # Alice's move is on her board, recorded before the final edits of AI boards that were
    # queued before her tap: they still wait, for tokens that her edit did not wait for.
    assert board_cells(telegram, game)[4] == "X"
    still_queued = [board for board in queued if not words(board)]
    assert still_queued and gate.waiting(GROUP["id"]) == len(still_queued)
    assert telegram.too_many_requests == []
