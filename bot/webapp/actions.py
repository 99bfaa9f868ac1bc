"""The buttons under the page's board, as the chat board has them (bot.views.keyboards): each calls
the use-case the chat's handler calls, and the chat's board then shows what it did.

    hint     Assists.hint          the best move, lit on the page and on the chat board
    undo     Assists.undo          the user's last move and the AI's reply taken back (on one
                                   phone, the last move)
    resign   Play.resign           the page asks "are you sure?" first, as the chat does
    draw     Resigning.offer_draw  🤝 between two people; `draw_accept`, `draw_decline`:
                                   the answers of the one it is offered to (answer_draw)
    again    Play.start_game       the same game afresh in its chat; `swap`: sides swapped;
                                   `watch`: an AI match's
    rematch  Challenges.rematch    an offer to the other player, or the acceptance of theirs
    join     Challenges.join       a seat in an open challenge; `accept`: the invited one's
    decline  Challenges.decline    the invited one says no
    cancel   Challenges.cancel     who opened a challenge (or offered a rematch) withdraws it
    review   Reviews.review        the chat's Review pop-up's words, shown on the page
    picture  send_card             the finished game's card, sent to its chat as 🖼 sends it

The use-cases decide who may do what (a spectator's Resign is refused as NOT_A_PLAYER);
Play again and Swap sides are their player's alone, as the chat's buttons are (`owner`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from telegram.error import TelegramError

from bot.context import BotApplication
from bot.games.model import USER, BoardRef, GameView, MoveResult, MoveStatus, PlayerInfo
from bot.handlers.cards import send_card
from bot.handlers.strangers.searching import Seekers, look_for_opponent
from bot.locales.texts import Texts
from bot.views.render import opponent_name, render_review
from bot.webapp.state import ACTIONS, Action, PageStatus, actions
from bot.wire.game_spec import (
    AI_MATCH,
    ULTIMATE_WORD,
    GameSpec,
    Seek,
    parse_play_args,
    parse_start_args,
)
from core.ai import LEVELS
from core.board import O, X

log = logging.getLogger(__name__)

#: The HTTP status of a refusal; any other one is 409.
REFUSED = {MoveStatus.NOT_A_PLAYER: 403, MoveStatus.NO_GAME: 404}


#: The new game's "level" for the menu's AI match (`new_game_spec`), and for a stranger
#: (`look_for_someone`).
AI_MATCH_LEVEL = "match"
SOMEONE = "someone"
#: The actions that start a game, and so post a board in a chat: paced.
STARTS = frozenset({Action.AGAIN, Action.WATCH, Action.SWAP, Action.REMATCH})


class Host(Seekers, Protocol):
    """What an action needs of the Mini App (bot.webapp.api.MiniApp): what the queue's
    steps need (`Seekers`: the use-cases, the bot, the running chores), and more."""

    application: BotApplication

    async def show(self, game: GameView, hint: int | None = None) -> None: ...

    async def started(self, game: GameView) -> None: ...

    async def state(self, game_id: int, viewer_id: int) -> dict[str, Any] | None: ...

    async def words_for(self, user: PlayerInfo) -> Texts: ...

    async def language_of(self, user: PlayerInfo) -> str | None: ...

    def may_start(self, user_id: int) -> bool: ...


@dataclass(frozen=True)
class Done:
    """An action's answer: the HTTP status and the JSON body."""

    status: int
    body: dict[str, Any]


