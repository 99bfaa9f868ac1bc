"""The buttons under the page's board, as the chat board has them (bot.views.keyboards): each calls
the use-case the chat's handler calls, and the chat's board then shows what it did.

    hint     Assists.hint          the best move, lit on the page and on the chat board
    undo     Assists.undo          the user's last move and the AI's reply taken back
    resign   Play.resign           the page asks "are you sure?" first, as the chat does
    again    Play.start_game       the same game afresh in its chat; `swap`: sides swapped
    rematch  Challenges.rematch    an offer to the other player, or the acceptance of theirs

The use-cases decide who may do what (a spectator's Resign is refused as NOT_A_PLAYER);
Play again and Swap sides are their player's alone, as the chat's buttons are (`owner`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from telegram.ext import Application

from bot.games.model import BoardRef, GameView, MoveResult, MoveStatus, PlayerInfo
from bot.views.render import opponent_name
from bot.views.texts import texts_for
from bot.webapp.state import ACTIONS, HINT, REMATCH, RESIGN, SWAP, UNDO, actions

#: The HTTP status of a refusal; any other one is 409.
REFUSED = {MoveStatus.NOT_A_PLAYER: 403, MoveStatus.NO_GAME: 404}


class Host(Protocol):
    """What an action needs of the Mini App (bot.webapp.api.MiniApp)."""

    application: Application

    async def show(self, game: GameView, hint: int | None = None) -> None: ...

    async def started(self, game: GameView, closed: Sequence[GameView] = ()) -> None: ...

    async def state(self, game_id: int, viewer_id: int) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class Done:
    """An action's answer: the HTTP status and the JSON body."""

    status: int
    body: dict[str, Any]


async def act(host: Host, game: GameView, user: PlayerInfo, body: dict[str, Any]) -> Done:
    """The action `body` names (`{"action", "ply"}`; `ply`, the move number the page showed,
    makes a tap on an old board stale) on `game`, for `user`."""
    action, ply = body.get("action"), body.get("ply")
    if action not in ACTIONS or not (ply is None or is_int(ply)):
        return Done(400, {"error": "an action is {action, ply}", "status": "invalid"})
    games = host.application.bot_data.running.games
    if action == HINT:
        result = await games.assists.hint(game.id, BoardRef(), user, ply)
    elif action == UNDO:
        result = await games.assists.undo(game.id, BoardRef(), user, ply)
    elif action == RESIGN:
        result = await games.play.resign(game.id, BoardRef(), user)
    elif action == REMATCH:
        result = await games.challenges.rematch(game.id, BoardRef(), user)
    else:
        resigning = body.get("resign_underway") is True
        return await _again(host, game, user, swap=action == SWAP, resign_underway=resigning)
    return await _answer(host, game, user, result, new=action == REMATCH)


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
    else:
        await host.show(after, hint=result.hint)
    body: dict[str, Any] = {
        "status": str(result.status),
        "game": await host.state(after.id, user.id),
    }
    # A game the page opens is named by its public id, as everywhere on the page.
    body.update(hint=result.hint, opened=after.public_id if after.id != game.id else None)
    return Done(200, body)


async def _again(
    host: Host, game: GameView, user: PlayerInfo, *, swap: bool, resign_underway: bool
) -> Done:
    """Play again (or with sides swapped): a new game in the finished one's chat, as the
    chat's buttons start it (bot.handlers.menu.start_game)."""
    if (SWAP if swap else "again") not in actions(game, user.id) or game.chat_id is None:
        state = await host.state(game.id, user.id)
        return Done(403, {"status": str(MoveStatus.NOT_A_PLAYER), "game": state})
    x_kind, o_kind = (game.o_kind, game.x_kind) if swap else (game.x_kind, game.o_kind)
    games = host.application.bot_data.running.games
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
        return underway(started.underway, user)
    if started.game is None:
        return Done(409, {"status": str(MoveStatus.CONFLICT), "game": None})
    await host.started(started.game, started.closed)
    state = await host.state(started.game.id, user.id)
    opened = started.game.public_id
    return Done(201, {"status": str(MoveStatus.PLAYED), "game": state, "opened": opened})


def underway(game: GameView, user: PlayerInfo) -> Done:
    """A new game asked for over one the user moved in: the page asks them first, in these
    words, and sends the request again with `resign_underway` on yes."""
    tr = texts_for(user.language_code)
    question = tr.REPLACE_QUESTION.format(name=opponent_name(game, user.id, tr))
    return Done(409, {"status": "underway", "question": question, "game": None})


def is_int(value: Any) -> TypeGuard[int]:
    """A JSON integer: JSON's true and false are Python's bools, which are ints too."""
    return isinstance(value, int) and not isinstance(value, bool)
