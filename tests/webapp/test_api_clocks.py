"""The page on a par with the chat board, through the API: a game on the clock carries both
sides' time (and a loss on time is said as the chat says it), a match's finished game leads
to its next one and offers no rematch, and a page looking for a stranger hears when one is
found."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import aiohttp
import pytest

from bot.games.db.models import utcnow
from tests.e2e.test_matchmaking import boards_of, pair
from tests.support.chat import send, tap_cell
from tests.support.fake_telegram import FakeTelegram
from tests.webapp.support import auth, bot_with_mini_app, call, public_id_on

ALICE = FakeTelegram.user(1001, "Alice")
DAN = FakeTelegram.user(1004, "Dan")
CLOCK_SECONDS = 20.0


async def test_a_game_on_the_clock_sends_both_clocks_and_says_a_loss_on_time(
    telegram: FakeTelegram, database_url: str
) -> None:
    settings = {"stranger_clock_seconds": CLOCK_SECONDS, "stranger_clock_delay_seconds": 0.0}
    async with bot_with_mini_app(telegram, database_url, **settings) as (runner, page):
        for user in (DAN, ALICE):
            telegram.add_chat(FakeTelegram.private_chat(user))
        x_board, o_board = await pair(telegram, DAN, ALICE)
        await tap_cell(telegram, DAN, x_board, 4)
        url = page + f"api/games/{public_id_on(telegram, o_board)}"
        async with aiohttp.ClientSession() as http:
            status, running = await call(http, "GET", url, auth(telegram, ALICE))
            assert status == 200, running
            # Alice (⭕) thinks past her 20 s: she loses on time.
            await runner.turn_clock.tick(utcnow() + timedelta(seconds=CLOCK_SECONDS + 1))
            _, lost = await call(http, "GET", url, auth(telegram, ALICE))
            _, won = await call(http, "GET", url, auth(telegram, DAN))
        clock = running["game"]["clock"]
        assert (clock["seconds"], clock["delay"], clock["running"]) == (CLOCK_SECONDS, 0.0, "O")
        # Dan's move took a moment of his 20 s; Alice's clock runs, and flags when it is out.
        assert CLOCK_SECONDS - 2 < clock["left"]["X"] <= CLOCK_SECONDS
        assert CLOCK_SECONDS - 2 < clock["left"]["O"] <= CLOCK_SECONDS
        assert clock["flags_in"] == pytest.approx(clock["left"]["O"], abs=0.1)
        # Over: no clock runs, Alice's shows none left; each is told as the chat tells them.
        assert lost["game"]["clock"]["running"] is None and lost["game"]["clock"]["left"]["O"] == 0
        assert lost["game"]["ending"] == {"key": "YOU_FLAGGED", "mark": "X"}
        assert won["game"]["ending"] == {"key": "RESULT_NAME_TIMED_OUT", "mark": "O"}


async def test_a_game_without_a_clock_sends_none(telegram: FakeTelegram, database_url: str) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        await send(telegram, ALICE, "/start hard")
        url = page + f"api/games/{public_id_on(telegram, telegram.last_bot_message(ALICE['id']))}"
        async with aiohttp.ClientSession() as http:
            _, answer = await call(http, "GET", url, auth(telegram, ALICE))
        assert answer["game"]["clock"] is None


async def test_a_match_game_leads_to_the_next_and_offers_no_rematch(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        for user in (ALICE, DAN):
            telegram.add_chat(FakeTelegram.private_chat(user))
        await send(telegram, ALICE, "/play bo3")
        await send(telegram, DAN, "/play bo3")
        first = public_id_on(telegram, boards_of(telegram, ALICE)[0])
        url = page + f"api/games/{first}"
        async with aiohttp.ClientSession() as http:
            _, playing = await call(http, "GET", url, auth(telegram, ALICE))
            resign = {"action": "resign", "ply": 0}
            status, _ = await call(http, "POST", url + "/actions", auth(telegram, DAN), resign)
            assert status == 200
            _, ended = await call(http, "GET", url, auth(telegram, ALICE))
            following = ended["game"]["next"]
            _, second = await call(
                http, "GET", page + f"api/games/{following}", auth(telegram, ALICE)
            )
        assert playing["game"]["next"] is None
        # Game 1 is over and the match goes on: game 2 is where the page goes, no rematch.
        assert ended["game"]["status"] == "finished" and following not in (None, first)
        assert "rematch" not in ended["game"]["actions"]
        game = second["game"]
        assert game["status"] == "active" and game["match"]["game"] == 2
        assert (game["match"]["a_score"], game["match"]["b_score"]) == ("1", "0")
        assert game["you"] == ["O"] and game["next"] is None  # sides swapped


async def read_event(events: aiohttp.ClientResponse) -> tuple[str, dict[str, str]]:
    """The next event of a server-sent events stream (comments skipped): name and data."""
    lines: list[str] = []
    async for raw in events.content:
        line = raw.decode().rstrip("\n")
        if line and not line.startswith(":"):
            lines.append(line)
        elif not line and lines:
            return lines[0].removeprefix("event: "), json.loads(lines[1].removeprefix("data: "))
    raise AssertionError("the stream ended")


async def test_a_page_looking_for_a_stranger_hears_of_the_game_found(
    telegram: FakeTelegram, database_url: str
) -> None:
    async with bot_with_mini_app(telegram, database_url) as (_runner, page):
        for user in (ALICE, DAN):
            telegram.add_chat(FakeTelegram.private_chat(user))
        search = {"level": "someone", "size": 3}
        async with aiohttp.ClientSession() as http:
            status, _ = await call(http, "POST", page + "api/games", auth(telegram, ALICE), search)
            assert status == 202
            async with http.get(page + "api/pairing", headers=auth(telegram, ALICE)) as pairing:
                assert pairing.status == 200
                await send(telegram, DAN, "/play")  # Dan looks from the chat: paired
                event = await asyncio.wait_for(read_event(pairing), 10)
            # A search's stream opened once paired says so at once too.
            async with http.get(page + "api/pairing", headers=auth(telegram, DAN)) as late:
                dans = await asyncio.wait_for(read_event(late), 10)
        found = public_id_on(telegram, boards_of(telegram, ALICE)[0])
        assert event == ("paired", {"id": found}) and dans == event
