"""A game as the Mini App shows it, as JSON (pure), and who may see and do what on the page.

Only what the page needs, and nothing about anybody but the game's players: their display
names (or the AI's level), never a Telegram id, a chat or a message. A game of three or four
has a seat each (❌ ⭕ 🔺 🟦: `marks`, in the order of turns); every seat plays from the page,
as from the chat board.

Ultimate tic-tac-toe keeps `core.ultimate.rules`'s cell order (small board by small board: cell
`block * 9 + i`), and the page draws it so: nine small boards of nine cells each. `legal` lists
the cells the player to move may mark, so the page lights exactly those (and only the small
boards in play); `lines` gives each winning line by its two ends, cells on a classic board,
small boards on ultimate, for the page to draw a stroke through them.

What the page offers (`actions`) follows the chat board's keyboard (bot.views.keyboards): Hint
and Undo against the AI, Undo on one phone, Resign for a player of a running game (and between
two people 🤝, or Accept / Decline for whom a draw is offered), Play again and Swap sides under a
finished game against the AI (for its player), Rematch under a finished game between people
(of three or four too), none under a match game the match goes on after (its `next`).

A game on the clock (strangers': bot.games.play.clock_rules) carries each side's time left as
of the read (`clock`), whose clock runs and in how long it flags: the page counts the running
one down itself between two states, and the server's ending (a loss on time) comes live.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from enum import Enum, StrEnum, auto
from typing import Any

from bot.games.model import USER, GameView
from bot.games.play import clock_rules, draw_rules
from bot.games.summaries import MoveRow
from bot.games.tournaments.rules import TournamentView
from bot.views.endings import ending, invitation, opener, seats_left
from bot.views.keyboards import reviewable
from bot.views.match_score import match_summary
from bot.views.rating import first_name, rating_changes
from bot.views.standings import round_of
from core.board import EMPTY, O, X
from core.positions import cell_words, edge_words, is_ultimate, ultimate_board
from core.rules import winning_lines
from core.ultimate import rules as ultimate


class Action(StrEnum):
    """A button under the page's board, as the chat board has it."""

    HINT = "hint"
    UNDO = "undo"
    RESIGN = "resign"
    DRAW = "draw"
    DRAW_ACCEPT = "draw_accept"
    DRAW_DECLINE = "draw_decline"
    AGAIN = "again"
    #: An AI match's Play again.
    WATCH = "watch"
    SWAP = "swap"
    REMATCH = "rematch"
    #: An open challenge's: Join, or Accept and Decline for the one an invitation names;
    #: Cancel for who opened it.
    JOIN = "join"
    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"
    #: Under a finished game.
    REVIEW = "review"
    PICTURE = "picture"
    #: Another level: the chat's button opens its menu at the game's size; the page's opens
    #: its start page so. Shown, never posted.
    OTHER_LEVEL = "level"


class PageStatus(StrEnum):
    """The page's own answers' `status`, beside the use-cases' MoveStatus."""

    #: A new game over one the user moved in: the page asks first (`underway`).
    UNDERWAY = "underway"
    #: A new game beyond the user's pace (bot.webapp.pace), answered with 429.
    TOO_FAST = "too_fast"
    #: A live stream beyond the caps (bot.webapp.live), answered with 429.
    TOO_MANY = "too_many"
    #: Looking for a stranger (the chat says the rest), answered with 202.
    SEARCHING = "searching"
    #: A Telegram sign-in (initData) too old: the page says to open it again; 401.
    EXPIRED = "expired"
    #: No valid Telegram sign-in at all (forged, another bot's, none); 401.
    NOT_TELEGRAM = "not_telegram"


#: What the page may ask the server for (POST …/actions).
ACTIONS = frozenset(Action) - {Action.OTHER_LEVEL}


def version(game: GameView) -> str:
    """Changes whenever what the page shows changes: a move, a join, a player out, a draw
    offered or answered, the game's end."""
    # Seats taken, and in a game of more who is out and whose turn (a resignation there
    # changes neither the moves nor the status); who offers a draw now.
    seated = "".join("1" if game.player_id_of(mark) is not None else "0" for mark in game.marks)
    offer = draw_rules.draw_offer(game)
    return f"{game.ply}:{game.status}:{seated}:{game.assisted}:{game.out}:{game.turn_mark}:{offer}"


