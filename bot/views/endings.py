"""How a game that is over ended, in one line (pure): chosen once, for the chat board
(bot.views.render words it) and for the Mini App (whose page words it from the same catalogs).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.games.model import FORFEITS, USER, EndReason, GameStatus, GameView, Result
from core.board import X, other


@dataclass(frozen=True)
class Ending:
    """How a game that is over ended, in one line: its key in the catalogs, and the side
    whose name (`{name}`) or mark (`{mark}`) fills it."""

    key: str
    mark: str | None = None


def ending(game: GameView, you: str | None = None) -> Ending:
    """The one place that words a game's end, for the chat board and the Mini App alike:
    `you` is the side of the one it is said to (a private chat's player, the page's user),
    None where it names the players (a group's board, a spectator). Whoever gave the game
    up is named as such; "You won" is said for a game won on the board only."""
    unplayed = _unplayed(game)
    if unplayed is not None:
        return unplayed
    if game.result == Result.DRAW:
        agreed = game.end_reason == EndReason.AGREED  # a draw offered and accepted
        return Ending("RESULT_DRAW_AGREED" if agreed else "RESULT_DRAW")
    winner = game.result or X
    won_on_board = game.end_reason not in (*FORFEITS, EndReason.TIMEOUT)
    if game.is_many:
        return (
            Ending("RESULT_YOU_WON")
            if you == winner and won_on_board
            else Ending("RESULT_NAME_WON", winner)
        )
    loser = other(winner)
    if game.is_ai_match:
        return Ending("RESULT_AI_WON", winner)
    forfeit = game.end_reason in FORFEITS
    if game.is_one_phone:
        return (
            Ending("RESULT_MARK_RESIGNED", loser) if forfeit else Ending("RESULT_MARK_WON", winner)
        )
    if you == winner and won_on_board:
        return Ending("RESULT_YOU_WON")
    if you == loser:
        return _to_the_loser(game, winner, forfeit)
    return _naming_the_loser(game, winner, loser, forfeit)


def _unplayed(game: GameView) -> Ending | None:
    """A game that ended with no result: cancelled, declined, lapsed, closed, aborted."""
    if game.status == GameStatus.CANCELLED:
        if game.end_reason != EndReason.EXPIRED:
            return Ending("CHALLENGE_CANCELLED", opener(game))
        lapsed = game.rematch_of_id is not None and game.is_invitation
        return Ending("REMATCH_LAPSED" if lapsed else "CHALLENGE_EXPIRED")
    if game.status == GameStatus.DECLINED:
        return Ending("CHALLENGE_DECLINED")  # `{invited}`: who was invited
    if game.status == GameStatus.ABANDONED:
        if game.end_reason == EndReason.ABORTED:
            # Unrated; but a tournament's round scores it as ❌'s forfeit loss, and its board
            # says so, naming the player (`tournament_rules.game_result`).
            in_tournament = game.tournament_id is not None
            return Ending("TOURNAMENT_GAME_ABORTED" if in_tournament else "GAME_ABORTED", X)
        return Ending(_CLOSED.get(game.end_reason, "GAME_CLOSED"))
    return None


#: Games closed with no result, by why, where a line of their own says it.
_CLOSED: dict[EndReason | None, str] = {
    EndReason.REPLACED: "GAME_REPLACED",
    EndReason.FORGOTTEN: "GAME_LEFT_UNPLAYED",
}


def _to_the_loser(game: GameView, winner: str, forfeit: bool) -> Ending:
    if game.end_reason == EndReason.REPLACED:
        return Ending("RESULT_YOU_REPLACED")
    if forfeit:
        return Ending("RESULT_YOU_RESIGNED")
    if game.kind_of(winner) != USER:
        return Ending("RESULT_YOU_LOST")
    if game.end_reason == EndReason.TIMEOUT:
        # As the chat tells the one who flagged (`YOU_FLAGGED`): the time, not the board.
        return Ending("YOU_FLAGGED", winner)
    return Ending("PAGE.you_lost", winner)


def _naming_the_loser(game: GameView, winner: str, loser: str, forfeit: bool) -> Ending:
    """Said to both players (a group's board, a spectator, the winner who did not win on the
    board): who left, resigned or ran out of time, else who won."""
    if game.end_reason in (EndReason.BLOCKED, EndReason.FORGOTTEN):
        return Ending("RESULT_NAME_LEFT", loser)
    if forfeit:
        return Ending("RESULT_NAME_RESIGNED", loser)
    if game.end_reason == EndReason.TIMEOUT:
        return Ending("RESULT_NAME_TIMED_OUT", loser)
    return Ending("RESULT_NAME_WON", winner)


def opener(game: GameView) -> str:
    """The side of who opened an open game: the challenger (❌), or who offered a rematch
    (any seat)."""
    mark = game.mark_of(game.created_by_id) if game.created_by_id is not None else None
    return mark or X


def invitation(game: GameView) -> Ending:
    """How an open game's board asks for players (`{name}`: who opened it; `{invited}`, or
    `{seats}` and `{left}` for a game of more, or `{o}`), for the chat and the page alike."""
    if game.rematch_of_id is not None and game.is_invitation:
        return Ending("REMATCH_OFFER", opener(game))
    if game.is_many:
        return Ending("MANY_OPEN", opener(game))
    if game.is_invitation:
        return Ending("INVITATION", opener(game))
    return Ending("OPEN_CHALLENGE", opener(game))


def seats_left(game: GameView) -> int:
    """The seats of an open game nobody has taken yet."""
    return sum(game.player_id_of(mark) is None for mark in game.marks)
