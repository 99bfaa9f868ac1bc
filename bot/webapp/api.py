"""The Mini App's routes on the bot's web server (bot.web), under /app/:

    GET  /app/                        the page (static/index.html); no data in it
    GET  /app/static/…                its CSS and JavaScript
    GET  /app/api/games               the user's open games (the start page)
    POST /app/api/games               {"level", "mark", "size"}: a new game against the AI,
                                      posted in the user's private chat as well
    GET  /app/api/games/{id}          a game's state (bot.webapp.state)
    POST /app/api/games/{id}/moves    {"ply", "cell"}: a move, exactly as a tap on the board
    GET  /app/api/games/{id}/events   server-sent events: the state whenever it changes

Every API call carries Telegram's initData in `Authorization: tma <initData>`. Without a
genuine, fresh one: 401; a game the user does not play in: 403; nothing changes either way.
A move goes through the same use-case as a tap in chat (`Play.tap`: the move number, the
turn, the game's version), and the chat's board is edited just as after a tap.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

from aiohttp import web
from telegram.error import TelegramError
from telegram.ext import Application

from bot.boards import send_board, show_board
from bot.games.model import USER, BoardRef, GameView, MoveStatus, PlayerInfo
from bot.webapp.init_data import InitDataError, WebAppUser, verify_init_data
from bot.webapp.links import PAGE_PATH
from bot.webapp.live import GameNotifier, stream_game
from bot.webapp.queries import game_and_moves, open_games_of
from bot.webapp.state import game_state, game_summary
from core.ai import LEVELS
from core.board import SIZES, X, board_size

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
MINI_APP = web.AppKey("mini_app", "MiniApp")

#: What a refused move answers: the page shows the state it is sent back.
REFUSED = {MoveStatus.NOT_A_PLAYER: 403, MoveStatus.NO_GAME: 404}


def add_routes(web_app: web.Application, application: Application) -> None:
    """The Mini App's page and API on `web_app`, for the bot `application`."""
    mini_app = MiniApp(application)
    web_app[MINI_APP] = mini_app
    web_app.on_shutdown.append(mini_app.close)
    api = PAGE_PATH + "api/games"
    web_app.router.add_get(PAGE_PATH, page)
    web_app.router.add_static(PAGE_PATH + "static/", STATIC)
    web_app.router.add_get(api, mini_app.list_games)
    web_app.router.add_post(api, mini_app.start_game)
    web_app.router.add_get(api + "/{game_id:[0-9]{1,18}}", mini_app.get_game)
    web_app.router.add_post(api + "/{game_id:[0-9]{1,18}}/moves", mini_app.move)
    web_app.router.add_get(api + "/{game_id:[0-9]{1,18}}/events", mini_app.events)


async def page(_request: web.Request) -> web.FileResponse:
    """The page: static, the same for everyone (its data comes from the API)."""
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


def _error(status: int, message: str) -> web.HTTPException:
    body = json.dumps({"error": message})
    kinds = {400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 403: web.HTTPForbidden}
    kind = kinds.get(status, web.HTTPNotFound)
    return kind(text=body, content_type="application/json")