class Sight(Enum):
    """Whether the page shows a game to a user (`sight`)."""

    #: Shown: a player of the game, or whoever started it (an AI match).
    PLAYER = auto()
    #: Shown if the user is a member of the group the board was posted in (`game.chat_id`),
    #: as Telegram says now (bot.webapp.members): every member sees that board anyway.
    MEMBER = auto()
    #: Not shown, and answered as if there were no such game.
    NONE = auto()


def sight(game: GameView, viewer_id: int) -> Sight:
    """Who may see a game on the page: its players (and whoever started it), and for a board
    posted in a group, the group's members. A private chat's game, or an inline message's
    (which may sit in any chat at all), shows to its players only."""
    seated = {game.player_id_of(mark) for mark in game.marks}
    # Who a challenge or a rematch offer invites sees it too, to answer it.
    if viewer_id in seated or viewer_id in (game.created_by_id, game.invited_player_id):
        return Sight.PLAYER
    # Groups' ids are negative (private chats have the user's, positive, id).
    in_group = game.inline_message_id is None and (game.chat_id or 0) < 0
    return Sight.MEMBER if in_group else Sight.NONE


def player(game: GameView, mark: str) -> dict[str, Any]:
    kind = game.kind_of(mark)
    if kind == USER:
        name = game.name_of(mark)
        if name and game.is_between_strangers:
            name = first_name(name)  # strangers see each other's first name only
        return {"name": name, "ai": None}
    return {"name": None, "ai": kind}


def game_state(
    game: GameView,
    moves: Sequence[MoveRow],
    viewer_id: int,
    offer: GameView | None = None,
    *,
    next_game: GameView | None = None,
    now: datetime | None = None,
    tournament: TournamentView | None = None,
) -> dict[str, Any]:
    """The page's view of a game for the user `viewer_id`, a player or a spectator; `offer`:
    the rematch offered under a finished game, if any; `next_game`: the game its match went
    on to; `now`: when it was read, for the clocks (None: a replay's frame, no clocks);
    `tournament`: the tournament a round's game belongs to."""
    board = game.board
    sides = [mark for mark in game.marks if game.is_player(mark, viewer_id)]
    to_move = game.to_move if game.is_active else None
    your_turn = to_move is not None and to_move in sides and game.kind_to_move == USER
    return {
        # The game's public id: the page names a game by it, never by its row id.
        "id": game.public_id,
        # A rematch offered, taken or closed under a finished game changes its page too.
        "version": version(game) + (f":{offer.public_id}:{offer.status}" if offer else ""),
        # The stored game's write counter: it only grows, so the page can tell an older
        # picture (a move's answer that came after the live stream's newer one) and skip it.
        "stored": game.version,
        "variant": board.variant,
        "size": board.size,
        "k": board.k,
        "cells": "".join("_" if mark == EMPTY else mark for mark in board.cells),
        "ply": game.ply,
        "status": str(game.status),
        "to_move": to_move,
        "you": sides,
        "spectator": not sides,
        "your_turn": your_turn,
        "legal": legal_cells(game) if your_turn else [],
        # Every seat, in the order of turns (two, or three or four people), and those of
        # them out of the game (resigned, timed out).
        "marks": list(game.marks),
        "players": {mark: player(game, mark) for mark in game.marks},
        # Two players on one phone: both seats are the user's (`you`), each its own player.
        "one_phone": game.is_one_phone,
        "out": list(game.out),
        **_moves(game, moves),
        "result": game.result,
        "end_reason": game.end_reason,
        # How it ended, in the chat's words (bot.views.render.ending): the key, and the side
        # whose name or mark fills it; said to the user if they play one side.
        "ending": _ending(game, sides),
        **_counts_for(game, next_game, tournament),
        "clock": None if now is None else _clock(game, now),
        "assisted": game.assisted,
        **_lines(game),
        "blocks": _blocks(game),
        "actions": actions(game, viewer_id),
        "offer": _offer(game) if game.is_open or game.is_invitation else None,
        "rematch": _rematch(offer, viewer_id) if offer is not None else None,
    }


