"""Privacy: `/forget` deletes everything stored about a user."""

from __future__ import annotations

from bot.games.db import store
from bot.games.db.rows import games as game_rows
from bot.games.db.rows import players as player_rows
from bot.games.db.rows import tournaments as tournament_rows
from bot.games.db.store import Store
from bot.games.model import LIVE, GameView, PlayerInfo
from bot.games.play import lifecycle
from bot.games.summaries import ForgetReport


class Privacy:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def forget(self, user: PlayerInfo) -> ForgetReport:
        """Delete everything stored about a user. Games of theirs alone (against the AI, on one
        phone) go entirely; games against people stay for the other person, without this
        user's id. Running games end first: resigned, or a challenge withdrawn. A move racing
        the deletion makes it start again on the games as they are then."""
        return await self._store.until_won(lambda: self._forget(user.id))

    async def _forget(self, uid: int) -> ForgetReport:
        async with self._store.transaction() as session:
            had_profile = await player_rows.is_stored(session, uid)
            games = await game_rows.games_of(session, uid)
            deleted = moves = anonymized = 0
            ended: list[GameView] = []
            for game in games:
                view = game.view
                seated = {view.player_id_of(mark) for mark in view.marks}
                others = {*seated, view.invited_player_id} - {uid, None}
                if not others and view.created_by_id in (uid, None):
                    moves += await game_rows.count_moves(session, view.id)
                    shut = None
                    if view.status in LIVE and view.has_board_message:
                        shut = lifecycle.shut(view)
                        ended.append(shut)
                    await store.delete_game(session, game, shut)
                    deleted += 1
                    continue
                left = lifecycle.leave(view, uid)
                if left.status != view.status:
                    ended.append(left)
                await store.save(session, game, lifecycle.anonymize(left, uid))
                anonymized += 1
            await game_rows.forget_moves_of(session, uid)
            await tournament_rows.forget(session, uid)
            await player_rows.delete_player(session, uid)
            return ForgetReport(had_profile, deleted, moves, anonymized, tuple(ended))
