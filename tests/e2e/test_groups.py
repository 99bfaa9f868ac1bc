"""End to end in group chats: scripted people challenge each other, join, move by taps and by
replies, time out, ask for rematches and reviews, while the real bot talks HTTP to the fake
Bot API server."""

from __future__ import annotations

import dataclasses
import functools
import time
from datetime import timedelta
from typing import Any

from bot.games.db.models import utcnow
from bot.locales import en, ru
from bot.views.render import render_welcome
from core.notation import parse_cells
from core.rules import outcome, play
from core.solver import best_moves, position_score
from tests.support.bot_runner import BotRunner, settle
from tests.support.chat import (
    assert_every_query_answered,
    board_cells,
    button_texts,
    cell_data,
    highlighted,
    play_cells,
    press,
    send,
    state,
    tap_cell,
    tap_data,
    words,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

GROUP = FakeTelegram.group_chat(-100500, "Friends")
ALICE = FakeTelegram.user(1001, "Alice", username="alice")
BOB = FakeTelegram.user(1002, "Bob", username="bob")
CAROL = FakeTelegram.user(1003, "Carol", username="carol")
DAVE = FakeTelegram.user(1004, "Dave")
IVAN = FakeTelegram.user(1005, "Ivan", language_code="ru")

JOIN, CANCEL, ACCEPT, DECLINE = "✋ Join", "✖ Cancel", "✅ Accept", "🙅 Decline"
REMATCH, REVIEW, RESIGN = "🔁 Rematch", "🔍 Review", "🏳 Resign"
TURN_TIMEOUT = timedelta(seconds=600)  # the default setting


#: Send a message, in the group unless `chat` says otherwise, and wait until the bot is done.
say = functools.partial(send, chat=GROUP)


def data_of(tg: FakeTelegram, message: Any, label: str) -> str:
    for row in tg.keyboard(message):
        for text, data in row:
            if text == label and data is not None:
                return data
    raise AssertionError(f"no button {label!r} on {tg.keyboard(message)!r}")


def group_messages(tg: FakeTelegram, chat: dict[str, Any] = GROUP) -> int:
    return len(tg.bot_messages(chat["id"]))


async def challenge(
    tg: FakeTelegram, user: dict[str, Any], text: str = "/challenge", **kwargs: Any
) -> StoredMessage:
    await say(tg, user, text, **kwargs)
    return tg.last_bot_message(kwargs.get("chat", GROUP)["id"])


async def game_between(
    tg: FakeTelegram, x: dict[str, Any], o: dict[str, Any], chat: dict[str, Any] = GROUP
) -> StoredMessage:
    """A challenge by `x`, joined by `o`: the running game's board."""
    board = await challenge(tg, x, chat=chat)
    answer = await press(tg, o, board, JOIN)
    assert answer.get("text") == "You're in! You play ⭕."
    return board


async def test_a_challenge_is_joined_by_a_second_person(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await challenge(telegram, ALICE, "/start user user")
    assert board.text.splitlines()[0] == "❌ Alice vs ⭕ ?"
    assert "Alice wants to play! The first to tap Join plays ⭕." in board.text
    game_id = int(data_of(telegram, board, JOIN).split(":")[1])
    assert telegram.keyboard(board) == [[(JOIN, f"j:{game_id}")], [(CANCEL, f"c:{game_id}")]]
    again = await challenge(telegram, ALICE)  # /challenge posts the same kind of board
    assert again.key != board.key and button_texts(telegram, again) == [JOIN, CANCEL]

    before = state(board)
    answer = await press(telegram, ALICE, board, JOIN)
    assert answer["text"] == "You can't join your own game: wait for a friend."
    assert state(board) == before

    answer = await press(telegram, BOB, board, JOIN)
    assert answer["text"] == "You're in! You play ⭕."
    lines = board.text.splitlines()
    assert lines[0] == "❌ Alice vs ⭕ Bob"
    assert "Alice's turn ❌" in lines
    assert board_cells(telegram, board) == "_________"
    assert button_texts(telegram, board)[9:] == [RESIGN, en.BUTTON_DRAW_OFFER]
    # Carol is a moment too late: her Join tap is refused, the game stays Alice vs Bob.
    late = await tap_data(telegram, CAROL, board, f"j:{game_id}")
    assert late["text"] == "This is not your game."
    assert board.text.splitlines()[0] == "❌ Alice vs ⭕ Bob"
    assert_every_query_answered(telegram)


async def test_only_the_player_to_move_moves(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await game_between(telegram, ALICE, BOB)
    before = state(board)
    since = telegram.mark()
    assert (await tap_cell(telegram, BOB, board, 4))["text"] == "It's not your turn."
    assert (await tap_cell(telegram, CAROL, board, 4))["text"] == "This is not your game."
    assert (await press(telegram, CAROL, board, RESIGN))["text"] == "This is not your game."
    assert state(board) == before
    assert not [c for c in telegram.calls[since:] if c.method.startswith("edit")]

    assert not (await tap_cell(telegram, ALICE, board, 4)).get("text")
    assert "Bob's turn ⭕" in board.text.splitlines()
    before = state(board)
    assert (await tap_cell(telegram, ALICE, board, 0))["text"] == "It's not your turn."
    assert (await tap_cell(telegram, CAROL, board, 0))["text"] == "This is not your game."
    assert "occupied" in (await tap_cell(telegram, BOB, board, 4))["text"]
    assert state(board) == before
    assert_every_query_answered(telegram)


async def test_a_full_game_by_taps_ends_with_the_winners_name(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await game_between(telegram, ALICE, BOB)
    await play_cells(telegram, board, ALICE, BOB, [0, 3, 1, 4, 2])
    assert board_cells(telegram, board) == "XXXOO____"
    assert "X wins" in board.text.splitlines()
    assert "Alice wins! 🎉" in board.text
    assert highlighted(telegram, board) == {0, 1, 2}
    assert button_texts(telegram, board)[9:] == [REMATCH, REVIEW, "🖼 Picture", "🎬 Replay"]
    edits = board.edit_count
    assert "over" in (await tap_cell(telegram, BOB, board, 8))["text"]
    assert board.edit_count == edits

    # The winner has nothing to review; the loser learns that 3 1 (cell 3) was the first slip.
    won = await press(telegram, ALICE, board, REVIEW)
    assert won == {**won, "text": en.REVIEW_WON, "show_alert": True}
    lost = await press(telegram, BOB, board, REVIEW)
    assert lost["show_alert"] is True and lost["text"].startswith("Move 2: you played 2 1 — ")
    outsider = await press(telegram, CAROL, board, REVIEW)
    assert outsider["text"] == en.POPUP_NO_REVIEW and not outsider.get("show_alert")
    assert_every_query_answered(telegram)


async def test_typed_replies_to_the_board_are_moves(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await game_between(telegram, ALICE, BOB)
    await say(telegram, ALICE, "2 2", reply_to=board)
    assert board_cells(telegram, board) == "____X____"
    sent = group_messages(telegram)

    # Chatter that is no reply to a board is none of the bot's business.
    since = telegram.mark()
    await say(telegram, BOB, "1 1")
    chatter = await say(telegram, CAROL, "nice move")
    await say(telegram, BOB, "1 1", reply_to=chatter)
    assert group_messages(telegram) == sent
    assert not [c for c in telegram.calls[since:] if c.method != "getUpdates"]
    assert board_cells(telegram, board) == "____X____"

    await say(telegram, ALICE, "1 1", reply_to=board)
    assert telegram.last_bot_message(GROUP["id"]).text == en.POPUP_NOT_YOUR_TURN
    await say(telegram, BOB, "one", reply_to=board)
    assert telegram.last_bot_message(GROUP["id"]).text == "You should enter numbers!"
    await say(telegram, BOB, "2 2", reply_to=board)
    assert telegram.last_bot_message(GROUP["id"]).text == en.POPUP_OCCUPIED
    await say(telegram, BOB, "1 1", reply_to=board)
    assert board_cells(telegram, board) == "O___X____"
    assert "Alice's turn ❌" in board.text


async def test_cancel_before_anyone_joins(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await challenge(telegram, ALICE)
    join = data_of(telegram, board, JOIN)
    before = state(board)
    assert (await press(telegram, BOB, board, CANCEL))["text"] == "Only the challenger can cancel."
    assert state(board) == before
    assert not (await press(telegram, ALICE, board, CANCEL)).get("text")
    assert "Alice withdrew the challenge." in board.text and board.reply_markup is None
    assert "over" in (await tap_data(telegram, BOB, board, join))["text"]
    # Forged: an open challenge has no Decline button, and nobody can decline it.
    other = await challenge(telegram, ALICE)
    before = state(other)
    forged = "d:" + data_of(telegram, other, JOIN).split(":")[1]
    for user in (BOB, ALICE):
        answer = await tap_data(telegram, user, other, forged)
        assert answer["text"] == "This challenge is for someone else."
    assert state(other) == before
    assert_every_query_answered(telegram)


async def test_a_challenge_by_username_is_for_that_user(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await challenge(telegram, ALICE, "/challenge @bob")
    assert "Alice challenges @bob! Accept?" in board.text
    assert button_texts(telegram, board) == [ACCEPT, DECLINE, CANCEL]
    before = state(board)
    for label in (ACCEPT, DECLINE):
        for user in (CAROL, DAVE):
            answer = await press(telegram, user, board, label)
            assert answer["text"] == "This challenge is for someone else."
    assert state(board) == before
    assert not (await press(telegram, BOB, board, DECLINE)).get("text")
    assert "@bob declined the challenge." in board.text and board.reply_markup is None

    board = await challenge(telegram, ALICE, "/challenge @Bob")  # any case
    assert (await press(telegram, BOB, board, ACCEPT))["text"] == "You're in! You play ⭕."
    assert board.text.splitlines()[0] == "❌ Alice vs ⭕ Bob"
    assert_every_query_answered(telegram)


async def test_a_challenge_replying_to_someone_invites_them(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    hello = await say(telegram, CAROL, "anyone up for a game?")
    board = await challenge(telegram, ALICE, reply_to=hello)
    assert "Alice challenges Carol! Accept?" in board.text
    assert (await press(telegram, BOB, board, ACCEPT))["text"] == en.POPUP_NOT_INVITED
    assert (await press(telegram, ALICE, board, ACCEPT))["text"] == en.POPUP_OWN_GAME
    assert (await press(telegram, CAROL, board, ACCEPT))["text"] == "You're in! You play ⭕."
    assert board.text.splitlines()[0] == "❌ Alice vs ⭕ Carol"


async def test_refused_challenges_answer_with_a_message(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    cases = []
    mine = await say(telegram, ALICE, "me, myself and I")
    cases.append((dict(reply_to=mine), en.CHALLENGE_YOURSELF))
    cases.append((dict(text="/challenge @ALICE"), en.CHALLENGE_YOURSELF))
    await say(telegram, ALICE, "/help")
    bot_message = telegram.last_bot_message(GROUP["id"])
    cases.append((dict(reply_to=bot_message), en.CHALLENGE_BOT))
    bad = f"{en.BAD_CHALLENGE}\n{en.CHALLENGE_MATCH_HINT}"
    cases.append((dict(text="/challenge bob"), bad))
    cases.append((dict(text="/challenge @bob @carol"), bad))
    cases.append((dict(text="/challenge bo3 bo5"), bad))
    for kwargs, reply in cases:
        text = kwargs.pop("text", "/challenge")
        await say(telegram, ALICE, text, **kwargs)
        last = telegram.last_bot_message(GROUP["id"])
        assert last.text == reply, text
        assert last.reply_markup is None

    await say(telegram, ALICE, "/challenge", chat=None)
    hint = telegram.last_bot_message(ALICE["id"])
    assert hint.text == en.GROUP_ONLY.format(bot=telegram.bot_username)


async def test_a_slow_player_is_nudged_then_loses_on_time(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    assert bot.application is not None
    clock = bot.turn_clock
    board = await game_between(telegram, ALICE, BOB)
    await tap_cell(telegram, ALICE, board, 4)
    open_challenge = await challenge(telegram, CAROL)
    t0 = utcnow()

    assert await clock.tick(t0 + TURN_TIMEOUT / 2) == []
    events = await clock.tick(t0 + TURN_TIMEOUT)
    assert [event for event, _ in events] == ["nudge"]
    assert "⏰ Bob, it's your move!" in board.text and "Bob's turn ⭕" in board.text
    nudge = telegram.last_bot_message(GROUP["id"])
    assert nudge.plain_text == "⏰ Bob, it's your move in this game!"
    # A mention of Bob (a text_mention of his id), so that Telegram notifies him.
    assert nudge.parse_mode == "HTML" and nudge.mentioned_ids == [BOB["id"]]
    assert ("a", 2, 5, f'href="tg://user?id={BOB["id"]}"') in nudge.entities
    assert nudge.reply_to_message is not None
    assert nudge.reply_to_message["message_id"] == board.message_id
    assert "wants to play" in open_challenge.text  # a challenge only expires
    assert await clock.tick(t0 + TURN_TIMEOUT * 1.5) == []  # one nudge per turn

    events = await clock.tick(t0 + 2 * TURN_TIMEOUT)
    assert sorted(event for event, _ in events) == ["expired", "timeout"]
    assert "X wins" in board.text.splitlines()
    assert "⌛ Bob ran out of time." in board.text
    assert board_cells(telegram, board) == "____X____"  # the final board stays readable
    assert button_texts(telegram, board)[9:] == [REMATCH, REVIEW, "🖼 Picture", "🎬 Replay"]
    assert "Nobody joined in time." in open_challenge.text
    assert open_challenge.reply_markup is None
    assert "over" in (await tap_cell(telegram, BOB, board, 0))["text"]
    assert await clock.tick(t0 + 5 * TURN_TIMEOUT) == []


async def test_a_nudge_mentions_a_player_whose_name_looks_like_markup(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    """The nudge is HTML: a name with `<`, `&` is shown as it is, and still a mention."""
    assert bot.application is not None
    clock = bot.turn_clock
    tom = FakeTelegram.user(1010, "<b>Tom & Jerry</b>")
    board = await game_between(telegram, ALICE, tom)
    await tap_cell(telegram, ALICE, board, 4)
    events = await clock.tick(utcnow() + TURN_TIMEOUT)
    assert [event for event, _ in events] == ["nudge"]
    nudge = telegram.last_bot_message(GROUP["id"])
    assert nudge.plain_text == "⏰ <b>Tom & Jerry</b>, it's your move in this game!"
    assert nudge.mentioned_ids == [tom["id"]]


async def test_the_turn_clock_runs_by_itself(telegram: FakeTelegram, database_url: str) -> None:
    runner = BotRunner(telegram, database_url, turn_timeout_seconds=0.5)
    await runner.start()
    try:
        board = await game_between(telegram, ALICE, BOB)
        await telegram.wait_until(
            lambda: "ran out of time" in board.text, timeout=10, what="a loss on time"
        )
        assert "O wins" in board.text.splitlines() and "Alice ran out of time" in board.text
        nudges = [m for m in telegram.bot_messages(GROUP["id"]) if m.text.startswith("⏰")]
        assert [m.plain_text for m in nudges] == ["⏰ Alice, it's your move in this game!"]
        assert [m.mentioned_ids for m in nudges] == [[ALICE["id"]]]
    finally:
        await runner.stop()


async def test_rematch_swaps_sides(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await game_between(telegram, ALICE, BOB)
    await play_cells(telegram, board, ALICE, BOB, [4, 0, 2, 6, 3, 8, 5])
    assert "Alice wins! 🎉" in board.text
    sent = group_messages(telegram)
    assert (await press(telegram, CAROL, board, REMATCH))["text"] == "This is not your game."
    assert group_messages(telegram) == sent

    # Bob asks for a rematch: an offer to Alice, who accepts it (nobody else can).
    assert not (await press(telegram, BOB, board, REMATCH)).get("text")
    rematch = telegram.last_bot_message(GROUP["id"])
    assert rematch.key != board.key
    assert rematch.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"  # whom it is for
    assert en.REMATCH_OFFER.format(name="Bob", invited="Alice") in rematch.text
    assert button_texts(telegram, rematch) == [ACCEPT, DECLINE, CANCEL]
    assert (await press(telegram, BOB, board, REMATCH))["text"] == en.POPUP_REMATCH_OFFERED
    assert (await press(telegram, CAROL, rematch, ACCEPT))["text"] == en.POPUP_NOT_INVITED
    assert (await press(telegram, ALICE, rematch, ACCEPT))["text"] == "You're in! You play ⭕."
    assert rematch.text.splitlines()[0] == "❌ Bob vs ⭕ Alice"
    assert "Bob's turn ❌" in rematch.text and board_cells(telegram, rematch) == "_________"
    answer = await press(telegram, ALICE, board, REMATCH)
    assert answer["text"] == "The rematch has already started."
    assert group_messages(telegram) == sent + 1
    assert "Alice wins! 🎉" in board.text  # the old board keeps its result

    assert (await tap_cell(telegram, ALICE, rematch, 4))["text"] == "It's not your turn."
    await play_cells(telegram, rematch, BOB, ALICE, [4, 0, 2, 6, 3, 8, 5])
    assert "Bob wins! 🎉" in rematch.text and "X wins" in rematch.text.splitlines()


async def test_two_games_at_once_in_one_group(telegram: FakeTelegram, bot: BotRunner) -> None:
    first = await game_between(telegram, ALICE, BOB)
    second = await game_between(telegram, CAROL, DAVE)
    await tap_cell(telegram, ALICE, first, 0)
    await tap_cell(telegram, CAROL, second, 8)
    await say(telegram, BOB, "2 2", reply_to=first)
    await say(telegram, DAVE, "1 1", reply_to=second)
    assert board_cells(telegram, first) == "X___O____"
    assert board_cells(telegram, second) == "O_______X"
    assert (await tap_cell(telegram, ALICE, second, 4))["text"] == "This is not your game."
    await say(telegram, CAROL, "1 3", reply_to=first)
    assert telegram.last_bot_message(GROUP["id"]).text == en.POPUP_NOT_A_PLAYER
    await play_cells(telegram, first, ALICE, BOB, [1, 3, 2])
    assert "Alice wins! 🎉" in first.text
    assert board_cells(telegram, second) == "O_______X" and "Carol's turn ❌" in second.text
    await tap_cell(telegram, CAROL, second, 4)
    assert board_cells(telegram, second) == "O___X___X"


async def test_a_forged_tap_naming_another_game_of_the_chat_leaves_the_tapped_board_alone(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    # A journey's forged tap: on the AI match's board, data naming the other game of the
    # group (not one of that board's buttons). It was taken for a tap on a second copy of
    # that game's board, so the match's board was edited to "posted again below" for good.
    first = await game_between(telegram, ALICE, BOB)
    await say(telegram, CAROL, "/start easy hard")
    match = telegram.last_bot_message(GROUP["id"])
    await telegram.wait_until(lambda: bool(words(match)), timeout=10, what="the AI match to end")
    ended = state(match)
    # Alice may move in her game (as by typing it); the board she tapped is not touched.
    assert not (await tap_data(telegram, ALICE, match, cell_data(telegram, first, 0))).get("text")
    assert state(match) == ended and en.BOARD_POSTED_AGAIN not in match.text
    assert board_cells(telegram, first)[0] == "X"


async def test_playing_the_ai_in_a_group(telegram: FakeTelegram, bot: BotRunner) -> None:
    await say(telegram, ALICE, "/start user hard")
    board = telegram.last_bot_message(GROUP["id"])
    assert board.text.splitlines()[0] == "❌ Alice vs ⭕ Hard AI"
    assert "Alice's turn ❌" in board.text
    before = state(board)
    assert (await tap_cell(telegram, BOB, board, 4))["text"] == "This is not your game."
    assert state(board) == before
    assert not (await tap_cell(telegram, ALICE, board, 4)).get("text")
    cells = board_cells(telegram, board)
    assert cells[4] == "X" and cells.count("O") == 1

    await say(telegram, BOB, "/start easy hard")
    match = telegram.last_bot_message(GROUP["id"])
    assert match.key != board.key
    assert match.text.splitlines()[0] == "❌ Easy AI vs ⭕ Hard AI"
    await telegram.wait_until(lambda: bool(words(match)), timeout=10, what="the AI match to end")
    assert words(match) in ("O wins", "Draw")
    assert outcome(parse_cells(board_cells(telegram, match))) == words(match)
    # Alice's game against the AI is still there, untouched by the match.
    assert board_cells(telegram, board) == cells and "Alice's turn ❌" in board.text


async def test_leaderboard_and_stats_after_games_between_people(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await say(telegram, ALICE, "/top")
    # The group's leaderboard, then the global ladder (nobody opted in yet), and its button.
    empty = telegram.last_bot_message(GROUP["id"])
    assert empty.text == f"{en.TOP_EMPTY}\n\n{en.LADDER_EMPTY}"
    assert button_texts(telegram, empty) == [en.BUTTON_LADDER_JOIN]
    # Alice beats Bob twice and Carol once, Carol beats Bob, Bob and Carol draw.
    for x, o, cells in [
        (ALICE, BOB, [0, 3, 1, 4, 2]),
        (BOB, ALICE, [0, 3, 1, 4, 8, 5]),
        (ALICE, CAROL, [0, 3, 1, 4, 2]),
        (CAROL, BOB, [0, 3, 1, 4, 2]),
        (BOB, CAROL, [0, 4, 1, 2, 6, 3, 5, 7, 8]),
    ]:
        board = await game_between(telegram, x, o)
        await play_cells(telegram, board, x, o, cells)
        assert words(board)
    await say(telegram, DAVE, "/start user hard")  # against the AI: not on the leaderboard
    await tap_cell(telegram, DAVE, telegram.last_bot_message(GROUP["id"]), 4)
    await say(telegram, DAVE, "/stop")  # a resignation: a loss against the AI, rated

    await say(telegram, BOB, "/top")
    assert telegram.last_bot_message(GROUP["id"]).text.split("\n\n")[0].splitlines() == [
        en.TOP_HEADER,
        "1. Alice: 3 / 0 / 0",
        "2. Carol: 1 / 1 / 1",
        "3. Bob: 0 / 3 / 1",
    ]
    # In private, the global ladder alone: Dave lost to hard (rated against the AI) and
    # steps on the ladder, but one game leaves his rating provisional: the ladder shows
    # established ratings only, so Alice finds nobody on it yet.
    await press(telegram, DAVE, telegram.last_bot_message(GROUP["id"]), en.BUTTON_LADDER_JOIN)
    await say(telegram, ALICE, "/top", chat=None)
    ladder = telegram.last_bot_message(ALICE["id"]).text
    assert ladder.startswith(en.LADDER_EMPTY) and "Dave" not in ladder

    await say(telegram, ALICE, "/stats", chat=None)
    lines = telegram.last_bot_message(ALICE["id"]).text.splitlines()
    assert "People: 3 / 0 / 0" in lines
    assert "Winning streak: 3 now, 3 at best" in lines
    await say(telegram, BOB, "/stats", chat=None)
    lines = telegram.last_bot_message(BOB["id"]).text.splitlines()
    assert "People: 0 / 3 / 1" in lines and "Winning streak: 0 now, 0 at best" in lines


async def test_games_continue_after_the_group_becomes_a_supergroup(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await game_between(telegram, ALICE, BOB)
    await tap_cell(telegram, ALICE, board, 4)
    supergroup = telegram.add_chat(
        FakeTelegram.group_chat(-1001234567890, "Friends", supergroup=True)
    )
    # Telegram sends a service message in the old group, then one in the new supergroup.
    for chat, field, other in (
        (GROUP, "migrate_to_chat_id", supergroup),
        (supergroup, "migrate_from_chat_id", GROUP),
    ):
        telegram.queue_update(
            {
                "message": {
                    "message_id": 9000,
                    "from": ALICE,
                    "chat": chat,
                    "date": int(time.time()),
                    field: other["id"],
                }
            }
        )
    await settle(telegram)
    # The supergroup carries the history over: the same board, now in the new chat, and
    # message ids go on from there.
    moved = dataclasses.replace(board, chat=dict(supergroup), history=list(board.history))
    assert moved.key is not None
    telegram.messages[moved.key] = moved
    board.deleted = True
    counters = telegram._message_counters
    counters[supergroup["id"]] = counters[GROUP["id"]]

    assert not (await tap_cell(telegram, BOB, moved, 0)).get("text")
    assert board_cells(telegram, moved) == "O___X____"
    await say(telegram, ALICE, "1 2", chat=supergroup, reply_to=moved)
    assert board_cells(telegram, moved) == "OX__X____"
    assert (await tap_cell(telegram, CAROL, moved, 8))["text"] == "This is not your game."
    await play_cells(telegram, moved, ALICE, BOB, [8, 7])
    assert "Alice wins! 🎉" in moved.text and highlighted(telegram, moved) == {1, 4, 7}
    await say(telegram, BOB, "/top", chat=supergroup)
    assert "1. Alice: 1 / 0 / 0" in telegram.last_bot_message(supergroup["id"]).text


async def test_every_player_reads_pop_ups_in_their_language(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await challenge(telegram, ALICE)
    joined = await press(telegram, IVAN, board, JOIN)
    assert joined["text"] == ru.POPUP_JOINED.format(mark="⭕") == "Ты в игре! Ты играешь за ⭕."
    await tap_cell(telegram, ALICE, board, 4)
    assert (await tap_cell(telegram, IVAN, board, 4))["text"] == ru.POPUP_OCCUPIED
    assert ru.POPUP_OCCUPIED == "Эта клетка занята! Выбери другую!"
    await tap_cell(telegram, IVAN, board, 0)
    assert (await tap_cell(telegram, ALICE, board, 0))["text"] == en.POPUP_OCCUPIED
    assert (await tap_cell(telegram, IVAN, board, 1))["text"] == ru.POPUP_NOT_YOUR_TURN
    assert (await tap_cell(telegram, CAROL, board, 1))["text"] == en.POPUP_NOT_A_PLAYER
    # The board itself is in the language of the challenger.
    assert "Alice's turn ❌" in board.text

    await say(telegram, IVAN, "/start", chat=None)
    menu = telegram.last_bot_message(IVAN["id"])
    assert menu.text == render_welcome(ru, group=False)
    assert menu.text.startswith("Добро пожаловать")
    assert "⭕ Сложный" in button_texts(telegram, menu)
    await say(telegram, IVAN, "/start")
    group_menu = telegram.last_bot_message(GROUP["id"])
    # The menu, and (Ivan still plays Alice here) that their game goes on, all in Russian.
    going_on = ru.GAMES_GO_ON.format(names="Alice")
    assert group_menu.text == render_welcome(ru, group=True) + "\n\n" + going_on
    assert ru.MENU_CHALLENGE in button_texts(telegram, group_menu)


async def test_review_of_a_game_lost_to_the_hard_ai(telegram: FakeTelegram, bot: BotRunner) -> None:
    """Alice plays the worst cell every time; the review names her first losing move."""
    await say(telegram, ALICE, "/start hard", chat=None)
    board = telegram.last_bot_message(ALICE["id"])
    played: list[tuple[int, int, str, tuple[int, ...]]] = []  # (ply, cell, before, best)
    while not words(board):
        cells = board_cells(telegram, board)
        position = parse_cells(cells)
        worst = min(position.free_cells(), key=lambda c: -position_score(play(position, c)))
        played.append((9 - cells.count("_") + 1, worst, cells, best_moves(position)))
        assert not (await tap_cell(telegram, ALICE, board, worst)).get("text")
    assert words(board) == "O wins"
    assert "Play again" in " ".join(button_texts(telegram, board))

    ply, cell, before, best = next(
        (ply, cell, cells, best)
        for ply, cell, cells, best in played
        if cell not in best
        and -position_score(play(parse_cells(cells), cell)) < position_score(parse_cells(cells))
    )
    review = await press(telegram, ALICE, board, REVIEW)
    assert review["show_alert"] is True
    row, col = divmod(cell, 3)
    prefix = f"Move {ply}: you played {row + 1} {col + 1} — "
    assert review["text"].startswith(prefix), review
    better = review["text"].removeprefix(prefix).split(" was better")[0]
    better_cell = (int(better[0]) - 1) * 3 + int(better[2]) - 1
    assert before[better_cell] == "_" and better_cell in best
    assert review["text"].endswith(
        ("would have held the draw.", "would have held out longer.", "would have won.")
    )
    # The one who won (the AI) reviews nothing; neither does a stranger.
    stranger = await press(telegram, BOB, board, REVIEW)
    assert stranger["text"] == en.POPUP_NO_REVIEW and not stranger.get("show_alert")
