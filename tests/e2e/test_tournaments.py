"""Tournaments in a group, end to end: five members sign up with `/tournament` and play a
round robin to the end by taps on its boards, under Telegram's flood limits (the fake answers
429 past them; the bot must never get one), with a restart of the bot in the middle of a
round. The standings the one tournament message shows are checked against a count kept here,
game by game, from the boards played."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import pytest

from bot.games.db.engine import create_engine, create_session_factory
from bot.games.model import BoardRef, GameView, PlayerInfo
from bot.games.use_cases import Games, open_games
from bot.locales import en
from bot.telegram.flood_gate import TELEGRAM_FLOOD_LIMITS
from tests.support.bot_runner import BotRunner
from tests.support.chat import (
    board_cells,
    current,
    game_id_on,
    press,
    send,
    tap_cell,
    tap_data,
    words,
)
from tests.support.fake_telegram import FakeTelegram, StoredMessage

GROUP = FakeTelegram.group_chat(-100770, "Club")
PEOPLE = [
    FakeTelegram.user(2001 + i, name) for i, name in enumerate(("Ann", "Ben", "Cat", "Dan", "Eve"))
]
BY_ID = {person["id"]: person for person in PEOPLE}
SEED = {person["id"]: seed for seed, person in enumerate(PEOPLE)}
#: ❌ takes the top row; a draw on a full board.
X_WINS = [0, 3, 1, 4, 2]
DRAW = [0, 4, 8, 2, 6, 3, 5, 7, 1]
#: A line of the standings: its place (the first of a shared one, 2 of "2–3"), name, points
#: and tie-break.
LINE = re.compile(r"^(\d+)(?:–\d+)?\. (\w+) — (\S+) pts?, SB (\S+)$")


class Bots:
    """The bot as it runs now (a restart replaces it), on one database."""

    def __init__(self, telegram: FakeTelegram, database_url: str) -> None:
        self.telegram, self.database_url = telegram, database_url
        self.runner: BotRunner | None = None

    async def start(self) -> None:
        limits = TELEGRAM_FLOOD_LIMITS.scaled(self.telegram.time_scale)
        # The flood budget is counted in the database, as on PostgreSQL by default: the bot
        # after the restart knows what the one before it spent of the group's minute.
        self.runner = BotRunner(
            self.telegram,
            self.database_url,
            flood_limits=limits,
            flood_budget="shared",
        )
        await self.runner.start()

    async def restart(self, meanwhile: Callable[[Games], Awaitable[None]]) -> None:
        """Stop the bot, let `meanwhile` happen to the database while it is down (as if the
        bot died just after it), and start a new bot on it."""
        assert self.runner is not None
        await self.runner.stop()
        engine = create_engine(self.database_url)
        try:
            await meanwhile(open_games(create_session_factory(engine), random.Random(1)))
        finally:
            await engine.dispose()
        await self.start()

    async def game(self, board: StoredMessage) -> GameView:
        assert self.runner is not None and self.runner.application is not None
        store = self.runner.application.bot_data.running.games.store
        game = await store.get_game(game_id_on(self.telegram, board))
        assert game is not None
        return game


@pytest.fixture
async def bots(telegram: FakeTelegram, database_url: str) -> AsyncIterator[Bots]:
    telegram.enforce_flood_limits()  # Telegram's: 20 a minute in a group
    bots = Bots(telegram, database_url)
    await bots.start()
    try:
        yield bots
    finally:
        if bots.runner is not None:
            await bots.runner.stop()


async def play_cells(
    telegram: FakeTelegram,
    board: StoredMessage,
    x: dict[str, Any],
    o: dict[str, Any],
    cells: list[int],
    timeout: float = 10.0,  # noqa: ASYNC109
) -> None:
    """Tap `cells` in turn, each by the player to move, each once the board shows the move
    before it (at a group's pace an edit may wait for the group's minute)."""
    for i, cell in enumerate(cells):
        mover = x if i % 2 == 0 else o
        answer = await tap_cell(telegram, mover, board, cell)
        assert not answer.get("text"), (i, cell, answer)
        await telegram.wait_until(
            lambda cell=cell: board_cells(telegram, current(telegram, board))[cell] != "_",
            timeout=timeout,
            what=f"move {i + 1} on the board",
        )


async def last_move(game_id: int, x: dict[str, Any], cell: int, games: Games) -> None:
    """❌'s last move, straight into the database."""
    game = await games.store.get_game(game_id)
    assert game is not None
    player = PlayerInfo(x["id"], x["first_name"])
    moved = await games.play.tap(game_id, BoardRef(chat_id=GROUP["id"]), player, game.ply, cell)
    assert moved.played and moved.game is not None and moved.game.is_finished


