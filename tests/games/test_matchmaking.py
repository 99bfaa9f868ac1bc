"""Matchmaking on a real database: the queue, pairing (on two instances at once, with
updates delivered twice), blocks, and the ratings of games between strangers."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.models import utcnow
from bot.games.model import BoardRef, GameStatus, PlayerInfo
from bot.games.strangers.matchmaking import JoinStatus
from bot.games.strangers.pairing import Waiting, board_key, board_of_key, pairs, window
from bot.games.use_cases import Games, open_games
from core import glicko2
from core.board import Board
from core.positions import ULTIMATE

ANN = PlayerInfo(3001, "Ann Smith", "en")
BEN = PlayerInfo(3002, "Ben", "fa")
CID = PlayerInfo(3003, "Cid", "en")
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def waiting(player_id: int, rating: float, seconds: float, board: str = "3x3") -> Waiting:
    return Waiting(
        player_id, f"P{player_id}", board, rating, player_id, None, None,
        NOW - timedelta(seconds=seconds),
    )  # fmt: skip


def test_the_window_widens_with_the_wait_and_the_nearest_rating_is_taken() -> None:
    assert window(timedelta(0)) == 100
    assert window(timedelta(seconds=30)) == 400
    old, near, far = waiting(1, 1500, 0), waiting(2, 1650, 0), waiting(3, 1550, 0)
    assert pairs([old, near], set(), NOW) == []  # 150 apart: not at once
    assert pairs([waiting(1, 1500, 10), near], set(), NOW) != []  # after 10 s: ±200
    # The longest waiting first, with the nearest rating in reach; the longer waiter is X.
    made = pairs([waiting(1, 1500, 20), near, far], set(), NOW)
    assert [(a.player_id, b.player_id) for a, b in made] == [(1, 3)]
    assert pairs([old, waiting(2, 1500, 0, board="6x6k5")], set(), NOW) == []
    assert pairs([old, waiting(2, 1500, 0)], {frozenset((1, 2))}, NOW) == []


@given(
    st.lists(
        st.tuples(
            st.integers(1, 12),
            st.floats(800, 2200),
            st.floats(0, 120),
            st.sampled_from(["3x3", "6x6k5", "ultimate"]),
        ),
        max_size=30,
    ),
    st.sets(st.frozensets(st.integers(1, 12), min_size=2, max_size=2), max_size=5),
)
def test_pairs_never_repeat_a_player_or_cross_boards_or_blocks(
    entries: list[tuple[int, float, float, str]], blocked: set[frozenset[int]]
) -> None:
    queue = {pid: waiting(pid, rating, secs, board) for pid, rating, secs, board in entries}
    made = pairs(queue.values(), blocked, NOW)
    seen = Counter(p.player_id for pair in made for p in pair)
    assert all(count == 1 for count in seen.values())
    for first, second in made:
        assert first.player_id != second.player_id and first.board == second.board
        assert frozenset((first.player_id, second.player_id)) not in blocked
        assert abs(first.rating - second.rating) <= window(first.waited(NOW))
        assert first.joined_at <= second.joined_at
    # Nobody waits forever: once everyone waited long enough, all but one per board (and
    # those only blocked from everyone left) are paired.
    if not blocked:
        late = [replace_wait(w, 600) for w in queue.values()]
        left = Counter(w.board for w in late) - Counter(
            p.board for pair in pairs(late, set(), NOW) for p in pair
        )
        assert all(count <= 1 for count in left.values())


def replace_wait(w: Waiting, seconds: float) -> Waiting:
    return waiting(w.player_id, w.rating, seconds, w.board)


def test_board_keys_round_trip() -> None:
    for board in (Board.empty(), Board.empty(6, 5), Board.empty(7, 4), ULTIMATE.empty_board()):
        assert board_of_key(board_key(board)) == board
    assert board_key(Board.empty(8, 5)) == "8x8k5"


async def test_two_strangers_are_paired_into_one_game_on_two_boards(games: Games) -> None:
    first = await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    assert first.status is JoinStatus.QUEUED and first.waiting is not None
    assert first.waiting.rating == glicko2.BASE_RATING
    again = await games.matchmaking.join(ANN, ANN.id, "3x3", "en")  # a second /play
    assert again.status is JoinStatus.QUEUED
    assert again.waiting is not None and again.waiting.joined_at == first.waiting.joined_at
    paired = await games.matchmaking.join(BEN, BEN.id, "3x3", "fa")
    assert paired.status is JoinStatus.PAIRED and paired.game is not None
    game = paired.game
    assert (game.x_player_id, game.o_player_id) == (ANN.id, BEN.id)  # the longer waiter: X
    assert (game.chat_id, game.second_chat_id) == (ANN.id, BEN.id)
    assert (game.language, game.second_language) == ("en", "fa")
    assert game.is_between_strangers and game.is_active
    assert await games.matchmaking.waiting() == []
    # Busy: no second game for either while this one runs.
    busy = await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    assert busy.status is JoinStatus.PLAYING and busy.game is not None
    assert busy.game.id == game.id
    # A move from either chat; typed moves find the game from ⭕'s chat too.
    assert (await games.play.tap(game.id, BoardRef(ANN.id), ANN, 0, 4)).played
    typed = await games.play.typed(BEN.id, BEN, "1 1")
    assert typed.played and typed.game is not None and typed.game.board[0] == "O"
    # /stop in ⭕'s chat resigns the game.
    stopped = await games.play.stop_current(BEN.id, BEN)
    assert stopped.game is not None and stopped.game.result == "X"


async def test_cancel_leaves_the_queue_once(games: Games) -> None:
    await games.matchmaking.join(ANN, ANN.id, "6x6k5", None)
    assert (await games.matchmaking.cancel(ANN.id)) is not None
    assert await games.matchmaking.cancel(ANN.id) is None
    assert await games.matchmaking.waiting() == []


async def test_another_board_keeps_the_entry_and_its_waiting_message(games: Games) -> None:
    await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    await games.matchmaking.attach_message(ANN.id, 77, utcnow())
    moved = await games.matchmaking.join(ANN, ANN.id, "6x6k5", "en")
    assert moved.waiting is not None
    assert (moved.waiting.board, moved.waiting.message_id) == ("6x6k5", 77)
    assert len(await games.matchmaking.waiting()) == 1


async def test_a_wait_past_the_limit_is_let_go_once(games: Games) -> None:
    await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    assert await games.matchmaking.expire(datetime.now(UTC) - timedelta(minutes=5)) == []
    (gone,) = await games.matchmaking.expire(datetime.now(UTC) + timedelta(seconds=1))
    assert gone.player_id == ANN.id and await games.matchmaking.waiting() == []
    assert await games.matchmaking.expire(datetime.now(UTC) + timedelta(seconds=1)) == []


async def test_an_undone_pairing_deletes_the_game_and_requeues_the_other_as_they_were(
    games: Games,
) -> None:
    await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    await games.matchmaking.attach_message(ANN.id, 55, utcnow())
    before = await games.matchmaking.waiting_of(ANN.id)
    paired = (await games.matchmaking.join(BEN, BEN.id, "3x3", "fa")).paired
    assert paired is not None and before is not None
    ann, ben = paired.players
    assert await games.matchmaking.undo_pairing(paired.game.id, ann, ben)
    assert await games.matchmaking.stranger_game_of(ANN.id) is None
    assert await games.matchmaking.waiting() == [before]  # her place and message kept
    assert not await games.matchmaking.undo_pairing(paired.game.id, ann, ben)


async def test_a_stranger_game_is_rated_for_both_and_then_their_group_games_count(
    games: Games,
) -> None:
    await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    game = (await games.matchmaking.join(BEN, BEN.id, "3x3", "en")).game
    assert game is not None
    await games.play.tap(game.id, BoardRef(ANN.id), ANN, 0, 4)
    over = await games.resigning.resign(game.id, BoardRef(BEN.id), BEN)
    assert over.game is not None and over.game.result == "X"
    rated = over.game
    assert rated.x_rating_change is not None
    assert rated.o_rating_change is not None
    assert rated.x_rating_change > 0 > rated.o_rating_change
    # Both are rated in 3×3 between people now: a group game between them counts, and the
    # next one less (the same pair again within a day).
    changes = []
    for _ in range(2):
        challenge = await games.challenges.create(-100, ANN)
        joined = await games.challenges.join(challenge.id, BoardRef(-100), BEN)
        assert joined.game is not None
        await games.play.tap(joined.game.id, BoardRef(-100), ANN, 0, 4)
        done = await games.resigning.resign(joined.game.id, BoardRef(-100), BEN)
        assert done.game is not None and done.game.x_rating_change is not None
        changes.append(done.game.x_rating_change)
    ann = {r.pool: r for r in await games.ratings.of_player(ANN.id)}
    assert ann["3x3"].games == 3 and changes[1] < changes[0]


async def test_a_blocked_stranger_is_never_paired_again(games: Games) -> None:
    await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    game = (await games.matchmaking.join(BEN, BEN.id, "3x3", "en")).game
    assert game is not None
    await games.resigning.resign(game.id, BoardRef(BEN.id), BEN)
    assert await games.matchmaking.block(BEN, game.id) == "Ann Smith"
    assert await games.matchmaking.block(CID, game.id) is None  # not their game
    await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    assert (await games.matchmaking.join(BEN, BEN.id, "3x3", "en")).status is JoinStatus.QUEUED
    paired = await games.matchmaking.join(CID, CID.id, "3x3", "en")
    assert paired.game is not None and {paired.game.x_player_id, paired.game.o_player_id} == {
        ANN.id,
        CID.id,
    }


@pytest.fixture
async def second_instance(games: Games, database_url: str) -> AsyncIterator[Games]:
    """The use-cases of another bot instance on the same database."""
    engine = create_engine(database_url)
    try:
        yield open_games(create_session_factory(engine), random.Random(8))
    finally:
        await engine.dispose()


async def test_two_instances_pair_many_players_joining_and_cancelling_at_once(
    games: Games, second_instance: Games
) -> None:
    rng = random.Random(5)
    people = [PlayerInfo(5000 + i, f"P{i}", "en") for i in range(24)]
    instances = (games, second_instance)
    # Every join delivered twice (to either instance), a third of them cancelled at once.
    work = []
    for person in people:
        for _ in range(2):
            work.append(rng.choice(instances).matchmaking.join(person, person.id, "3x3", None))
    cancelled = set(rng.sample([p.id for p in people], 8))
    for player_id in cancelled:
        work.append(rng.choice(instances).matchmaking.cancel(player_id))
    rng.shuffle(work)
    await asyncio.gather(*work)
    # Both instances' rounds at once, twice over.
    for _ in range(2):
        await asyncio.gather(*(i.matchmaking.pair_waiting() for i in instances))
    seats: Counter[int] = Counter()
    for person in people:
        game = await games.matchmaking.stranger_game_of(person.id)
        if game is not None:
            assert game.x_player_id != game.o_player_id
            assert game.status == GameStatus.ACTIVE
            seats[person.id] += 1
    all_games = {
        g.id for p in people if (g := await games.matchmaking.stranger_game_of(p.id)) is not None
    }
    assert len(all_games) * 2 == len(seats)  # each game has two players, none twice
    left = await games.matchmaking.waiting()
    assert len(left) <= 1  # all on one board, one rating: nobody is left waiting for nothing
    assert not ({w.player_id for w in left} & set(seats))


async def test_one_player_joining_many_times_at_once_has_one_entry(games: Games) -> None:
    # Each join upserts the player's row first: that row's lock takes them one at a time,
    # and each after the first finds the entry the first one made.
    results = await asyncio.gather(
        *(games.matchmaking.join(ANN, ANN.id, "3x3", "en") for _ in range(6))
    )
    assert {r.status for r in results} == {JoinStatus.QUEUED}
    (entry,) = await games.matchmaking.waiting()
    assert entry.player_id == ANN.id


async def test_a_waiting_message_is_redrawn_by_one_instance_and_never_once_gone(
    games: Games, second_instance: Games
) -> None:
    await games.matchmaking.join(ANN, ANN.id, "3x3", "en")
    now = datetime.now(UTC)
    before = now - timedelta(seconds=5)
    claims = await asyncio.gather(
        games.matchmaking.claim_redraw(ANN.id, now, drawn_before=before),
        second_instance.matchmaking.claim_redraw(ANN.id, now, drawn_before=before),
    )
    assert sorted(claims) == [False, True]
    # Not due again until it was drawn before `drawn_before`; the AI's offer is due once.
    assert not await games.matchmaking.claim_redraw(ANN.id, now, drawn_before=before)
    assert await games.matchmaking.claim_redraw(ANN.id, now, drawn_before=before, offer=True)
    assert not await games.matchmaking.claim_redraw(ANN.id, now, drawn_before=before, offer=True)
    later = now + timedelta(seconds=6)
    assert await games.matchmaking.claim_redraw(ANN.id, later, drawn_before=now)
    await games.matchmaking.cancel(ANN.id)
    assert not await games.matchmaking.claim_redraw(ANN.id, later, drawn_before=later)
