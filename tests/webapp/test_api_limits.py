"""The Mini App's API at its edges: a body nested too deep, live streams beyond the caps,
a group member who watches but may not act, the buttons under the board through the chat's
use-cases, ultimate's cells, and every refusal's words in every language."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from bot.games.model import MoveStatus
from bot.locales.texts import available_languages, texts_for
from bot.webapp.live import POLL_SECONDS, STREAMS_PER_USER, StreamGate, TooManyStreams
from bot.webapp.words import REFUSALS, page_texts
from tests.support.chat import press, send
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import auth, bot_with_mini_app, call, public_id_on

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
CAROL = FakeTelegram.user(1003, "Carol", language_code="fa")
GROUP = FakeTelegram.group_chat(-100500, "Friends")


async def test_a_body_nested_too_deep_is_400_and_the_server_goes_on(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        public_id = public_id_on(telegram, telegram.last_bot_message(ALICE["id"]))
        alice = auth(telegram, ALICE)
        async with aiohttp.ClientSession() as http:
            for path in (
                "api/games",
                f"api/games/{public_id}/moves",
                f"api/games/{public_id}/actions",
            ):
                status, answer = await call(http, "POST", page + path, alice, "[" * 100_000)
                assert status == 400 and answer["status"] == "invalid", path
            status, answer = await call(http, "GET", page + f"api/games/{public_id}", alice)
        assert status == 200 and answer["game"]["ply"] == 0


async def test_live_streams_are_capped_per_user(telegram: FakeTelegram, database_url: str) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        public_id = public_id_on(telegram, telegram.last_bot_message(ALICE["id"]))
        url = page + f"api/games/{public_id}/events"
        async with aiohttp.ClientSession() as http:
            held = [await http.get(url, headers=auth(telegram, ALICE)) for _ in range(5)]
            assert [r.status for r in held] == [200] * STREAMS_PER_USER
            refused = await http.get(url, headers=auth(telegram, ALICE))
            assert refused.status == 429 and (await refused.json())["status"] == "too_many"
            other = await http.get(url.replace("/events", ""), headers=auth(telegram, ALICE))
            assert other.status == 200  # only streams are capped
            held.pop().close()
            # The stream sees its page gone at its next look (within POLL_SECONDS): until
            # then a sixth is still one too many.
            again = await until_admitted(http, url, auth(telegram, ALICE))
            assert again.status == 200
            for response in [*held, again]:
                response.close()


async def until_admitted(
    http: aiohttp.ClientSession, url: str, headers: dict[str, str]
) -> aiohttp.ClientResponse:
    """A live stream opened as soon as the server takes one more (429 until then)."""
    deadline = time.monotonic() + 5 * POLL_SECONDS
    while True:
        response = await http.get(url, headers=headers)
        if response.status != 429 or time.monotonic() > deadline:
            return response
        response.close()
        await asyncio.sleep(0.05)


def test_the_gate_counts_everybody_too() -> None:
    gate = StreamGate(per_user=2, in_all=3)
    with gate.admit(1), gate.admit(1), gate.admit(2):
        for user in (2, 3):
            with pytest.raises(TooManyStreams), gate.admit(user):
                pass
    with gate.admit(3):
        pass  # all places free again


async def test_a_member_watches_a_group_game_and_may_not_act(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        group = telegram.add_chat(GROUP)
        telegram.set_member(group, CAROL)  # in the group, not in the game
        await send(telegram, ALICE, "/challenge", chat=group)
        board = telegram.last_bot_message(group["id"])
        await press(telegram, BOB, board, "✋ Join")
        url = page + f"api/games/{public_id_on(telegram, board)}"
        carol = auth(telegram, CAROL)
        async with aiohttp.ClientSession() as http:
            status, seen = await call(http, "GET", url, carol)
            assert status == 200 and seen["game"]["spectator"] is True
            assert seen["game"]["actions"] == [] and seen["game"]["legal"] == []
            status, moved = await call(http, "POST", url + "/moves", carol, {"ply": 0, "cell": 4})
            assert status == 403 and moved["status"] == "not_a_player"
            body = {"action": "resign", "ply": 0}
            status, resigned = await call(http, "POST", url + "/actions", carol, body)
            assert status == 403 and resigned["status"] == "not_a_player"
            _, after = await call(http, "GET", url, auth(telegram, ALICE))
            # Bob may not move for Alice either.
            bob = auth(telegram, BOB)
            status, early = await call(http, "POST", url + "/moves", bob, {"ply": 0, "cell": 4})
            assert status == 409 and early["status"] == "not_your_turn"
            _, words = await call(http, "GET", page + "api/texts", carol)
        assert after["game"]["ply"] == 0 and after["game"]["status"] == "active"
        assert words["language"] == "fa" and words["rtl"] is True
        assert words["texts"]["REFUSALS"]["not_a_player"] == texts_for("fa").POPUP_NOT_A_PLAYER


async def test_the_buttons_under_the_board_call_the_chats_use_cases(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        url = page + f"api/games/{public_id_on(telegram, board)}"
        alice, bob = auth(telegram, ALICE), auth(telegram, BOB)
        async with aiohttp.ClientSession() as http:
            status, hinted = await call(http, "POST", url + "/actions", alice, {"action": "hint"})
            assert status == 200 and hinted["hint"] in range(9) and hinted["game"]["assisted"]
            markup = telegram.last_bot_message(ALICE["id"]).reply_markup
            assert "💡" in json.dumps(markup, ensure_ascii=False)
            await call(http, "POST", url + "/moves", alice, {"ply": 0, "cell": 4})
            status, undone = await call(http, "POST", url + "/actions", alice, {"action": "undo"})
            assert status == 200 and undone["game"]["ply"] == 0
            body = {"action": "again"}
            status, refused = await call(http, "POST", url + "/actions", alice, body)
            assert status == 403 and refused["status"] == "not_a_player"  # not over yet
            resign = {"action": "resign"}
            assert (await call(http, "POST", url + "/actions", bob, resign))[0] == 404
            status, resigned = await call(
                http, "POST", url + "/actions", alice, {"action": "resign"}
            )
            assert status == 200 and resigned["game"]["status"] == "finished"
            after = ["again", "swap", "level", "review", "picture"]  # as the chat board has
            assert resigned["game"]["actions"] == after
            status, again = await call(http, "POST", url + "/actions", alice, {"action": "swap"})
            assert status == 201 and again["opened"] != resigned["game"]["id"]
            assert again["game"]["you"] == ["O"]
            status, bad = await call(http, "POST", url + "/actions", alice, {"action": "fly"})
            assert status == 400 and bad["status"] == "invalid"


async def test_ultimate_cells_in_cores_order_and_a_wrong_small_board_refused(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start ultimate user user")
        rows = telegram.last_bot_message(ALICE["id"]).reply_markup["inline_keyboard"]
        url = page + "api/games/" + rows[-1][0]["web_app"]["url"].split("?game=")[1]
        alice = auth(telegram, ALICE)
        async with aiohttp.ClientSession() as http:
            status, played = await call(http, "POST", url + "/moves", alice, {"ply": 0, "cell": 9})
            assert status == 200
            game = played["game"]
            assert game["variant"] == "ultimate" and game["blocks"]["playable"] == [0]
            assert game["legal"] == list(range(9))
            status, wrong = await call(http, "POST", url + "/moves", alice, {"ply": 1, "cell": 40})
        assert status == 409 and wrong["status"] == "wrong_board"


@pytest.mark.parametrize("code", available_languages())
def test_every_refusal_has_words_in_every_language(code: str) -> None:
    refusals = page_texts(code)["texts"]["REFUSALS"]
    answered = set(MoveStatus) - {MoveStatus.PLAYED, MoveStatus.DUPLICATE, MoveStatus.INVALID}
    answered -= {MoveStatus.NOT_CHALLENGER}  # Cancel is the chat's only
    assert {str(s) for s in answered} <= set(REFUSALS)
    assert all(refusals[str(s)] for s in answered) and refusals["error"]
