"""The game's rules as pure functions on plain values: who may do what, a move and the AI's
instant replies, resigning, closing, turn-clock verdicts.

Each function takes a `GameView` and returns a new one (or a refusal); the store writes the
difference back in one versioned UPDATE. Nothing here reads a clock or a database: `now` and
the random generator come in as arguments.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from bot.games.model import (
    EndReason,
    GameStatus,
    GameView,
    MoveStatus,
    Outcome,
    PlayerInfo,
    PlayerKind,
    Result,
)
from bot.games.play import clock_rules
from bot.games.play.clock_rules import TurnEvent
from core.ai import Level
from core.board import EMPTY, Board, other
from core.positions import (
    choose_move,
    is_full,
    is_ultimate,
    move_error,
    play,
    ultimate_board,
    winner,
)
from core.rules import play_as
from core.ultimate import rules as ultimate
from core.ultimate.rules import WrongBlockError


@dataclass(frozen=True)
class PlayedMove:
    """One ply to store beside the game: for history, stats and review."""

    ply: int
    cell: int
    mark: str
    player_id: int | None  # None for the AI


@dataclass(frozen=True)
class Turn:
    """A game after one or more moves, and the moves that got it there."""

    game: GameView
    moves: tuple[PlayedMove, ...] = ()


def is_instant(level: Level, game: GameView) -> bool:
    """Moves that take microseconds: every 3×3 move (a table lookup) and easy and medium on
    any board. Only hard on a bigger board searches."""
    return level != Level.HARD or game.board.is_classic


def is_quick(level: Level, game: GameView) -> bool:
    """Moves a person waits for before their own move is shown, so both come in one edit:
    all but hard's on ultimate, which thinks for AI_TIME_BUDGET_SECONDS. Hard on the other
    boards needs at most 50 ms of CPU (core.search.engine.DEFAULT_BUDGET), and as the first
    player on a board it wins by force up to about 0.3 s for its opening moves (off the event
    loop, as any search): still less than a "thinking…" edit would cost the player, a second
    of the chat's pace."""
    return level != Level.HARD or not is_ultimate(game.board)


def player_refusal(game: GameView, user_id: int) -> MoveStatus | None:
    """Why this user may not act in the game now (move or resign), or None if they may."""
    if game.is_open:
        return MoveStatus.WAITING
    if not game.is_active:
        return MoveStatus.GAME_OVER
    mark = game.mark_of(user_id)
    if mark is None or mark in game.out:
        return MoveStatus.NOT_A_PLAYER
    return None


def move_refusal(game: GameView, user_id: int) -> MoveStatus | None:
    """Why this user may not move now, or None if they may."""
    refusal = player_refusal(game, user_id)
    if refusal is None and not game.is_player(game.to_move, user_id):
        return MoveStatus.NOT_YOUR_TURN
    return refusal


def tap_refusal(game: GameView, user_id: int, ply: int, cell: int) -> MoveStatus | None:
    """Why a tap on `cell` of a board drawn at move `ply` does nothing, or None."""
    if not game.is_active:
        return player_refusal(game, user_id)  # waiting for an opponent, or over
    if ply != game.ply:
        return MoveStatus.STALE
    if not 0 <= cell < len(game.board.cells):
        return MoveStatus.INVALID
    return move_refusal(game, user_id) or cell_refusal(game, cell)


def block_refusal(game: GameView, user_id: int, ply: int, block: int | None) -> MoveStatus | None:
    """Why a tap that shows ultimate's small board `block` (None: the choice of them) on a
    board drawn at move `ply` does nothing, or None."""
    if not game.is_active:
        return player_refusal(game, user_id)
    if ply != game.ply or not is_ultimate(game.board):
        return MoveStatus.STALE
    refusal = move_refusal(game, user_id)
    if refusal is None and block is not None:
        playable = ultimate.playable_blocks(ultimate_board(game.board, game.last_cell))
        return None if block in playable else MoveStatus.WRONG_BOARD
    return refusal


def cell_refusal(game: GameView, cell: int) -> MoveStatus | None:
    if game.board[cell] != EMPTY:
        return MoveStatus.OCCUPIED
    error = move_error(game.board, game.last_cell, cell)
    return MoveStatus.WRONG_BOARD if isinstance(error, WrongBlockError) else None


def play_cell(game: GameView, cell: int, player_id: int | None, now: datetime) -> Turn:
    """The side to move marks `cell` (already checked free); the game ends on a line or a
    full board."""
    if game.is_many:
        board = play_as(game.board, cell, game.to_move)
    else:
        board = play(game.board, game.last_cell, cell)
    move = PlayedMove(game.ply + 1, cell, game.to_move, player_id)
    after = replace(game, board=board, last_cell=cell, turn_started_at=now, nudges=0)
    if game.is_many:
        after = replace(after, turn_mark=next_turn(game, game.to_move))
    line = winner(board, cell)
    if line is not None or is_full(board, cell):
        after = replace(
            after,
            status=GameStatus.FINISHED,
            result=Result.DRAW if line is None else Result.won_by(line),
            end_reason=EndReason.LINE if line else EndReason.FULL,
        )
    return Turn(clock_rules.after_move(game, after, now), (move,))


