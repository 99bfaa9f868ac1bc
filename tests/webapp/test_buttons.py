"""The Mini App's "Open board" button: on every board of two players, ultimate's too."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from bot.games.model import GameView, PlayerInfo
from bot.games.play.lifecycle import new_game
from bot.games.public_ids import new_public_id
from bot.views.render import render_game
from bot.webapp.buttons import with_open_board
from bot.webapp.links import WebAppLinks
from core.board import CLASSIC, BoardSize
from core.positions import ULTIMATE

ALICE = PlayerInfo(7, "Alice", "en")
LINKS = WebAppLinks("https://example.org", "play", "tictactoe_bot")


def _game(shape: BoardSize) -> GameView:
    draft = new_game(
        board=shape.empty_board(),
        x_kind="user",
        o_kind="hard",
        creator=ALICE,
        now=datetime.now(UTC),
        x_player=ALICE,
        chat_id=ALICE.id,
    )
    return replace(draft, id=5, public_id=new_public_id())


def test_classic_and_ultimate_boards_get_the_button() -> None:
    for shape, expected in ((CLASSIC, True), (ULTIMATE, True)):
        game = _game(shape)
        keyboard = render_game(game).keyboard
        shown = with_open_board(keyboard, game, LINKS)
        assert shown is not None and keyboard is not None
        has_button = any(b.web_app is not None for row in shown.inline_keyboard for b in row)
        assert has_button is expected, shape
