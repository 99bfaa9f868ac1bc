"""The Mini App's routes on the bot's web server (bot.intake.web), under /app/:

    GET  /app/                        the page (static/index.html); no data in it, no-cache
    GET  /app/static/<name>.<hash>.…  its CSS and JavaScript by versioned names, cached for
                                      good (bot.webapp.serving.assets)
    GET  /app/api/games               the user's open games, and the boards a new one may have
                                      (the start page); `?words=1`: the page's words too
    POST /app/api/games               {"level", "mark", "size", "k", "ultimate"}: a new game
                                      as /start starts it (an AI level, "user": two on one
                                      phone, "match": an AI match), posted in the user's
                                      private chat as well; "someone": a stranger, as /play
    GET  /app/api/games/{game}          a game's state (bot.webapp.state); `?words=1`: the
                                        page's words too (its first call: one round trip)
    POST /app/api/games/{game}/moves    {"ply", "cell"}: a move, exactly as a tap on the board
    POST /app/api/games/{game}/actions  {"action", "ply"}: Hint, Undo, Resign, Play again, Swap
                                        sides or Rematch, as the chat board's buttons (actions)
    GET  /app/api/games/{game}/events   server-sent events: the state whenever it changes
    GET  /app/api/games/{game}/replay   a game's state after each of its moves so far, and
    GET  /app/api/games/{game}/standings  a tournament game's standings (bot.webapp.history)
    GET  /app/api/texts                 the page's words in the user's language (words)
    GET  /app/api/pairing               server-sent events: the game a search for a stranger
                                        found, once it did (bot.webapp.live)

`{game}` is the game's public id (`GameView.public_id`, random), never its sequential row id;
the page and the bot's links know a game by it. It is checked for its shape before any
database sees it.

Every API call carries Telegram's initData in `Authorization: tma <initData>`. Without a
genuine, fresh one: 401, `expired` for a genuine one too old, else `not_telegram`
(bot.webapp.requests); a game the user may not see (bot.webapp.state.sight: its players,
and for a group's board the group's members, as Telegram says, bot.webapp.members): 404, the
very answer of a game that does not exist; nothing changes either way. A group's game shows
read-only to members who do not play in it. Nothing of the initData or of the request's
headers is logged, only why a request was refused.
A move goes through the same use-case as a tap in chat (`Play.tap`: the move number, the
turn, the game's version), and the chat's board is edited just as after a tap. A refusal
answers 409 (403 for who is not a player) with its `status`, which the page puts in words.
A body that is not a JSON object (malformed, or nested too deep to read) answers 400; an
events stream beyond the caps (bot.webapp.live), and a new game beyond the user's pace
(bot.webapp.pace: POST /games, Play again, Swap sides, Rematch), answer 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from aiohttp import web
from telegram import Bot
from telegram.error import TelegramError

from bot.context import BotApplication
from bot.games.model import BoardRef, GameView, MoveStatus, PlayerInfo
from bot.games.page_reads import (
    chosen_language,
    game_and_moves,
    game_by_public_id,
    next_match_game_of,
    open_games_of,
    rematch_offer_of,
    stranger_game_of,
    tournament_of,
)
from bot.games.public_ids import is_public_id
from bot.games.summaries import MoveRow
from bot.games.use_cases import Games
from bot.locales.texts import Texts, texts_for
from bot.resources import Resources, Running
from bot.webapp import history
from bot.webapp.actions import (
    REFUSED,
    SOMEONE,
    act,
    is_int,
    look_for_someone,
    new_game_spec,
    underway,
)
from bot.webapp.init_data import WebAppUser
from bot.webapp.links import PAGE_PATH
from bot.webapp.live import (
    GameNotifier,
    StreamGate,
    TooManyStreams,
    stream_game,
    stream_pairing,
)
from bot.webapp.members import GroupMembers
from bot.webapp.requests import body_of, error, player_of, signed_in_user
from bot.webapp.serving.assets import AssetRoutes, compressed, read_assets
from bot.webapp.serving.headers import protect
from bot.webapp.state import PageStatus, Sight, game_state, game_summary, sight
from bot.webapp.words import page_texts
from core.board import SIZES, default_k

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
#: The boards the start page offers, as /start takes them: each size with its usual k and
#: every k it may have (core.board), so the page has no rule of its own.
NEW_GAME_BOARDS = [
    {"size": size, "k": default_k(size), "ks": list(range(3, size + 1))} for size in SIZES
]
MINI_APP: web.AppKey[MiniApp] = web.AppKey("mini_app")


def add_routes(web_app: web.Application, application: BotApplication) -> None:
    """The Mini App's page and API on `web_app`, for the bot `application`."""
    mini_app = MiniApp(application)
    web_app[MINI_APP] = mini_app
    web_app.on_shutdown.append(mini_app.close)
    web_app.on_response_prepare.append(protect)
    api = PAGE_PATH + "api/games"
    # Read and compressed once, here, and answered from memory.
    assets = AssetRoutes(read_assets(STATIC))
    web_app.router.add_get(PAGE_PATH, assets.page)
    web_app.router.add_get(PAGE_PATH + "static/{name}", assets.file)
    web_app.router.add_get(api, mini_app.list_games)
    web_app.router.add_post(api, mini_app.start_game)
    # Any segment: one that is no public id answers as a game that does not exist.
    web_app.router.add_get(api + "/{game}", mini_app.get_game)
    web_app.router.add_post(api + "/{game}/moves", mini_app.move)
    web_app.router.add_post(api + "/{game}/actions", mini_app.act)
    web_app.router.add_get(api + "/{game}/events", mini_app.events)
    web_app.router.add_get(api + "/{game}/replay", partial(history.replay, mini_app))
    web_app.router.add_get(api + "/{game}/standings", partial(history.standings, mini_app))
    web_app.router.add_get(PAGE_PATH + "api/texts", mini_app.texts)
    web_app.router.add_get(PAGE_PATH + "api/pairing", mini_app.pairing)


