"""Review: the first move of a player where a better one existed (3×3, the solved table)."""

from __future__ import annotations

from bot.games.db import reads
from bot.games.db.store import Store
from bot.games.model import BoardRef, PlayerInfo
from bot.games.summaries import Review, ReviewStatus
from core.board import Board
from core.rules import play
from core.solver import position_score


class Reviews:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def review(self, game_id: int, ref: BoardRef, user: PlayerInfo) -> Review:
        """The first move of the tapping player where a better move existed."""
        async with self._store.sessions() as session:
            loaded = await reads.load(session, game_id)
            if loaded is None or not ref.matches(loaded.view):
                return Review(ReviewStatus.NO_GAME)
            game = loaded.view
            mine = game.mark_of(user.id)
            if mine is None:
                return Review(ReviewStatus.NOT_A_PLAYER)
            if not game.is_finished:
                return Review(ReviewStatus.NOT_FINISHED)
            if not game.board.is_classic:
                return Review(ReviewStatus.UNSUPPORTED)
            if game.result == mine and not game.is_one_phone:
                return Review(ReviewStatus.WON)
            moves = await reads.moves_of(session, game.id)
            board = Board.empty()
            for move in moves:
                if move.mark == mine or game.is_one_phone:
                    best = position_score(board)
                    played = -position_score(play(board, move.cell))
                    if played < best:
                        better = max(
                            board.free_cells(), key=lambda c: -position_score(play(board, c))
                        )
                        return Review(
                            ReviewStatus.MISTAKE, move.ply, move.cell, better, played, best
                        )
                board = play(board, move.cell)
            return Review(ReviewStatus.PERFECT)
