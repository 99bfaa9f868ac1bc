"""A draw offered from the Mini App (issue 52): the same use-cases as the chat's 🤝, ✅ and ✖,
so the page and the chat board offer and end it alike; none against the AI."""

from __future__ import annotations

from typing import Any

import aiohttp

from bot.locales import en
from tests.e2e.test_matchmaking import pair
from tests.support.bot_runner import settle
from tests.support.chat import button_texts, current, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import auth, bot_with_mini_app, call, public_id_on

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")


async def test_a_draw_offered_and_accepted_on_the_page_ends_the_game_in_chat_too(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        x_board, o_board = await pair(telegram, ALICE, BOB)
        assert not (await tap_cell(telegram, ALICE, x_board, 4)).get("text")
        url = page + f"api/games/{public_id_on(telegram, x_board)}"
        async with aiohttp.ClientSession() as http:

            async def game_of(user: dict[str, Any]) -> dict[str, Any]:
                status, answer = await call(http, "GET", url, auth(telegram, user))
                assert status == 200, answer
                game: dict[str, Any] = answer["game"]
                return game

            assert (await game_of(ALICE))["actions"] == ["resign", "draw"]
            offer = {"action": "draw", "ply": 1}
            status, _ = await call(http, "POST", url + "/actions", auth(telegram, ALICE), offer)
            assert status == 200
            await settle(telegram)
            # The offerer waits; the opponent answers, on the page or on his chat board.
            assert (await game_of(ALICE))["actions"] == ["resign"]
            assert (await game_of(BOB))["actions"] == ["resign", "draw_accept", "draw_decline"]
            chat = current(telegram, o_board)
            assert button_texts(telegram, chat)[9:12] == [
                en.BUTTON_RESIGN,
                en.BUTTON_DRAW_ACCEPT,
                en.BUTTON_DRAW_DECLINE,
            ]
            # Alice cannot accept for him.
            accept = {"action": "draw_accept"}
            status, _ = await call(http, "POST", url + "/actions", auth(telegram, ALICE), accept)
            assert status == 409
            status, _ = await call(http, "POST", url + "/actions", auth(telegram, BOB), accept)
            assert status == 200
            await settle(telegram)
            ended = await game_of(BOB)
        assert (ended["status"], ended["result"], ended["end_reason"]) == (
            "finished",
            "draw",
            "agreed",
        )
        assert ended["ending"]["key"] == "RESULT_DRAW_AGREED"
        assert en.RESULT_DRAW_AGREED in current(telegram, x_board).text


async def test_the_page_offers_the_ai_no_draw(telegram: FakeTelegram, database_url: str) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        await tap_cell(telegram, ALICE, board, 4)
        url = page + f"api/games/{public_id_on(telegram, board)}"
        async with aiohttp.ClientSession() as http:
            _, answer = await call(http, "GET", url, auth(telegram, ALICE))
        assert "draw" not in answer["game"]["actions"]
        assert "resign" in answer["game"]["actions"]
