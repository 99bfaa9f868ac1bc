"""Games for three and four people, on a real database: seats, turns that go round, people
who leave, timeouts, stats and rematch."""

from __future__ import annotations

import random
from datetime import timedelta

from bot.games.model import BoardRef, EndReason, GameStatus, MoveStatus, PlayerInfo
from bot.games.play.clock_rules import TurnEvent
from bot.games.use_cases import Games
from core.board import Board
from core.rules import play_as, winner

ALICE = PlayerInfo(101, "Alice", "en")
BOB = PlayerInfo(202, "Bob", "en")
CAROL = PlayerInfo(303, "Carol", "en")
DAVE = PlayerInfo(404, "Dave", "en")
GROUP = -100900
HERE = BoardRef(chat_id=GROUP)
BY_MARK = {"X": ALICE, "O": BOB, "T": CAROL, "S": DAVE}


async def _three(games: Games, size: int = 6, k: int = 4):  # type: ignore[no-untyped-def]
    game = await games.challenges.create(GROUP, ALICE, board=Board.empty(size, k), seats=3)
    assert game.is_open and game.marks == ("X", "O", "T")
    joined = await games.challenges.join(game.id, HERE, BOB)
    assert joined.game is not None and joined.game.is_open  # one seat left
    assert (await games.challenges.join(game.id, HERE, BOB)).status is MoveStatus.JOINED_ALREADY
    assert (await games.challenges.join(game.id, HERE, ALICE)).status is MoveStatus.OWN_GAME
    started = (await games.challenges.join(game.id, HERE, CAROL)).game
    assert started is not None and started.is_active and started.to_move == "X"
    assert (started.o_name, started.t_name) == ("Bob", "Carol")
    assert (await games.challenges.join(game.id, HERE, DAVE)).status is MoveStatus.NOT_A_PLAYER
    return started


async def test_three_players_take_turns_in_order_and_a_line_of_four_wins(games: Games) -> None:
    game = await _three(games)
    # X, O, T in turn; each other tap is refused and changes nothing.
    moves = [(ALICE, 0), (BOB, 6), (CAROL, 12), (ALICE, 1), (BOB, 7), (CAROL, 13)]
    moves += [(ALICE, 2), (BOB, 8), (CAROL, 14), (ALICE, 30), (BOB, 25)]
    for ply, (user, cell) in enumerate(moves):
        wrong = next(p for p in (ALICE, BOB, CAROL) if p != user)
        refused = await games.play.tap(game.id, HERE, wrong, ply, cell)
        assert refused.status is MoveStatus.NOT_YOUR_TURN
        result = await games.play.tap(game.id, HERE, user, ply, cell)
        assert result.status is MoveStatus.PLAYED, (ply, result.status)
    assert (await games.store.get_game(game.id)).to_move == "T"  # type: ignore[union-attr]
    won = (await games.play.tap(game.id, HERE, CAROL, len(moves), 15)).game
    assert won is not None and won.status == GameStatus.FINISHED
    assert (won.result, won.end_reason) == ("T", EndReason.LINE)
    assert won.board.cells[12:16] == ("T",) * 4

    carol = await games.records.stats(CAROL.id)
    assert carol.by_opponent["human"].wins == 1
    assert (await games.records.stats(ALICE.id)).by_opponent["human"].losses == 1
    top = await games.records.top(GROUP)
    assert [row.name for row in top][:1] == ["Carol"] and len(top) == 3

    # A rematch of three is a new game Bob opens: the others take a seat only if they want.
    rematch = (await games.challenges.rematch(game.id, HERE, BOB)).game
    assert rematch is not None and rematch.is_open and rematch.seats == 3
    assert (rematch.x_name, rematch.o_name, rematch.t_name) == ("Bob", None, None)
    assert rematch.board == Board.empty(6, 4)
    for person in (CAROL, ALICE):  # Carol's Rematch tap, then Alice's Join
        if person is CAROL:
            rematch = (await games.challenges.rematch(game.id, HERE, person)).game
        else:
            rematch = (await games.challenges.join(rematch.id, HERE, person)).game  # type: ignore[union-attr]
        assert rematch is not None
    assert rematch.is_active and rematch.to_move == "X"
    assert (rematch.x_name, rematch.o_name, rematch.t_name) == ("Bob", "Carol", "Alice")


