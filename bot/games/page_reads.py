"""The reads the Mini App's pages need beyond the other use-cases: a game and its moves, a
rematch offered, a match's next game, a tournament game's tournament, a game by its public
id, a user's open games and game against a stranger, their chosen language. Reads only:
every change goes through the use-cases."""

from __future__ import annotations

from bot.games.db import reads
from bot.games.db.rows import games as game_rows
from bot.games.db.rows import players as player_rows
from bot.games.db.rows import tournaments as tournament_rows
from bot.games.db.store import Store
from bot.games.matches import play as match_play
from bot.games.model import GameView
from bot.games.summaries import MoveRow
from bot.games.tournaments.rules import TournamentView

#: The start page lists at most this many games, newest first.
OPEN_GAMES_SHOWN = 20


async def game_and_moves(games: Store, game_id: int) -> tuple[GameView | None, list[MoveRow]]:
    """A game as stored now and its moves in order, read in one session."""
    async with games.sessions() as session:
        loaded = await reads.load(session, game_id)
        if loaded is None:
            return None, []
        rows = await reads.moves_of(session, game_id)
        return loaded.view, [MoveRow(ply, cell, mark) for ply, cell, mark in rows]


async def rematch_offer_of(games: Store, game: GameView) -> GameView | None:
    """The rematch offered under a finished game between people, as stored now, if any."""
    if not (game.is_finished and game.is_between_people):
        return None
    async with games.sessions() as session:
        found = await game_rows.rematch_offers_of(session, game.id)
    return found[0].view if found else None


async def next_match_game_of(games: Store, game: GameView) -> GameView | None:
    """The game its match went on to after a finished match game, as stored now (None: not
    a match game, not over, or the match ended with it)."""
    if game.match_id is None or game.is_live:
        return None
    async with games.sessions() as session:
        game_id = await match_play.next_game_id(session, game)
        loaded = None if game_id is None else await reads.load(session, game_id)
    return None if loaded is None else loaded.view


async def tournament_of(games: Store, game: GameView) -> TournamentView | None:
    """The tournament a round's game was played for, as stored now (None: no tournament's)."""
    if game.tournament_id is None:
        return None
    async with games.sessions() as session:
        return await tournament_rows.load(session, game.tournament_id)


async def game_by_public_id(games: Store, public_id: str) -> GameView | None:
    """The game of a public id (`GameView.public_id`), as stored now."""
    async with games.sessions() as session:
        found = await game_rows.by_public_id(session, public_id)
    return found[0].view if found else None


async def open_games_of(games: Store, user_id: int) -> list[GameView]:
    """The user's running games and challenges, newest first."""
    async with games.sessions() as session:
        found = await game_rows.live_games_of(session, user_id)
    return [loaded.view for loaded in found[:OPEN_GAMES_SHOWN]]


async def stranger_game_of(games: Store, user_id: int) -> GameView | None:
    """The user's running game against a stranger (one at most: the queue pairs nobody
    who plays one already), newest first."""
    async with games.sessions() as session:
        found = await game_rows.stranger_games_of(session, user_id)
    return found[0].view if found else None


async def chosen_language(games: Store, user_id: int) -> str | None:
    """The language the user chose with /language, if any (the chat speaks it to them)."""
    async with games.sessions() as session:
        return await player_rows.chosen_language(session, user_id)
