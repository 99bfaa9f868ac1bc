"""Tactics one move deep on an ultimate `Position`, shared by the AI levels and the tree
search: the moves that win a small board, the moves that win the game, and the moves that
leave the opponent no game win. Pure: table lookups on the position's masks."""

from __future__ import annotations

from core.ultimate import COMPLETING, MOVES, Position


def block_wins(position: Position, p: int) -> list[int]:
    """Moves in the playable blocks where player `p` (either one) would win a small board."""
    mine = position.marks[p]
    return [m for b in position.blocks() for m in MOVES[b][COMPLETING[mine[b]] & position.free(b)]]


def game_wins(position: Position) -> list[int]:
    """Moves with which the player to move wins the game at once."""
    p = position.player
    deciding = COMPLETING[position.won[p]]  # blocks that would complete a line of blocks
    mine = position.marks[p]
    return [
        m
        for b in position.blocks()
        if deciding >> b & 1
        for m in MOVES[b][COMPLETING[mine[b]] & position.free(b)]
    ]


def safe_moves(position: Position, moves: list[int]) -> list[int]:
    """The moves after which the opponent cannot win the game at once (all if none is)."""
    safe = [m for m in moves if not game_wins(position.after(m))]
    return safe or moves
