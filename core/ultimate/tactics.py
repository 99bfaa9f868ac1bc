"""Tactics one move deep on an ultimate `Position`, shared by the AI levels and the tree
search: the moves that win a small board, the moves that win the game, and the moves that
leave the opponent no game win. Pure: table lookups on the position's masks."""

from __future__ import annotations

from core.ultimate.rules import COMPLETING, FULL, HAS_LINE, MASK_CELLS, MOVES, Position


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
    """The moves after which the opponent cannot win the game at once (all if none is).

    Worked out on the masks without playing each move (the tree search asks this at every
    node it grows): a move changes only its own block, so it is unsafe when it sends the
    opponent to a block where a cell wins it the game, or gives it a free choice while there
    is such a block."""
    p = position.player
    mine, theirs = position.marks[p], position.marks[3 - p]
    closed = position.closed
    deciding = COMPLETING[position.won[3 - p]] & ~closed  # open blocks that win them the game
    danger = 0  # those of them where the opponent has a free cell that wins the block
    for d in MASK_CELLS[deciding]:
        if COMPLETING[theirs[d]] & ~mine[d]:
            danger |= 1 << d
    if not danger:
        return moves
    won = position.won[p]
    safe = []
    for m in moves:
        b, c = divmod(m, 9)
        mask = mine[b] | 1 << c
        bit = 1 << b
        after_closed, after_danger = closed, danger
        if HAS_LINE[mask] or mask | theirs[b] == FULL:
            if HAS_LINE[mask] and HAS_LINE[won | bit]:
                safe.append(m)  # the game is won: the opponent has no move
                continue
            after_closed |= bit
            after_danger &= ~bit
        elif not COMPLETING[theirs[b]] & ~mask:
            after_danger &= ~bit  # the move took the opponent's winning cell
        if after_closed == FULL or not (
            after_danger if after_closed >> c & 1 else after_danger >> c & 1
        ):
            safe.append(m)
    return safe or moves
