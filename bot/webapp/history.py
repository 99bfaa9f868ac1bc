"""A game's history on the page, beside its state: the game move by move (GET …/replay: a
finished game's replay, or a running game's moves so far, which the page shows when a move
of its list is tapped), and a tournament game's standings (GET …/standings), as the
tournament's message in its group writes them, in the user's words.

Both are the API's (bot.webapp.api) and answer as it does: 401 without a genuine
sign-in, 404 for a game the user may not see; 409 for a game with no moves to replay (open,
or closed unplayed), 404 for the standings of a game of no tournament.
"""

from __future__ import annotations

from typing import Any, Protocol

from aiohttp import web

from bot.chat.tournament import render_tournament
from bot.games.model import GameView, MoveStatus, PlayerInfo
from bot.games.page_reads import tournament_of
from bot.games.summaries import MoveRow, Replay
from bot.games.use_cases import Games
from bot.locales.texts import Texts
from bot.webapp.init_data import WebAppUser
from bot.webapp.requests import error, player_of
from bot.webapp.state import game_state


class Host(Protocol):
    """What these answers need of the Mini App (bot.webapp.api.MiniApp)."""

    @property
    def games(self) -> Games: ...

    def user(self, request: web.Request) -> WebAppUser: ...

    async def viewable_game(self, request: web.Request, user: WebAppUser) -> GameView: ...

    async def words_for(self, user: PlayerInfo) -> Texts: ...


async def replay(host: Host, request: web.Request) -> web.Response:
    """A game, move by move (`replay_frames`), as stored now (Replays.so_far)."""
    user = host.user(request)
    game = await host.viewable_game(request, user)
    found = await host.games.replays.so_far(game.id)
    if found is None:
        raise error(409, "the game has no moves to replay", "not_played")
    return web.json_response({"frames": replay_frames(found, user.id)})


async def standings(host: Host, request: web.Request) -> web.Response:
    """A tournament game's standings: the text of the tournament's message in its group
    (bot.chat.tournament), in the user's words."""
    user = host.user(request)
    game = await host.viewable_game(request, user)
    found = await tournament_of(host.games.store, game)
    if found is None:
        raise error(404, "no tournament", MoveStatus.NO_GAME)
    words = await host.words_for(player_of(user))
    return web.json_response({"text": render_tournament(found, words).text})


def replay_frames(replay: Replay, viewer_id: int) -> list[dict[str, Any]]:
    """A game's replay for the page: its state after each number of moves (0: the empty
    board; the last, the game as it is), as `game_state` draws it, none of them playable."""
    frames = []
    for ply in range(replay.length + 1):
        moves = [MoveRow(n + 1, cell, mark) for n, (cell, mark) in enumerate(replay.moves[:ply])]
        state = game_state(replay.at(ply), moves, viewer_id)
        frames.append({**state, "your_turn": False, "legal": [], "actions": []})
    return frames