async def act(host: Host, game: GameView, user: PlayerInfo, body: dict[str, Any]) -> Done:
    """The action `body` names (`{"action", "ply"}`; `ply`, the move number the page showed,
    makes a tap on an old board stale) on `game`, for `user`."""
    asked, ply = body.get("action"), body.get("ply")
    if asked not in ACTIONS or not (ply is None or is_int(ply)):
        return Done(400, {"error": "an action is {action, ply}", "status": MoveStatus.INVALID})
    action = Action(asked)
    if action in STARTS and not host.may_start(user.id):
        return Done(429, {"error": "too many new games", "status": PageStatus.TOO_FAST})
    games = host.games
    if action == Action.HINT:
        result = await games.assists.hint(game.id, BoardRef(), user, ply)
    elif action == Action.UNDO:
        result = await games.assists.undo(game.id, BoardRef(), user, ply)
    elif action == Action.RESIGN:
        result = await games.resigning.resign(game.id, BoardRef(), user)
    elif action == Action.DRAW:
        at = game.ply if ply is None else ply
        result = await games.resigning.offer_draw(game.id, BoardRef(), user, at)
    elif action in (Action.DRAW_ACCEPT, Action.DRAW_DECLINE):
        accepted = action == Action.DRAW_ACCEPT
        result = await games.resigning.answer_draw(game.id, BoardRef(), user, accepted)
    elif action == Action.REMATCH:
        result = await games.challenges.rematch(game.id, BoardRef(), user)
    elif action in (Action.JOIN, Action.ACCEPT):
        result = await games.challenges.join(game.id, BoardRef(), user)
    elif action == Action.DECLINE:
        result = await games.challenges.decline(game.id, BoardRef(), user)
    elif action == Action.CANCEL:
        result = await games.challenges.cancel(game.id, BoardRef(), user)
    elif action in (Action.REVIEW, Action.PICTURE):
        return await _after_game(host, game, user, action)
    else:
        resigning = body.get("resign_underway") is True
        return await _again(host, game, user, action, resign_underway=resigning)
    new = action == Action.REMATCH
    return await _answer(host, game, user, result, new=new)


async def _after_game(host: Host, game: GameView, user: PlayerInfo, action: Action) -> Done:
    """Review (the chat's pop-up's words, for the page to show) or Picture (the card, sent
    to the game's chat as the chat's 🖼 sends it), for whom the page offers them."""
    state = await host.state(game.id, user.id)
    if action not in actions(game, user.id) or (game.chat_id is None and action == Action.PICTURE):
        return Done(403, {"status": str(MoveStatus.NOT_A_PLAYER), "game": state})
    tr = await host.words_for(user)
    if action == Action.REVIEW:
        review = await host.games.reviews.review(game.id, BoardRef(), user)
        said = render_review(review, tr) or tr.POPUP_NO_REVIEW
        return Done(200, {"status": str(MoveStatus.PLAYED), "game": state, "review": said})
    assert game.chat_id is not None
    try:
        await send_card(host.bot, game.chat_id, game, tr)
    except TelegramError as failed:  # the bot was blocked, or left the group
        log.warning("could not send game %s's picture: %s", game.id, failed)
        return Done(409, {"status": str(MoveStatus.CONFLICT), "game": state})
    return Done(200, {"status": str(MoveStatus.PLAYED), "game": state})


async def _answer(
    host: Host, game: GameView, user: PlayerInfo, result: MoveResult, *, new: bool
) -> Done:
    """Show what the use-case did in chat, and answer the page with the game now (`new`:
    the rematch's game, which the page opens)."""
    after = result.game
    if not result.played or after is None:
        state = await host.state(game.id, user.id)
        status = REFUSED.get(result.status, 409)
        return Done(status, {"status": str(result.status), "game": state})
    if new and not after.has_board_message:
        await host.started(after)  # an offer on a new board in the chat
    elif after.is_live or not game.is_live:  # an ending is shown by its listeners
        await host.show(after, hint=result.hint)
    body: dict[str, Any] = {
        "status": str(result.status),
        "game": await host.state(after.id, user.id),
    }
    # A game the page opens is named by its public id, as everywhere on the page.
    body.update(hint=result.hint, opened=after.public_id if after.id != game.id else None)
    return Done(200, body)