def players_on(game: GameView) -> set[int]:
    return {p for p in (game.x_player_id, game.o_player_id) if p is not None}


def points_of(text: str) -> float:
    """3½ → 3.5, 1¾ → 1.75, ½ → 0.5: points and tie-breaks as the standings write them."""
    whole = text.rstrip("¼½¾")
    return int(whole or 0) + {"": 0.0, "¼": 0.25, "½": 0.5, "¾": 0.75}[text[len(whole) :]]


def standings(message: StoredMessage) -> dict[str, tuple[int, float, float]]:
    """Each name on the tournament message: place, points, tie-break."""
    found = {}
    for line in message.text.splitlines():
        match = LINE.match(line)
        if match:
            place, name, points, tiebreak = match.groups()
            found[name] = (int(place), points_of(points), points_of(tiebreak))
    return found


def new_boards(telegram: FakeTelegram, seen: set[Any]) -> list[StoredMessage]:
    """The game boards posted in the group since `seen`."""
    boards = []
    for message in telegram.bot_messages(GROUP["id"]):
        keyboard = telegram.keyboard(message)
        data = keyboard[0][0][1] if keyboard and keyboard[0] else None
        if message.key not in seen and data is not None and data.startswith("m:"):
            boards.append(message)
    return boards


async def sign_up(telegram: FakeTelegram) -> StoredMessage:
    """Ann opens a tournament; the others join; Ben may not start it; Ann does."""
    ann, ben = PEOPLE[0], PEOPLE[1]
    await send(telegram, ann, "/tournament", chat=GROUP)
    message = telegram.last_bot_message(GROUP["id"])
    title = "🏆 Tournament · 3×3 · " + en.TOURNAMENT_FORMATS["any"] + " · ⏱ 1+5"  # the bot's clock
    assert message.text.splitlines()[0] == title
    for person in PEOPLE[1:]:
        answer = await press(telegram, person, message, en.TOURNAMENT_JOIN)
        assert answer.get("text") == en.POPUP_TOURNAMENT_JOINED
    again = await press(telegram, ben, message, en.TOURNAMENT_JOIN)
    assert again.get("text") == en.POPUP_TOURNAMENT_JOINED_ALREADY
    assert "Players: Ann, Ben, Cat, Dan, Eve" in current(telegram, message).text
    refused = await press(telegram, ben, message, en.TOURNAMENT_START)
    assert refused.get("text") == en.POPUP_TOURNAMENT_NOT_ORGANISER
    await press(telegram, ann, message, en.TOURNAMENT_START)
    return message


async def test_five_members_play_a_round_robin_to_the_end_through_a_restart(
    both_clocks: str, telegram: FakeTelegram, bots: Bots
) -> None:
    # Time enough for a round's boards at the group's pace (a message every 3 s on Telegram's
    # clock): waits end as soon as the boards are there.
    pace = 60.0 * telegram.time_scale + 10
    message = await sign_up(telegram)
    seen: set[Any] = set()
    count = {person["id"]: 0.0 for person in PEOPLE}
    met: list[frozenset[int]] = []
    for number in range(1, 6):  # five players: five rounds, two games and a bye each
        boards: list[StoredMessage] = []

        def posted(into: list[StoredMessage] = boards, known: set[Any] = seen) -> bool:
            into[:] = new_boards(telegram, known)
            return len(into) == 2

        await telegram.wait_until(posted, timeout=pace, what=f"round {number}'s boards")
        shown = current(telegram, message).text.splitlines()
        assert f"Round {number} of 5 · games left: 2" in shown
        # The one on no board has the round's bye, and the message says who.
        seated = {p for board in boards for p in players_on(await bots.game(board))}
        (resting,) = set(count) - seated
        assert en.TOURNAMENT_BYE.format(name=BY_ID[resting]["first_name"]) in shown
        playing = set()
        for i, board in enumerate(boards):
            game = await bots.game(board)
            assert game.x_player_id is not None and game.o_player_id is not None
            x, o = BY_ID[game.x_player_id], BY_ID[game.o_player_id]
            # The one who joined first wins as ❌; as ⭕, draws.
            first = SEED[x["id"]] < SEED[o["id"]]
            cells = X_WINS if first else DRAW
            if number == 2 and i == 1:
                # The round's last game ends just as the bot dies: its last move is stored,
                # and nothing else (no next round, no board drawn). The new bot goes on.
                await play_cells(telegram, board, x, o, cells[:-1], pace)
                await bots.restart(partial(last_move, game.id, x, cells[-1]))
            else:
                await play_cells(telegram, board, x, o, cells, pace)
            outcome = "X wins" if first else "Draw"
            # (After the restart, the board catch-up draws it: a few of its rounds.)
            await telegram.wait_until(
                lambda b=board, w=outcome: words(current(telegram, b)) == w,
                timeout=pace + 30,
                what="the result",
            )
            count[x["id"]] += 1.0 if first else 0.5
            count[o["id"]] += 0.0 if first else 0.5
            met.append(frozenset((x["id"], o["id"])))
            playing |= {x["id"], o["id"]}
        (bye,) = set(count) - playing
        count[bye] += 1.0
        seen |= {board.key for board in boards}

    def over() -> bool:
        return en.TOURNAMENT_WINNER.split("{")[0] in current(telegram, message).text

    await telegram.wait_until(over, timeout=pace, what="the winner")
    assert len(met) == len(set(met)) == 10  # everyone met everyone, once
    shown = standings(current(telegram, message))
    assert {name: points for name, (_, points, _) in shown.items()} == {
        BY_ID[pid]["first_name"]: points for pid, points in count.items()
    }
    assert sum(count.values()) == 15  # ten games and five byes
    best = max(count.values())
    leader = next(name for name, (place, _, _) in shown.items() if place == 1)
    assert count[next(p["id"] for p in PEOPLE if p["first_name"] == leader)] == best
    assert f"🏆 Winner: {leader}" in current(telegram, message).text
    assert current(telegram, message).reply_markup is None  # nothing left to tap
    assert new_boards(telegram, seen) == []  # no sixth round
    assert len(new_boards(telegram, set())) == 10  # each game's board posted once
    assert telegram.too_many_requests == []