def next_turn(game: GameView, mark: str) -> str:
    """Whose turn comes after `mark`'s in a game of three or four: the next seat still in."""
    order = game.marks
    start = order.index(mark)
    for step in range(1, len(order) + 1):
        candidate = order[(start + step) % len(order)]
        if candidate not in game.out:
            return candidate
    return mark


def drop_out(game: GameView, mark: str, reason: EndReason, now: datetime | None) -> GameView:
    """A player of three or four leaves (resigned, timed out): their marks stay on the board,
    the turn passes them by, and the last one left wins."""
    after = replace(game, out=game.out + mark)
    left = after.in_play
    if len(left) == 1:
        return replace(
            after, status=GameStatus.FINISHED, result=Result.won_by(left[0]), end_reason=reason
        )
    if game.to_move == mark:
        started = now if now is not None else after.turn_started_at
        after = replace(after, turn_mark=next_turn(after, mark), nudges=0, turn_started_at=started)
    return after


def ai_replies(turn: Turn, rng: random.Random, now: datetime) -> Turn:
    """Let the AI answer at once while its answer needs no thought, until it is a person's
    turn or the game is over. A reply that needs thought is left to the AI-turns runner."""
    game, moves = turn.game, list(turn.moves)
    while game.is_active:
        level = game.kind_to_move.level
        if level is None or not is_instant(level, game):
            break
        cell = choose_move(level, game.board, game.last_cell, rng)
        played = play_cell(game, cell, None, now)
        game = played.game
        moves.extend(played.moves)
    return Turn(game, tuple(moves))


def human_move(game: GameView, cell: int, user_id: int, rng: random.Random, now: datetime) -> Turn:
    """A person's move (already allowed) and the AI's instant replies."""
    return ai_replies(play_cell(game, cell, user_id, now), rng, now)


def close(game: GameView, status: GameStatus, reason: EndReason) -> GameView:
    """End a game without a result: abandoned, cancelled, declined, expired."""
    return replace(game, status=status, end_reason=reason)


def shut(game: GameView, reason: EndReason = EndReason.ABANDONED) -> GameView:
    """A live game closed from outside, with no winner (the bot left its chat, or its data is
    deleted): a challenge is cancelled, a game abandoned."""
    if game.is_open:
        return close(game, GameStatus.CANCELLED, EndReason.CANCELLED)
    return close(game, GameStatus.ABANDONED, reason)


def resign(game: GameView, user_id: int, reason: EndReason = EndReason.RESIGNED) -> GameView:
    """The user (allowed by `player_refusal`) gives up, for `reason` (one of `FORFEITS`); the
    opponent wins. On one phone both sides belong to the user: the side to move gives up."""
    loser = game.to_move if game.is_one_phone else game.mark_of(user_id)
    assert loser is not None
    if game.is_many:
        return drop_out(game, loser, reason, None)
    return replace(
        game, status=GameStatus.FINISHED, result=Result.won_by(other(loser)), end_reason=reason
    )


def has_moved(game: GameView, user_id: int) -> bool:
    """Whether the user has made a move in the game: a game they never moved in counts
    nowhere, and may be replaced without a word."""
    mark = game.mark_of(user_id)
    return mark is not None and mark in game.board.cells


def is_underway(game: GameView, user_id: int) -> bool:
    """A running game of the user's, against someone (the AI or a person), that they moved
    in: leaving it counts as a loss, so a new game asks first."""
    return (
        player_refusal(game, user_id) is None and not game.is_one_phone and has_moved(game, user_id)
    )


def replaced(game: GameView, user_id: int) -> GameView:
    """A live game of the chat, closed by the user's new game: a game they moved in counts
    as resigned (they were asked first); any other is closed without a result."""
    if is_underway(game, user_id):
        return resign(game, user_id, EndReason.REPLACED)
    return shut(game, EndReason.REPLACED)


def stop(game: GameView, user_id: int) -> GameView | None:
    """`/stop` on one of the chat's live games: a running game of the user's is resigned, their
    challenge withdrawn, an AI match they started stopped; None if none of that applies."""
    if player_refusal(game, user_id) is None:  # still in the game (not out of one of more)
        return resign(game, user_id, EndReason.STOPPED)
    if game.is_open and game.created_by_id == user_id:
        return close(game, GameStatus.CANCELLED, EndReason.CANCELLED)
    if game.is_ai_match and game.created_by_id in (user_id, None):
        return close(game, GameStatus.ABANDONED, EndReason.STOPPED)
    return None