def _clock(game: GameView, now: datetime) -> dict[str, Any] | None:
    """A game on the clock at `now`: the control, each side's time left (seconds), whose
    clock runs (None once the game is over) and in how many seconds it flags; None without
    a clock, or before the game begins (an open challenge). A turn whose clock still waits
    for its board (`clock_rules.clock_waits`) has no `flags_in` yet, and its full time left:
    the page counts it down from when it has the state, which is when its player's page
    starts it (`bot.webapp.api.MiniApp.page_has`)."""
    control = clock_rules.control_of(game)
    if control is None or game.is_open:
        return None
    running = game.to_move if game.is_active else None
    flag_at = game.flag_at if running is not None else None
    return {
        "seconds": control.seconds,
        "delay": control.delay,
        "left": {mark: round(clock_rules.time_left(game, mark, now), 2) for mark in game.marks},
        "running": running,
        "flags_in": None
        if flag_at is None
        else round(max(0.0, (flag_at - now).total_seconds()), 2),
    }


def _moves(game: GameView, moves: Sequence[MoveRow]) -> dict[str, Any]:
    """The moves, each one's cell `at` in the chat's typed words, and the board edges' words."""
    board = game.board
    rows, columns = edge_words(board)
    listed = [
        {"ply": m.ply, "cell": m.cell, "mark": m.mark, "at": cell_words(board, m.cell)}
        for m in moves
    ]
    last = moves[-1].cell if moves else game.last_cell
    return {"moves": listed, "edges": {"rows": rows, "columns": columns}, "last_cell": last}


def _counts_for(
    game: GameView, next_game: GameView | None, tournament: TournamentView | None
) -> dict[str, Any]:
    """What the game counts for: a match game's score in the chat board's terms
    (bot.views.match_score), and the game the match went on to once this one ended (the page
    follows); a tournament game's round, of how many (its standings: GET …/standings); a
    rated game's rating changes, as the chat board signs them under it (bot.views.rating)."""
    summary = match_summary(game)
    rounds = None
    if tournament is not None and tournament.id == game.tournament_id:
        rounds = {"round": round_of(tournament, game.id), "rounds": tournament.rounds}
    return {
        "match": None if summary is None else asdict(summary),
        "next": next_game.public_id if next_game is not None else None,
        "tournament": rounds,
        "rating": rating_changes(game) or None,
    }


def _offer(game: GameView) -> dict[str, Any]:
    """An open game's invitation, in the chat board's words (bot.views.endings.invitation):
    the key, who opened it (their side and name), whom it invites (as the chat board names
    them), the seats in all and left, and whether it is a rematch offer."""
    invited = game.invited_name or (f"@{game.invited_username}" if game.invited_username else None)
    mark = opener(game)
    return {
        "key": invitation(game).key,
        "from": mark,
        "by": player(game, mark),
        "invited": invited,
        "seats": game.seats,
        "left": seats_left(game),
        "rematch": game.rematch_of_id is not None,
    }


def _rematch(offer: GameView, viewer_id: int) -> dict[str, Any]:
    """The rematch offered under a finished game, answered there by whom it invites."""
    return {
        "id": offer.public_id,
        "status": str(offer.status),
        "actions": actions(offer, viewer_id),
        "offer": _offer(offer),
        "from_you": offer.created_by_id == viewer_id,
    }


def _ending(game: GameView, sides: Sequence[str]) -> dict[str, Any] | None:
    if game.is_live:
        return None
    said = ending(game, sides[0] if len(sides) == 1 else None)
    return {"key": said.key, "mark": said.mark}


def legal_cells(game: GameView) -> list[int]:
    """The cells the player to move may mark now."""
    if not game.is_active:
        return []
    if is_ultimate(game.board):
        return ultimate.legal_moves(ultimate_board(game.board, game.last_cell))
    return [cell for cell, mark in enumerate(game.board.cells) if mark == EMPTY]


def _lines(game: GameView) -> dict[str, Any]:
    """The winner's line(s): the cells (ultimate: small boards) to light, `lines` by their ends."""
    board = game.board
    none: dict[str, Any] = {"winning_cells": [], "lines": []}
    if game.result is None or game.result.winner is None:
        return none
    if is_ultimate(board):
        won = ultimate.winning_blocks(ultimate_board(board, game.last_cell))
        ends = [[line[0], line[2]] for line in ultimate.LINES if set(line) <= won]
        return {"winning_cells": [], "winning_blocks": sorted(won), "lines": ends} if won else none
    found = winning_lines(board, game.result)
    cells = sorted({cell for line in found for cell in line})
    return {"winning_cells": cells, "lines": [[line[0], line[-1]] for line in found]}


