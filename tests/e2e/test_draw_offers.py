"""End to end: a draw offered between two people (issue 52), stored on the game as Resign's
question is: between strangers on each one's board, in a group on the shared board. Accepted,
the game ends drawn by agreement (rated as a draw); declined, or a move made, the offer goes.
Only a player offers, only the opponent answers; a double tap offers once; the AI is offered
nothing; a match's game drawn so counts half, and the match goes on."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.models import Game
from bot.locales import en
from tests.e2e import test_matches as matches
from tests.e2e.test_groups import ALICE, BOB, CAROL, GROUP, RESIGN, game_between, say
from tests.e2e.test_matchmaking import pair
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    assert_every_query_answered,
    button_texts,
    current,
    not_modified,
    press,
    state,
    tap_cell,
    tap_data,
)
from tests.support.fake_telegram import FakeTelegram

ANN = FakeTelegram.user(4101, "Ann")
CID = FakeTelegram.user(4103, "Cid")
OFFER, ACCEPT, DECLINE = en.BUTTON_DRAW_OFFER, en.BUTTON_DRAW_ACCEPT, en.BUTTON_DRAW_DECLINE


def offered(name: str) -> str:
    return en.DRAW_OFFER_LINE.format(name=name)


async def test_strangers_agree_a_draw_rated_as_one(
    telegram: FakeTelegram, bot: BotRunner, engine: AsyncEngine
) -> None:
    x_board, o_board = await pair(telegram, ANN, CID)
    assert button_texts(telegram, x_board)[9:] == [en.BUTTON_RESIGN, OFFER]
    assert not (await tap_cell(telegram, ANN, x_board, 4)).get("text")
    answer = await press(telegram, ANN, current(telegram, x_board), OFFER)
    assert answer["text"] == en.POPUP_DRAW_OFFERED.format(name="Cid")
    mine, theirs = current(telegram, x_board), current(telegram, o_board)
    # The offerer's board says it is offered and keeps 🤝; the opponent's offers the answers.
    assert offered("Ann") in mine.text and offered("Ann") in theirs.text
    assert button_texts(telegram, mine)[9:] == [en.BUTTON_RESIGN, OFFER]
    assert button_texts(telegram, theirs)[9:] == [en.BUTTON_RESIGN, ACCEPT, DECLINE]
    # 🤝 again (a double tap, or a second thought): said in a pop-up, nothing drawn again.
    before = (state(mine), state(theirs))
    again = await press(telegram, ANN, mine, OFFER)
    assert again["text"] == en.POPUP_DRAW_OPEN
    assert (state(current(telegram, x_board)), state(current(telegram, o_board))) == before

    assert not (await press(telegram, CID, theirs, ACCEPT)).get("text")
    final_x, final_o = current(telegram, x_board), current(telegram, o_board)
    for final in (final_x, final_o):
        assert en.RESULT_DRAW_AGREED in final.text and "Draw" in final.text.splitlines()
        assert en.RATING_LINE.split("{")[0] in final.text
    async with engine.connect() as connection:
        row = (await connection.execute(select(Game).order_by(Game.id.desc()))).first()
    assert row is not None
    assert (row.status, row.result, row.end_reason) == ("finished", "draw", "agreed")
    assert row.x_rating_change is not None and row.o_rating_change is not None
    assert not_modified(telegram) == []
    assert_every_query_answered(telegram)


async def test_in_a_group_only_the_opponent_answers_and_a_decline_plays_on(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    board = await game_between(telegram, ALICE, BOB)
    assert button_texts(telegram, board)[9:] == [RESIGN, OFFER]
    assert not (await tap_cell(telegram, ALICE, board, 4)).get("text")
    # Only a player offers.
    before = state(board)
    assert (await press(telegram, CAROL, board, OFFER))["text"] == en.POPUP_NOT_A_PLAYER
    assert state(board) == before

    answer = await press(telegram, ALICE, board, OFFER)
    assert answer["text"] == en.POPUP_DRAW_OFFERED.format(name="Bob")
    assert offered("Alice") in board.text
    assert button_texts(telegram, board)[9:] == [RESIGN, ACCEPT, DECLINE]
    # The offerer cannot accept their own offer, nor anyone else but the opponent.
    before = state(board)
    assert (await press(telegram, ALICE, board, ACCEPT))["text"] == en.POPUP_NOT_YOURS
    assert (await press(telegram, CAROL, board, ACCEPT))["text"] == en.POPUP_NOT_YOURS
    assert state(board) == before

    assert (await press(telegram, BOB, board, DECLINE))["text"] == en.POPUP_DRAW_DECLINED
    assert offered("Alice") not in board.text
    assert button_texts(telegram, board)[9:] == [RESIGN, OFFER]
    assert "Bob's turn ⭕" in board.text.splitlines()
    assert not_modified(telegram) == []
    assert_every_query_answered(telegram)


async def test_a_move_withdraws_the_offer(telegram: FakeTelegram, bot: BotRunner) -> None:
    board = await game_between(telegram, ALICE, BOB)
    assert not (await tap_cell(telegram, ALICE, board, 4)).get("text")
    await press(telegram, ALICE, board, OFFER)
    accept = next(data for row in telegram.keyboard(board) for text, data in row if text == ACCEPT)
    assert data_is_for(accept, BOB["id"])
    # Bob moves instead of answering: as on lichess, the move declines it.
    assert not (await tap_cell(telegram, BOB, board, 0)).get("text")
    assert offered("Alice") not in board.text
    assert button_texts(telegram, board)[9:] == [RESIGN, OFFER]
    # His Accept of the offer that went changes nothing.
    before = state(board)
    assert (await tap_data(telegram, BOB, board, accept))["text"] == en.POPUP_STALE
    assert state(board) == before and "Alice's turn ❌" in board.text.splitlines()
    assert_every_query_answered(telegram)


def data_is_for(data: str, user_id: int) -> bool:
    return data.startswith("dy:") and data.endswith(f":{user_id}")


async def test_the_ai_is_offered_no_draw(telegram: FakeTelegram, bot: BotRunner) -> None:
    await say(telegram, ALICE, "/start user hard")
    board = telegram.last_bot_message(GROUP["id"])
    assert OFFER not in button_texts(telegram, board)
    assert not (await tap_cell(telegram, ALICE, board, 4)).get("text")
    assert OFFER not in button_texts(telegram, board)
    assert RESIGN in button_texts(telegram, board)


async def test_a_match_game_drawn_by_agreement_counts_half_and_the_match_goes_on(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    first = await matches.start_match(telegram)
    assert not (await tap_cell(telegram, matches.ALICE, first, 4)).get("text")
    await press(telegram, matches.BOB, first, OFFER)
    assert not (await press(telegram, matches.ALICE, first, ACCEPT)).get("text")
    await matches.match_games(bot).idle()
    first = current(telegram, first)
    assert en.RESULT_DRAW_AGREED in first.text
    assert matches.score_line(3, "Alice", "½", "½", "Bob", 1) in first.text
    second = matches.boards(telegram)[-1]
    assert second.key != first.key
    assert matches.score_line(3, "Alice", "½", "½", "Bob", 2) in second.text