async def test_people_who_leave_are_passed_by_and_the_last_one_wins(games: Games) -> None:
    game = await games.challenges.create(GROUP, ALICE, board=Board.empty(7, 4), seats=4)
    for person in (BOB, CAROL, DAVE):
        game = (await games.challenges.join(game.id, HERE, person)).game  # type: ignore[assignment]
    assert game.is_active and game.marks == ("X", "O", "T", "S")
    left = (await games.resigning.resign(game.id, HERE, BOB)).game
    assert left is not None and left.is_active and left.out == "O"
    await games.play.tap(game.id, HERE, ALICE, 0, 0)
    after = await games.store.get_game(game.id)
    assert after is not None and after.to_move == "T"  # Bob's turn is skipped
    refused = await games.play.tap(game.id, HERE, BOB, 1, 1)
    assert refused.status is MoveStatus.NOT_A_PLAYER
    # Out is out: /stop finds nothing more of Bob's to end.
    assert (await games.play.stop_current(GROUP, BOB)).status is MoveStatus.NO_GAME
    assert (await games.store.get_game(game.id)).out == "O"  # type: ignore[union-attr]

    # Carol waits too long: nudged, then out; the turn passes to Dave.
    clock = games.timeouts
    started = after.turn_started_at
    assert started is not None
    timeout = timedelta(minutes=5)
    nudged = await clock.enforce(game.id, started + timeout, timeout)
    assert nudged is not None and nudged[0] is TurnEvent.NUDGE
    dropped = await clock.enforce(game.id, started + 2 * timeout, timeout)
    assert dropped is not None and dropped[0] is TurnEvent.TIMEOUT
    view = dropped[1]
    assert view.is_active and view.out == "OT" and view.to_move == "S"

    last = (await games.resigning.resign(game.id, HERE, DAVE)).game
    assert last is not None and last.status == GameStatus.FINISHED
    assert (last.result, last.end_reason) == ("X", EndReason.RESIGNED)


async def test_a_full_board_of_three_is_a_draw(games: Games) -> None:
    game = await _three(games, size=5, k=5)
    cells = _drawn_fill(5, 5, "XOT")
    for ply, cell in enumerate(cells):
        mover = await games.store.get_game(game.id)
        assert mover is not None and mover.is_active, ply
        user = BY_MARK[mover.to_move]
        result = await games.play.tap(game.id, HERE, user, ply, cell)
        assert result.status is MoveStatus.PLAYED
    final = await games.store.get_game(game.id)
    assert final is not None and final.status == GameStatus.FINISHED
    assert (final.result, final.end_reason) == ("draw", EndReason.FULL)


def _drawn_fill(size: int, k: int, marks: str) -> list[int]:
    """An order of every cell in which, the marks going round, nobody completes a line:
    each mover takes a free cell that completes none of theirs (random restarts, seeded)."""
    rng = random.Random(5)
    while True:
        board, cells = Board.empty(size, k), []
        for ply in range(size * size):
            mark = marks[ply % len(marks)]
            safe = [c for c in board.free_cells() if winner(play_as(board, c, mark)) is None]
            if not safe:
                break
            cells.append(rng.choice(safe))
            board = play_as(board, cells[-1], mark)
        else:
            return cells


async def test_forgetting_frees_a_seat_and_keeps_the_game_open(games: Games) -> None:
    game = await games.challenges.create(GROUP, ALICE, board=Board.empty(6, 4), seats=3)
    await games.challenges.join(game.id, HERE, BOB)
    await games.privacy.forget(BOB)
    after = await games.store.get_game(game.id)
    assert after is not None and after.is_open and after.o_player_id is None
    # The seat is free for somebody else.
    carol = (await games.challenges.join(game.id, HERE, CAROL)).game
    assert carol is not None and carol.o_name == "Carol" and carol.is_open
