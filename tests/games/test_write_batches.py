"""A transaction's deferred writes (`CoreTransaction.later`), sent together at the commit: on
SQLite in one hop, on PostgreSQL straight on asyncpg (run these with TEST_DATABASE_URL to test
that one). A batch that stops at a failed condition leaves nothing behind, not even the writes
before it; an integrity error is SQLAlchemy's; writes flushed before a read join its
transaction and roll back with it."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import StaleDataError

from bot.games import store
from bot.games.db.models import Game, HandledUpdate, Move
from bot.games.db.writes import GuardFailed
from bot.games.lifecycle import PlayedMove
from bot.games.model import BoardRef, PlayerInfo, UpdateClaim
from bot.games.use_cases import Games

ALICE = PlayerInfo(101, "Alice", "en")
CHAT = 101


async def claimed_ids(games: Games) -> list[int]:
    async with games.store.sessions() as session:
        return list(await session.scalars(select(HandledUpdate.update_id)))


async def stored(games: Games, game_id: int) -> tuple[int, list[int]]:
    async with games.store.sessions() as session:
        version = await session.scalar(select(Game.version).where(Game.id == game_id))
        cells = await session.scalars(
            select(Move.cell).where(Move.game_id == game_id).order_by(Move.ply)
        )
        assert version is not None
        return version, list(cells)


async def test_a_claim_sent_with_a_stale_update_is_rolled_back_with_it(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    async with games.store.sessions() as session:
        loaded = await store.load(session, game.id)
    assert loaded is not None
    stale = store.Loaded(loaded.view, loaded.version + 5)  # somebody else wrote it since
    after = loaded.view.__class__(**{**loaded.view.__dict__, "nudges": 1})

    with pytest.raises(StaleDataError):
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(900, ALICE.id), guard=True)
            await store.save(transaction, stale, after, [PlayedMove(1, 4, "X", ALICE.id)])

    assert await claimed_ids(games) == []  # the claim went with the stale write
    assert await stored(games, game.id) == (loaded.version, [])
    assert (await games.updates.claim(900)).new  # so the update can still be acted on


async def test_a_claimed_update_stops_the_writes_after_it(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    assert (await games.updates.claim(901)).new
    async with games.store.sessions() as session:
        loaded = await store.load(session, game.id)
    assert loaded is not None
    after = loaded.view.__class__(**{**loaded.view.__dict__, "nudges": 1})

    with pytest.raises(GuardFailed):
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(901, ALICE.id), guard=True)
            await store.save(transaction, loaded, after, [PlayedMove(1, 4, "X", ALICE.id)])

    assert await stored(games, game.id) == (loaded.version, [])


async def test_a_broken_constraint_in_a_batch_is_sqlalchemys_integrity_error(
    games: Games,
) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    played = await games.play.tap(game.id, BoardRef(chat_id=CHAT), ALICE, 0, 4)
    assert played.game is not None

    with pytest.raises(IntegrityError):  # what the store answers as a lost race
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(902, ALICE.id))
            # Ply 1 is stored already.
            store._add_moves(transaction, game.id, [PlayedMove(1, 0, "X", ALICE.id)])

    assert await claimed_ids(games) == []
    assert (await stored(games, game.id))[1] == [4]


async def test_writes_sent_before_a_read_roll_back_with_its_transaction(games: Games) -> None:
    with pytest.raises(RuntimeError):
        async with games.store.transaction() as transaction:
            games.store.claim_later(transaction, UpdateClaim(903, ALICE.id))
            # A read sends the waiting writes first, inside the transaction.
            assert await store.live_games_in_chat(transaction, CHAT) == []
            raise RuntimeError("the use-case failed after the read")

    assert await claimed_ids(games) == []


async def test_a_lone_deferred_write_is_stored(games: Games) -> None:
    game = (await games.play.start_game(CHAT, ALICE, "user", "user")).game
    await games.chats.attach_message(game.id, 4242)
    async with games.store.sessions() as session:
        assert await session.scalar(select(Game.message_id).where(Game.id == game.id)) == 4242