async def _again(
    host: Host, game: GameView, user: PlayerInfo, action: Action, *, resign_underway: bool
) -> Done:
    """Play again (Watch again for an AI match, or with sides swapped): a new game in the
    finished one's chat, as the chat's buttons start it (bot.handlers.menu.start_game)."""
    if action not in actions(game, user.id) or game.chat_id is None:
        state = await host.state(game.id, user.id)
        return Done(403, {"status": str(MoveStatus.NOT_A_PLAYER), "game": state})
    swap = action == Action.SWAP
    x_kind, o_kind = (game.o_kind, game.x_kind) if swap else (game.x_kind, game.o_kind)
    games = host.games
    started = await games.play.start_game(
        game.chat_id,
        user,
        x_kind,
        o_kind,
        replace_current=game.chat_id > 0,  # a private chat has one current game
        board=game.board.shape.empty_board(),
        resign_underway=resign_underway,
    )
    if started.underway is not None:
        return underway(started.underway, user, await host.words_for(user))
    if started.game is None:
        return Done(409, {"status": str(MoveStatus.CONFLICT), "game": None})
    await host.started(started.game)
    state = await host.state(started.game.id, user.id)
    opened = started.game.public_id
    return Done(201, {"status": str(MoveStatus.PLAYED), "game": state, "opened": opened})


def underway(game: GameView, user: PlayerInfo, tr: Texts) -> Done:
    """A new game asked for over one the user moved in: the page asks them first, in these
    words (the user's: `tr`), and sends the request again with `resign_underway` on yes."""
    question = tr.REPLACE_QUESTION.format(name=opponent_name(game, user.id, tr))
    return Done(409, {"status": PageStatus.UNDERWAY, "question": question, "game": None})


async def look_for_someone(host: Host, user: PlayerInfo, body: dict[str, Any]) -> Done:
    """Look for a stranger on the board `body` names, as /play does in the user's private
    chat (bot.handlers.strangers.searching: the waiting message there, or both boards once paired).
    202: the chat tells the rest."""
    seek = play_board(body)
    if seek is None:
        return Done(400, {"error": "a search is {size, k, ultimate}", "status": MoveStatus.INVALID})
    if not host.may_start(user.id):
        return Done(429, {"error": "too many new games", "status": PageStatus.TOO_FAST})
    try:
        language = await host.language_of(user)
        await look_for_opponent(host, user.id, user, seek.board, language, seek.clock)
    except TelegramError as failed:  # e.g. the user never started the bot
        log.warning("could not look for an opponent from the page: %s", failed)
        return Done(409, {"status": MoveStatus.CONFLICT, "game": None})
    return Done(202, {"status": PageStatus.SEARCHING, "game": None})


def play_board(body: dict[str, Any]) -> Seek | None:
    """The board of a search (`{"size", "k", "ultimate"}`), read as /play reads its words."""
    size, k = body.get("size", 3), body.get("k")
    if body.get("ultimate") is True:
        return parse_play_args([ULTIMATE_WORD])
    if not is_int(size) or not (k is None or is_int(k)):
        return None
    return parse_play_args([str(size), *([] if k is None else [str(k)])])


def new_game_spec(body: dict[str, Any]) -> GameSpec | None:
    """The game a new-game request asks for (`{"level", "mark", "size", "k", "ultimate"}`),
    read as the chat reads /start's words (bot.wire.game_spec), so the page starts exactly
    the boards the chat does: an AI level (or "user", two players on one phone; "match",
    the menu's AI match) on X or O, a size with its usual or a chosen k, or ultimate. None
    for anything else."""
    level, mark, size, k = (body.get(key) for key in ("level", "mark", "size", "k"))
    mark = X if mark is None else mark
    if level not in (*LEVELS, USER, AI_MATCH_LEVEL) or mark not in (X, O):
        return None
    if level == AI_MATCH_LEVEL:
        kinds = [str(kind) for kind in AI_MATCH]  # the menu's AI match, any board
    else:
        kinds = [USER, level] if mark == X else [level, USER]
    if body.get("ultimate") is True:
        return parse_start_args([ULTIMATE_WORD, *kinds])
    size = 3 if size is None else size
    if not is_int(size) or not (k is None or is_int(k)):
        return None
    return parse_start_args([*kinds, str(size), *([] if k is None else [str(k)])])


def is_int(value: Any) -> TypeGuard[int]:
    """A JSON integer: JSON's true and false are Python's bools, which are ints too."""
    return isinstance(value, int) and not isinstance(value, bool)
