"""AI turns in the background: AI-vs-AI matches (one move per pause) and replies of an AI
that needs time to think (hard on a big board).

An AI match's frames are background traffic (`Pace.FRAME`): when its chat has no room under
Telegram's flood limits, a frame is skipped and the next one shows both moves; the final board
always comes (`Pace.BACKGROUND`). A match whose board message is not known (its posting got no
answer, so it may be in the chat already) is played on without frames, and its final board is
posted at the end rather than a second live board beside the first. An AI's reply to a person
is shown like the person's own move (`Pace.PERSON`)."""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot
from telegram.error import TelegramError

from bot.chat.presenter import Presenter
from bot.games.db.engine import StorageError
from bot.games.db.store import Store
from bot.games.model import GameView
from bot.games.play import lifecycle
from bot.games.play.ai_turns import AiTurns
from bot.telegram.flood_gate import FrameSkipped, Pace

log = logging.getLogger(__name__)

#: Waits between tries of a match whose database failed (seconds): about ten minutes in all,
#: then it is left to the next start or the next move in it.
RETRY_WAITS = (0.2, 0.5, 1, 2, 5, 10, 30, 60, 60, 120, 120, 180, 180)


class AiMatchRunner:
    """Plays the AI's turns of a game, one task per game. The state lives in the database, so
    a game interrupted by a restart is resumed by `start` with the same game id."""

    def __init__(
        self,
        games: Store,
        ai_turns: AiTurns,
        presenter: Presenter,
        bot: Bot,
        pause_seconds: float,
    ) -> None:
        self._store = games
        self._ai_turns = ai_turns
        self._presenter = presenter
        self._bot = bot
        self._pause = pause_seconds
        self._tasks: dict[int, asyncio.Task[None]] = {}
        #: Games whose running task must read the game once more before it ends: a move
        #: (a tap) may have come in after its last read.
        self._again: set[int] = set()
        # Games whose last move this runner played: their ending is not a reason to stop.
        self._ended_here: set[int] = set()

    def start(self, game_id: int) -> None:
        if game_id in self._tasks:
            self._again.add(game_id)
            return
        task = asyncio.create_task(self._run(game_id), name=f"ai-turns-{game_id}")
        self._tasks[game_id] = task
        task.add_done_callback(lambda done: self._forget(game_id, done))  # cancelled early too

    def follow(self, game: GameView) -> None:
        """Start playing the AI's turns if the AI is to move in this game."""
        if game.waits_for_ai:
            self.start(game.id)

    async def reply_at_once(self, game: GameView) -> GameView:
        """The AI's reply to a person's move when it is quick (`lifecycle.is_quick`), awaited
        so the board shows both moves in one edit, with no "thinking…" edit between them;
        else, or when the database fails, the game as it was (`follow` then plays the AI's
        turn in the background, retrying)."""
        if game.is_ai_match or not game.waits_for_ai:
            return game
        level = game.kind_to_move.level
        if level is None or not lifecycle.is_quick(level, game):
            return game
        try:
            return await self._ai_turns.step(game.id) or game
        except (StorageError, OSError):
            log.warning("the AI's reply in game %s: the database failed", game.id, exc_info=True)
            return game

    @property
    def playing(self) -> frozenset[int]:
        """The games whose AI turns are being played now."""
        return frozenset(self._tasks)

    def cancel(self, game_id: int) -> None:
        """Stop the AI turns of a game that ended (`bot.listeners.ended_boards`), unless its
        own last move ended it: then its task is showing that final board."""
        task = self._tasks.get(game_id)
        if task is not None and game_id not in self._ended_here:
            task.cancel()

    async def stop_all(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, game_id: int) -> None:
        try:
            for wait in RETRY_WAITS:
                try:
                    await self._play(game_id)
                    return
                except (StorageError, OSError):
                    # The database is down or busy: the match's state is in it, so try again
                    # later rather than let the task die (matches resume only at start-up).
                    log.warning(
                        "AI turns of game %s: the database failed; again in %s s",
                        game_id,
                        wait,
                        exc_info=True,
                    )
                    await asyncio.sleep(wait)
            log.error("AI turns of game %s: the database kept failing; left for later", game_id)
        except Exception:
            # A bug, not a fault to wait out: said once with its traceback, not left for
            # asyncio's "exception was never retrieved".
            log.exception("AI turns of game %s stopped", game_id)
        finally:
            # At once, with no await since the last read: a `start` from now on starts anew.
            self._forget(game_id, asyncio.current_task())

    def _forget(self, game_id: int, task: asyncio.Task[None] | None) -> None:
        if self._tasks.get(game_id) is task:
            del self._tasks[game_id]
            self._again.discard(game_id)
            self._ended_here.discard(game_id)

    async def _play(self, game_id: int) -> None:
        while True:
            self._again.discard(game_id)
            game = await self._store.get_game(game_id)
            if game is None or not game.waits_for_ai:
                if game_id in self._again:
                    continue  # a move came in while it was read: read it again
                return
            if game.is_ai_match:
                await asyncio.sleep(self._pause)  # paced so spectators can follow
            game = await self._ai_turns.step(game_id)
            if game is None:
                if game_id in self._again:
                    continue
                return
            if not game.is_live:
                # Set before the next await: the ending's listeners run from then on.
                self._ended_here.add(game_id)
            try:
                await self._show(game)
            except FrameSkipped:
                log.debug("game %s: frame skipped under the flood limits", game_id)
            except TelegramError:
                # The move is saved; the next edit shows it. Never let a match task crash.
                log.warning("could not show an AI move of game %s", game_id, exc_info=True)

    async def _show(self, game: GameView) -> None:
        """Show an AI move at its pace."""
        show = self._presenter.show
        if not game.is_ai_match:
            await show(game, ai=False)
        elif game.waits_for_ai:
            if game.inline_message_id is not None or game.message_id is not None:
                await show(game, pace=Pace.FRAME, ai=False)
            # else the board is not known: no frames, the final board is posted
        elif game.inline_message_id is None and game.message_id is None and game.chat_id:
            await self._presenter.post(game.chat_id, game, pace=Pace.BACKGROUND, ai=False)
        else:
            await show(game, pace=Pace.BACKGROUND, ai=False)
