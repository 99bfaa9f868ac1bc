"""Records: a player's wins, losses and draws, a group's leaderboard, and how many games are
live."""

from __future__ import annotations

from bot.games.db.rows import games as game_rows
from bot.games.db.store import Store
from bot.games.model import HUMAN, USER, Outcome
from bot.games.play.lifecycle import outcome_for
from bot.games.summaries import LeaderRow, Record, Stats
from core.board import other
from core.mnk_results import is_forced_win


class Records:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def live_games(self) -> int:
        """Open challenges and running games, every instance's (one COUNT: read when the
        metrics are scraped, never per update)."""
        async with self._store.sessions() as session:
            return await game_rows.count_live(session)

    async def stats(self, user_id: int) -> Stats:
        """A user's wins, losses and draws against each AI level and against people, and
        their current and best winning streaks."""
        async with self._store.sessions() as session:
            # Streaks follow the order games ended in.
            found = await game_rows.finished_games_of(session, user_id)
        by_opponent: dict[str, Record] = {}
        assisted, unrated = Record(), Record()
        streak = best = 0
        for game in (loaded.view for loaded in found):
            mine = game.mark_of(user_id)
            if game.is_one_phone or mine is None or game.ply == 0:
                # Two players on one phone: not a record against anybody. A game nobody
                # moved in (resigned or timed out before the first move) counts nowhere.
                continue
            theirs = USER if game.is_many else game.kind_of(other(mine))
            outcome = outcome_for(game.result, mine)
            if game.assisted:
                assisted.add(outcome)  # helped: neither a record against the AI nor a streak
                continue
            if game.is_against_ai and is_forced_win(game.board):
                unrated.add(outcome)  # Hard cannot hold the board: not a record against it
                continue
            by_opponent.setdefault(HUMAN if theirs == USER else theirs, Record()).add(outcome)
            streak = streak + 1 if outcome == Outcome.WIN else 0
            best = max(best, streak)
        return Stats(
            by_opponent,
            current_streak=streak,
            best_streak=best,
            assisted=assisted,
            unrated=unrated,
        )

    async def top(self, chat_id: int, limit: int = 10) -> list[LeaderRow]:
        """The chat's leaderboard of games between people played there."""
        async with self._store.sessions() as session:
            found = await game_rows.finished_between_people_in(session, chat_id)
        table: dict[int, LeaderRow] = {}
        for game in (loaded.view for loaded in found if loaded.view.ply > 0):
            for mark in game.marks:
                player_id, name = game.player_id_of(mark), game.name_of(mark)
                if player_id is None:
                    continue
                row = table.setdefault(player_id, LeaderRow(player_id, name or "?", Record()))
                row.record.add(outcome_for(game.result, mark))
        ranked = sorted(
            table.values(),
            key=lambda r: (-r.record.wins, r.record.losses, -r.record.draws, r.name),
        )
        return ranked[:limit]
