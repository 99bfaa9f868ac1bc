"""The Mini App's API on the real bot's web server: initData good, forged, stale and missing;
moves under the same rules as taps; the chat board edited to match; live events."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta
from typing import Any

import aiohttp

from bot.games.db.models import utcnow
from bot.locales import en
from tests.e2e.test_matchmaking import ANN, BEN, boards_of, pair
from tests.support.bot_runner import BotRunner
from tests.support.chat import board_cells, cell_data, current, game_id_on, send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import (
    WEBAPP_SHORT_NAME,
    auth,
    bot_with_mini_app,
    call,
    public_id_on,
    static_url,
    telegram_init_data,
)

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")


async def test_the_api_refuses_missing_forged_and_stale_init_data(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        public_id = public_id_on(telegram, board)
        edits = len(telegram.calls_of("editMessageText"))
        good = auth(telegram, ALICE)
        forged = {"Authorization": good["Authorization"].replace("Alice", "Alicf")}
        stale = auth(telegram, ALICE, auth_date=time.time() - 25 * 3600)
        other_bot = {
            "Authorization": "tma " + telegram_init_data("42:someone-else", ALICE),
        }
        # Only a genuine sign-in that is too old is "expired" (opened again, the page works);
        # a forged one, another bot's or none is no Telegram sign-in at all.
        refused = [({}, "not_telegram"), ({"Authorization": "tma "}, "not_telegram")]
        refused += [({"Authorization": "Bearer x"}, "not_telegram"), (forged, "not_telegram")]
        refused += [(stale, "expired"), (other_bot, "not_telegram")]
        move = {"ply": 0, "cell": 4}
        async with aiohttp.ClientSession() as http:
            for headers, why in refused:
                for method, path, body in [
                    ("GET", "api/games", None),
                    ("POST", "api/games", {"level": "easy", "mark": "X", "size": 3}),
                    ("GET", f"api/games/{public_id}", None),
                    ("POST", f"api/games/{public_id}/moves", move),
                    ("GET", f"api/games/{public_id}/events", None),
                    ("GET", "api/pairing", None),
                ]:
                    status, answer = await call(http, method, page + path, headers, body)
                    assert (status, answer["status"]) == (401, why), (headers, path, answer)
            status, answer = await call(http, "GET", page + f"api/games/{public_id}", good)
        assert status == 200
        assert answer["game"]["cells"] == "_________"  # the refused move changed nothing
        assert len(telegram.calls_of("editMessageText")) == edits
        assert board_cells(telegram, board) == "_________"


async def test_a_user_not_in_a_private_game_gets_404_as_for_none_and_changes_nothing(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        public_id = public_id_on(telegram, telegram.last_bot_message(ALICE["id"]))
        bob = auth(telegram, BOB)
        async with aiohttp.ClientSession() as http:
            url = page + f"api/games/{public_id}"
            missing = await call(http, "GET", page + "api/games/" + "A" * 16, bob)
            assert missing == (404, {"error": "no such game", "status": "no_game"})
            # Exactly as for no game at all: the answer says nothing of the game's existence.
            assert await call(http, "GET", url, bob) == missing
            assert await call(http, "POST", url + "/moves", bob, {"ply": 0, "cell": 4}) == missing
            assert await call(http, "POST", url + "/actions", bob, {"action": "resign"}) == missing
            assert await call(http, "GET", url + "/events", bob) == missing
            status, listed = await call(http, "GET", page + "api/games", bob)
            _, alices = await call(http, "GET", url, auth(telegram, ALICE))
        assert status == 200 and listed["games"] == []
        assert alices["game"]["ply"] == 0


async def test_a_move_from_the_page_edits_the_chat_board_to_the_same_position(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        public_id = public_id_on(telegram, board)
        # The board offers the Mini App, as a web_app button in a private chat.
        last_row = board.reply_markup["inline_keyboard"][-1]
        assert last_row[0]["web_app"]["url"] == f"{page}?game={public_id}"
        alice = auth(telegram, ALICE)
        async with aiohttp.ClientSession() as http:
            url = page + f"api/games/{public_id}/moves"
            status, answer = await call(http, "POST", url, alice, {"ply": 0, "cell": 4})
            assert status == 200, answer
            game = answer["game"]
            # Hard answered at once: two moves, the AI's marked as the last one.
            assert game["ply"] == 2 and game["cells"][4] == "X"
            assert [m["cell"] for m in game["moves"]] == [4, game["last_cell"]]
            assert game["last_cell"] == game["moves"][-1]["cell"]
            assert game["your_turn"] and game["you"] == ["X"]
            assert game["players"]["O"] == {"name": None, "ai": "hard"}
            assert game["players"]["X"] == {"name": "Alice", "ai": None}
            assert board_cells(telegram, board) == game["cells"]
            # The same move number again: stale, refused, nothing changes.
            status, again = await call(http, "POST", url, alice, {"ply": 0, "cell": 0})
            assert status == 409 and again["status"] == "stale"
            assert again["game"]["cells"] == game["cells"]
            status, occupied = await call(http, "POST", url, alice, {"ply": 2, "cell": 4})
            assert status == 409 and occupied["status"] == "occupied"
            status, _ = await call(http, "POST", url, alice, {"ply": "2", "cell": 1})
            assert status == 400
        assert board_cells(telegram, board) == game["cells"]


async def test_of_two_moves_at_once_exactly_one_is_played(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start user user")  # one phone: Alice plays both sides
        board = telegram.last_bot_message(ALICE["id"])
        public_id = public_id_on(telegram, board)
        alice = auth(telegram, ALICE)
        url = page + f"api/games/{public_id}/moves"
        async with aiohttp.ClientSession() as http:
            answers = await asyncio.gather(
                *(call(http, "POST", url, alice, {"ply": 0, "cell": c}) for c in (0, 8))
            )
            _, now = await call(http, "GET", page + f"api/games/{public_id}", alice)
        assert sorted(status for status, _ in answers) == [200, 409]
        assert now["game"]["ply"] == 1 and now["game"]["you"] == ["X", "O"]
        assert board_cells(telegram, board) == now["game"]["cells"]


async def read_state(events: aiohttp.ClientResponse) -> dict[str, Any]:
    """The next `state` event of a server-sent events stream."""
    lines: list[str] = []
    async for raw in events.content:
        line = raw.decode().rstrip("\n")
        if line:
            lines.append(line)
            continue
        if lines and lines[0] == "event: state":
            return json.loads(lines[1].removeprefix("data: "))
        lines = []
    raise AssertionError("the stream ended")


async def test_events_carry_a_tap_in_chat_to_the_page(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start medium")
        board = telegram.last_bot_message(ALICE["id"])
        public_id = public_id_on(telegram, board)
        async with (
            aiohttp.ClientSession() as http,
            http.get(page + f"api/games/{public_id}/events", headers=auth(telegram, ALICE)) as ev,
        ):
            assert ev.status == 200
            assert ev.headers["Content-Type"].startswith("text/event-stream")
            first = await read_state(ev)
            assert first["ply"] == 0
            await tap_cell(telegram, ALICE, board, 0)
            after = await read_state(ev)
            assert after["ply"] == 2 and after["cells"] == board_cells(telegram, board)
            # An undo takes the ply back, and the stored version still only grows: the page
            # tells an older picture from a newer one by it, whatever the ply.
            await send(telegram, ALICE, "/undo")
            undone = await read_state(ev)
        assert after["moves"][0] == {"ply": 1, "cell": 0, "mark": "X", "at": "1 1"}
        assert undone["ply"] == 0 and first["stored"] < after["stored"] < undone["stored"]


async def test_the_start_page_lists_open_games_and_starts_one(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))  # she has started the bot
        alice = auth(telegram, ALICE)
        async with aiohttp.ClientSession() as http:
            status, started = await call(
                http, "POST", page + "api/games", alice, {"level": "hard", "mark": "O", "size": 4}
            )
            assert status == 201, started
            status, listed = await call(http, "GET", page + "api/games", alice)
            bad = {"level": "godlike", "mark": "X", "size": 3}
            assert (await call(http, "POST", page + "api/games", alice, bad))[0] == 400
            too_big = {"level": "easy", "mark": "X", "size": 9}
            assert (await call(http, "POST", page + "api/games", alice, too_big))[0] == 400
        game = started["game"]
        assert (game["size"], game["you"]) == (4, ["O"])
        assert listed["me"] == {"name": "Alice"}
        assert [g["id"] for g in listed["games"]] == [game["id"]]
        # The game is in the chat too, as if started there.
        board = telegram.last_bot_message(ALICE["id"])
        assert public_id_on(telegram, board) == game["id"]
        await telegram.wait_until(lambda: board_cells(telegram, board, 4).count("X") == 1)


async def test_no_token_in_the_page_or_the_answers(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start easy")
        public_id = public_id_on(telegram, telegram.last_bot_message(ALICE["id"]))
        alice = auth(telegram, ALICE)
        bodies = []
        async with aiohttp.ClientSession() as http:
            script = await static_url(http, page, "app.js")
            for url in [page, script, page + "api/games", page + f"api/games/{public_id}"]:
                async with http.get(url, headers=alice) as response:
                    assert response.status == 200, url
                    bodies.append(await response.text())
        for body in bodies:
            assert telegram.token not in body
            assert telegram.token.split(":")[1] not in body
            assert str(ALICE["id"]) not in body  # no Telegram ids at all, not even hers


async def test_the_menu_button_and_group_boards_open_the_mini_app(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await telegram.wait_until(lambda: None in telegram.menu_buttons)
        menu = telegram.menu_buttons[None]
        assert menu["type"] == "web_app" and menu["web_app"]["url"] == page
        group = telegram.add_chat(FakeTelegram.group_chat(-100500, "Friends"))
        await send(telegram, ALICE, "/start hard user", chat=group)
        board = telegram.last_bot_message(group["id"])
        public_id = public_id_on(telegram, board)
        button = board.reply_markup["inline_keyboard"][-1][0]
        link = f"https://t.me/{telegram.bot_username}/{WEBAPP_SHORT_NAME}?startapp=g{public_id}"
        assert button["url"] == link
        assert "web_app" not in button  # Telegram allows web_app buttons in private chats only


async def test_without_webapp_url_boards_are_as_before(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    await send(telegram, ALICE, "/start hard")
    rows = telegram.last_bot_message(ALICE["id"]).reply_markup["inline_keyboard"]
    assert all("web_app" not in b and "url" not in b for row in rows for b in row)
    assert telegram.calls_of("setChatMenuButton") == []


async def test_a_new_game_from_the_page_over_one_underway_asks_first(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start medium")
        board = telegram.last_bot_message(ALICE["id"])
        await tap_cell(telegram, ALICE, board, 4)
        alice = auth(telegram, ALICE)
        new = {"level": "hard", "mark": "X", "size": 3}
        async with aiohttp.ClientSession() as http:
            # Nothing ends behind her back: the page is told what to ask, in her words.
            status, asked = await call(http, "POST", page + "api/games", alice, new)
            assert status == 409 and asked["status"] == "underway", asked
            assert asked["question"] == en.REPLACE_QUESTION.format(
                name=en.AI_NAME.format(level=en.LEVEL_NAMES["medium"])
            )
            assert en.RESULT_YOU_REPLACED not in telegram.messages[board.key].text
            # Her yes: the old game counts as a loss, on its board too; the new one starts.
            yes = {**new, "resign_underway": True}
            status, started = await call(http, "POST", page + "api/games", alice, yes)
            assert status == 201, started
        old = telegram.messages[board.key].text.splitlines()
        assert en.RESULT_YOU_REPLACED in old and en.OUTCOME_O_WINS in old
        assert (
            public_id_on(telegram, telegram.last_bot_message(ALICE["id"])) == started["game"]["id"]
        )


async def test_a_game_replays_frame_by_frame_to_whom_may_see_it(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        public_id = public_id_on(telegram, board)
        url = page + f"api/games/{public_id}/replay"
        async with aiohttp.ClientSession() as http:
            # While it is played: its moves so far (none yet), the last frame the game now.
            status, answer = await call(http, "GET", url, auth(telegram, ALICE))
            assert status == 200 and [f["ply"] for f in answer["frames"]] == [0], answer
            moves = page + f"api/games/{public_id}/moves"
            status, played = await call(
                http, "POST", moves, auth(telegram, ALICE), {"ply": 0, "cell": 4}
            )
            assert status == 200
            reply = played["game"]["last_cell"]
            status, answer = await call(http, "GET", url, auth(telegram, ALICE))
            assert [f["ply"] for f in answer["frames"]] == [0, 1, 2]
            assert answer["frames"][-1]["status"] == "active" and not answer["frames"][-1]["legal"]
            await send(telegram, ALICE, "/stop")  # resigned: finished, two moves in
            status, answer = await call(http, "GET", url, auth(telegram, ALICE))
            assert status == 200, answer
            frames = answer["frames"]
            # The empty board, then each move: the cells and the moves of that position, none
            # playable; the last is the game as it ended.
            assert [frame["ply"] for frame in frames] == [0, 1, 2]
            assert frames[0]["cells"] == "_" * 9 and frames[0]["last_cell"] is None
            assert frames[1]["cells"][4] == "X" and frames[1]["last_cell"] == 4
            assert frames[1]["result"] is None and frames[1]["status"] == "active"
            assert frames[1]["ending"] is None
            assert [m["cell"] for m in frames[2]["moves"]] == [4, reply]
            assert all(not f["your_turn"] and not f["legal"] and not f["actions"] for f in frames)
            assert frames[-1]["result"] == "O" and frames[-1]["ending"] is not None
            # Bob may not see Alice's private game: the same 404 as for no game.
            status, _ = await call(http, "GET", url, auth(telegram, BOB))
            assert status == 404


async def test_a_match_game_carries_its_score_to_the_page(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/play bo3")
        await send(telegram, BOB, "/play bo3")
        board = boards_of(telegram, ALICE)[0]
        public_id = public_id_on(telegram, board)
        async with aiohttp.ClientSession() as http:
            url = page + f"api/games/{public_id}"
            status, answer = await call(http, "GET", url, auth(telegram, ALICE))
        assert status == 200, answer
        # The chat board's line, as plain values the page words itself (MATCH_LINE).
        assert answer["game"]["match"] == {
            "best_of": 3,
            "game": 1,
            "a_mark": "X",
            "b_mark": "O",
            "a_score": "0",
            "b_score": "0",
            "ending": None,
            "winner": None,
            "score": None,
        }
        assert "Best of 3" in board.text


async def test_a_page_that_shows_a_stranger_his_turn_starts_his_clock(
    telegram: FakeTelegram, database_url: str
) -> None:
    # Issue 51: a clock runs once its player can see that it is their turn: on the chat
    # board Telegram has answered for, or on the Mini App's page once the page has it.
    async with bot_with_mini_app(telegram, database_url) as (runner, page):
        x_board, o_board = await pair(telegram, ANN, BEN)
        assert runner.application is not None
        store = runner.application.bot_data.running.games.store
        game_id = game_id_on(telegram, x_board)
        url = page + f"api/games/{public_id_on(telegram, o_board)}/events"
        ben = auth(telegram, BEN)
        async with aiohttp.ClientSession() as http, http.get(url, headers=ben) as ev:
            assert (await read_state(ev))["ply"] == 0
            # Ben's chat board waits (a slow Telegram); Ann moves; his page has it at once.
            telegram.hold_next("editMessageText", chat_id=BEN["id"])
            moved_at = utcnow()
            telegram.tap(ANN, x_board, cell_data(telegram, x_board, 4))
            state = await read_state(ev)
            had_it = utcnow()
            assert state["ply"] == 1 and state["your_turn"]
            assert board_cells(telegram, current(telegram, o_board))[4] == "_"  # still held
            game = await store.get_game(game_id)
            async with asyncio.timeout(5):
                # Nothing tells of a write to the database but reading it.
                while game is None or game.flag_at is None:
                    await asyncio.sleep(0.01)
                    game = await store.get_game(game_id)
            assert game.o_clock is not None
            started = game.flag_at - timedelta(seconds=game.o_clock)
            assert moved_at <= started <= had_it
        telegram.release_held()


async def test_the_state_names_moves_and_edges_as_the_chat_types_them(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start user user")  # one phone: Alice plays both sides
        await send(telegram, ALICE, "2 3")  # a typed move, as the chat reads it
        phone = public_id_on(telegram, telegram.last_bot_message(ALICE["id"]))
        await send(telegram, BOB, "/start ultimate easy")
        ultimate = public_id_on(telegram, telegram.last_bot_message(BOB["id"]))
        async with aiohttp.ClientSession() as http:
            _, answer = await call(http, "GET", page + f"api/games/{phone}", auth(telegram, ALICE))
            game = answer["game"]
            assert game["moves"] == [{"ply": 1, "cell": 5, "mark": "X", "at": "2 3"}]
            assert game["edges"] == {"rows": ["1", "2", "3"], "columns": ["1", "2", "3"]}
            assert game["one_phone"] and game["actions"] == ["undo", "resign"]
            assert game["tournament"] is None and game["rating"] is None
            # Not a tournament's game: no standings.
            url = page + f"api/games/{phone}/standings"
            status, refused = await call(http, "GET", url, auth(telegram, ALICE))
            assert status == 404 and refused["status"] == "no_game"
            _, answer = await call(http, "GET", page + f"api/games/{ultimate}", auth(telegram, BOB))
            edges = answer["game"]["edges"]
            assert edges["rows"][4] == "r5" and edges["columns"][2] == "c3"
            assert not answer["game"]["one_phone"]


async def test_a_rated_games_end_carries_the_rating_change(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        await tap_cell(telegram, ALICE, board, 4)
        await send(telegram, ALICE, "/stop")  # resigned: a rated loss against the AI
        public_id = public_id_on(telegram, board)
        async with aiohttp.ClientSession() as http:
            url = page + f"api/games/{public_id}"
            _, answer = await call(http, "GET", url, auth(telegram, ALICE))
        rating = answer["game"]["rating"]
        # The player's change alone, signed as the chat board writes it under the game.
        assert list(rating) == ["X"] and rating["X"].startswith("−")
        assert f"Rating against the AI: {rating['X']}" in current(telegram, board).text
