"""Callback data of matchmaking and ratings (the rest is in `bot.wire.callback_data`, whose table
this one continues):

qp:<board>                  play someone on <board> (a `pairing.board_key`: 3x3, 6x6k5,
                            ultimate): the tapper joins the queue, from their private chat
qc                          stop looking (the tapper's own queue entry)
qa:<level>:<board>          play the AI at <level> instead, on <board>
bk:<game>                   don't pair me with my opponent of <game> again
lad:1 lad:0                 show me on the global ladder / take me off it

Each acts for the one who taps and on nothing else of anyone's: no owner is needed.
Nothing in them is trusted: a board key names a board the bot offers, or the tap is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.games.pairing import ULTIMATE_KEY, board_key
from bot.wire.callback_data import MAX_GAME_ID, plain_int
from core.ai import LEVELS, Level
from core.board import Board, BoardSize

PLAY_SOMEONE, STOP_LOOKING, PLAY_AI_INSTEAD, BLOCK_PLAYER, LADDER = "qp", "qc", "qa", "bk", "lad"
_BIG_BOARD_KEY = re.compile(r"([4-8])x\1k([3-8])")


@dataclass(frozen=True)
class QueueTap:
    """qp, qc, qa: `board` for qp and qa, `level` for qa."""

    kind: str
    board: str | None = None
    level: Level | None = None


@dataclass(frozen=True)
class BlockPlayerTap:
    game_id: int


@dataclass(frozen=True)
class LadderTap:
    on: bool


def play_someone_data(board: Board | BoardSize) -> str:
    return f"{PLAY_SOMEONE}:{board_key(board)}"


def play_ai_data(level: Level, board: str) -> str:
    return f"{PLAY_AI_INSTEAD}:{level}:{board}"


def block_player_data(game_id: int) -> str:
    return f"{BLOCK_PLAYER}:{game_id}"


def ladder_data(on: bool) -> str:
    return f"{LADDER}:{int(on)}"


def parse(data: str | None) -> QueueTap | BlockPlayerTap | LadderTap | None:
    """The tap, or None for anything malformed or made up."""
    if not data or len(data) > 64:
        return None
    kind, *fields = data.split(":")
    if kind == STOP_LOOKING and not fields:
        return QueueTap(kind)
    if kind == PLAY_SOMEONE and len(fields) == 1 and _is_board(fields[0]):
        return QueueTap(kind, fields[0])
    if kind == PLAY_AI_INSTEAD and len(fields) == 2 and fields[0] in LEVELS:
        return QueueTap(kind, fields[1], Level(fields[0])) if _is_board(fields[1]) else None
    if kind == BLOCK_PLAYER and len(fields) == 1:
        game_id = plain_int(fields[0])
        return None if game_id is None or game_id > MAX_GAME_ID else BlockPlayerTap(game_id)
    if kind == LADDER and fields in (["0"], ["1"]):
        return LadderTap(fields[0] == "1")
    return None


def _is_board(key: str) -> bool:
    """A key of a board the bot offers: 3×3, ultimate, or 4×4..8×8 with 3 ≤ k ≤ size."""
    if key in ("3x3", ULTIMATE_KEY):
        return True
    found = _BIG_BOARD_KEY.fullmatch(key)
    return found is not None and int(found.group(2)) <= int(found.group(1))
