"""The game's rules on plain values (`bot.games.play.lifecycle`): no database, no clock."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.games.challenges import rules as challenge_rules
from bot.games.model import (
    USER,
    EndReason,
    GameStatus,
    GameView,
    MoveStatus,
    Outcome,
    PlayerInfo,
    PlayerKind,
    Result,
)
from bot.games.play import lifecycle
from bot.games.play.clock_rules import TurnEvent
from bot.wire.callback_data import pack, parse_callback_data
from bot.wire.taps import InlineAiTap, NewGameTap
from core.ai import Level
from core.board import SEAT_MARKS, Board
from core.notation import format_cells, parse_cells

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
ALICE = PlayerInfo(1, "Alice", "en", "alice")
BOB = PlayerInfo(2, "Bob", "ru", "bob")
CAROL = PlayerInfo(3, "Carol")


def duel(cells: str = "_________", **changes: object) -> GameView:
    """Alice (X) against Bob (O) in a group."""
    game = lifecycle.new_game(
        chat_id=-100,
        board=parse_cells(cells),
        x_kind=USER,
        o_kind=USER,
        x_player=ALICE,
        o_player=BOB,
        creator=ALICE,
        now=NOW,
    )
    return replace(game, **changes)


def test_a_new_game_is_written_in_its_creators_language() -> None:
    game = duel()
    assert (game.id, game.status, game.language, game.created_by_id) == (0, "active", "en", 1)
    assert (game.x_name, game.o_name, game.to_move, game.ply) == ("Alice", "Bob", "X", 0)


@pytest.mark.parametrize(
    ("game", "user", "ply", "cell", "refusal"),
    [
        (duel(), ALICE, 0, 4, None),
        (duel(), ALICE, 1, 4, MoveStatus.STALE),
        (duel(), ALICE, 0, 9, MoveStatus.INVALID),
        (duel(), BOB, 0, 4, MoveStatus.NOT_YOUR_TURN),
        (duel(), CAROL, 0, 4, MoveStatus.NOT_A_PLAYER),
        (duel("X________"), BOB, 1, 0, MoveStatus.OCCUPIED),
        (duel(status=GameStatus.OPEN), ALICE, 0, 4, MoveStatus.WAITING),
        (duel(status=GameStatus.FINISHED), ALICE, 0, 4, MoveStatus.GAME_OVER),
    ],
)
def test_tap_refusals(
    game: GameView, user: PlayerInfo, ply: int, cell: int, refusal: MoveStatus | None
) -> None:
    assert lifecycle.tap_refusal(game, user.id, ply, cell) is refusal


def test_a_move_that_completes_a_line_finishes_the_game_and_records_the_move() -> None:
    turn = lifecycle.human_move(duel("XX_OO____"), 2, ALICE.id, random.Random(1), NOW)
    assert format_cells(turn.game.board) == "XXXOO____"
    assert (turn.game.status, turn.game.result, turn.game.end_reason) == ("finished", "X", "line")
    assert turn.moves == (lifecycle.PlayedMove(5, 2, "X", ALICE.id),)


def test_the_ai_replies_at_once_on_3x3_and_leaves_big_boards_to_the_search() -> None:
    classic = replace(duel(), o_kind="hard", o_player_id=None, o_name=None)
    turn = lifecycle.human_move(classic, 4, ALICE.id, random.Random(1), NOW)
    assert [m.player_id for m in turn.moves] == [ALICE.id, None]
    assert turn.game.to_move == "X" and turn.game.ply == 2
    big = replace(classic, board=Board.empty(5, 4))
    turn = lifecycle.human_move(big, 12, ALICE.id, random.Random(1), NOW)
    assert len(turn.moves) == 1 and turn.game.waits_for_ai


def test_on_one_phone_the_side_to_move_resigns() -> None:
    one_phone = duel("X________", o_player_id=ALICE.id, o_name="Alice")
    assert lifecycle.player_refusal(one_phone, ALICE.id) is None
    resigned = lifecycle.resign(one_phone, ALICE.id)
    assert (resigned.result, resigned.end_reason) == ("X", EndReason.RESIGNED)
    assert lifecycle.resign(duel("X________"), ALICE.id).result == "O"


def test_join_and_its_refusals() -> None:
    open_game = duel(status=GameStatus.OPEN, o_player_id=None, o_name=None)
    assert challenge_rules.join_refusal(open_game, ALICE) is MoveStatus.OWN_GAME
    assert challenge_rules.join_refusal(open_game, CAROL) is None
    joined = challenge_rules.join(open_game, CAROL, NOW)
    assert (joined.status, joined.o_player_id, joined.o_name) == ("active", 3, "Carol")
    assert challenge_rules.join_refusal(joined, CAROL) is MoveStatus.STALE
    assert challenge_rules.join_refusal(joined, BOB) is MoveStatus.NOT_A_PLAYER
    for_bob = replace(open_game, invited_username="BOB")
    assert challenge_rules.join_refusal(for_bob, CAROL) is MoveStatus.NOT_INVITED
    assert challenge_rules.join_refusal(for_bob, BOB) is None
    assert challenge_rules.decline_refusal(open_game, CAROL) is MoveStatus.NOT_INVITED


@pytest.mark.parametrize(
    ("changes", "waited", "verdict"),
    [
        ({}, 59, None),
        ({}, 60, TurnEvent.NUDGE),
        ({"nudges": 1}, 119, None),
        ({"nudges": 1}, 120, TurnEvent.TIMEOUT),
        ({"nudges": 0}, 500, TurnEvent.NUDGE),  # never a loss without a nudge first
        ({"status": GameStatus.OPEN}, 119, None),
        ({"status": GameStatus.OPEN}, 120, TurnEvent.EXPIRED),
        ({"o_kind": "hard", "o_player_id": None}, 500, None),  # the AI has no clock
        ({"o_player_id": ALICE.id}, 500, None),  # nor does one phone
    ],
)
def test_timeout_verdicts(changes: dict, waited: int, verdict: TurnEvent | None) -> None:
    game = duel("X________", **changes)
    minute = timedelta(seconds=60)
    assert lifecycle.timeout_verdict(game, timedelta(seconds=waited), minute) is verdict


def test_timeouts_applied() -> None:
    game = duel("X________")  # O to move
    assert lifecycle.apply_timeout(game, TurnEvent.NUDGE, NOW).nudges == 1
    lost = lifecycle.apply_timeout(game, TurnEvent.TIMEOUT, NOW)
    assert (lost.status, lost.result, lost.end_reason) == ("finished", "X", "timeout")
    expired = lifecycle.apply_timeout(duel(status=GameStatus.OPEN), TurnEvent.EXPIRED, NOW)
    assert (expired.status, expired.end_reason) == ("cancelled", "expired")


def test_leaving_resigns_then_the_game_forgets_the_user() -> None:
    left = lifecycle.leave(duel("X________"), BOB.id)
    assert (left.status, left.result) == ("finished", "X")
    gone = lifecycle.anonymize(left, BOB.id)
    assert (gone.x_player_id, gone.o_player_id) == (ALICE.id, None)
    assert lifecycle.leave(gone, BOB.id) == gone  # already over: nothing more to end


def test_leaving_before_any_move_closes_the_game_with_no_result() -> None:
    # As a new game over it would: no winner of an empty board, and it counts nowhere.
    left = lifecycle.leave(duel(), BOB.id)
    assert (left.status, left.result, left.end_reason) == ("abandoned", None, "forgotten")
    # A tournament's round needs its result: there it is still a resignation.
    in_round = lifecycle.leave(duel(tournament_id=7), BOB.id)
    assert (in_round.status, in_round.result) == ("finished", "X")


def test_kinds_results_and_outcomes_are_enums_of_the_stored_words() -> None:
    assert [*PlayerKind] == ["user", "easy", "medium", "hard"]
    assert [kind.level for kind in PlayerKind] == [None, *Level]
    assert all(PlayerKind.of(level).level is level for level in Level)
    assert [*Result] == [*SEAT_MARKS, "draw"] and Result.DRAW.winner is None
    assert Result.won_by("O").winner == "O"
    won = replace(duel(), status=GameStatus.FINISHED, result=Result.won_by("X"))
    assert lifecycle.outcome_for(won.result, "X") is Outcome.WIN == "win"
    assert lifecycle.outcome_for(won.result, "O") is Outcome.LOSS == "loss"
    assert lifecycle.outcome_for(Result.DRAW, "O") is Outcome.DRAW == "draw"


def test_buttons_carry_the_same_words_and_parse_back_to_kinds() -> None:
    data = pack(NewGameTap(USER, PlayerKind.HARD))
    assert data == "n:user:hard"
    tap = parse_callback_data(data)
    assert tap is not None and getattr(tap, "o_kind", None) is PlayerKind.HARD
    ai = parse_callback_data(pack(InlineAiTap(7, Level.MEDIUM, 4), key=b"k"))
    assert ai is not None and getattr(ai, "level", None) is Level.MEDIUM
