"""Privacy: `/forget` deletes everything stored about a user."""

from __future__ import annotations

from sqlalchemy import func, or_, select, update

from bot.games.db import reads, store
from bot.games.db.models import Game, Move
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
            games = await reads.load_all(
                session,
                or_(
                    Game.x_player_id == uid,
                    Game.o_player_id == uid,
                    Game.t_player_id == uid,
                    Game.s_player_id == uid,
                    Game.created_by_id == uid,
                    Game.invited_player_id == uid,
                ),
            )
            deleted = moves = anonymized = 0
            ended: list[GameView] = []
            for game in games:
                view = game.view
                seated = {view.player_id_of(mark) for mark in view.marks}
                others = {*seated, view.invited_player_id} - {uid, None}
                if not others and view.created_by_id in (uid, None):
                    moves += (
                        await session.scalar(
                            select(func.count()).select_from(Move).where(Move.game_id == view.id)
                        )
                        or 0
                    )
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
            await session.execute(update(Move).where(Move.player_id == uid).values(player_id=None))
            await tournament_rows.forget(session, uid)
            await player_rows.delete_player(session, uid)
            return ForgetReport(had_profile, deleted, moves, anonymized, tuple(ended))
