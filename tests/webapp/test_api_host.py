"""The Mini App does what the chat does, and no more than a host allows: it starts every
board /start starts (ultimate, a size with its k, two on one phone), answers challenges and
rematch offers through the chat's use-cases, Reviews and sends the Picture as the chat's
buttons do; and new games beyond the user's pace are refused with 429, in their words."""

from __future__ import annotations

import asyncio

import aiohttp

from bot.locales import en, ru
from bot.locales.texts import texts_for
from bot.webapp.words import page_texts
from tests.e2e.test_matchmaking import pair
from tests.support.chat import current, press, send, settle, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import auth, bot_with_mini_app, call, public_id_on
from tests.webapp.test_api import read_state

ALICE = FakeTelegram.user(1001, "Alice")
BOB = FakeTelegram.user(1002, "Bob")
IVAN = FakeTelegram.user(1005, "Ivan", language_code="ru")
GROUP = FakeTelegram.group_chat(-100980, "Friends")


async def newest_game(http: aiohttp.ClientSession, page: str, user: dict[str, str]) -> str:
    """The public id of the user's newest open game, as the start page lists it."""
    _, listed = await call(http, "GET", page + "api/games", user)
    return listed["games"][0]["id"]


async def test_new_games_beyond_the_users_pace_are_429_in_their_words(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url, webapp_new_games_per_minute=3) as (
        _runner,
        page,
    ):
        telegram.add_chat(FakeTelegram.private_chat(IVAN))
        ivan = auth(telegram, IVAN)
        new = {"level": "easy", "mark": "X", "size": 3}
        async with aiohttp.ClientSession() as http:
            # A request that starts nothing (no such board) does not count.
            status, _ = await call(http, "POST", page + "api/games", ivan, {**new, "size": 9})
            assert status == 400
            sent = len(telegram.calls_of("sendMessage"))
            answers = await asyncio.gather(
                *(call(http, "POST", page + "api/games", ivan, new) for _ in range(6))
            )
            # Someone else's pace is their own.
            status, _ = await call(http, "POST", page + "api/games", auth(telegram, ALICE), new)
        assert sorted(status for status, _ in answers) == [201] * 3 + [429] * 3
        refused = [body for status, body in answers if status == 429]
        assert all(body["status"] == "too_fast" for body in refused)
        # Three boards posted in Ivan's chat, not six; the page says why in Russian.
        assert len(telegram.calls_of("sendMessage")) - sent == 3 + 1
        words = page_texts("ru")["texts"]
        assert words["REFUSALS"]["too_fast"] == ru.PAGE["too_fast"]