async def page_state(
    games: Games, game: GameView, moves: list[MoveRow], viewer_id: int
) -> dict[str, Any]:
    """The page's view of `game` as read now (bot.webapp.state.game_state), with what it
    counts for beside it: the rematch offered under it, the game its match went on to, its
    tournament."""
    store = games.store
    return game_state(
        game,
        moves,
        viewer_id,
        await rematch_offer_of(store, game),
        next_game=await next_match_game_of(store, game),
        now=datetime.now(UTC),
        tournament=await tournament_of(store, game),
    )


class MiniApp:
    """The API's handlers, on the running bot's resources."""

    def __init__(self, application: BotApplication) -> None:
        self.application = application
        self.closing = asyncio.Event()
        self.streams = StreamGate()

    async def close(self, _web_app: web.Application) -> None:
        """The server stops: end the event streams, which would otherwise hold it up."""
        self.closing.set()

    @property
    def running(self) -> Running:
        return self.resources.running

    @property
    def resources(self) -> Resources:
        return self.application.bot_data

    @property
    def games(self) -> Games:
        return self.running.games

    @property
    def bot(self) -> Bot:
        return self.application.bot

    @property
    def notifier(self) -> GameNotifier:
        mini_app = self.resources.mini_app
        assert mini_app is not None  # the routes exist only with WEBAPP_URL
        return mini_app.notifier

    @property
    def members(self) -> GroupMembers:
        mini_app = self.resources.mini_app
        assert mini_app is not None
        return mini_app.members

    def user(self, request: web.Request) -> WebAppUser:
        """The user the request's initData vouches for; 401 otherwise (bot.webapp.requests)."""
        return signed_in_user(request, self.application.bot.token)

    async def viewable_game(self, request: web.Request, user: WebAppUser) -> GameView:
        """The game the URL names (its public id), if the user may see it; 404 otherwise,
        the same for a game they may not see as for one that does not exist."""
        public_id = request.match_info["game"]
        store = self.running.games.store
        game = await game_by_public_id(store, public_id) if is_public_id(public_id) else None
        if game is None or not await self.may_see(game, user.id):
            raise error(404, "no such game", MoveStatus.NO_GAME)
        return game

    async def may_see(self, game: GameView, viewer_id: int) -> bool:
        """Whether the page shows `game` to `viewer_id` (bot.webapp.state.sight)."""
        seen = sight(game, viewer_id)
        if seen is Sight.MEMBER and game.chat_id is not None:
            return await self.members.is_member(game.chat_id, viewer_id)
        return seen is Sight.PLAYER

    async def state(self, game_id: int, viewer_id: int) -> dict[str, Any] | None:
        """The page's view of a game (by its row id, known once the URL's game was found),
        None once the user may not see it any more (left its group, say)."""
        viewed = await self.viewed(game_id, viewer_id)
        return None if viewed is None else viewed[1]

    async def viewed(self, game_id: int, viewer_id: int) -> tuple[GameView, dict[str, Any]] | None:
        """The game as read, and the page's view of it (`state`)."""
        game, moves = await game_and_moves(self.running.games.store, game_id)
        if game is None or not await self.may_see(game, viewer_id):
            return None
        return game, await page_state(self.running.games, game, moves, viewer_id)

    async def page_has(self, game: GameView, viewer_id: int) -> None:
        """The page of `viewer_id` has the game as read: if it shows them their turn, their
        clock starts now, as the chat board's answer would start it."""
        if game.is_active and game.is_player(game.to_move, viewer_id):
            await self.running.games.turn_starts.seen(game, datetime.now(UTC))

    async def language_of(self, user: PlayerInfo | WebAppUser) -> str | None:
        """The language the user chose in chat (/language), else their app's."""
        return await chosen_language(self.running.games.store, user.id) or user.language_code

    async def words_for(self, user: PlayerInfo) -> Texts:
        return texts_for(await self.language_of(user))

    async def texts(self, request: web.Request) -> web.Response:
        """The page's words: in the language the user chose in chat (/language), else their
        Telegram app's; without initData, in the language the page asks for (`?lang=`). The
        page asks for them so only when its first call did not bring them (`with_words`)."""
        if request.headers.get("Authorization", "").partition(" ")[2]:
            return web.json_response(page_texts(await self.language_of(self.user(request))))
        return web.json_response(page_texts(request.query.get("lang")))

    async def with_words(
        self, request: web.Request, user: WebAppUser, answer: dict[str, Any]
    ) -> web.Response:
        """`answer`, and the page's words (as `texts` gives them) when the request asks for
        them (`?words=1`): the page's first call brings its words and its data at once. That
        answer (10 to 20 KB) is gzipped when the browser takes it: more than the first packets
        of a new connection carry, it would take one more round trip as it is."""
        if request.query.get("words") != "1":
            return web.json_response(answer)
        words = page_texts(await self.language_of(user))
        return compressed(request, web.json_response({**answer, "words": words}))

    async def list_games(self, request: web.Request) -> web.Response:
        """The start page: who the user is, and their open games."""
        user = self.user(request)
        found = await open_games_of(self.running.games.store, user.id)
        answer = {
            "me": {"name": user.name},
            "games": [game_summary(g, user.id) for g in found],
            "boards": NEW_GAME_BOARDS,
        }
        return await self.with_words(request, user, answer)

    async def get_game(self, request: web.Request) -> web.Response:
        user = self.user(request)
        game = await self.viewable_game(request, user)
        answer = {"game": await self.state(game.id, user.id)}
        return await self.with_words(request, user, answer)

    async def events(self, request: web.Request) -> web.StreamResponse:
        """The game's state whenever it changes (bot.webapp.live), within the caps."""
        user = self.user(request)
        game = await self.viewable_game(request, user)
        last: list[GameView] = []  # the game as the stream read it last

        async def read() -> dict[str, Any] | None:
            viewed = await self.viewed(game.id, user.id)
            last[:] = viewed[:1] if viewed else []
            return viewed[1] if viewed else None

        with self.admitted(user.id), self.notifier.listening(game.id) as changed:
            return await stream_game(
                request, changed, self.closing, read, lambda: self.page_has(last[0], user.id)
            )

    async def pairing(self, request: web.Request) -> web.StreamResponse:
        """While the page looks for a stranger: the game once one is found (bot.webapp.live),
        within the same caps as a game's stream."""
        user = self.user(request)

        async def found() -> str | None:
            game = await stranger_game_of(self.running.games.store, user.id)
            return None if game is None else game.public_id

        with self.admitted(user.id), self.notifier.seated(user.id) as seated:
            return await stream_pairing(request, seated, self.closing, found)

    @contextlib.contextmanager
    def admitted(self, user_id: int) -> Iterator[None]:
        """A place for one more live stream of the user; 429 beyond the caps."""
        try:
            with self.streams.admit(user_id):
                yield
        except TooManyStreams:  # only the gate refuses so
            log.info("refused a live stream: too many open")
            raise error(429, "too many live streams open", PageStatus.TOO_MANY) from None

    async def act(self, request: web.Request) -> web.Response:
        """A button under the board (bot.webapp.actions)."""
        user = self.user(request)
        game = await self.viewable_game(request, user)
        done = await act(self, game, player_of(user), await body_of(request))
        return web.json_response(done.body, status=done.status)

    async def move(self, request: web.Request) -> web.Response:
        """A move, as a tap on the chat board would make it; the chat board is edited too."""
        user = self.user(request)
        game = await self.viewable_game(request, user)
        body = await body_of(request)
        ply, cell = body.get("ply"), body.get("cell")
        if not is_int(ply) or not is_int(cell):
            raise error(400, "a move is {ply, cell}", MoveStatus.INVALID)
        games = self.running.games
        result = await games.play.tap(game.id, BoardRef(), player_of(user), ply, cell)
        if result.played and result.game is not None:
            await self.show(result.game)
        status = 200 if result.played else REFUSED.get(result.status, 409)
        state = await self.state(game.id, user.id)
        return web.json_response({"status": str(result.status), "game": state}, status=status)

    def may_start(self, user_id: int) -> bool:
        """Whether the user may start one more game now (bot.webapp.pace); counts it."""
        mini_app = self.resources.mini_app
        assert mini_app is not None
        return mini_app.new_games.admit(user_id)

    async def start_game(self, request: web.Request) -> web.Response:
        """A new game, as the chat's menu and /start start one (`new_game_spec`), in the
        user's private chat with the bot."""
        user = self.user(request)
        body = await body_of(request)
        if body.get("level") == SOMEONE:  # a stranger, through the queue
            searching = await look_for_someone(self, player_of(user), body)
            return web.json_response(searching.body, status=searching.status)
        spec = new_game_spec(body)
        if spec is None:
            raise error(400, "a new game is {level, mark, size, k, ultimate}", MoveStatus.INVALID)
        if not self.may_start(user.id):
            log.info("refused a new game: too many in a minute")
            raise error(429, "too many new games", PageStatus.TOO_FAST)
        games = self.running.games
        started = await games.play.start_game(
            user.id,
            player_of(user),
            spec.x_kind,
            spec.o_kind,
            board=spec.board.empty_board(),
            resign_underway=body.get("resign_underway") is True,
        )
        if started.underway is not None:
            player = player_of(user)
            asked = underway(started.underway, player, await self.words_for(player))
            return web.json_response(asked.body, status=asked.status)
        assert started.game is not None  # only a repeated update starts none
        await self.started(started.game)
        state = await self.state(started.game.id, user.id)
        return web.json_response({"game": state}, status=201)

    async def started(self, game: GameView) -> None:
        """A new game: its board posted (the games it closed are their listeners')."""
        await self.post(game)

    async def show(self, game: GameView, hint: int | None = None) -> None:
        """As after a tap in chat (the presenter): the boards show the game (a `hint` cell
        lit), and the AI plays its turns if it is to move. A failed edit does not fail the
        page's request: the move is stored, and the next edit shows it."""
        try:
            await self.running.presenter.show(game, hint=hint)
        except TelegramError as failed:
            log.warning("could not show game %s in chat: %s", game.id, failed)

    async def post(self, game: GameView) -> None:
        """Post a new game's board in its chat (the presenter), record it, let the AI start."""
        if game.chat_id is None:
            return
        try:
            await self.running.presenter.post(game.chat_id, game)
        except TelegramError as failed:  # e.g. the user never started the bot
            log.warning("could not post game %s in chat: %s", game.id, failed)
