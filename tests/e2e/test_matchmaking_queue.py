"""End to end: the queue as real people use it (issue 37). A player who blocks the bot, waits
past the limit, or starts another game leaves the queue, told so; a pairing whose first board
cannot be posted is undone and the other player waits on at the head; /stop and /start end a
search; a second /play edits the one waiting message; words typed to a stranger are answered
once; /help and the welcome name the commands; /play's own usage; /start play."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_session_factory
from bot.games.db.models import Game, QueueEntry, utcnow
from bot.games.model import LIVE
from bot.locales import en
from bot.views.profile import PRIVATE_COMMANDS
from tests.e2e.test_matchmaking import LOOKING, boards_of, matchmaker
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    button_texts,
    current,
    not_modified,
    press,
    send,
    settle,
    tap_cell,
)
from tests.support.fake_telegram import FakeTelegram, JSONDict, StoredMessage

ANN = FakeTelegram.user(4101, "Ann")
BEN = FakeTelegram.user(4102, "Ben")
CID = FakeTelegram.user(4103, "Cid")


def waiting_messages(tg: FakeTelegram, user: dict) -> list[StoredMessage]:
    return [m for m in tg.bot_messages(user["id"]) if m.text.startswith("🔎")]


async def queued(engine: AsyncEngine) -> list[int]:
    async with create_session_factory(engine)() as session:
        return list(await session.scalars(select(QueueEntry.player_id)))


async def stranger_games(engine: AsyncEngine) -> list[Game]:
    async with create_session_factory(engine)() as session:
        return list(await session.scalars(select(Game).where(Game.second_chat_id.is_not(None))))


async def test_a_player_who_blocks_the_bot_is_never_paired(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    await send(telegram, ANN, "/play")
    telegram.membership_changed(FakeTelegram.private_chat(ANN), ANN, "member", "kicked")
    await settle(telegram)
    assert await queued(engine) == []
    await send(telegram, BEN, "/play")
    assert telegram.last_bot_message(BEN["id"]).text.startswith(LOOKING)  # waits, told so
    assert not boards_of(telegram, BEN) and await stranger_games(engine) == []


async def searching_then_blocked(
    telegram: FakeTelegram, user: JSONDict
) -> tuple[JSONDict, StoredMessage]:
    """`user` sends /play, then blocks the bot: their chat and the waiting message."""
    chat = FakeTelegram.private_chat(user)
    await send(telegram, user, "/play")
    waiting = telegram.last_bot_message(user["id"])
    telegram.membership_changed(chat, user, "member", "kicked")
    await settle(telegram)
    return chat, waiting


async def test_back_after_blocking_the_bot_the_old_waiting_message_says_the_search_ended(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    chat, waiting = await searching_then_blocked(telegram, ANN)
    assert current(telegram, waiting).text.startswith(LOOKING)  # cannot be edited: blocked
    telegram.membership_changed(chat, ANN, "kicked", "member")
    await bot.quiesce()
    told = current(telegram, waiting)
    assert told.text == en.QUEUE_ENDED_AWAY and told.reply_markup is None
    # She looks again: one new waiting message, the old one left as it is now.
    await send(telegram, ANN, "/play")
    assert await queued(engine) == [ANN["id"]]
    assert [m.message_id for m in waiting_messages(telegram, ANN)][-1] != waiting.message_id
    assert current(telegram, waiting).text == en.QUEUE_ENDED_AWAY


async def back_with_the_old_message_unedited(
    telegram: FakeTelegram, bot: BotRunner, user: JSONDict
) -> StoredMessage:
    """`user` searches, blocks the bot and comes back, and the edit of their waiting message
    on return fails: that message, its Cancel still on it."""
    chat, waiting = await searching_then_blocked(telegram, user)
    telegram.fail_next("editMessageText", 400, "Bad Request: message to edit not found")
    telegram.membership_changed(chat, user, "kicked", "member")
    await bot.quiesce()
    return waiting


async def test_a_stale_cancel_the_return_could_not_take_away_is_answered(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    waiting = await back_with_the_old_message_unedited(telegram, bot, BEN)
    answer = await press(telegram, BEN, current(telegram, waiting), en.BUTTON_CANCEL)
    assert answer["text"] == en.POPUP_NOT_WAITING
    assert current(telegram, waiting).reply_markup is None and await queued(engine) == []


async def test_an_older_searchs_cancel_leaves_the_new_search_alone(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    # Back, the old message could not be edited; she looks again: a new waiting message. The
    # old one's Cancel belongs to the search the block ended, not to this one.
    old = await back_with_the_old_message_unedited(telegram, bot, CID)
    await send(telegram, CID, "/play")
    new = telegram.last_bot_message(CID["id"])
    assert new.message_id != old.message_id and await queued(engine) == [CID["id"]]
    answer = await press(telegram, CID, current(telegram, old), en.BUTTON_CANCEL)
    assert answer["text"] == en.POPUP_NOT_WAITING
    assert current(telegram, old).reply_markup is None
    assert await queued(engine) == [CID["id"]]  # still looking
    assert current(telegram, new).text.startswith(LOOKING)
    await press(telegram, CID, current(telegram, new), en.BUTTON_CANCEL)  # its own: it goes
    assert await queued(engine) == [] and current(telegram, new).text == en.QUEUE_CANCELLED


async def test_a_lone_wait_past_the_limit_leaves_the_queue_and_says_so(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    await send(telegram, CID, "/play")
    waiting = telegram.last_bot_message(CID["id"])
    limit = matchmaker(bot).wait_limit
    async with engine.begin() as connection:
        await connection.execute(
            update(QueueEntry).values(joined_at=utcnow() - limit - timedelta(seconds=1))
        )
    await matchmaker(bot).round()
    told = current(telegram, waiting)
    minutes = round(limit.total_seconds() / 60)
    assert told.text == en.count("QUEUE_TIMED_OUT", minutes) and told.reply_markup is None
    assert "/play" in told.text and await queued(engine) == []
    await send(telegram, ANN, "/play")  # nobody to be paired with: Ann waits
    assert not boards_of(telegram, ANN)


async def test_a_pairing_whose_first_board_fails_is_undone_and_the_other_waits_at_the_head(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    await send(telegram, ANN, "/play 5")  # Ann waits on 5×5…
    await send(telegram, BEN, "/play")  # …Ben on 3×3
    ben_waiting = telegram.last_bot_message(BEN["id"])
    # Ann switches to 3×3 (her one waiting message, edited) and is paired with Ben, whose
    # board (❌: he waited longer) is refused: he blocked the bot meanwhile.
    telegram.fail_next("sendMessage", 403, "Forbidden: bot was blocked by the user")
    await send(telegram, ANN, "/play")
    assert await stranger_games(engine) == []  # undone
    assert await queued(engine) == [ANN["id"]]  # Ann waits on
    (ann_waiting,) = waiting_messages(telegram, ANN)
    assert current(telegram, ann_waiting).text.startswith(LOOKING)
    assert button_texts(telegram, current(telegram, ann_waiting)) == [en.BUTTON_CANCEL]
    assert not boards_of(telegram, ANN) and not boards_of(telegram, BEN)
    assert current(telegram, ben_waiting).text.startswith(LOOKING)  # Ben's, left as it was
    # Ann is at the head: Cid comes and is paired with her, Ann first (❌).
    await send(telegram, CID, "/play")
    (game,) = await stranger_games(engine)
    assert (game.x_player_id, game.o_player_id) == (ANN["id"], CID["id"])
    assert current(telegram, ann_waiting).text == en.QUEUE_FOUND.format(name="Cid")
    assert len(boards_of(telegram, ANN)) == len(boards_of(telegram, CID)) == 1


async def test_stop_and_start_while_searching_cancel_the_search(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    await send(telegram, ANN, "/play")
    waiting = telegram.last_bot_message(ANN["id"])
    await send(telegram, ANN, "/stop")
    assert telegram.last_bot_message(ANN["id"]).text == en.QUEUE_CANCELLED
    assert current(telegram, waiting).text == en.QUEUE_CANCELLED
    assert await queued(engine) == []
    await send(telegram, ANN, "/play")
    waiting = telegram.last_bot_message(ANN["id"])
    await send(telegram, ANN, "/start easy")
    assert await queued(engine) == []
    assert current(telegram, waiting).text == en.QUEUE_OTHER_GAME
    assert current(telegram, waiting).reply_markup is None
    # Ben looks: not paired with Ann, who plays the AI.
    await send(telegram, BEN, "/play")
    assert await stranger_games(engine) == [] and not boards_of(telegram, BEN)
    # Ben joins Cid's challenge in a group: his search ends too.
    ben_waiting = telegram.last_bot_message(BEN["id"])
    group = FakeTelegram.group_chat(-100902, "Friends")
    await send(telegram, CID, "/challenge", chat=group)
    await press(telegram, BEN, telegram.last_bot_message(group["id"]), en.BUTTON_JOIN)
    assert current(telegram, ben_waiting).text == en.QUEUE_OTHER_GAME
    assert await queued(engine) == []


async def test_a_round_right_after_the_waiting_message_was_posted_edits_nothing(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    # A journey's matchmaker round came within the second the waiting message was posted:
    # it sent the same "(0 s)" again, and Telegram refused it as "not modified".
    async with engine.begin() as connection:  # posted a moment ago, as far as seconds go
        await connection.execute(update(QueueEntry).values(joined_at=utcnow()))
    await send(telegram, ANN, "/play")
    (waiting,) = waiting_messages(telegram, ANN)
    async with engine.begin() as connection:
        await connection.execute(update(QueueEntry).values(joined_at=utcnow()))
    mark = telegram.mark()
    await matchmaker(bot).round()
    await settle(telegram)
    assert [c.method for c in telegram.calls[mark:] if c.method != "getUpdates"] == []
    assert not_modified(telegram) == [] and current(telegram, waiting).text == waiting.text
    # Seconds later it counts on.
    async with engine.begin() as connection:
        seven_seconds_ago = utcnow() - timedelta(seconds=7)
        await connection.execute(
            update(QueueEntry).values(joined_at=seven_seconds_ago, shown_at=seven_seconds_ago)
        )
    await matchmaker(bot).round()
    await settle(telegram)
    assert "(7 s)" in current(telegram, waiting).text


async def test_play_twice_keeps_one_waiting_message(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    await send(telegram, ANN, "/play")
    await send(telegram, ANN, "/play")
    await send(telegram, ANN, "/play 5")
    (waiting,) = waiting_messages(telegram, ANN)
    assert current(telegram, waiting).text.startswith("🔎 Looking for an opponent: 5×5, 4 in a row")
    assert await queued(engine) == [ANN["id"]]
    await press(telegram, ANN, current(telegram, waiting), en.BUTTON_CANCEL)
    assert current(telegram, waiting).text == en.QUEUE_CANCELLED


async def test_words_typed_to_a_stranger_are_answered_once(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ANN, "/play")
    await send(telegram, BEN, "/play")
    (x_board,) = boards_of(telegram, ANN)
    for words in ("hi!", "are you there?", "hello"):
        await send(telegram, BEN, words)
    assert told_room(telegram, BEN) == 1
    assert not [m for m in telegram.bot_messages(BEN["id"]) if m.text == en.POPUP_NOT_YOUR_TURN]
    # Each player is told once: Ann too, the first time she types words.
    await send(telegram, ANN, "good luck")
    assert told_room(telegram, ANN) == 1
    # Remembered by the game, not the process: a restarted bot (or another instance) does
    # not tell Ben again.
    await bot.stop()
    restarted = BotRunner(telegram, bot.settings.database_url.get_secret_value())
    await restarted.start()
    try:
        await send(telegram, BEN, "still there?")
        assert told_room(telegram, BEN) == 1
        # Moves still go through, typed or tapped.
        await send(telegram, ANN, "2 2")
        await tap_cell(telegram, BEN, boards_of(telegram, BEN)[-1], 0)
        assert current(telegram, x_board).text.count("❌") >= 1
    finally:
        await restarted.stop()


def told_room(tg: FakeTelegram, user: dict) -> int:
    return sum(m.text == en.STRANGER_ROOM for m in tg.bot_messages(user["id"]))


async def test_help_and_welcome_name_the_commands_and_play_has_its_own_usage(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, CID, "/help")
    help_text = telegram.last_bot_message(CID["id"]).text
    assert all(f"/{name}" in help_text for name in PRIVATE_COMMANDS)
    await send(telegram, CID, "/start")
    welcome = telegram.last_bot_message(CID["id"]).text
    assert all(f"/{name}" in welcome for name in PRIVATE_COMMANDS)
    await send(telegram, CID, "/play 99")
    assert telegram.last_bot_message(CID["id"]).text == en.PLAY_USAGE
    # /start play (the deep link ?start=play) looks for an opponent.
    await send(telegram, CID, "/start play")
    assert telegram.last_bot_message(CID["id"]).text.startswith(LOOKING)
    # In a group, /play's button opens the private chat on /play.
    group = FakeTelegram.group_chat(-100901, "Players")
    await send(telegram, CID, "/play", chat=group)
    link = telegram.last_bot_message(group["id"]).reply_markup
    assert "?start=play" in str(link)


async def test_play_takes_a_time_control_and_pairs_only_on_it(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    await send(telegram, ANN, "/play 3+2")
    (waiting,) = waiting_messages(telegram, ANN)
    assert current(telegram, waiting).text.startswith("🔎 Looking for an opponent: 3×3, ⏱ 3+2…")
    # Ben wants the default clock: not Ann's, so both wait.
    await send(telegram, BEN, "/play")
    assert sorted(await queued(engine)) == [ANN["id"], BEN["id"]]
    assert not boards_of(telegram, ANN) and not boards_of(telegram, BEN)
    # Cid asks for Ann's control (written with the board after it): paired with her.
    await send(telegram, CID, "/play 3+2 3")
    (game,) = await stranger_games(engine)
    assert (game.clock_seconds, game.clock_delay) == (180.0, 2.0)
    assert {game.x_player_id, game.o_player_id} == {ANN["id"], CID["id"]}
    assert "3:00" in boards_of(telegram, CID)[-1].text
    assert await queued(engine) == [BEN["id"]]
    # A new search from the finished game's button keeps its control.
    await send(telegram, CID, "/stop")
    again = en.BUTTON_PLAY_SOMEONE_AGAIN
    board = next(m for m in reversed(boards_of(telegram, ANN)) if again in str(m.reply_markup))
    await press(telegram, ANN, current(telegram, board), again)
    assert waiting_messages(telegram, ANN)[-1].text.startswith(
        "🔎 Looking for an opponent: 3×3, ⏱ 3+2…"
    )
    # The default asked for in words is the default: Ben's search, and he is paired.
    await send(telegram, CID, "/play 1+5")
    assert await queued(engine) == [ANN["id"]]


async def test_a_control_out_of_reach_gets_plays_usage(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    for words in ("/play 3+99", "/play 0+5", "/play 3+2 5+5", "/play 3-2"):
        await send(telegram, CID, words)
        assert telegram.last_bot_message(CID["id"]).text == en.PLAY_USAGE, words
    assert await queued(engine) == []


async def live_games_of(engine: AsyncEngine, user: dict) -> list[Game]:
    async with create_session_factory(engine)() as session:
        found = await session.scalars(
            select(Game).where(
                Game.status.in_(LIVE),
                (Game.x_player_id == user["id"]) | (Game.o_player_id == user["id"]),
            )
        )
        return list(found)


async def test_play_during_a_game_against_the_ai_asks_first_and_never_leaves_two(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    # A game against the AI Ann has not moved in yet closes without a word, as for /start.
    await send(telegram, ANN, "/start easy")
    await send(telegram, ANN, "/play")
    assert await queued(engine) == [ANN["id"]] and await live_games_of(engine, ANN) == []
    await send(telegram, ANN, "/stop")
    # One she moved in: she is asked first; Keep playing keeps it, and no search begins.
    await send(telegram, ANN, "/start hard")
    ai_board = boards_of(telegram, ANN)[-1]
    await tap_cell(telegram, ANN, current(telegram, ai_board), 4)
    await send(telegram, ANN, "/play 3+2")
    question = telegram.last_bot_message(ANN["id"])
    assert question.text == en.QUEUE_REPLACE_QUESTION.format(name=en.LEVEL_NAMES["hard"] + " AI")
    await press(telegram, ANN, question, en.BUTTON_KEEP_PLAYING)
    assert await queued(engine) == [] and len(await live_games_of(engine, ANN)) == 1
    # Asked again, she resigns it and looks (on the control she asked for): one game at a time.
    await send(telegram, ANN, "/play 3+2")
    await press(telegram, ANN, telegram.last_bot_message(ANN["id"]), en.BUTTON_REPLACE_SEARCH)
    assert await queued(engine) == [ANN["id"]] and await live_games_of(engine, ANN) == []
    assert waiting_messages(telegram, ANN)[-1].text.startswith(
        "🔎 Looking for an opponent: 3×3, ⏱ 3+2"
    )
    await send(telegram, BEN, "/play 3+2")
    (game,) = await live_games_of(engine, ANN)
    assert game.second_chat_id is not None  # the stranger's game, and only it


async def test_a_double_tap_on_find_a_new_opponent_posts_one_waiting_message(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    # Shrunk from a journey: both taps joined the queue at once, neither found the other's
    # waiting message yet, and each posted one; the first stayed behind with a live Cancel.
    await send(telegram, ANN, "/play")
    await send(telegram, BEN, "/play")
    (ann_board,) = boards_of(telegram, ANN)
    await press(telegram, ANN, current(telegram, ann_board), en.BUTTON_RESIGN)
    await press(telegram, ANN, current(telegram, ann_board), en.BUTTON_RESIGN_YES)
    (ben_board,) = boards_of(telegram, BEN)
    ended = current(telegram, ben_board)
    before = len(waiting_messages(telegram, BEN))
    for _ in range(2):  # two taps at once, as a finger that lands twice
        telegram.tap_button(BEN, ended, en.BUTTON_PLAY_SOMEONE_AGAIN)
    await settle(telegram)
    posted = waiting_messages(telegram, BEN)[before:]
    assert len(posted) == 1, [m.text for m in posted]
    assert await queued(engine) == [BEN["id"]]
    # The second tap found the search under way, shown as it is: no edit that changes
    # nothing (issue 51, item 8: Telegram refused it as "not modified").
    assert not_modified(telegram) == []
    # /play for the same search again says nothing new either; another board edits it.
    await send(telegram, BEN, "/play")
    assert not_modified(telegram) == []
    await send(telegram, BEN, "/play 4x4")
    assert "4×4" in current(telegram, posted[0]).text


async def test_play_while_playing_a_stranger_says_so_and_resigns_nothing(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    # Issue 51: Ann plays Ben on a clock, starts a game against the AI beside it and moves,
    # then sends /play. She was asked to resign "this game" (the AI's, which then counted as
    # a loss), and the search still refused her for Ben's game. Nothing is asked or resigned
    # now: she is told she plays Ben.
    await send(telegram, ANN, "/play 3+2")
    await send(telegram, BEN, "/play 3+2")
    (stranger_game,) = await stranger_games(engine)
    await send(telegram, ANN, "/start easy")
    ai_board = boards_of(telegram, ANN)[-1]
    await tap_cell(telegram, ANN, current(telegram, ai_board), 4)
    before = len(await live_games_of(engine, ANN))
    await send(telegram, ANN, "/play")
    said = telegram.last_bot_message(ANN["id"])
    assert said.text == en.QUEUE_PLAYING.format(name="Ben"), said.text
    assert en.BUTTON_REPLACE_SEARCH not in button_texts(telegram, said)
    assert len(await live_games_of(engine, ANN)) == before == 2
    assert await queued(engine) == []
    assert stranger_game.id in {game.id for game in await live_games_of(engine, ANN)}


async def test_back_after_a_block_a_pairing_ran_into_the_waiting_message_says_so(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    # Ben blocks the bot while he waits; before the bot hears of it, Ann's /play pairs them
    # and his board is refused: the game is undone, and his entry with it. The block's own
    # update then finds no search to end, so only the undoing can keep his waiting message.
    await send(telegram, BEN, "/play")
    ben_waiting = telegram.last_bot_message(BEN["id"])
    telegram.fail_next("sendMessage", 403, "Forbidden: bot was blocked by the user")
    await send(telegram, ANN, "/play")
    assert await stranger_games(engine) == [] and await queued(engine) == [ANN["id"]]
    chat = FakeTelegram.private_chat(BEN)
    telegram.membership_changed(chat, BEN, "member", "kicked")
    await settle(telegram)
    telegram.membership_changed(chat, BEN, "kicked", "member")
    await bot.quiesce()
    told = current(telegram, ben_waiting)
    assert told.text == en.QUEUE_ENDED_AWAY and told.reply_markup is None


async def test_back_after_a_block_that_came_while_the_waiting_message_was_posted(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    # Cid blocks the bot the moment his waiting message reaches him, before the bot has its
    # answer: the block ends his search, which has no message yet, and the message can no
    # longer be deleted. Back, he must not find it looking on with a live Cancel.
    chat = FakeTelegram.private_chat(CID)
    telegram.lose_answer_next("sendMessage", hold=1.0, chat_id=CID["id"])
    since = telegram.mark()
    telegram.send_text(CID, "/play")
    await telegram.wait_for("sendMessage", since=since)
    telegram.membership_changed(chat, CID, "member", "kicked")
    await bot.quiesce()
    assert await queued(engine) == []
    (waiting,) = waiting_messages(telegram, CID)
    assert current(telegram, waiting).text.startswith(LOOKING)  # cannot be edited: blocked
    telegram.membership_changed(chat, CID, "kicked", "member")
    await bot.quiesce()
    told = current(telegram, waiting)
    assert told.text == en.QUEUE_ENDED_AWAY and told.reply_markup is None