async def test_bad_words_a_private_chat_a_leaver_and_the_end_by_the_organiser(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    ann, ben, cat, dan = PEOPLE[:4]
    await send(telegram, ann, "/tournament")  # in a private chat
    assert telegram.last_bot_message(ann["id"]).text == en.TOURNAMENT_GROUP_ONLY
    before = len(telegram.bot_messages(GROUP["id"]))
    await send(telegram, ann, "/tournament 9 swiss", chat=GROUP)
    assert telegram.last_bot_message(GROUP["id"]).text == en.BAD_TOURNAMENT
    assert len(telegram.bot_messages(GROUP["id"])) == before + 1  # the answer, nothing else
    await send(telegram, ann, "/tournament 4 swiss", chat=GROUP)
    message = telegram.last_bot_message(GROUP["id"])
    assert "Swiss" in message.text.splitlines()[0]
    await send(telegram, ben, "/tournament", chat=GROUP)  # one at a time: look at that one
    underway = telegram.last_bot_message(GROUP["id"])
    assert underway.text == en.TOURNAMENT_UNDERWAY
    assert underway.reply_to_message is not None
    assert underway.reply_to_message["message_id"] == message.message_id
    for person in (ben, cat, dan):
        await press(telegram, person, message, en.TOURNAMENT_JOIN)
    seen = {m.key for m in telegram.bot_messages(GROUP["id"])}
    await press(telegram, ann, message, en.TOURNAMENT_START)
    boards = new_boards(telegram, seen)
    assert len(boards) == 2  # four players, two games; Swiss as asked, two rounds
    assert "Round 1 of 2 · games left: 2" in current(telegram, message).text
    tournament_id = telegram.keyboard(message)[0][0][1].split(":")[1]  # Leave's data
    # Dan leaves: his game is resigned on its board, and the message says he left.
    answer = await press(telegram, dan, message, en.TOURNAMENT_LEAVE)
    assert answer.get("text") == en.POPUP_TOURNAMENT_FORFEIT
    dans = [b for b in boards if "Dan" in current(telegram, b).text]
    assert len(dans) == 1 and words(current(telegram, dans[0])) in ("X wins", "O wins")
    await telegram.wait_until(
        lambda: "games left: 1" in current(telegram, message).text, what="Dan's game counted"
    )
    assert f"Dan — 0 pts, SB 0 {en.TOURNAMENT_WITHDRAWN}" in current(telegram, message).text
    # The organiser ends it: the standings as they are are final, and nothing is left to tap.
    refused = await press(telegram, ben, message, en.TOURNAMENT_END)
    assert refused.get("text") == en.POPUP_TOURNAMENT_NOT_ORGANISER
    await press(telegram, ann, message, en.TOURNAMENT_END)
    final = current(telegram, message)
    assert en.TOURNAMENT_ENDED_EARLY in final.text and final.reply_markup is None
    # An old Join, tapped now (or made up): a pop-up, nothing changes.
    late = await tap_data(telegram, cat, message, f"tj:{tournament_id}")
    assert late.get("text") == en.POPUP_TOURNAMENT_OVER
    assert current(telegram, message).text == final.text
