"""Who sees which game in the Mini App, and what its links and answers give away: a group's
game to its players and the group's members (as Telegram says), an inline or private game to
its players only; games named by unguessable public ids; every other id a plain 404, on
every database; nothing of the initData in the logs; the page's security headers."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import aiohttp
import pytest

from bot.games.public_ids import is_public_id
from tests.support.bot_runner import settle
from tests.support.chat import board_cells, game_id_on, press, send
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.webapp.support import (
    bot_with_mini_app,
    public_id_on,
    telegram_init_data,
    versioned_names,
)

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
CAROL = FakeTelegram.user(1003, "Carol")
DAVE = FakeTelegram.user(1004, "Dave")
GROUP = FakeTelegram.group_chat(-100500, "Friends")
OTHER_GROUP = FakeTelegram.group_chat(-100600, "Elsewhere")
#: The answer for a game that does not exist, and for one the user may not see.
MISSING = (404, {"error": "no such game", "status": "no_game"})


def auth(telegram: FakeTelegram, user: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": "tma " + telegram_init_data(telegram.token, user)}


async def call(
    http: aiohttp.ClientSession, method: str, url: str, headers: dict[str, str], body: Any = None
) -> tuple[int, Any]:
    async with http.request(method, url, headers=headers, json=body) as response:
        text = await response.text()
        try:
            return response.status, json.loads(text) if text else None
        except ValueError:
            return response.status, text


async def every_way(
    http: aiohttp.ClientSession, page: str, game: str, headers: dict[str, str]
) -> list[tuple[int, Any]]:
    """The game's state, a move, an action and its events stream, as `headers` asks."""
    url = page + "api/games/" + game
    return [
        await call(http, "GET", url, headers),
        await call(http, "POST", url + "/moves", headers, {"ply": 0, "cell": 4}),
        await call(http, "POST", url + "/actions", headers, {"action": "resign"}),
        await call(http, "GET", url + "/events", headers),
    ]


async def group_game(telegram: FakeTelegram) -> StoredMessage:
    """Alice's challenge in the group, joined by Bob: its board."""
    group = telegram.add_chat(GROUP)
    await send(telegram, ALICE, "/challenge", chat=group)
    board = telegram.last_bot_message(group["id"])
    await press(telegram, BOB, board, "✋ Join")
    return board


async def inline_game(telegram: FakeTelegram) -> StoredMessage:
    """Alice's inline challenge, sent into some chat and joined by Bob: its message."""
    query_id = telegram.inline_query(ALICE, "")
    await telegram.wait_for(
        lambda c: (
            c.method == "answerInlineQuery" and str(c.params.get("inline_query_id")) == query_id
        )
    )
    await settle(telegram)
    results = telegram.inline_answers[query_id]["results"]
    [chosen] = [r for r in results if r["id"].startswith("challenge-X")]
    text = chosen["input_message_content"]["message_text"]
    message = telegram.add_inline_message(text, chosen["reply_markup"])
    await press(telegram, BOB, message, "✋ Join")
    return message