def _blocks(game: GameView) -> dict[str, Any] | None:
    """Ultimate's small boards: each one's result (None: open, X, O, "draw"), those in play."""
    if not is_ultimate(game.board):
        return None
    position = ultimate_board(game.board, game.last_cell)
    playable = ultimate.playable_blocks(position) if game.is_active else ()
    return {"results": list(ultimate.block_results(position)), "playable": list(playable)}


def actions(game: GameView, viewer_id: int) -> list[Action]:
    """The buttons the page shows this user under the board, as the chat board has them."""
    mark = game.mark_of(viewer_id)
    if game.is_open:
        return _challenge_actions(game, viewer_id, mark)
    if game.is_ai_match:
        return _match_actions(game, viewer_id)
    if mark is None:
        return []
    if game.is_active:
        found = []
        if game.is_one_phone and game.ply:
            found.append(Action.UNDO)  # the last move, as the chat board's ↩️ takes it back
        if game.is_against_ai and game.kind_to_move == USER:
            found.append(Action.HINT)
            if game.board.count(mark):
                found.append(Action.UNDO)
        # Between two people 🤝, none while one's own offer waits, the answers to the other's.
        offer = draw_rules.draw_offer(game)
        answers = [] if offer == viewer_id else [Action.DRAW_ACCEPT, Action.DRAW_DECLINE]
        draws = [Action.DRAW] if offer is None else answers
        return [*found, Action.RESIGN, *(draws if draw_rules.may_offer_draw(game) else [])]
    if not game.is_finished:
        return []
    review = [Action.REVIEW] if reviewable(game) else []
    inline = game.inline_message_id is not None or game.chat_id is None
    picture = [] if inline or game.is_between_strangers else [Action.PICTURE]
    if game.match is not None and not game.match.is_over:
        # The match goes on, on its next game (`next`): nothing here starts another game.
        return [*review, *picture]
    if game.is_between_people:
        return [Action.REMATCH, *review, *picture]
    if inline:
        return review  # no chat to post a new game in
    person = X if game.x_kind == USER else O
    if game.player_id_of(person) != viewer_id:
        return []
    again = [Action.AGAIN, Action.SWAP] if game.x_kind != game.o_kind else [Action.AGAIN]
    return [*again, Action.OTHER_LEVEL, *review, *picture]


def _match_actions(game: GameView, viewer_id: int) -> list[Action]:
    """Under a finished AI match, for whoever started it, as the chat board has them: Watch
    again, Another level, Picture (none on an inline message, which has no chat)."""
    inline = game.inline_message_id is not None or game.chat_id is None
    if not game.is_finished or inline or viewer_id != game.created_by_id:
        return []
    return [Action.WATCH, Action.OTHER_LEVEL, Action.PICTURE]


def _challenge_actions(game: GameView, viewer_id: int, mark: str | None) -> list[Action]:
    """An open game's buttons, as its chat board has them: Cancel for who opened it;
    Accept and Decline for the one an invitation (a rematch offer) names; Join for anyone
    else who sees an open challenge (a group's member)."""
    if viewer_id == game.created_by_id:
        return [Action.CANCEL]
    if game.is_invitation:
        return [Action.ACCEPT, Action.DECLINE] if viewer_id == game.invited_player_id else []
    return [Action.JOIN] if mark is None else []


def game_summary(game: GameView, viewer_id: int) -> dict[str, Any]:
    """One line of the start page's list of open games: every seat, in the order of turns
    (`players`, the user's own seats among them, `you`)."""
    sides = [mark for mark in game.marks if game.is_player(mark, viewer_id)]
    return {
        "id": game.public_id,
        "variant": game.board.variant,
        "size": game.board.size,
        "k": game.board.k,
        "status": str(game.status),
        "you": sides,
        "players": [{"mark": mark, **player(game, mark)} for mark in game.marks],
        "your_turn": game.is_active and game.to_move in sides,
        "ply": game.ply,
    }
