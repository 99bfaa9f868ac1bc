"""A private chat's side of playing strangers: its current game closed before a search (so a
pairing never leaves two games in one chat), and words typed to a stranger answered once."""

from __future__ import annotations

from bot.games.db import reads
from bot.games.db.rows import games as game_rows
from bot.games.db.store import Store
from bot.games.model import GameView, PlayerInfo, StartResult
from bot.games.play.use_cases import close_chat_games


class StrangerChats:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def first_chatter(self, game: GameView, player_id: int) -> bool:
        """Whether words `player_id` typed in this game between strangers are the first of
        theirs that are not a move: they are told, once a game, that words do not reach the
        opponent; the rest are let be. Settled in the database, so that of two instances
        hearing words at once only one tells."""
        mark = game.mark_of(player_id)
        if mark is None:
            return False
        seat = 1 << game.marks.index(mark)
        async with self._store.transaction() as transaction:
            return await game_rows.tell_once(transaction, game.id, seat)

    async def clear_for_stranger(
        self, chat_id: int, user: PlayerInfo, resign_underway: bool
    ) -> StartResult:
        """Before the user looks for a stranger from their private chat: its current game is
        closed, as a new game closes it (`play.close_chat_games`: resigned only with
        `resign_underway`; else nothing changes and `underway` names it), so a pairing never
        leaves them two games in one chat. Nothing closes while they play a stranger
        already: the queue would refuse them (`stranger` names that game)."""
        async with self._store.transaction() as session:
            playing = await reads.stranger_game_of(session, user.id)
            if playing is not None:
                return StartResult(None, stranger=playing.view)
            live = await reads.live_games_in_chat(session, chat_id)
            if not live:
                return StartResult(None)
            closed, underway = await close_chat_games(session, live, user.id, resign_underway)
        return StartResult(None, closed, underway=underway)
