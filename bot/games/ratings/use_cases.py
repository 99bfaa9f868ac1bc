"""Ratings: Glicko-2 (`core.glicko2`) per pool; the player's rating, and the global ladder
(opt-in). A game is rated where it ends, in the transaction that ends it (`endings`).

Each rated game is its own rating period (as online game sites do): a player's rating moves
after every game, not once a day. Why Glicko-2 rather than Elo: a newcomer's rating is
uncertain and says so (the deviation), so their first games move it far and a settled
player's little, without hand-tuned K factors; a player back after a break is less certain
again; and "provisional" falls out of the deviation (`Rating.is_provisional`).

Which games count, and how, is `rating_rules`.
"""

from __future__ import annotations

from bot.games.db.rows import players as player_rows
from bot.games.db.rows import ratings as rating_rows
from bot.games.db.store import Store
from bot.games.model import PlayerInfo
from bot.games.summaries import LadderRow, PoolRating
from core import glicko2

#: The global ladder shows established ratings only: a deviation under this, Glicko-2's own
#: line between a guess and a rating (a 95% interval narrower than ±220). A newcomer's first
#: lucky wins put nobody at the top.
LADDER_DEVIATION = glicko2.PROVISIONAL_DEVIATION


class Ratings:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def of_player(self, player_id: int) -> list[PoolRating]:
        """The player's ratings, one per pool they played in."""
        async with self._store.sessions() as session:
            return await rating_rows.of_player(session, player_id)

    async def rating_in(self, player_id: int, pool: str) -> glicko2.Rating:
        """The player's rating in `pool` (a newcomer's if they have none)."""
        async with self._store.sessions() as session:
            return await rating_rows.stored_rating(session, player_id, pool) or glicko2.Rating()

    async def ladder(self, pool: str, limit: int = 10) -> list[LadderRow]:
        """The best established ratings (`LADDER_DEVIATION`) of a pool, of players who chose
        to be on the ladder."""
        async with self._store.sessions() as session:
            return await rating_rows.ladder(session, pool, LADDER_DEVIATION, limit)

    async def set_on_ladder(self, user: PlayerInfo, on: bool) -> None:
        """Show the user on the global ladder (first name and rating), or not."""
        async with self._store.transaction() as session:
            await player_rows.upsert_player(session, user)
            await player_rows.set_on_ladder(session, user.id, on)

    async def is_on_ladder(self, user_id: int) -> bool:
        async with self._store.sessions() as session:
            return await player_rows.is_on_ladder(session, user_id)
