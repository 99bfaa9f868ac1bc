"""Every seat plays from the Mini App: in a game of three or four, Carol (🔺) and Dave (🟦)
move from the page as Alice and Bob do, the chat board follows, and the start page lists the
game with all its players. The page's ending line is the chat's (bot.views.endings)."""

from __future__ import annotations

from typing import Any

import aiohttp

from bot.locales import en
from tests.support.chat import board_cells, current, press, send, settle
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.webapp.support import auth, bot_with_mini_app, call, public_id_on

GROUP = FakeTelegram.group_chat(-100960, "Friends")
ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
CAROL = FakeTelegram.user(1003, "Carol")
DAVE = FakeTelegram.user(1004, "Dave")


async def seated_game(telegram: FakeTelegram, players: list[dict[str, Any]]) -> StoredMessage:
    """A game of three or four in the group, opened by the first player from the menu, the
    others seated with Join, in order."""
    await send(telegram, players[0], "/start", chat=GROUP)
    menu = telegram.last_bot_message(GROUP["id"])
    label = en.MENU_THREE_PLAYERS if len(players) == 3 else en.MENU_FOUR_PLAYERS
    await press(telegram, players[0], menu, label)
    board = telegram.last_bot_message(GROUP["id"])
    for player in players[1:]:
        await press(telegram, player, board, en.BUTTON_JOIN)
    return current(telegram, board)


async def test_every_seat_of_a_four_player_game_moves_from_the_page(
    telegram: FakeTelegram, database_url: str
) -> None:
    players = [ALICE, BOB, CAROL, DAVE]
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        board = await seated_game(telegram, players)
        public_id = public_id_on(telegram, board)  # the board offers the page, as any board
        url = page + f"api/games/{public_id}"
        async with aiohttp.ClientSession() as http:
            status, seen = await call(http, "GET", url, auth(telegram, DAVE))
            assert status == 200, seen
            game = seen["game"]
            assert game["marks"] == ["X", "O", "T", "S"] and game["you"] == ["S"]
            assert [game["players"][m]["name"] for m in game["marks"]] == [
                "Alice",
                "Bob",
                "Carol",
                "Dave",
            ]
            assert not game["spectator"] and game["actions"] == ["resign"]
            size = game["size"]
            # One round, each seat in its turn, from the page: a row each, no line yet.
            for turn, (player, mark) in enumerate(zip(players, game["marks"], strict=True)):
                cell = turn * size
                early = players[(turn + 1) % 4]
                status, refused = await call(
                    http, "POST", url + "/moves", auth(telegram, early), {"ply": turn, "cell": 1}
                )
                assert status == 409 and refused["status"] == "not_your_turn"
                _, before = await call(http, "GET", url, auth(telegram, player))
                assert before["game"]["your_turn"] and before["game"]["to_move"] == mark
                status, moved = await call(
                    http,
                    "POST",
                    url + "/moves",
                    auth(telegram, player),
                    {"ply": turn, "cell": cell},
                )
                assert status == 200, (mark, moved)
                assert moved["game"]["cells"][cell] == mark
            assert board_cells(telegram, board, size) == moved["game"]["cells"]
            # Dave gives up from the page: the others play on, as in chat.
            status, resigned = await call(
                http, "POST", url + "/actions", auth(telegram, DAVE), {"action": "resign", "ply": 4}
            )
            assert status == 200, resigned
            assert resigned["game"]["out"] == ["S"] and resigned["game"]["status"] == "active"


async def test_the_start_page_lists_a_three_player_game_with_every_player(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await seated_game(telegram, [ALICE, BOB, CAROL])
        async with aiohttp.ClientSession() as http:
            status, listed = await call(http, "GET", page + "api/games", auth(telegram, CAROL))
        assert status == 200
        [line] = listed["games"]
        assert line["you"] == ["T"] and not line["your_turn"]
        assert line["players"] == [
            {"mark": "X", "name": "Alice", "ai": None},
            {"mark": "O", "name": "Bob", "ai": None},
            {"mark": "T", "name": "Carol", "ai": None},
        ]


async def test_a_resignation_before_any_move_is_worded_as_the_chat_words_it(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/challenge", chat=GROUP)
        board = telegram.last_bot_message(GROUP["id"])
        await press(telegram, BOB, board, en.BUTTON_JOIN)
        board = current(telegram, board)
        url = page + f"api/games/{public_id_on(telegram, board)}"
        async with aiohttp.ClientSession() as http:
            status, _ = await call(
                http, "POST", url + "/actions", auth(telegram, BOB), {"action": "resign", "ply": 0}
            )
            assert status == 200
            _, alices = await call(http, "GET", url, auth(telegram, ALICE))
            _, bobs = await call(http, "GET", url, auth(telegram, BOB))
        # Alice did not win on the board: she is told Bob resigned, as the chat board says.
        assert alices["game"]["ending"] == {"key": "RESULT_NAME_RESIGNED", "mark": "O"}
        assert bobs["game"]["ending"] == {"key": "RESULT_YOU_RESIGNED", "mark": None}
        await settle(telegram)  # the chat's board follows the page (the ending's listener)
        assert en.RESULT_NAME_RESIGNED.format(name="Bob") in current(telegram, board).text


async def test_a_three_player_rematch_is_offered_and_joined_on_the_page(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        group = telegram.add_chat(GROUP)
        for user in (ALICE, BOB, CAROL):
            telegram.set_member(group, user)
        board = await seated_game(telegram, [ALICE, BOB, CAROL])
        url = page + f"api/games/{public_id_on(telegram, board)}"
        async with aiohttp.ClientSession() as http:
            # Alice and Bob give up from the page, in their turns: Carol wins.
            for ply, user in enumerate((ALICE, BOB)):
                resign = {"action": "resign", "ply": ply}
                status, _ = await call(http, "POST", url + "/actions", auth(telegram, user), resign)
                assert status == 200
            _, ended = await call(http, "GET", url, auth(telegram, CAROL))
            assert ended["game"]["status"] == "finished"
            assert ended["game"]["ending"] == {"key": "RESULT_NAME_WON", "mark": "T"}
            status, offered = await call(
                http, "POST", url + "/actions", auth(telegram, CAROL), {"action": "rematch"}
            )
            assert status == 200 and offered["game"]["offer"]["key"] == "MANY_OPEN"
            assert offered["game"]["offer"]["left"] == 2
            # Alice sees it under the game that ended, and takes a seat from there.
            _, seen = await call(http, "GET", url, auth(telegram, ALICE))
            rematch = seen["game"]["rematch"]
            assert rematch["id"] == offered["opened"] and rematch["actions"] == ["join"]
            offer_url = page + f"api/games/{rematch['id']}/actions"
            status, joined = await call(
                http, "POST", offer_url, auth(telegram, ALICE), {"action": "join"}
            )
        assert status == 200 and joined["game"]["you"] == ["O"]
        assert joined["game"]["offer"]["left"] == 1
