"""Matches in the database, on the use-cases: the score and the next game are written with
the ending, once, whoever ends it; a game given up otherwise stops the match."""

from __future__ import annotations

import asyncio
import random

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.models import Game, Match
from bot.games.matches.rules import MatchScore, MatchStatus, score_after
from bot.games.model import BoardRef, GameView, MoveStatus, PlayerInfo
from bot.games.use_cases import Games, open_games
from bot.views.match_score import match_summary
from bot.views.render import render_game

ALICE = PlayerInfo(1001, "Alice", "en")
BOB = PlayerInfo(1002, "Bob", "en")
GROUP = -100600
HERE = BoardRef(chat_id=GROUP)


async def match_game_one(games: Games) -> GameView:
    challenge = await games.challenges.create(GROUP, ALICE, best_of=3)
    joined = await games.challenges.join(challenge.id, HERE, BOB)
    assert joined.game is not None
    return joined.game


async def tap(games: Games, game: GameView, player: PlayerInfo, cell: int) -> GameView:
    result = await games.play.tap(game.id, HERE, player, game.ply, cell)
    assert result.played and result.game is not None, result
    return result.game


async def games_of_match(engine: AsyncEngine, match_id: int) -> list[tuple[int, int, int]]:
    """(number, ❌'s id, ⭕'s id) of the match's games."""
    async with engine.connect() as connection:
        rows = await connection.execute(
            select(Game.match_game, Game.x_player_id, Game.o_player_id)
            .where(Game.match_id == match_id)
            .order_by(Game.match_game)
        )
        return [tuple(row) for row in rows]  # type: ignore[misc]


async def test_two_instances_ending_the_same_game_start_the_next_one_once(
    games: Games, engine: AsyncEngine, database_url: str
) -> None:
    other_engine = create_engine(database_url)
    other = open_games(create_session_factory(other_engine), random.Random(8))
    try:
        game = await match_game_one(games)
        for mover, cell in ((ALICE, 0), (BOB, 3), (ALICE, 1), (BOB, 4)):
            game = await tap(games, game, mover, cell)
        # Both instances take the winning cell at once: one wins the race.
        results = await asyncio.gather(
            games.play.tap(game.id, HERE, ALICE, game.ply, 2),
            other.play.tap(game.id, HERE, ALICE, game.ply, 2),
        )
        assert sorted(r.played for r in results) == [False, True]
        assert {r.status for r in results if not r.played} <= {
            MoveStatus.CONFLICT,
            MoveStatus.STALE,
            MoveStatus.GAME_OVER,
        }
        assert game.match_id is not None
        assert await games_of_match(engine, game.match_id) == [
            (1, ALICE.id, BOB.id),
            (2, BOB.id, ALICE.id),
        ]
        async with engine.connect() as connection:
            match = (await connection.execute(select(Match).where(Match.id == game.match_id))).one()
        assert (match.a_halves, match.b_halves, match.played) == (2, 0, 1)
        assert (match.a_player_id, match.b_player_id) == (ALICE.id, BOB.id)
        # The database itself refuses a second game 2.
        with pytest.raises(IntegrityError):
            async with engine.begin() as connection:
                row = (
                    await connection.execute(select(Game.__table__).where(Game.match_game == 2))
                ).one()
                copy = {**row._asdict(), "public_id": "another"}
                del copy["id"]
                await connection.execute(Game.__table__.insert().values(**copy))
    finally:
        await other_engine.dispose()


async def test_resigning_a_game_goes_on_and_stop_ends_the_match(
    games: Games, engine: AsyncEngine
) -> None:
    game = await match_game_one(games)
    game = await tap(games, game, ALICE, 4)
    resigned = await games.resigning.resign(game.id, HERE, BOB)
    assert resigned.game is not None and resigned.game.match is not None
    assert resigned.game.match.status is MatchStatus.PLAYING  # Alice leads 1–0
    assert game.match_id is not None
    assert len(await games_of_match(engine, game.match_id)) == 2
    # /stop in game 2 (Bob's ❌): Bob loses it, and the match stops there, 2–0 for Alice.
    stopped = await games.play.stop_current(GROUP, BOB)
    assert stopped.game is not None and stopped.game.match is not None
    assert stopped.game.match_game == 2
    assert stopped.game.match.status is MatchStatus.WON
    assert (stopped.game.match.a_halves, stopped.game.match.b_halves) == (4, 0)
    assert len(await games_of_match(engine, game.match_id)) == 2


async def game_one_won_by_alice(games: Games) -> tuple[GameView, str]:
    """A match's game 1, resigned by Bob after Alice's first move (1–0), and its board's text."""
    game = await match_game_one(games)
    game = await tap(games, game, ALICE, 4)
    one = await games.resigning.resign(game.id, HERE, BOB)
    assert one.game is not None
    return one.game, render_game(one.game).text


async def test_an_earlier_games_board_drawn_again_shows_the_score_as_of_that_game(
    games: Games,
) -> None:
    one, first = await game_one_won_by_alice(games)
    stopped = await games.play.stop_current(GROUP, BOB)  # game 2: the match ends 2–0
    assert stopped.game is not None and stopped.game.match is not None
    assert stopped.game.match.status is MatchStatus.WON
    # Game 1's board, drawn again from the store now that the match is over, still says
    # the score after game 1, and nothing of how the match ended.
    again = await games.store.get_game(one.id)
    assert again is not None
    summary = match_summary(again)
    assert summary is not None and summary.game == 1 and summary.ending is None
    assert (summary.a_score, summary.b_score) == ("1", "0")
    assert render_game(again).text == first
    # Game 2's board says the match's end.
    last = await games.store.get_game(stopped.game.id)
    assert last is not None and (ended := match_summary(last)) is not None
    assert (ended.a_score, ended.b_score, ended.ending) == ("2", "0", "MATCH_WON")


async def test_a_match_stopped_by_a_later_game_with_no_result_leaves_earlier_boards_be(
    games: Games,
) -> None:
    one, first = await game_one_won_by_alice(games)
    # The bot leaves the group during game 2: closed with no result, the match stops.
    (closed,) = await games.chats.close_all(GROUP)
    assert closed.match_game == 2 and closed.match is not None
    assert closed.match.status is MatchStatus.ABANDONED
    again = await games.store.get_game(one.id)
    assert again is not None and (summary := match_summary(again)) is not None
    assert (summary.a_score, summary.b_score, summary.ending) == ("1", "0", None)
    assert render_game(again).text == first
    stopped = await games.store.get_game(closed.id)
    assert stopped is not None and (ended := match_summary(stopped)) is not None
    assert (ended.game, ended.ending) == (2, "MATCH_STOPPED")


def test_the_score_after_some_games_counts_them_in_order() -> None:
    assert score_after(3, []) == MatchScore(3)
    # A (❌ in game 1) wins game 1, B (❌ in game 2) wins game 2, game 3 drawn.
    assert score_after(3, ["X", "X", None]) == MatchScore(3, 3, 3, 3, MatchStatus.DRAWN)
    assert score_after(3, ["X", "O"]) == MatchScore(3, 4, 0, 2, MatchStatus.WON)


async def test_a_challenge_nobody_joins_leaves_its_match_abandoned(
    games: Games, engine: AsyncEngine
) -> None:
    challenge = await games.challenges.create(GROUP, ALICE, best_of=5)
    cancelled = await games.challenges.cancel(challenge.id, HERE, ALICE)
    assert cancelled.game is not None and cancelled.game.match is not None
    assert cancelled.game.match.status is MatchStatus.ABANDONED
    assert challenge.match_id is not None
    assert len(await games_of_match(engine, challenge.match_id)) == 1
