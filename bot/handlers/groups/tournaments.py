"""Tournaments in a group: `/tournament` opens the sign-up; Join, Leave, Start and Cancel (End,
once running) on its one message. The rounds' boards are posted as any group game's."""

from __future__ import annotations

from telegram import Update

from bot.chat.tournament import post_tournament, show_tournament
from bot.context import BotContext
from bot.games.tournaments.use_cases import Refusal
from bot.handlers.common import answer, is_group, player_from, texts_of
from bot.handlers.taps import Tapped
from bot.locales.texts import Texts
from bot.telegram.flood_gate import Pace
from bot.wire.callback_data import (
    TOURNAMENT_CANCEL,
    TOURNAMENT_JOIN,
    TOURNAMENT_LEAVE,
    TOURNAMENT_START,
)
from bot.wire.game_spec import parse_tournament_args
from bot.wire.taps import TournamentTap

REFUSALS = {
    Refusal.NOT_ORGANISER: "POPUP_TOURNAMENT_NOT_ORGANISER",
    Refusal.TOO_FEW: "POPUP_TOURNAMENT_TOO_FEW",
    Refusal.JOINED_ALREADY: "POPUP_TOURNAMENT_JOINED_ALREADY",
    Refusal.NOT_JOINED: "POPUP_TOURNAMENT_NOT_JOINED",
    Refusal.FULL: "POPUP_TOURNAMENT_FULL",
    Refusal.STARTED: "POPUP_TOURNAMENT_STARTED",
    Refusal.OVER: "POPUP_TOURNAMENT_OVER",
    Refusal.CONFLICT: "POPUP_TOURNAMENT_CONFLICT",
    Refusal.UNDERWAY: "TOURNAMENT_UNDERWAY",
}


def refusal_text(tr: Texts, refusal: Refusal) -> str:
    return tr.text(REFUSALS.get(refusal, "POPUP_TOURNAMENT_OVER"))


async def tournament(update: Update, context: BotContext) -> None:
    """`/tournament [board] [roundrobin | swiss] [3+2]` in a group: the sign-up message."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    tr = texts_of(user, context)
    if not is_group(chat):
        await message.reply_text(tr.TOURNAMENT_GROUP_ONLY)
        return
    spec = parse_tournament_args(context.args or [])
    if spec is None:
        await message.reply_text(tr.BAD_TOURNAMENT)
        return
    organiser = player_from(user)
    outcome = await context.games.tournaments.open(
        chat.id, organiser, spec.board, spec.format, spec.clock
    )
    view = outcome.tournament
    if view is not None and view.message_id is None:
        # New, or one whose message never went out (it would hold the chat forever).
        message_id = await post_tournament(context.bot, view)
        await context.games.tournaments.attach_message(view.id, message_id)
        return
    # The chat's tournament under way: the answer points at its message.
    refused = refusal_text(tr, outcome.refusal or Refusal.UNDERWAY)
    where = view.message_id if view is not None else None
    await message.reply_text(refused, reply_to_message_id=where, allow_sending_without_reply=True)


async def tap_tournament(tapped: Tapped[TournamentTap], context: BotContext) -> None:
    """Join, Leave (once running: withdraw, the game underway resigned), Start, Cancel/End."""
    query, tap = tapped.query, tapped.tap
    tr = texts_of(query.from_user, context)
    tournaments = context.games.tournaments
    act = {
        TOURNAMENT_JOIN: tournaments.join,
        TOURNAMENT_LEAVE: tournaments.leave,
        TOURNAMENT_START: tournaments.start,
        TOURNAMENT_CANCEL: tournaments.cancel,
    }
    chat_id = tapped.message.chat.id
    outcome = await act[tap.action](tap.tournament_id, chat_id, player_from(query.from_user))
    if not outcome.done:
        await answer(query, refusal_text(tr, outcome.refusal or Refusal.NO_TOURNAMENT))
        return
    said = {TOURNAMENT_JOIN: tr.POPUP_TOURNAMENT_JOINED, TOURNAMENT_LEAVE: tr.POPUP_TOURNAMENT_LEFT}
    if tap.action == TOURNAMENT_LEAVE and outcome.tournament and outcome.tournament.is_running:
        said[TOURNAMENT_LEAVE] = tr.POPUP_TOURNAMENT_FORFEIT
    await answer(query, said.get(tap.action))
    resigned = outcome.resigned
    gave_up = resigned.game if resigned is not None and resigned.played else None
    await show_tournament(
        context.bot, context.presenter, outcome.tournament, outcome.games, gave_up, Pace.PERSON
    )
