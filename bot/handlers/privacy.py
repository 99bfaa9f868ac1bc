"""/forget: after a confirmation tap, delete everything stored about the sender."""

from __future__ import annotations

from telegram import Update

from bot.context import BotContext
from bot.handlers.common import (
    answer,
    edit_tapped,
    player_from,
    texts_of,
    unknown_button,
)
from bot.handlers.taps import Tapped
from bot.telegram.tapped_keyboard import tapped_data
from bot.views.keyboards import forget_keyboard
from bot.wire.taps import ForgetTap


async def forget(update: Update, context: BotContext) -> None:
    """Ask before deleting everything stored about the sender."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None:
        return
    tr = texts_of(user, context)
    await message.reply_text(tr.FORGET_ASK, reply_markup=forget_keyboard(tr, user.id))


async def tap_forget(tapped: Tapped[ForgetTap], context: BotContext) -> None:
    """Yes (delete) or No on the /forget question; only the person asked may answer."""
    query, tap = tapped.query, tapped.tap
    tr = texts_of(query.from_user, context)
    if tap.user_id != query.from_user.id:
        await answer(query, tr.POPUP_NOT_YOURS)
        return
    if query.data not in tapped_data(query.message):
        # Forged: only the /forget question carries this button. Never overwrite a board.
        await unknown_button(tapped.update, context)
        return
    await answer(query)
    if not tap.confirmed:
        await edit_tapped(query.edit_message_text(tr.FORGET_KEPT))
        return
    report = await context.games.privacy.forget(player_from(query.from_user))
    if not (report.had_profile or report.games_deleted or report.games_anonymized):
        await edit_tapped(query.edit_message_text(tr.FORGET_NOTHING))
        return
    await query.edit_message_text(
        tr.FORGET_DONE.format(
            games=tr.count("COUNT_GAMES", report.games_deleted),
            moves=tr.count("COUNT_MOVES", report.moves_deleted),
            anonymized=tr.count("FORGET_ANONYMIZED", report.games_anonymized),
        )
    )