async def test_the_page_starts_the_boards_the_chat_starts(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        alice = auth(telegram, ALICE)
        url = page + "api/games"
        async with aiohttp.ClientSession() as http:
            _, listed = await call(http, "GET", url, alice)
            assert {"size": 5, "k": 4, "ks": [3, 4, 5]} in listed["boards"]
            status, ultimate = await call(
                http, "POST", url, alice, {"level": "hard", "mark": "X", "ultimate": True}
            )
            assert status == 201 and ultimate["game"]["variant"] == "ultimate"
            assert len(ultimate["game"]["cells"]) == 81
            status, sized = await call(
                http, "POST", url, alice, {"level": "medium", "mark": "O", "size": 5, "k": 4}
            )
            assert status == 201, sized
            game = sized["game"]
            assert (game["size"], game["k"], game["you"]) == (5, 4, ["O"])
            board = telegram.last_bot_message(ALICE["id"])
            assert en.BOARD_SIZE.format(size=5, k=4) in board.text
            status, friends = await call(
                http, "POST", url, alice, {"level": "user", "size": 6, "k": 3}
            )
            assert status == 201 and friends["game"]["you"] == ["X", "O"]
            assert friends["game"]["k"] == 3
            status, match = await call(http, "POST", url, alice, {"level": "match", "size": 4})
            assert status == 201, match
            players = match["game"]["players"]
            assert (players["X"]["ai"], players["O"]["ai"]) == ("medium", "hard")
            assert match["game"]["spectator"]  # Alice watches it, as in chat
            for wrong in (
                {"level": "hard", "size": 5, "k": 6},
                {"level": "hard", "size": 5, "k": 2},
                {"level": "hard", "size": "5"},
                {"level": "hard", "ultimate": True, "mark": "T"},
                {"level": "impossible"},
            ):
                status, answer = await call(http, "POST", url, alice, wrong)
                assert status == 400, (wrong, answer)


async def test_review_and_picture_as_the_chats_buttons(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        board = telegram.last_bot_message(ALICE["id"])
        url = page + f"api/games/{public_id_on(telegram, board)}/actions"
        alice = auth(telegram, ALICE)
        async with aiohttp.ClientSession() as http:
            status, _ = await call(http, "POST", url, alice, {"action": "review"})
            assert status == 403  # not over yet: no Review on the chat board either
            await call(http, "POST", url, alice, {"action": "resign"})
            status, reviewed = await call(http, "POST", url, alice, {"action": "review"})
            assert status == 200
            status, pictured = await call(http, "POST", url, alice, {"action": "picture"})
            assert status == 200, pictured
            status, _ = await call(http, "POST", url, auth(telegram, BOB), {"action": "picture"})
            assert status == 404  # not Bob's game to see
        # The page says what the chat's Review pop-up says; the picture is in the chat.
        popup = await press(telegram, ALICE, current(telegram, board), en.BUTTON_REVIEW)
        assert reviewed["review"] == popup["text"]
        photos = [m for m in telegram.messages.values() if m.photo and m.chat_id == ALICE["id"]]
        assert len(photos) == 1


async def test_challenges_and_rematch_offers_are_answered_on_the_page(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        group = telegram.add_chat(GROUP)
        telegram.set_member(group, BOB)
        alice, bob = auth(telegram, ALICE), auth(telegram, BOB)
        await send(telegram, ALICE, "/challenge", chat=group)
        async with aiohttp.ClientSession() as http:
            # An open board has no "Open board" button yet: the start page lists it.
            game_url = page + f"api/games/{await newest_game(http, page, alice)}"
            # An open challenge: Cancel for Alice, Join for a member of the group.
            _, mine = await call(http, "GET", game_url, alice)
            assert mine["game"]["actions"] == ["cancel"]
            _, theirs = await call(http, "GET", game_url, bob)
            assert theirs["game"]["actions"] == ["join"]
            status, joined = await call(
                http, "POST", game_url + "/actions", bob, {"action": "join"}
            )
            assert status == 200 and joined["game"]["status"] == "active"
            assert joined["game"]["you"] == ["O"]
            await call(http, "POST", game_url + "/actions", bob, {"action": "resign", "ply": 0})
            # Alice offers a rematch; Bob sees it under the game that ended, and on its own.
            status, offered = await call(
                http, "POST", game_url + "/actions", alice, {"action": "rematch"}
            )
            assert status == 200 and offered["opened"]
            offer_url = page + f"api/games/{offered['opened']}"
            assert offered["game"]["actions"] == ["cancel"]
            offer = offered["game"]["offer"]
            assert (offer["key"], offer["from"], offer["invited"]) == ("REMATCH_OFFER", "O", "Bob")
            assert offer["by"] == {"name": "Alice", "ai": None} and offer["rematch"]
            _, ended = await call(http, "GET", game_url, bob)
            rematch = ended["game"]["rematch"]
            assert rematch["id"] == offered["opened"]
            assert rematch["actions"] == ["accept", "decline"]
            _, seen = await call(http, "GET", offer_url, bob)
            assert seen["game"]["actions"] == ["accept", "decline"]
            status, declined = await call(
                http, "POST", offer_url + "/actions", bob, {"action": "decline"}
            )
            assert status == 200 and declined["game"]["status"] == "declined"
            assert declined["game"]["ending"] == {"key": "CHALLENGE_DECLINED", "mark": None}
            _, ended = await call(http, "GET", game_url, bob)
            assert ended["game"]["rematch"]["actions"] == []
            # Another challenge, withdrawn from the page: the chat board says so too.
            await send(telegram, ALICE, "/challenge", chat=group)
            second = telegram.last_bot_message(group["id"])
            second_url = page + f"api/games/{await newest_game(http, page, alice)}"
            status, cancelled = await call(
                http, "POST", second_url + "/actions", alice, {"action": "cancel"}
            )
        assert status == 200 and cancelled["game"]["status"] == "cancelled"
        assert cancelled["game"]["ending"] == {"key": "CHALLENGE_CANCELLED", "mark": "X"}
        # The page has its answer at once; the chat's board follows (its ending's listener).
        await settle(telegram)
        assert en.CHALLENGE_CANCELLED.format(name="Alice") in current(telegram, second).text


async def test_a_game_started_on_the_page_ends_the_search_for_a_stranger(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/play")
        waiting = telegram.last_bot_message(ALICE["id"])
        async with aiohttp.ClientSession() as http:
            status, _ = await call(
                http, "POST", page + "api/games", auth(telegram, ALICE), {"level": "easy"}
            )
        assert status == 201
        # As /start in chat says it: the search is over, for another game (the queue hears
        # the game start).
        await settle(telegram)
        assert current(telegram, waiting).text == en.QUEUE_OTHER_GAME


async def test_an_ai_match_from_the_page_ends_with_the_chats_buttons(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        telegram.add_chat(FakeTelegram.private_chat(ALICE))
        alice = auth(telegram, ALICE)
        async with aiohttp.ClientSession() as http:
            status, started = await call(
                http, "POST", page + "api/games", alice, {"level": "match"}
            )
            assert status == 201
            url = page + f"api/games/{started['game']['id']}"
            # Watched live to its end (the AI-turns runner plays it).
            async with http.get(url + "/events", headers=alice) as events:
                game = await read_state(events)
                while game["status"] == "active":
                    assert game["actions"] == []
                    game = await read_state(events)
            assert game["actions"] == ["watch", "level", "picture"]
            assert game["ending"]["key"] in ("RESULT_AI_WON", "RESULT_DRAW")
            status, again = await call(http, "POST", url + "/actions", alice, {"action": "watch"})
            assert status == 201 and again["opened"] != game["id"]
            players = again["game"]["players"]
            assert (players["X"]["ai"], players["O"]["ai"]) == ("medium", "hard")
            status, _ = await call(
                http, "POST", url + "/actions", auth(telegram, BOB), {"action": "watch"}
            )
            assert status == 404  # not Bob's match to see, nor to start again


async def test_the_page_asks_about_a_game_underway_in_the_language_chosen_in_chat(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/language")
        await press(telegram, ALICE, telegram.last_bot_message(ALICE["id"]), "Deutsch")
        await send(telegram, ALICE, "/start hard")
        await tap_cell(telegram, ALICE, telegram.last_bot_message(ALICE["id"]), 4)
        async with aiohttp.ClientSession() as http:
            status, asked = await call(
                http, "POST", page + "api/games", auth(telegram, ALICE), {"level": "easy"}
            )
        de = texts_for("de")
        hard = de.AI_NAME.format(level=de.LEVEL_NAMES["hard"])
        assert status == 409 and asked["question"] == de.REPLACE_QUESTION.format(name=hard)


async def test_a_stranger_is_looked_for_from_the_page_as_play_does(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        for user in (ALICE, BOB):
            telegram.add_chat(FakeTelegram.private_chat(user))
        search = {"level": "someone", "size": 5, "k": 4}
        async with aiohttp.ClientSession() as http:
            status, looking = await call(
                http, "POST", page + "api/games", auth(telegram, ALICE), search
            )
            assert (status, looking["status"]) == (202, "searching")
            waiting = telegram.last_bot_message(ALICE["id"])
            assert waiting.reply_markup is not None  # /play's waiting message, with Cancel
            status, _ = await call(http, "POST", page + "api/games", auth(telegram, BOB), search)
            assert status == 202
            _, alices = await call(http, "GET", page + "api/games", auth(telegram, ALICE))
            status, _ = await call(
                http, "POST", page + "api/games", auth(telegram, BOB), {**search, "size": 9}
            )
            assert status == 400
        # Paired: one game 5×5, four in a row, between them, on each one's chat.
        [game] = alices["games"]
        assert (game["size"], game["k"]) == (5, 4)
        names = {player["name"] for player in game["players"]}
        assert names == {"Alice", "Bob"}


async def test_a_stranger_who_resigns_on_the_page_is_said_to_have_left_as_in_chat(
    telegram: FakeTelegram, database_url: str
) -> None:
    """The winner of a game a stranger gave up on the page is told so aloud, as after the
    chat's Resign: a board edit alone makes no sound."""
    async with bot_with_mini_app(telegram, database_url) as (runner, page):
        for user in (ALICE, BOB):
            telegram.add_chat(FakeTelegram.private_chat(user))
        x_board, o_board = await pair(telegram, ALICE, BOB)
        await tap_cell(telegram, ALICE, x_board, 4)
        url = page + f"api/games/{public_id_on(telegram, o_board)}/actions"
        async with aiohttp.ClientSession() as http:
            resign = {"action": "resign", "ply": 1}
            status, body = await call(http, "POST", url, auth(telegram, BOB), resign)
        assert status == 200 and body["game"]["status"] == "finished"
        await runner.settle()  # the ending's listeners: the announcer tells Alice
        assert telegram.last_bot_message(ALICE["id"]).text == en.OPPONENT_LEFT.format(name="Bob")
        assert en.RESULT_NAME_RESIGNED.format(name="Bob") in current(telegram, x_board).text
