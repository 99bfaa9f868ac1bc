"""Where boards live in chats: the message that shows a game, groups that migrate, and chats
the bot is no longer in."""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.db import reads, store
from bot.games.db.models import utcnow
from bot.games.db.rows import games as game_rows
from bot.games.db.rows import players as player_rows
from bot.games.db.rows import tournaments as tournament_rows
from bot.games.db.store import Store
from bot.games.model import EndReason, GameView
from bot.games.play import lifecycle


class Chats:
    def __init__(self, games: Store) -> None:
        self._store = games

    async def attach_message(self, game_id: int, message_id: int, *, second: bool = False) -> None:
        """Remember which message shows the game's board (`second`: the second board of a
        game between strangers, in ⭕'s chat).

        Where the board lives is not game state: a plain UPDATE that leaves the version alone,
        so a tap racing the new board's first appearance is not refused as a conflict."""
        async with self._store.transaction() as session:
            game_rows.attach_message_later(
                session, game_id, message_id, second=second, now=utcnow()
            )
        if second:
            self._store.live.drop(game_id)  # read again, with its second board
        else:
            self._store.live.note_message(game_id, message_id)

    async def last_finished(self, chat_id: int) -> GameView | None:
        """The game that ended last in the chat with a result (for /card); a game between
        strangers ended in both players' chats."""
        async with self._store.sessions() as session:
            found = await game_rows.last_finished_in(session, chat_id)
        return found[0].view if found else None

    async def closed_while_away(self, chat_id: int, limit: int = 5) -> ClosedWhileAway:
        """What the block of a private chat's person closed: its messages there could not be
        edited then, so they are shown again once the person is back. The games (newest
        first, at most `limit`), and the waiting message of the search it ended (taken: it
        is told once)."""
        async with self._store.transaction() as session:
            away = await player_rows.away_of(session, chat_id)
            if away is None or away == (None, None):
                return ClosedWhileAway((), None)
            away_since, search_message_id = away
            found = []
            if away_since is not None:
                found = await game_rows.ended_in_since(
                    session, chat_id, CLOSED_BY_BLOCK, away_since
                )
            await player_rows.mark_back(session, chat_id)
        return ClosedWhileAway(tuple(game.view for game in found[:limit]), search_message_id)

    async def keep_search_message(self, player_id: int, message_id: int) -> None:
        """A waiting message that its search's end could not reach (its person blocked the bot
        as it was posted, before it was the search's): `closed_while_away` gives it back
        once they are back, as it does the messages of searches the block ended."""
        async with self._store.transaction() as session:
            await player_rows.keep_search_message(session, player_id, message_id)

    async def migrate(self, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup with a new id: its games follow it."""
        async with self._store.transaction() as session:
            moved = await game_rows.migrate_chat(session, old_chat_id, new_chat_id)
            await tournament_rows.migrate(session, old_chat_id, new_chat_id)
        self._store.live.clear()
        return moved

    async def close_all(self, chat_id: int) -> tuple[GameView, ...]:
        """The bot left the chat (removed from a group, or blocked in private): nobody can play
        its live games any more, so they are closed (challenges cancelled, games abandoned),
        and so are its tournaments (a sign-up cancelled, one running finished as it stands)."""

        async def close() -> tuple[GameView, ...]:
            async with self._store.transaction() as session:
                now = utcnow()
                if chat_id > 0:  # a private chat's id is its person's: away from now on
                    await player_rows.mark_away(session, chat_id, now)
                await tournament_rows.close_in_chat(session, chat_id, now)
                return tuple(
                    [
                        await store.save(session, game, _closed(game.view, chat_id))
                        for game in await reads.live_games_in_chat(session, chat_id)
                    ]
                )

        return await self._store.until_won(close)


@dataclass(frozen=True)
class ClosedWhileAway:
    """The games a person's block of the bot closed in their private chat, and the waiting
    message of the search it ended (None: none)."""

    games: tuple[GameView, ...]
    search_message_id: int | None


#: How `close_all` ends a private chat's games when its person blocks the bot.
CLOSED_BY_BLOCK = (EndReason.BLOCKED, EndReason.ABANDONED, EndReason.CANCELLED)


def _closed(game: GameView, chat_id: int) -> GameView:
    """A live game whose chat the bot left. In a private chat its player blocked the bot:
    they walk away from a running game they moved in (a loss, as a resignation: against a
    stranger whatever the moves, as the stranger is left waiting). A group that removed the
    bot ends its games with no result: nobody in particular left."""
    if chat_id > 0 and game.is_active:  # a private chat's id is the user's
        leaver = chat_id if game.mark_of(chat_id) is not None else None
        if leaver is not None and (
            game.is_between_strangers or lifecycle.is_underway(game, leaver)
        ):
            return lifecycle.resign(game, leaver, EndReason.BLOCKED)
    return lifecycle.shut(game)
