"""Strangers see each other's first name only: on both boards, in the Mini App's state, and in
the rating line of the final board."""

from __future__ import annotations

from dataclasses import replace

from bot.chat.boards import second_view
from bot.games.db.models import utcnow
from bot.games.model import USER, GameStatus, PlayerInfo
from bot.games.play import lifecycle
from bot.views.render import render_game
from bot.webapp.state import player
from core.board import Board

ANN = PlayerInfo(1, "Ann Marie Lee", "en")
BEN = PlayerInfo(2, "Ben Oak", "ru")


def stranger_game(**changes: object):  # type: ignore[no-untyped-def]
    game = lifecycle.new_game(
        board=Board.empty(),
        x_kind=USER,
        o_kind=USER,
        x_player=ANN,
        o_player=BEN,
        creator=None,
        chat_id=ANN.id,
        now=utcnow(),
    )
    return replace(game, language="en", second_chat_id=BEN.id, second_language="ru", **changes)


def test_both_boards_and_the_mini_app_show_first_names_only() -> None:
    game = stranger_game()
    first, second = render_game(game).text, render_game(second_view(game)).text
    assert first.splitlines()[0] == "❌ Ann vs ⭕ Ben"
    assert "Lee" not in second and "Oak" not in second and "Ann" in second
    assert second != first  # ⭕ reads it in Russian
    assert player(game, "X")["name"] == "Ann" and player(game, "O")["name"] == "Ben"
    # Friends in a group keep their whole names.
    friends = replace(game, second_chat_id=None, chat_id=-100)
    assert player(friends, "X")["name"] == "Ann Marie Lee"


def test_the_final_board_says_who_won_by_name_and_what_it_did_to_ratings() -> None:
    over = stranger_game(
        status=GameStatus.FINISHED, result="X", x_rating_change=14, o_rating_change=-14
    )
    text = render_game(over).text
    assert "Ann wins! 🎉" in text and "You won" not in text
    assert text.splitlines()[-1] == "Rating: Ann +14, Ben −14"