def leave(game: GameView, user_id: int) -> GameView:
    """A user leaves a game for good (`/forget`): a running game of theirs is resigned, or,
    when nobody has moved yet, closed with no result (it counts nowhere, as /stop's does, and
    its board says so rather than name a winner of an empty board; a tournament's round needs
    its result, and in a game of more the others play on); an open challenge is withdrawn (a
    seat taken in someone else's game of more is freed when the user's id is taken out of it,
    see `anonymize`)."""
    if player_refusal(game, user_id) is None:
        if game.ply == 0 and not game.is_many and game.tournament_id is None:
            return close(game, GameStatus.ABANDONED, EndReason.FORGOTTEN)
        return resign(game, user_id, EndReason.FORGOTTEN)
    if game.is_open and (not game.is_many or game.created_by_id in (user_id, None)):
        return close(game, GameStatus.CANCELLED, EndReason.CANCELLED)
    return game


def anonymize(game: GameView, user_id: int) -> GameView:
    """The game without the user's id (it stays for the other person), and without their name
    where a seat showed it: as the game reads once stored (names come from the players' rows),
    so that its ending's event, its boards and the cache say what a read would."""
    seats = ("x", "o", "t", "s")
    gone: dict[str, Any] = {  # columns named at run time: ids (int | None) and names
        column: None
        for column in (
            *(f"{seat}_player_id" for seat in seats),
            "created_by_id",
            "invited_player_id",
        )
        if getattr(game, column) == user_id
    }
    gone |= {f"{seat}_name": None for seat in seats if f"{seat}_player_id" in gone}
    if "invited_player_id" in gone:
        gone["invited_name"] = None
    return replace(game, **gone)


def timeout_verdict(game: GameView, waited: timedelta, timeout: timedelta) -> TurnEvent | None:
    """What the turn clock does to a game whose turn has lasted `waited`: nudge the player to
    move after one timeout, end the game after two (after a nudge); expire a challenge nobody
    joined after two, and a rematch offer nobody answered after one. A game on the clock
    (strangers) has no nudge: its clock decides (`clock_rules.verdict`)."""
    if game.is_open:
        lapse = timeout if game.rematch_of_id is not None else 2 * timeout
        return TurnEvent.EXPIRED if waited >= lapse else None
    if not game.is_active or not game.is_between_people:
        return None
    if clock_rules.is_clocked(game) and game.turn_started_at is not None:
        return clock_rules.verdict(game, game.turn_started_at + waited)
    if waited >= 2 * timeout and game.nudges >= 1:
        return TurnEvent.TIMEOUT
    if waited >= timeout and game.nudges == 0:
        return TurnEvent.NUDGE
    return None


def apply_timeout(game: GameView, event: TurnEvent, now: datetime) -> GameView:
    """The turn clock's verdict applied: with three or four players, one who timed out after
    the nudge is out, and the others play on."""
    if event is TurnEvent.EXPIRED:
        return close(game, GameStatus.CANCELLED, EndReason.EXPIRED)
    if event is TurnEvent.ABORTED:
        return close(clock_rules.flagged(game), GameStatus.ABANDONED, EndReason.ABORTED)
    if event is TurnEvent.TIMEOUT and game.is_many:
        return drop_out(game, game.to_move, EndReason.TIMEOUT, now)
    if event is TurnEvent.TIMEOUT:
        return replace(
            clock_rules.flagged(game),
            status=GameStatus.FINISHED,
            result=Result.won_by(other(game.to_move)),
            end_reason=EndReason.TIMEOUT,
        )
    return replace(game, nudges=1)


def outcome_for(result: Result | None, mark: str) -> Outcome:
    """A win, loss or draw for the side `mark` of a finished game."""
    if result == Result.DRAW:
        return Outcome.DRAW
    return Outcome.WIN if result == mark else Outcome.LOSS


def new_game(
    *,
    board: Board,
    x_kind: PlayerKind,
    o_kind: PlayerKind,
    creator: PlayerInfo | None,
    now: datetime,
    x_player: PlayerInfo | None = None,
    o_player: PlayerInfo | None = None,
    chat_id: int | None = None,
    inline_message_id: str | None = None,
    status: GameStatus = GameStatus.ACTIVE,
    invited: PlayerInfo | None = None,
    invited_username: str | None = None,
    seats: int = 2,
) -> GameView:
    """A game not stored yet (id 0), written in its creator's language."""
    return GameView(
        id=0,
        chat_id=chat_id,
        message_id=None,
        inline_message_id=inline_message_id,
        board=board,
        x_kind=x_kind,
        o_kind=o_kind,
        x_player_id=x_player.id if x_player else None,
        o_player_id=o_player.id if o_player else None,
        x_name=x_player.name if x_player else None,
        o_name=o_player.name if o_player else None,
        status=status,
        result=None,
        end_reason=None,
        language=creator.language_code if creator else None,
        created_by_id=creator.id if creator else None,
        invited_player_id=invited.id if invited else None,
        invited_name=invited.name if invited else None,
        invited_username=invited_username,
        turn_started_at=now,
        seats=seats,
    )