async def test_outside_the_group_its_game_is_404_by_public_id_and_by_any_row_id(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        board = await group_game(telegram)
        public_id, row_id = public_id_on(telegram, board), game_id_on(telegram, board)
        # Dave is known to the bot (from another group), never was in this one ("left");
        # Carol the bot never met ("user not found").
        await send(telegram, DAVE, "hello", chat=telegram.add_chat(OTHER_GROUP))
        edits = len(telegram.calls_of("editMessageText"))
        async with aiohttp.ClientSession() as http:
            for outsider in (CAROL, DAVE):
                headers = auth(telegram, outsider)
                for game in (public_id, str(row_id), "1", "2", "A" * 16):
                    assert await every_way(http, page, game, headers) == [MISSING] * 4, game
                _, listed = await call(http, "GET", page + "api/games", headers)
                assert listed["games"] == []
            status, seen = await call(
                http, "GET", page + f"api/games/{public_id}", auth(telegram, BOB)
            )
        assert status == 200 and seen["game"]["ply"] == 0 and seen["game"]["id"] == public_id
        assert len(telegram.calls_of("editMessageText")) == edits
        assert board_cells(telegram, board) == "_________"
        asked = {
            (c.params["chat_id"], c.params["user_id"]) for c in telegram.calls_of("getChatMember")
        }
        assert asked == {(GROUP["id"], CAROL["id"]), (GROUP["id"], DAVE["id"])}


async def test_members_watch_a_group_game_and_may_not_move_and_those_gone_do_not(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        board = await group_game(telegram)
        public_id = public_id_on(telegram, board)
        url = page + f"api/games/{public_id}"
        group = telegram.chats[GROUP["id"]]
        telegram.set_member(group, CAROL, "restricted", is_member=True)  # muted, still in it
        telegram.set_member(group, DAVE, "administrator")
        gone = [FakeTelegram.user(2000 + i, f"Gone{i}") for i in range(3)]
        telegram.set_member(group, gone[0], "left")
        telegram.set_member(group, gone[1], "kicked")
        telegram.set_member(group, gone[2], "restricted", is_member=False)
        async with aiohttp.ClientSession() as http:
            for member in (CAROL, DAVE):
                headers = auth(telegram, member)
                status, seen = await call(http, "GET", url, headers)
                assert status == 200 and seen["game"]["spectator"] is True, member
                assert seen["game"]["actions"] == [] and seen["game"]["legal"] == []
                status, moved = await call(
                    http, "POST", url + "/moves", headers, {"ply": 0, "cell": 4}
                )
                assert status == 403 and moved["status"] == "not_a_player"
            for user in gone:
                assert await every_way(http, page, public_id, auth(telegram, user)) == [MISSING] * 4
            # Carol's page polls and follows the game live: Telegram is asked once, not per read.
            carol = auth(telegram, CAROL)
            for _ in range(5):
                assert (await call(http, "GET", url, carol))[0] == 200
            async with http.get(url + "/events", headers=carol) as events:
                assert events.status == 200
                await asyncio.sleep(2.5)  # the stream reads the game every second
        asked = [
            c for c in telegram.calls_of("getChatMember") if c.params["user_id"] == CAROL["id"]
        ]
        assert len(asked) == 1
        assert board_cells(telegram, board) == "_________"


async def test_an_inline_game_shows_to_its_players_only(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        message = await inline_game(telegram)
        public_id = public_id_on(telegram, message)
        # Carol tapped on the board too (the chat it sits in is hers as well): no player.
        await send(telegram, CAROL, "/start")
        async with aiohttp.ClientSession() as http:
            for player in (ALICE, BOB):
                status, seen = await call(
                    http, "GET", page + f"api/games/{public_id}", auth(telegram, player)
                )
                assert status == 200 and seen["game"]["spectator"] is False
            assert await every_way(http, page, public_id, auth(telegram, CAROL)) == [MISSING] * 4
        assert not telegram.calls_of("getChatMember")  # an inline message is in no group


async def test_every_board_link_names_its_game_by_an_unguessable_public_id(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        private = telegram.last_bot_message(ALICE["id"])
        group = await group_game(telegram)
        inline = await inline_game(telegram)
        await send(telegram, BOB, "/start easy")
        second_private = telegram.last_bot_message(BOB["id"])
        boards = [private, group, second_private]
        row_ids = [game_id_on(telegram, board) for board in boards]
        public_ids = [public_id_on(telegram, board) for board in [*boards, inline]]
        links = []
        for board in [*boards, inline]:
            inline_id = board.inline_message_id or ""
            shown = telegram.inline_messages.get(inline_id) or telegram.messages[board.key]  # type: ignore[index]
            button = shown.reply_markup["inline_keyboard"][-1][0]
            links.append(button.get("web_app", {}).get("url") or button["url"])
        async with aiohttp.ClientSession() as http:
            _, listed = await call(http, "GET", page + "api/games", auth(telegram, ALICE))
    assert all(is_public_id(public_id) and len(public_id) == 16 for public_id in public_ids)
    assert len(set(public_ids)) == len(public_ids)
    # Not the row id, nor anything counting up with it.
    assert row_ids == sorted(row_ids) and max(row_ids) <= 4  # the rows count up
    for link, public_id in zip(links, public_ids, strict=True):
        assert link.endswith(f"?game={public_id}") or link.endswith(f"?startapp=g{public_id}")
        assert not any(
            link.endswith(f"={row_id}") or link.endswith(f"=g{row_id}") for row_id in row_ids
        )
    # The start page names Alice's games as the links do.
    assert {game["id"] for game in listed["games"]} == {public_ids[0], public_ids[1], public_ids[3]}


@pytest.mark.parametrize(
    "game",
    [
        "2147483648",  # one past the games.id column (INTEGER)
        "9223372036854775808",  # one past BIGINT
        str(10**30),
        "-1",
        "0",
        "1",
        "9" * 200,
        "A" * 15,
        "A" * 17,
        "A" * 64,
        "%00",
        "..",
    ],
)
async def test_an_id_out_of_range_or_of_no_shape_is_404_on_every_database(
    telegram: FakeTelegram, database_url: str, game: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        async with aiohttp.ClientSession() as http:
            for status, answer in await every_way(http, page, game, auth(telegram, ALICE)):
                assert status == 404, (game, answer)
            status, _ = await call(http, "GET", page + "api/games", auth(telegram, ALICE))
        assert status == 200  # and the server goes on


async def test_numbers_out_of_range_in_a_body_are_refused_not_500_on_every_database(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        url = page + f"api/games/{public_id_on(telegram, telegram.last_bot_message(ALICE['id']))}"
        alice = auth(telegram, ALICE)
        huge = [2**31, 2**63, -(2**63) - 1, 10**30, -1]
        async with aiohttp.ClientSession() as http:
            for number in huge:
                for body in ({"ply": number, "cell": 4}, {"ply": 0, "cell": number}):
                    status, answer = await call(http, "POST", url + "/moves", alice, body)
                    assert 400 <= status < 500, (body, answer)
                body = {"action": "hint", "ply": number}
                status, answer = await call(http, "POST", url + "/actions", alice, body)
                assert 400 <= status < 500, (body, answer)
                body = {"level": "easy", "mark": "X", "size": number}
                status, answer = await call(http, "POST", page + "api/games", alice, body)
                assert status == 400, (body, answer)
            status, seen = await call(http, "GET", url, alice)
        assert status == 200 and seen["game"]["ply"] == 0


@pytest.mark.parametrize("user_id", [10**30, 2**63, 2**52, 0, -5, "1001", 1001.5, True, None])
async def test_signed_init_data_naming_no_telegram_user_id_is_401_on_every_database(
    telegram: FakeTelegram, database_url: str, user_id: Any
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        headers = auth(telegram, {**ALICE, "id": user_id})
        async with aiohttp.ClientSession() as http:
            for method, path, body in [
                ("GET", "api/games", None),
                ("POST", "api/games", {"level": "easy", "mark": "X", "size": 3}),
                ("GET", "api/texts", None),
                ("GET", "api/games/" + "A" * 16, None),
            ]:
                status, answer = await call(http, method, page + path, headers, body)
                assert status == 401, (path, answer)


async def test_an_over_long_authorization_header_logs_nothing_of_the_init_data(
    telegram: FakeTelegram, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    secret_name = "Zebediah"
    user = FakeTelegram.user(4242424242, secret_name, last_name="Quixotic", username="zq_secret")
    caplog.set_level(logging.DEBUG)
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        init_data = telegram_init_data(telegram.token, user)
        statuses = []
        async with aiohttp.ClientSession() as http:
            for padding in (100, 5_000, 9_000, 100_000):
                headers = {"Authorization": "tma " + init_data + "&pad=" + "x" * padding}
                async with http.get(page + "api/games", headers=headers) as response:
                    statuses.append(response.status)
    assert statuses[:2] == [401, 401] and all(400 <= s < 500 for s in statuses[2:])
    told = [logging.Formatter().format(record) for record in caplog.records]
    leaks = ("4242424242", secret_name, "Quixotic", "zq_secret", "query_id", "auth_date", "hash=")
    for line in told:
        assert not any(leak in line for leak in leaks), line
    assert any("malformed HTTP request" in line for line in told)


async def test_the_mini_apps_answers_carry_its_security_headers(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        alice = auth(telegram, ALICE)
        async with aiohttp.ClientSession() as http:
            async with http.get(page) as answer:
                names = versioned_names(await answer.text())
            answers = {}
            for path, headers in [
                ("", {}),
                ("static/" + names["app.js"], {}),
                ("static/" + names["app.css"], {}),
                ("static/app.js", {}),  # 404: no file has an unversioned name
                ("api/games", alice),
                ("api/games", {}),  # 401
                ("api/games/" + "A" * 16, alice),  # 404
            ]:
                async with http.get(page + path, headers=headers) as response:
                    answers[(path, bool(headers))] = (response.status, response.headers)
            async with http.get(page.removesuffix("app/") + "healthz") as response:
                health = response.headers
    for (path, _), (_status, headers) in answers.items():
        policy = headers["Content-Security-Policy"]
        assert "script-src 'self' https://telegram.org/js/telegram-web-app.js;" in policy, path
        assert "default-src 'none'" in policy and "connect-src 'self'" in policy
        assert "'unsafe-eval'" not in policy and "script-src 'self' 'unsafe-inline'" not in policy
        assert headers["X-Content-Type-Options"] == "nosniff", path
    assert [status for status, _ in answers.values()] == [200, 200, 200, 404, 200, 401, 404]
    for name in ("app.js", "app.css"):
        kept = answers[("static/" + names[name], False)][1]["Cache-Control"]
        assert kept == "public, max-age=31536000, immutable"
    assert answers[("", False)][1]["Cache-Control"] == "no-cache"
    assert "Content-Security-Policy" not in health  # the health check is no page
