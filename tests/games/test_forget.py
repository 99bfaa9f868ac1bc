"""/forget deletes everything stored about the sender, after a confirmation tap."""

from __future__ import annotations

from sqlalchemy import func, select

from bot.games.db.models import Game, Move, Player
from bot.games.model import BoardRef, MoveStatus, PlayerInfo
from bot.games.use_cases import Games
from tests.support.bot_runner import BotRunner
from tests.support.chat import send, tap_data
from tests.support.fake_telegram import FakeTelegram

ALICE = PlayerInfo(11, "Alice", "en", "alice")
BOB = PlayerInfo(22, "Bob", "en", "bob")
GROUP = -500


async def _count(games: Games, model: type, *where) -> int:
    async with games.store.sessions() as session:
        return await session.scalar(select(func.count()).select_from(model).where(*where)) or 0


async def test_forget_deletes_solo_games_and_anonymizes_games_with_people(
    games: Games,
) -> None:
    # Alice: one finished game against the AI, one running game against Bob, one open challenge.
    solo = (await games.play.start_game(ALICE.id, ALICE, "user", "easy")).game
    await games.play.tap(solo.id, BoardRef(ALICE.id), ALICE, 0, 4)
    duel = await games.challenges.create(GROUP, ALICE)
    assert (await games.challenges.join(duel.id, BoardRef(GROUP), BOB)).played
    assert (await games.play.tap(duel.id, BoardRef(GROUP), ALICE, 0, 0)).played
    lonely = await games.challenges.create(GROUP, ALICE)
    await games.chats.attach_message(lonely.id, 77)

    report = await games.privacy.forget(ALICE)

    # The solo game and the challenge nobody joined were Alice's alone: gone.
    assert report.had_profile and report.games_deleted == 2 and report.moves_deleted == 2
    assert report.games_anonymized == 1
    assert {(g.id, g.status) for g in report.ended} == {
        (duel.id, "finished"),
        (lonely.id, "cancelled"),
    }
    assert await games.store.get_game(solo.id) is None
    assert await games.store.get_game(lonely.id) is None
    assert await _count(games, Player, Player.id == ALICE.id) == 0
    for column in (Game.x_player_id, Game.o_player_id, Game.created_by_id, Game.invited_player_id):
        assert await _count(games, Game, column == ALICE.id) == 0
    assert await _count(games, Move, Move.player_id == ALICE.id) == 0
    # Bob keeps his game: Alice resigned it, so he won.
    kept = await games.store.get_game(duel.id)
    assert kept is not None and kept.result == "O" and kept.end_reason == "forgotten"
    assert (await games.records.stats(BOB.id)).by_opponent["human"].wins == 1
    assert (await games.records.stats(ALICE.id)).by_opponent == {}
    # Forgetting twice finds nothing.
    again = await games.privacy.forget(ALICE)
    assert not (again.had_profile or again.games_deleted or again.games_anonymized)
    assert (await games.play.tap(duel.id, BoardRef(GROUP), BOB, 1, 1)).status is (
        MoveStatus.GAME_OVER
    )


async def test_forget_in_chat_asks_first_and_only_the_sender_can_confirm(
    telegram: FakeTelegram, bot: BotRunner
) -> None:
    alice = telegram.user(11, "Alice")
    mallory = telegram.user(66, "Mallory")
    await send(telegram, alice, "/start hard")
    await send(telegram, alice, "/forget")
    ask = telegram.last_bot_message(alice["id"])
    assert "cannot be undone" in ask.text
    yes, no = (data for _, data in telegram.keyboard(ask)[0])

    answer = await telegram.answer_to(telegram.tap(mallory, ask, yes or ""))
    assert answer["text"] == "Only the person who asked can answer this."
    await tap_data(telegram, alice, ask, no or "")
    assert telegram.messages[ask.key].text == "Nothing was deleted."

    await send(telegram, alice, "/forget")
    ask = telegram.last_bot_message(alice["id"])
    await tap_data(telegram, alice, ask, telegram.keyboard(ask)[0][0][1] or "")
    assert telegram.messages[ask.key].text.startswith("Done. Deleted: your profile, 1 game and ")
    await send(telegram, alice, "/stats")
    assert "No finished games" in telegram.last_bot_message(alice["id"]).text
