"""Playing with friends, on the game games and a real SQLite file: challenges (open, by
@username, by reply), join, decline, cancel, rematch, inline games, turn timeouts, stats with
streaks, the group leaderboard, review and group migration. Races run with `asyncio.gather`."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import func, select

from bot.games.db.models import Game, utcnow
from bot.games.model import HUMAN, BoardRef, EndReason, GameStatus, GameView, MoveStatus, PlayerInfo
from bot.games.play.clock_rules import TurnEvent
from bot.games.summaries import Record, ReviewStatus
from bot.games.use_cases import Games
from core.notation import format_cells

ALICE = PlayerInfo(1001, "Alice", "en", "alice")
BOB = PlayerInfo(1002, "Bob", "en", "bob")
CAROL = PlayerInfo(1003, "Carol", "ru", "carol")
DAVE = PlayerInfo(1004, "Dave", None, None)
GROUP = -100500
HERE = BoardRef(chat_id=GROUP)
T = timedelta(minutes=10)

#: A drawn game where both sides always play a best move.
PERFECT_DRAW = [0, 4, 1, 2, 6, 3, 5, 7, 8]
#: X takes a corner, O answers on an edge (a lost position), X forks and wins on 2-4-6.
EDGE_REPLY_LOSES = [0, 1, 4, 8, 6, 3, 2]
#: A draw with a mistake by each: O takes a corner on move 4, X misses the win on move 7.
SLOPPY_DRAW = [0, 4, 8, 2, 6, 3, 5, 7, 1]


async def started_game(
    games: Games, x: PlayerInfo = ALICE, o: PlayerInfo = BOB, chat: int = GROUP
) -> GameView:
    """A challenge by `x` in `chat`, joined by `o`."""
    challenge = await games.challenges.create(chat, x)
    joined = await games.challenges.join(challenge.id, BoardRef(chat_id=chat), o)
    assert joined.played and joined.game is not None
    return joined.game


async def play_moves(games: Games, game: GameView, cells: list[int]) -> GameView:
    """Tap `cells` in order, each by the player whose turn it is."""
    ref = BoardRef(chat_id=game.chat_id, inline_message_id=game.inline_message_id)
    for cell in cells:
        assert game.x_player_id is not None and game.o_player_id is not None
        mover_id = game.player_id_of(game.to_move)
        mover = next(p for p in (ALICE, BOB, CAROL, DAVE) if p.id == mover_id)
        result = await games.play.tap(game.id, ref, mover, game.ply, cell)
        assert result.played and result.game is not None, result
        game = result.game
    return game


async def won_by(games: Games, winner: PlayerInfo, loser: PlayerInfo) -> GameView:
    """A finished game in the group: `winner` (X) moves, and `loser` resigns (a game nobody
    moved in would count nowhere)."""
    game = await started_game(games, winner, loser)
    assert (await games.play.tap(game.id, HERE, winner, 0, 4)).played
    result = await games.resigning.resign(game.id, HERE, loser)
    assert result.played and result.game is not None
    return result.game


async def drawn(games: Games, x: PlayerInfo, o: PlayerInfo) -> GameView:
    game = await play_moves(games, await started_game(games, x, o), PERFECT_DRAW)
    assert game.result == "draw"
    return game


# Challenges


async def test_an_open_challenge_waits_then_anyone_but_the_challenger_joins(
    games: Games,
) -> None:
    challenge = await games.challenges.create(GROUP, ALICE)
    assert challenge.is_open and challenge.x_name == "Alice" and challenge.o_player_id is None
    assert (await games.play.tap(challenge.id, HERE, ALICE, 0, 4)).status is MoveStatus.WAITING
    assert (await games.resigning.resign(challenge.id, HERE, ALICE)).status is MoveStatus.WAITING
    assert (await games.challenges.join(challenge.id, HERE, ALICE)).status is MoveStatus.OWN_GAME
    elsewhere = BoardRef(chat_id=GROUP - 1)
    assert (await games.challenges.join(challenge.id, elsewhere, BOB)).status is MoveStatus.NO_GAME
    assert (await games.challenges.join(challenge.id + 99, HERE, BOB)).status is MoveStatus.NO_GAME

    joined = await games.challenges.join(challenge.id, HERE, BOB)
    assert joined.status is MoveStatus.PLAYED and joined.game is not None
    game = joined.game
    assert game.is_active and (game.x_name, game.o_name) == ("Alice", "Bob")
    assert game.mark_of(BOB.id) == "O" and game.to_move == "X" and game.is_between_people
    # A double tap on Join by the joiner is stale; a latecomer finds the game taken.
    assert (await games.challenges.join(challenge.id, HERE, BOB)).status is MoveStatus.STALE
    assert (
        await games.challenges.join(challenge.id, HERE, CAROL)
    ).status is MoveStatus.NOT_A_PLAYER
    assert (await games.play.tap(game.id, HERE, BOB, 0, 4)).status is MoveStatus.NOT_YOUR_TURN
    assert (await games.play.tap(game.id, HERE, CAROL, 0, 4)).status is MoveStatus.NOT_A_PLAYER
    assert await games.store.get_game(game.id) == game


async def test_a_challenge_by_username_is_for_that_user_only(games: Games) -> None:
    challenge = await games.challenges.create(GROUP, ALICE, invited_username="@Bob")
    assert challenge.invited_username == "Bob"
    for action in (games.challenges.join, games.challenges.decline):
        assert (await action(challenge.id, HERE, CAROL)).status is MoveStatus.NOT_INVITED
        assert (await action(challenge.id, HERE, DAVE)).status is MoveStatus.NOT_INVITED
    # Only the challenger can cancel; the invited user can decline.
    assert (
        await games.challenges.cancel(challenge.id, HERE, BOB)
    ).status is MoveStatus.NOT_CHALLENGER
    declined = await games.challenges.decline(
        challenge.id, HERE, BOB
    )  # usernames match in any case
    assert declined.played and declined.game is not None
    assert (
        declined.game.status == GameStatus.DECLINED
        and declined.game.end_reason == GameStatus.DECLINED
    )
    assert (await games.challenges.join(challenge.id, HERE, BOB)).status is MoveStatus.GAME_OVER
    assert (await games.challenges.decline(challenge.id, HERE, BOB)).status is MoveStatus.GAME_OVER
    assert (await games.challenges.cancel(challenge.id, HERE, ALICE)).status is MoveStatus.GAME_OVER


async def test_a_challenge_by_reply_is_for_that_person_only(games: Games) -> None:
    challenge = await games.challenges.create(GROUP, ALICE, invited=CAROL)
    assert challenge.invited_player_id == CAROL.id and challenge.invited_name == "Carol"
    assert (await games.challenges.join(challenge.id, HERE, BOB)).status is MoveStatus.NOT_INVITED
    # The challenger is not the invited person either: they cancel, not decline.
    assert (
        await games.challenges.decline(challenge.id, HERE, ALICE)
    ).status is MoveStatus.NOT_INVITED
    joined = await games.challenges.join(challenge.id, HERE, CAROL)
    assert joined.played and joined.game is not None and joined.game.o_name == "Carol"
    assert (
        await games.challenges.decline(challenge.id, HERE, CAROL)
    ).status is MoveStatus.GAME_OVER


async def test_nobody_declines_an_open_challenge(games: Games) -> None:
    # An open challenge has no Decline button; forged callback data must not close it.
    challenge = await games.challenges.create(GROUP, ALICE)
    for user in (ALICE, BOB):
        assert (
            await games.challenges.decline(challenge.id, HERE, user)
        ).status is MoveStatus.NOT_INVITED
    current = await games.store.get_game(challenge.id)
    assert current is not None and current.is_open


async def test_the_challenger_cancels_before_anyone_joins(games: Games) -> None:
    challenge = await games.challenges.create(GROUP, ALICE)
    assert (
        await games.challenges.cancel(challenge.id, HERE, BOB)
    ).status is MoveStatus.NOT_CHALLENGER
    cancelled = await games.challenges.cancel(challenge.id, HERE, ALICE)
    assert cancelled.played and cancelled.game is not None
    assert cancelled.game.status == GameStatus.CANCELLED
    assert (await games.challenges.join(challenge.id, HERE, BOB)).status is MoveStatus.GAME_OVER

    game = await started_game(games)
    assert (await games.challenges.cancel(game.id, HERE, ALICE)).status is MoveStatus.GAME_OVER


async def test_two_joiners_at_once_one_joins(games: Games) -> None:
    for _ in range(10):
        challenge = await games.challenges.create(GROUP, ALICE)
        bob, carol = await asyncio.gather(
            games.challenges.join(challenge.id, HERE, BOB),
            games.challenges.join(challenge.id, HERE, CAROL),
        )
        assert [bob.played, carol.played].count(True) == 1, (bob, carol)
        loser = carol if bob.played else bob
        assert loser.status in (MoveStatus.CONFLICT, MoveStatus.NOT_A_PLAYER), loser
        game = await games.store.get_game(challenge.id)
        assert game is not None and game.is_active
        assert game.o_player_id == (BOB.id if bob.played else CAROL.id)


# Moves, typed replies


async def test_a_typed_reply_goes_to_the_game_on_that_board(games: Games) -> None:
    first = await started_game(games, ALICE, BOB)
    second = await started_game(games, CAROL, DAVE)
    await games.chats.attach_message(first.id, 10)
    await games.chats.attach_message(second.id, 11)
    played = await games.play.typed(GROUP, CAROL, "2 2", message_id=11)
    assert played.played and played.game is not None and played.game.id == second.id
    refused = await games.play.typed(GROUP, CAROL, "1 1", message_id=10)
    assert refused.status is MoveStatus.NOT_A_PLAYER
    assert (await games.play.typed(GROUP, ALICE, "1 1", message_id=99)).status is (
        MoveStatus.NO_GAME
    )
    first_now = await games.store.get_game(first.id)
    assert first_now is not None and first_now.ply == 0


# Rematch


async def test_rematch_swaps_sides_once(games: Games) -> None:
    game = await started_game(games)
    assert (
        await games.challenges.rematch(game.id, HERE, ALICE)
    ).status is MoveStatus.INVALID  # running
    finished = await won_by(games, BOB, ALICE)  # Bob plays X and wins
    assert (
        await games.challenges.rematch(finished.id, HERE, CAROL)
    ).status is MoveStatus.NOT_A_PLAYER
    wrong_chat = BoardRef(chat_id=GROUP - 1)
    assert (
        await games.challenges.rematch(finished.id, wrong_chat, ALICE)
    ).status is MoveStatus.NO_GAME

    # Alice (who played O) offers: she plays X, Bob is asked to take O.
    result = await games.challenges.rematch(finished.id, HERE, ALICE)
    assert result.played and result.game is not None
    offer = result.game
    assert offer.id != finished.id and offer.rematch_of_id == finished.id
    assert (offer.x_name, offer.o_name) == ("Alice", None) and offer.is_open
    assert offer.invited_player_id == BOB.id and offer.created_by_id == ALICE.id
    assert offer.chat_id == GROUP and offer.message_id is None
    waiting = await games.challenges.rematch(finished.id, HERE, ALICE)
    assert waiting.status is MoveStatus.REMATCH_OFFERED
    assert (await games.challenges.join(offer.id, HERE, CAROL)).status is MoveStatus.NOT_INVITED
    # Bob's own Rematch tap accepts the offer: the game starts, sides swapped.
    accepted = await games.challenges.rematch(finished.id, HERE, BOB)
    assert accepted.played and accepted.game is not None and accepted.game.id == offer.id
    rematch = accepted.game
    assert (rematch.x_name, rematch.o_name) == ("Alice", "Bob") and rematch.is_active
    again = await games.challenges.rematch(finished.id, HERE, BOB)
    assert again.status is MoveStatus.REMATCH_TAKEN


async def test_a_rematch_offer_is_declined_or_lapses(games: Games) -> None:
    finished = await won_by(games, ALICE, BOB)  # Alice plays X and wins
    offer = (await games.challenges.rematch(finished.id, HERE, ALICE)).game
    assert offer is not None and (offer.x_name, offer.o_name) == (None, "Alice")
    # Only Bob answers; his Decline closes the offer, and nobody is bound to a game.
    assert (await games.challenges.decline(offer.id, HERE, CAROL)).status is (
        MoveStatus.NOT_INVITED
    )
    declined = await games.challenges.decline(offer.id, HERE, BOB)
    assert declined.played and declined.game is not None
    assert declined.game.status == GameStatus.DECLINED
    closed = await games.challenges.rematch(finished.id, HERE, BOB)
    assert closed.status is MoveStatus.REMATCH_CLOSED

    finished = await won_by(games, ALICE, BOB)
    offer = (await games.challenges.rematch(finished.id, HERE, BOB)).game
    assert offer is not None and offer.turn_started_at is not None
    timeout = timedelta(minutes=10)
    due = offer.turn_started_at + timeout  # a rematch offer lapses after one turn timeout
    assert await games.timeouts.enforce(offer.id, due - timedelta(seconds=1), timeout) is None
    lapsed = await games.timeouts.enforce(offer.id, due, timeout)
    assert lapsed is not None and lapsed[0] is TurnEvent.EXPIRED
    assert lapsed[1].status == GameStatus.CANCELLED and lapsed[1].end_reason == EndReason.EXPIRED


async def test_no_rematch_against_the_ai_or_on_one_phone(games: Games) -> None:
    for o_kind in ("hard", "user"):
        game = (await games.play.start_game(ALICE.id, ALICE, "user", o_kind)).game
        ref = BoardRef(chat_id=ALICE.id)
        resigned = await games.resigning.resign(game.id, ref, ALICE)
        assert resigned.played
        assert (await games.challenges.rematch(game.id, ref, ALICE)).status is MoveStatus.INVALID


async def test_two_rematch_taps_at_once_start_one_game(games: Games) -> None:
    for _ in range(10):
        finished = await won_by(games, ALICE, BOB)
        first, second = await asyncio.gather(
            games.challenges.rematch(finished.id, HERE, ALICE),
            games.challenges.rematch(finished.id, HERE, BOB),
        )
        # Both want a rematch: one tap offers it and the other accepts it (or, rarely, is
        # told to look again); never two games.
        assert first.played or second.played, (first, second)
        for result in (first, second):
            assert result.played or result.status is MoveStatus.CONFLICT, result
        async with games.store.sessions() as session:
            count = await session.scalar(
                select(func.count()).select_from(Game).where(Game.rematch_of_id == finished.id)
            )
        assert count == 1


# Inline games


async def test_inline_challenge_is_created_by_the_first_joiner(games: Games) -> None:
    await games.challenges.register_player(ALICE)
    own = await games.challenges.join_inline("inline-1", ALICE, ALICE.id, "O")
    assert own.status is MoveStatus.OWN_GAME
    unknown = await games.challenges.join_inline("inline-1", BOB, 424242, "O")
    assert unknown.status is MoveStatus.NO_GAME
    bad = await games.challenges.join_inline("inline-1", BOB, ALICE.id, "Z")
    assert bad.status is MoveStatus.INVALID

    joined = await games.challenges.join_inline("inline-1", BOB, ALICE.id, "O")
    assert joined.played and joined.game is not None
    game = joined.game
    # Alice chose to play O, so Bob is X and moves first.
    assert (game.x_name, game.o_name, game.to_move) == ("Bob", "Alice", "X")
    assert game.inline_message_id == "inline-1" and game.chat_id is None
    again = await games.challenges.join_inline("inline-1", BOB, ALICE.id, "O")
    assert again.status is MoveStatus.STALE
    late = await games.challenges.join_inline("inline-1", CAROL, ALICE.id, "O")
    assert late.status is MoveStatus.NOT_A_PLAYER
    ref = BoardRef(inline_message_id="inline-1")
    assert (await games.play.tap(game.id, ref, ALICE, 0, 0)).status is MoveStatus.NOT_YOUR_TURN
    assert (await games.play.tap(game.id, HERE, BOB, 0, 0)).status is MoveStatus.NO_GAME


async def test_two_first_taps_on_an_inline_message_create_one_game(
    games: Games,
) -> None:
    await games.challenges.register_player(ALICE)
    for i in range(10):
        inline_id = f"race-join-{i}"
        bob, carol = await asyncio.gather(
            games.challenges.join_inline(inline_id, BOB, ALICE.id, "X"),
            games.challenges.join_inline(inline_id, CAROL, ALICE.id, "X"),
        )
        assert [bob.played, carol.played].count(True) == 1, (bob, carol)
        loser = carol if bob.played else bob
        assert loser.status in (MoveStatus.CONFLICT, MoveStatus.NOT_A_PLAYER), loser

        inline_id = f"race-ai-{i}"
        first, second = await asyncio.gather(
            games.play.start_inline_ai_game(inline_id, ALICE, ALICE.id, "hard", 4),
            games.play.start_inline_ai_game(inline_id, ALICE, ALICE.id, "hard", 0),
        )
        assert [first.played, second.played].count(True) == 1, (first, second)
        loser = second if first.played else first
        assert loser.status in (MoveStatus.CONFLICT, MoveStatus.STALE), loser
    async with games.store.sessions() as session:
        per_message = await session.execute(
            select(Game.inline_message_id, func.count()).group_by(Game.inline_message_id)
        )
        assert {count for _, count in per_message.all()} == {1}


async def test_inline_ai_game_starts_with_the_creators_first_tap(games: Games) -> None:
    assert (await games.play.start_inline_ai_game("ai-1", BOB, ALICE.id, "hard", 4)).status is (
        MoveStatus.NOT_A_PLAYER
    )
    assert (await games.play.start_inline_ai_game("ai-1", ALICE, ALICE.id, "god", 4)).status is (
        MoveStatus.INVALID
    )
    result = await games.play.start_inline_ai_game("ai-1", ALICE, ALICE.id, "hard", 4)
    assert result.played and result.game is not None
    game = result.game
    assert game.board[4] == "X" and game.ply == 2 and game.o_kind == "hard"
    assert {i for i, c in enumerate(game.board.cells) if c == "O"} <= {0, 2, 6, 8}
    stale = await games.play.start_inline_ai_game("ai-1", ALICE, ALICE.id, "hard", 1)
    assert stale.status is MoveStatus.STALE
    ref = BoardRef(inline_message_id="ai-1")
    assert (await games.play.tap(game.id, ref, BOB, 2, 1)).status is MoveStatus.NOT_A_PLAYER


async def test_an_inline_rematch_takes_the_message_over(games: Games) -> None:
    await games.challenges.register_player(ALICE)
    joined = await games.challenges.join_inline("inline-r", BOB, ALICE.id, "X")
    assert joined.game is not None
    ref = BoardRef(inline_message_id="inline-r")
    assert (await games.resigning.resign(joined.game.id, ref, BOB)).played
    result = await games.challenges.rematch(joined.game.id, ref, BOB)
    assert result.played and result.game is not None
    assert result.game.inline_message_id == "inline-r" and result.game.is_open
    assert (result.game.x_name, result.game.o_name) == ("Bob", None)
    old = await games.store.get_game(joined.game.id)
    assert old is not None and old.inline_message_id is None and old.result == "X"
    # The other player's Rematch tap on the same message accepts the offer.
    accepted = await games.challenges.rematch(joined.game.id, ref, ALICE)
    assert accepted.played and accepted.game is not None
    assert accepted.game.id == result.game.id and accepted.game.is_active
    assert (accepted.game.x_name, accepted.game.o_name) == ("Bob", "Alice")
    again = await games.challenges.rematch(joined.game.id, ref, ALICE)
    assert again.status is MoveStatus.REMATCH_TAKEN
    other = BoardRef(inline_message_id="elsewhere")
    assert (
        await games.challenges.rematch(joined.game.id, other, ALICE)
    ).status is MoveStatus.NO_GAME


async def test_two_rematch_taps_at_once_on_an_inline_message(games: Games) -> None:
    await games.challenges.register_player(ALICE)
    for i in range(10):
        inline_id = f"inline-race-{i}"
        joined = await games.challenges.join_inline(inline_id, BOB, ALICE.id, "X")
        assert joined.game is not None
        ref = BoardRef(inline_message_id=inline_id)
        assert (await games.resigning.resign(joined.game.id, ref, BOB)).played
        first, second = await asyncio.gather(
            games.challenges.rematch(joined.game.id, ref, ALICE),
            games.challenges.rematch(joined.game.id, ref, BOB),
        )
        assert first.played or second.played, (first, second)
        for result in (first, second):
            assert result.played or result.status is MoveStatus.CONFLICT, result
        async with games.store.sessions() as session:
            on_message = await session.scalars(
                select(Game).where(Game.inline_message_id == inline_id)
            )
            [game] = on_message.unique().all()
        # One rematch on the message, sides swapped: Bob's offer (Bob ❌, Alice's seat open),
        # Alice's offer (Alice ⭕, Bob's seat open), or Alice's accepted by Bob's tap.
        assert game.rematch_of_id == joined.game.id
        assert (game.x_player_id, game.o_player_id) in {
            (BOB.id, None),
            (None, ALICE.id),
            (BOB.id, ALICE.id),
        }


# Turn timeouts


async def test_the_player_to_move_is_nudged_then_loses_on_time(games: Games) -> None:
    game = await started_game(games)
    game = await play_moves(games, game, [4])  # Bob (O) to move
    t0 = utcnow()
    assert await games.timeouts.enforce(game.id, t0 + T / 2, T) is None
    assert game.id not in await games.timeouts.overdue(t0 + T / 2, T)
    assert game.id in await games.timeouts.overdue(t0 + T, T)

    nudge = await games.timeouts.enforce(game.id, t0 + T, T)
    assert nudge is not None and nudge[0] is TurnEvent.NUDGE and nudge[1].nudges == 1
    assert nudge[1].is_active
    assert await games.timeouts.enforce(game.id, t0 + T * 1.5, T) is None  # once only

    timeout = await games.timeouts.enforce(game.id, t0 + 2 * T, T)
    assert timeout is not None and timeout[0] is TurnEvent.TIMEOUT
    ended = timeout[1]
    assert (ended.status, ended.result, ended.end_reason) == (GameStatus.FINISHED, "X", "timeout")
    assert format_cells(ended.board) == "____X____"
    assert game.id not in await games.timeouts.overdue(t0 + 3 * T, T)
    assert await games.timeouts.enforce(game.id, t0 + 3 * T, T) is None


async def test_a_move_restarts_the_turn_clock(games: Games) -> None:
    game = await started_game(games)
    t0 = utcnow()
    nudge = await games.timeouts.enforce(game.id, t0 + T, T)
    assert nudge is not None and nudge[0] is TurnEvent.NUDGE
    game = await play_moves(games, nudge[1], [0])
    assert game.nudges == 0
    t1 = utcnow()
    # Two timeouts after the first turn began, but only one since the move: Bob is nudged.
    again = await games.timeouts.enforce(game.id, t1 + T, T)
    assert again is not None and again[0] is TurnEvent.NUDGE and again[1].to_move == "O"


async def test_nobody_joining_expires_the_challenge_after_two_timeouts(
    games: Games,
) -> None:
    challenge = await games.challenges.create(GROUP, ALICE)
    t0 = utcnow()
    assert challenge.id in await games.timeouts.overdue(t0 + T, T)
    assert await games.timeouts.enforce(challenge.id, t0 + T, T) is None
    expired = await games.timeouts.enforce(challenge.id, t0 + 2 * T, T)
    assert expired is not None and expired[0] is TurnEvent.EXPIRED
    assert (expired[1].status, expired[1].end_reason) == (GameStatus.CANCELLED, "expired")
    assert (await games.challenges.join(challenge.id, HERE, BOB)).status is MoveStatus.GAME_OVER


async def test_games_without_two_people_have_no_turn_clock(games: Games) -> None:
    ai = (await games.play.start_game(ALICE.id, ALICE, "user", "hard")).game
    phone = (await games.play.start_game(BOB.id, BOB, "user", "user")).game
    later = utcnow() + 5 * T
    overdue = await games.timeouts.overdue(later, T)
    assert ai.id not in overdue
    assert await games.timeouts.enforce(ai.id, later, T) is None
    assert await games.timeouts.enforce(phone.id, later, T) is None
    current = await games.store.get_game(phone.id)
    assert current is not None and current.is_active and current.nudges == 0


# Stats and the leaderboard


async def test_stats_per_opponent_kind_and_streaks(games: Games) -> None:
    empty = await games.records.stats(ALICE.id)
    assert empty.by_opponent == {} and (empty.current_streak, empty.best_streak) == (0, 0)

    await won_by(games, ALICE, BOB)
    await won_by(games, ALICE, CAROL)
    for level in ("hard", "medium"):
        game = (await games.play.start_game(ALICE.id, ALICE, "user", level)).game
        ref = BoardRef(chat_id=ALICE.id)
        assert (await games.play.tap(game.id, ref, ALICE, 0, 4)).played
        assert (await games.resigning.resign(game.id, ref, ALICE)).played
    # A game nobody moved in counts nowhere, resigned or timed out.
    unmoved = await started_game(games, ALICE, BOB)
    assert (await games.resigning.resign(unmoved.id, HERE, ALICE)).played
    for _ in range(3):
        await won_by(games, ALICE, BOB)
    await drawn(games, ALICE, BOB)
    # Two players on one phone count for nobody.
    phone = (await games.play.start_game(ALICE.id, ALICE, "user", "user")).game
    assert (await games.resigning.resign(phone.id, BoardRef(chat_id=ALICE.id), ALICE)).played

    stats = await games.records.stats(ALICE.id)
    assert stats.by_opponent == {
        HUMAN: Record(wins=5, losses=0, draws=1),
        "hard": Record(0, 1, 0),
        "medium": Record(0, 1, 0),
    }
    assert (stats.total.wins, stats.total.losses, stats.total.draws) == (5, 2, 1)
    assert stats.total.played == 8
    assert (stats.current_streak, stats.best_streak) == (0, 3)  # the draw ended the streak

    await won_by(games, ALICE, DAVE)
    stats = await games.records.stats(ALICE.id)
    assert (stats.current_streak, stats.best_streak) == (1, 3)

    bob = await games.records.stats(BOB.id)
    assert bob.by_opponent == {HUMAN: Record(0, 4, 1)}
    assert (bob.current_streak, bob.best_streak) == (0, 0)


async def test_top_ranks_the_groups_players(games: Games) -> None:
    assert await games.records.top(GROUP) == []
    await won_by(games, ALICE, BOB)
    await won_by(games, ALICE, CAROL)
    await won_by(games, BOB, CAROL)
    await drawn(games, CAROL, DAVE)
    await drawn(games, BOB, DAVE)
    # Not in this group's table: games elsewhere, against the AI, open or running games.
    elsewhere = await started_game(games, DAVE, CAROL, chat=GROUP - 1)
    there = BoardRef(chat_id=GROUP - 1)
    assert (await games.play.tap(elsewhere.id, there, DAVE, 0, 4)).played
    assert (await games.resigning.resign(elsewhere.id, there, CAROL)).played
    ai = (await games.play.start_game(GROUP, DAVE, "user", "easy", replace_current=False)).game
    assert (await games.resigning.resign(ai.id, HERE, DAVE)).played
    await started_game(games, DAVE, ALICE)
    await games.challenges.create(GROUP, DAVE)

    table = [(row.name, row.record) for row in await games.records.top(GROUP)]
    assert table == [
        ("Alice", Record(2, 0, 0)),
        ("Bob", Record(1, 1, 1)),
        ("Dave", Record(0, 0, 2)),  # ties on wins: fewer losses first
        ("Carol", Record(0, 2, 1)),
    ]
    assert [row.name for row in await games.records.top(GROUP, limit=2)] == ["Alice", "Bob"]
    assert [(r.name, r.record) for r in await games.records.top(GROUP - 1)] == [
        ("Dave", Record(1, 0, 0)),
        ("Carol", Record(0, 1, 0)),
    ]


# Review


async def test_review_names_the_first_losing_move(games: Games) -> None:
    game = await play_moves(games, await started_game(games), EDGE_REPLY_LOSES)
    assert game.result == "X" and game.end_reason == "line"

    review = await games.reviews.review(game.id, HERE, BOB)
    assert review.status is ReviewStatus.MISTAKE
    assert (review.move_number, review.played_cell, review.better_cell) == (2, 1, 4)
    assert (review.played_score, review.better_score) == (-3, 0)
    assert (await games.reviews.review(game.id, HERE, ALICE)).status is ReviewStatus.WON
    assert (await games.reviews.review(game.id, HERE, CAROL)).status is ReviewStatus.NOT_A_PLAYER
    wrong = BoardRef(chat_id=GROUP - 1)
    assert (await games.reviews.review(game.id, wrong, BOB)).status is ReviewStatus.NO_GAME
    assert (await games.reviews.review(game.id + 99, HERE, BOB)).status is ReviewStatus.NO_GAME


async def test_review_of_draws_and_running_games(games: Games) -> None:
    perfect = await drawn(games, ALICE, BOB)
    for user in (ALICE, BOB):
        assert (await games.reviews.review(perfect.id, HERE, user)).status is ReviewStatus.PERFECT

    sloppy = await play_moves(games, await started_game(games), SLOPPY_DRAW)
    assert sloppy.result == "draw"
    o_review = await games.reviews.review(sloppy.id, HERE, BOB)
    assert (o_review.status, o_review.move_number, o_review.played_cell) == (
        ReviewStatus.MISTAKE,
        4,
        2,
    )
    assert o_review.played_score is not None and o_review.played_score < 0
    assert o_review.better_score == 0
    x_review = await games.reviews.review(sloppy.id, HERE, ALICE)
    assert (x_review.move_number, x_review.played_cell, x_review.better_cell) == (7, 5, 7)
    assert (x_review.played_score, x_review.better_score) == (0, 3)

    running = await started_game(games)
    assert (await games.reviews.review(running.id, HERE, ALICE)).status is ReviewStatus.NOT_FINISHED


# Group migration


async def test_games_follow_a_group_that_became_a_supergroup(games: Games) -> None:
    supergroup = -1001234567890
    game = await started_game(games)
    open_challenge = await games.challenges.create(GROUP, CAROL)
    other = await started_game(games, CAROL, DAVE, chat=GROUP - 1)
    assert await games.chats.migrate(GROUP, supergroup) == 2
    assert await games.chats.migrate(GROUP, supergroup) == 0  # both service messages come

    new_ref = BoardRef(chat_id=supergroup)
    assert (await games.play.tap(game.id, HERE, ALICE, 0, 4)).status is MoveStatus.NO_GAME
    moved = await games.play.tap(game.id, new_ref, ALICE, 0, 4)
    assert moved.played and moved.game is not None and moved.game.chat_id == supergroup
    assert (await games.challenges.join(open_challenge.id, new_ref, BOB)).played
    other_now = await games.store.get_game(other.id)
    assert other_now is not None and other_now.chat_id == GROUP - 1
    assert (await games.resigning.resign(game.id, new_ref, BOB)).played
    assert [row.name for row in await games.records.top(supergroup)] == ["Alice", "Bob"]
    assert await games.records.top(GROUP) == []
