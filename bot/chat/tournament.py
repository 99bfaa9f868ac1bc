"""A tournament's one message: the sign-up (players, Join / Leave, the organiser's Start /
Cancel), then the standings edited in place as rounds go (points, Sonneborn–Berger, games
left), then the winner; its header says the board, the format and its games' time control
(the clocks themselves run on the boards: the message is edited on events only, never as a
clock ticks, a group's pace being 20 messages a minute). Rendering is a pure function of the
tournament (the table's lines are `bot.views.standings`). What follows a tap, a result or a
new round goes at a person's pace, as the moves do (people are waiting for it); a lapsed
sign-up and the redraw after a restart at the background's. Editing survives a message that
is gone."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, TelegramError

from bot.chat.presenter import Presenter
from bot.chat.queue import board_label
from bot.games.model import GameView
from bot.games.play.clock_rules import clock_key
from bot.games.tournaments.rules import TournamentStatus, TournamentView, winners
from bot.locales.texts import Texts, isolate, texts_for
from bot.telegram.flood_gate import Pace, pace_args
from bot.views.standings import bye_lines, table_lines
from bot.wire.callback_data import (
    TOURNAMENT_CANCEL,
    TOURNAMENT_JOIN,
    TOURNAMENT_LEAVE,
    TOURNAMENT_START,
    pack,
)
from bot.wire.taps import TournamentTap

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TournamentMessage:
    text: str
    keyboard: InlineKeyboardMarkup | None


def render_tournament(view: TournamentView, tr: Texts) -> TournamentMessage:
    fmt = view.format.value if view.format else "any"
    title = {"board": board_label(view.board, tr), "format": tr.TOURNAMENT_FORMATS[fmt]}
    if view.clock is not None:
        header = tr.TOURNAMENT_TITLE_CLOCK.format(clock=clock_key(view.clock), **title)
    else:  # opened before tournaments had clocks
        header = tr.TOURNAMENT_TITLE.format(**title)
    lines = [header, ""]
    if view.is_signup:
        names = ", ".join(isolate(e.name, tr) for e in view.entrants) or "—"
        lines += [tr.TOURNAMENT_PLAYERS.format(names=names), "", tr.TOURNAMENT_SIGNUP]
        return TournamentMessage("\n".join(lines), _keyboard(view, tr))
    if view.status is TournamentStatus.CANCELLED:
        return TournamentMessage("\n".join([*lines, tr.TOURNAMENT_CANCELLED]), None)
    if view.is_running:
        lines.append(
            tr.TOURNAMENT_ROUND.format(round=view.round, rounds=view.rounds, left=view.games_left)
        )
        lines += bye_lines(view, tr)
    lines += table_lines(view, tr)
    lines += ["", tr.TOURNAMENT_TIEBREAK]
    if view.status is TournamentStatus.FINISHED:
        top = [isolate(view.name_of(p), tr) for p in winners(view.seeds, list(view.pairings))]
        if view.round < view.rounds or view.games_left:
            lines += ["", tr.TOURNAMENT_ENDED_EARLY]
        lines += ["", tr.TOURNAMENT_WINNER.format(names=", ".join(top))]
        return TournamentMessage("\n".join(lines), None)
    return TournamentMessage("\n".join(lines), _keyboard(view, tr))


def _keyboard(view: TournamentView, tr: Texts) -> InlineKeyboardMarkup:
    def button(label: str, action: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=pack(TournamentTap(action, view.id)))

    if view.is_signup:
        rows = [
            [
                button(tr.TOURNAMENT_JOIN, TOURNAMENT_JOIN),
                button(tr.TOURNAMENT_LEAVE, TOURNAMENT_LEAVE),
            ],
            [
                button(tr.TOURNAMENT_START, TOURNAMENT_START),
                button(tr.TOURNAMENT_CANCEL, TOURNAMENT_CANCEL),
            ],
        ]
    else:
        rows = [
            [
                button(tr.TOURNAMENT_LEAVE, TOURNAMENT_LEAVE),
                button(tr.TOURNAMENT_END, TOURNAMENT_CANCEL),
            ]
        ]
    return InlineKeyboardMarkup(rows)


async def post_tournament(bot: Bot, view: TournamentView) -> int:
    """Post the tournament's message (a person's command: their pace): its id."""
    message = render_tournament(view, texts_for(view.language))
    sent = await bot.send_message(view.chat_id, message.text, reply_markup=message.keyboard)
    return sent.message_id


async def edit_tournament(bot: Bot, view: TournamentView, *, pace: Pace = Pace.BACKGROUND) -> None:
    """Show the tournament as it is now on its message; an edit that changes nothing, or a
    message that is gone, is no failure (logged)."""
    if view.message_id is None:
        return
    message = render_tournament(view, texts_for(view.language))
    try:
        await bot.edit_message_text(
            message.text,
            chat_id=view.chat_id,
            message_id=view.message_id,
            reply_markup=message.keyboard,
            **pace_args(bot, pace),
        )
    except BadRequest as error:
        if "not modified" not in str(error).lower():
            log.info("tournament %s: message not edited: %s", view.id, error)
    except TelegramError as error:
        log.info("tournament %s: message not edited: %s", view.id, error)


async def show_tournament(
    bot: Bot,
    presenter: Presenter,
    view: TournamentView | None,
    games: Sequence[GameView] = (),
    resigned: GameView | None = None,
    pace: Pace = Pace.BACKGROUND,
) -> None:
    """After a tournament changed: the board of a game a player resigned by leaving, the
    tournament's message as it is now, then the boards of the round's new games (as any
    group game's, by the one presenter)."""
    if view is None:
        return
    if resigned is not None:
        await presenter.show(resigned)
    await edit_tournament(bot, view, pace=pace)
    for game in games:
        await presenter.post(view.chat_id, game, ai=False)
