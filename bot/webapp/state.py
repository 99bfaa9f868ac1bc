"""A game as the Mini App shows it, as JSON (pure).

Only what the page needs, and nothing about anybody but the game's two sides: their display
names (or the AI's level), never a Telegram id, a chat or a message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.games.model import USER, GameView
from core.board import EMPTY, MARKS
from core.rules import winning_cells


@dataclass(frozen=True)
class MoveRow:
    """One played move, as the page lists it."""

    ply: int
    cell: int
    mark: str


def version(game: GameView) -> str:
    """Changes whenever what the page shows changes: a move, a join, the game's end."""
    return f"{game.ply}:{game.status}:{game.o_player_id is not None}"


def player(game: GameView, mark: str) -> dict[str, Any]:
    kind = game.kind_of(mark)
    if kind == USER:
        return {"name": game.name_of(mark), "ai": None}
    return {"name": None, "ai": kind}


def game_state(game: GameView, moves: Sequence[MoveRow], viewer_id: int) -> dict[str, Any]:
    """The page's view of a game for the user `viewer_id` (one of its players)."""
    board = game.board
    sides = [mark for mark in MARKS if game.is_player(mark, viewer_id)]
    to_move = game.to_move if game.is_active else None
    return {
        "id": game.id,
        "version": version(game),
        "size": board.size,
        "k": board.k,
        "cells": "".join("_" if mark == EMPTY else mark for mark in board.cells),
        "ply": game.ply,
        "status": str(game.status),
        "to_move": to_move,
        "you": sides,
        "your_turn": to_move is not None and to_move in sides,
        "players": {mark: player(game, mark) for mark in MARKS},
        "moves": [{"ply": m.ply, "cell": m.cell, "mark": m.mark} for m in moves],
        "last_cell": moves[-1].cell if moves else None,
        "result": game.result,
        "end_reason": game.end_reason,
        "winning_line": sorted(winning_cells(board)),
    }


def game_summary(game: GameView, viewer_id: int) -> dict[str, Any]:
    """One line of the start page's list of open games."""
    sides = [mark for mark in MARKS if game.is_player(mark, viewer_id)]
    opponent = next((m for m in MARKS if m not in sides), None)
    return {
        "id": game.id,
        "size": game.board.size,
        "k": game.board.k,
        "status": str(game.status),
        "you": sides,
        "opponent": player(game, opponent) if opponent else None,
        "your_turn": game.is_active and game.to_move in sides,
        "ply": game.ply,
    }