class MiniApp:
    """The API's handlers, on the running bot's resources."""

    def __init__(self, application: Application) -> None:
        self.application = application
        self.closing = asyncio.Event()

    async def close(self, _web_app: web.Application) -> None:
        """The server stops: end the event streams, which would otherwise hold it up."""
        self.closing.set()

    @property
    def notifier(self) -> GameNotifier:
        return self.application.bot_data["game_notifier"]

    def user(self, request: web.Request) -> WebAppUser:
        """The user the request's initData vouches for; 401 otherwise."""
        header = request.headers.get("Authorization", "")
        scheme, _, init_data = header.partition(" ")
        if scheme.lower() != "tma":
            raise _error(401, "no initData")
        try:
            return verify_init_data(init_data, self.application.bot.token, now=time.time())
        except InitDataError as error:
            log.info("refused a Mini App request from %s: %s", request.remote, error)
            raise _error(401, str(error)) from None

    async def players_game(self, request: web.Request, user: WebAppUser) -> GameView:
        """The game the URL names, if the user plays in it; 404 or 403 otherwise."""
        games = self.application.bot_data["games"]
        game = await games.store.get_game(int(request.match_info["game_id"]))
        if game is None:
            raise _error(404, "no such game")
        if user.id not in (game.x_player_id, game.o_player_id):
            raise _error(403, "not your game")
        return game

    async def state(self, game_id: int, viewer_id: int) -> dict[str, Any] | None:
        game, moves = await game_and_moves(self.application.bot_data["games"].store, game_id)
        if game is None or viewer_id not in (game.x_player_id, game.o_player_id):
            return None
        return game_state(game, moves, viewer_id)

    async def list_games(self, request: web.Request) -> web.Response:
        """The start page: who the user is, and their open games."""
        user = self.user(request)
        found = await open_games_of(self.application.bot_data["games"].store, user.id)
        return web.json_response(
            {"me": {"name": user.name}, "games": [game_summary(g, user.id) for g in found]}
        )

    async def get_game(self, request: web.Request) -> web.Response:
        user = self.user(request)
        game = await self.players_game(request, user)
        return web.json_response({"game": await self.state(game.id, user.id)})

    async def events(self, request: web.Request) -> web.StreamResponse:
        user = self.user(request)
        game = await self.players_game(request, user)
        with self.notifier.listening(game.id) as changed:
            return await stream_game(
                request, changed, self.closing, lambda: self.state(game.id, user.id)
            )

    async def move(self, request: web.Request) -> web.Response:
        """A move, as a tap on the chat board would make it; the chat board is edited too."""
        user = self.user(request)
        game = await self.players_game(request, user)
        body = await _body(request)
        ply, cell = body.get("ply"), body.get("cell")
        if not isinstance(ply, int) or not isinstance(cell, int):
            raise _error(400, "a move is {ply, cell}")
        games = self.application.bot_data["games"]
        result = await games.play.tap(game.id, BoardRef(), _player(user), ply, cell)
        if result.played and result.game is not None:
            await self.show(result.game)
        status = 200 if result.played else REFUSED.get(result.status, 409)
        state = await self.state(game.id, user.id)
        return web.json_response({"status": str(result.status), "game": state}, status=status)

    async def start_game(self, request: web.Request) -> web.Response:
        """A new game against the AI, in the user's private chat with the bot."""
        user = self.user(request)
        body = await _body(request)
        level, mark, size = body.get("level"), body.get("mark", X), body.get("size", 3)
        shape = board_size(size) if isinstance(size, int) and size in SIZES else None
        if level not in LEVELS or mark not in ("X", "O") or shape is None:
            raise _error(400, "a new game is {level, mark, size}")
        x_kind, o_kind = (USER, level) if mark == X else (level, USER)
        games = self.application.bot_data["games"]
        started = await games.play.start_game(
            user.id, _player(user), x_kind, o_kind, board=shape.empty_board()
        )
        assert started.game is not None  # only a repeated update starts none
        for closed in started.closed:  # a private chat has one current game
            self.application.bot_data["matches"].cancel(closed.id)
            await self.show(closed)
        await self.post(started.game)
        state = await self.state(started.game.id, user.id)
        return web.json_response({"game": state}, status=201)

    async def show(self, game: GameView) -> None:
        """As after a tap in chat: the board shows the game, a board posted afresh is
        recorded, and the AI plays its turns if it is to move."""
        bot_data = self.application.bot_data
        try:
            posted = await show_board(self.application.bot, game)
        except TelegramError as error:  # the move is stored; the next edit shows it
            log.warning("could not show game %s in chat: %s", game.id, error)
            posted = None
        if posted is not None:
            await bot_data["games"].chats.attach_message(game.id, posted)
        bot_data["matches"].follow(game)

    async def post(self, game: GameView) -> None:
        """Post a new game's board in its chat, record it, let the AI start."""
        bot_data = self.application.bot_data
        posted = None
        if game.chat_id is not None:
            try:
                posted = await send_board(self.application.bot, game.chat_id, game)
            except TelegramError as error:  # e.g. the user never started the bot
                log.warning("could not post game %s in chat: %s", game.id, error)
        if posted is not None:
            await bot_data["games"].chats.attach_message(game.id, posted)
        bot_data["matches"].follow(game)


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise _error(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise _error(400, "the body is not a JSON object")
    return body


def _player(user: WebAppUser) -> PlayerInfo:
    return PlayerInfo(user.id, user.name, user.language_code, user.username)
