"""Tournament use-cases on a real database (`bot.games.tournaments`): sign-up, who may start
and cancel, the rounds' games as ordinary group games on the tournament's clock, a player who
leaves mid-tournament or stops moving, ending early, and a tournament picked up by another
`Games` on the same database (a restart)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from datetime import timedelta

from bot.chat.tournament import render_tournament
from bot.games.db.engine import create_engine, create_session_factory
from bot.games.db.models import Rating, utcnow
from bot.games.model import BoardRef, EndReason, GameStatus, GameView, PlayerInfo, Result
from bot.games.play.clock_rules import DEFAULT_CLOCK, Clock, TurnEvent
from bot.games.tournaments.rules import Format, PairResult, TournamentStatus, TournamentView
from bot.games.tournaments.use_cases import SIGNUP_LAPSE, Refusal
from bot.games.use_cases import Games, open_games
from bot.locales import en
from bot.views.render import ending_text, render_game
from core.board import O, X

ANN, BEN, CAT, DAN = (
    PlayerInfo(3001 + i, n, "en") for i, n in enumerate(("Ann", "Ben", "Cat", "Dan"))
)
GROUP = -100880
HERE = BoardRef(chat_id=GROUP)
X_WINS = [0, 3, 1, 4, 2]


async def signed_up(
    games: Games, *people: PlayerInfo, fmt: Format | None = None, clock: Clock | None = None
) -> int:
    opened = await games.tournaments.open(GROUP, ANN, "3x3", fmt, clock)
    assert opened.done and opened.tournament is not None
    for person in people:
        assert (await games.tournaments.join(opened.tournament.id, GROUP, person)).done
    return opened.tournament.id


async def play(games: Games, game_id: int, cells: list[int]) -> None:
    for cell in cells:
        game = await games.store.get_game(game_id)
        assert game is not None
        mover = game.player_id_of(game.to_move)
        user = next(p for p in (ANN, BEN, CAT, DAN) if p.id == mover)
        assert (await games.play.tap(game_id, HERE, user, game.ply, cell)).played


async def test_sign_up_refuses_what_it_should_and_changes_nothing(games: Games) -> None:
    tid = await signed_up(games, BEN)
    tournaments = games.tournaments
    assert (await tournaments.open(GROUP, CAT, "3x3", None)).refusal is Refusal.UNDERWAY
    assert (await tournaments.join(tid, GROUP, BEN)).refusal is Refusal.JOINED_ALREADY
    assert (await tournaments.join(tid, -1, CAT)).refusal is Refusal.NO_TOURNAMENT  # other chat
    assert (await tournaments.start(tid, GROUP, ANN)).refusal is Refusal.TOO_FEW
    assert (await tournaments.join(tid, GROUP, CAT)).done
    assert (await tournaments.start(tid, GROUP, BEN)).refusal is Refusal.NOT_ORGANISER
    assert (await tournaments.cancel(tid, GROUP, CAT)).refusal is Refusal.NOT_ORGANISER
    left = await tournaments.leave(tid, GROUP, DAN)
    assert left.refusal is Refusal.NOT_JOINED
    view = await tournaments.get(tid)
    assert (
        view is not None
        and view.is_signup
        and [e.name for e in view.entrants]
        == [
            "Ann",
            "Ben",
            "Cat",
        ]
    )
    cancelled = await tournaments.cancel(tid, GROUP, ANN)
    assert cancelled.tournament is not None
    assert cancelled.tournament.status is TournamentStatus.CANCELLED
    assert (await tournaments.join(tid, GROUP, DAN)).refusal is Refusal.OVER


async def test_start_posts_round_one_as_group_games_and_rounds_follow_the_endings(
    games: Games,
) -> None:
    tid = await signed_up(games, BEN, CAT, DAN)
    started = await games.tournaments.start(tid, GROUP, ANN)
    assert started.done and started.tournament is not None
    view = started.tournament
    assert view.format is Format.ROUND_ROBIN and view.rounds == 3 and view.round == 1
    assert len(started.games) == 2
    for game in started.games:
        assert game.is_active and game.chat_id == GROUP and game.is_between_people
        assert not game.is_between_strangers  # a group game: one board, in the group
    assert (await games.tournaments.join(tid, GROUP, PlayerInfo(9, "Zed"))).refusal is (
        Refusal.STARTED
    )
    first, second = started.games
    await play(games, first.id, X_WINS)
    assert await games.tournaments.advance(tid) is not None  # a result copied
    assert await games.tournaments.advance(tid) is None  # nothing new
    await play(games, second.id, X_WINS)
    after = await games.tournaments.advance(tid)
    assert after is not None and after.tournament is not None
    assert after.tournament.round == 2 and len(after.games) == 2
    assert [p.result for p in after.tournament.pairings if p.round == 1] == [PairResult.X] * 2


async def test_leaving_resigns_the_game_underway_and_forfeits_the_rest(games: Games) -> None:
    tid = await signed_up(games, BEN, CAT, DAN)
    started = await games.tournaments.start(tid, GROUP, ANN)
    assert started.tournament is not None
    pairing = started.tournament.open_pairing_of(DAN.id)
    assert pairing is not None and pairing.game_id is not None
    left = await games.tournaments.leave(tid, GROUP, DAN)
    assert left.resigned is not None and left.resigned.played
    resigned = left.resigned.game
    assert resigned is not None and resigned.end_reason is EndReason.RESIGNED
    winner = Result.O if pairing.x == DAN.id else Result.X
    assert resigned.status is GameStatus.FINISHED and resigned.result is winner
    other = next(g for g in started.games if g.id != pairing.game_id)
    await play(games, other.id, X_WINS)
    # Rounds 2 and 3: Dan's pairings are forfeits (no game); the others play.
    rounds = await games.tournaments.advance(tid)
    assert rounds is not None and rounds.tournament is not None
    assert len(rounds.games) == 1
    forfeit = next(p for p in rounds.tournament.current if DAN.id in (p.x, p.o))
    assert forfeit.game_id is None and forfeit.score_of(DAN.id) == 0.0
    assert (await games.tournaments.leave(tid, GROUP, DAN)).refusal is Refusal.NOT_JOINED


async def test_the_organiser_ends_it_early_with_the_standings_as_they_are(games: Games) -> None:
    tid = await signed_up(games, BEN, CAT)
    started = await games.tournaments.start(tid, GROUP, ANN)
    assert started.tournament is not None and len(started.games) == 1  # three: one bye
    await play(games, started.games[0].id, X_WINS)
    await games.tournaments.advance(tid)
    ended = await games.tournaments.cancel(tid, GROUP, ANN)
    assert ended.tournament is not None
    assert ended.tournament.status is TournamentStatus.FINISHED
    # Round 1: a game and a bye; round 2, being played: its bye (a point once paired).
    assert sum(s.points for s in ended.tournament.table) == 3.0
    assert await games.tournaments.advance(tid) is None
    assert (await games.tournaments.cancel(tid, GROUP, ANN)).refusal is Refusal.OVER


async def test_a_restarted_bot_moves_the_round_on_from_the_database(
    games: Games, database_url: str
) -> None:
    tid = await signed_up(games, BEN, CAT)
    started = await games.tournaments.start(tid, GROUP, ANN)
    await play(games, started.games[0].id, X_WINS)  # the round is over; nobody advanced it
    engine = create_engine(database_url)
    try:
        restarted = open_games(create_session_factory(engine), random.Random(1))
        assert await restarted.tournaments.running() == [tid]
        moved = await restarted.tournaments.advance(tid)
        assert moved is not None and moved.tournament is not None
        assert moved.tournament.round == 2 and len(moved.games) == 1
        assert await games.tournaments.advance(tid) is None  # done once, by one of them
    finally:
        await engine.dispose()


async def test_forget_keeps_the_tournament_whole_without_the_player(games: Games) -> None:
    tid = await signed_up(games, BEN, CAT, DAN)
    started = await games.tournaments.start(tid, GROUP, ANN)
    assert started.tournament is not None
    before = [(p.round, p.x, p.o) for p in started.tournament.pairings]
    await games.privacy.forget(DAN)
    view = await games.tournaments.get(tid)
    assert view is not None
    assert DAN.id not in view.seeds and "Dan" not in [e.name for e in view.entrants]
    stand_in = -4  # Dan joined fourth
    assert view.withdrawn == {stand_in}
    assert [(p.round, p.x, p.o) for p in view.pairings] == [
        (r, stand_in if x == DAN.id else x, stand_in if o == DAN.id else o) for r, x, o in before
    ]
    # Dan's game was resigned by /forget; the other is played: round 2 has Dan's forfeit.
    other = next(g for g in started.games if DAN.id not in (g.x_player_id, g.o_player_id))
    await play(games, other.id, X_WINS)
    moved = await games.tournaments.advance(tid)
    assert moved is not None and moved.tournament is not None and moved.tournament.round == 2
    met = {frozenset((p.x, p.o)) for p in moved.tournament.pairings if p.o is not None}
    assert len(met) == len(moved.tournament.pairings)  # nobody met twice


async def test_a_sign_up_nobody_starts_lapses_after_a_day(games: Games) -> None:
    tid = await signed_up(games, BEN)
    assert await games.tournaments.lapse(utcnow()) == []
    lapsed = await games.tournaments.lapse(utcnow() + SIGNUP_LAPSE + timedelta(seconds=1))
    assert [view.id for view in lapsed] == [tid]
    assert lapsed[0].status is TournamentStatus.CANCELLED
    assert (await games.tournaments.open(GROUP, CAT, "3x3", None)).done  # the chat is free


async def test_a_tournament_follows_its_group_and_ends_when_the_bot_leaves(games: Games) -> None:
    tid = await signed_up(games, BEN, CAT)
    started = await games.tournaments.start(tid, GROUP, ANN)
    supergroup = -1001000880
    await games.chats.migrate(GROUP, supergroup)
    view = await games.tournaments.get(tid)
    assert view is not None and view.chat_id == supergroup
    closed = await games.chats.close_all(supergroup)
    assert [g.id for g in closed] == [g.id for g in started.games]
    view = await games.tournaments.get(tid)
    assert view is not None and view.status is TournamentStatus.FINISHED
    assert await games.tournaments.advance(tid) is None  # no round posted where it can't be


async def test_tournament_games_are_rated_as_group_games_are(games: Games) -> None:
    tid = await signed_up(games, BEN, CAT)
    async with games.store.transaction() as session:  # all three rated in 3×3 already
        for person in (ANN, BEN, CAT):
            await session.execute(
                Rating.__table__.insert().values(
                    player_id=person.id,
                    pool="3x3",
                    rating=1500.0,
                    deviation=200.0,
                    volatility=0.06,
                    games=5,
                    updated_at=utcnow(),
                )
            )
    started = await games.tournaments.start(tid, GROUP, ANN)
    (game,) = started.games
    await play(games, game.id, X_WINS)
    ended = await games.store.get_game(game.id)
    assert ended is not None and ended.is_rated
    assert ended.x_rating_change is not None and ended.x_rating_change > 0
    assert ended.o_rating_change is not None and ended.o_rating_change < 0


async def test_two_instances_advancing_at_once_pair_the_round_once(
    games: Games, database_url: str
) -> None:
    tid = await signed_up(games, BEN, CAT, DAN)
    started = await games.tournaments.start(tid, GROUP, ANN)
    for game in started.games:
        await play(games, game.id, X_WINS)
    engine = create_engine(database_url)
    try:
        other = open_games(create_session_factory(engine), random.Random(2))
        both = await asyncio.gather(games.tournaments.advance(tid), other.tournaments.advance(tid))
    finally:
        await engine.dispose()
    assert sum(len(outcome.games) for outcome in both if outcome is not None) == 2
    view = await games.tournaments.get(tid)
    assert view is not None and view.round == 2 and len(view.current) == 2


#: The friends' turn timeout, far longer than any clock here: only the clock can end a game.
FRIENDS = timedelta(minutes=10)


async def shown_at_once(games: Games, game: GameView) -> None:
    """The board of `game` showed its player to move their turn as it began: their clock
    runs from then (the presenter says so in a running bot)."""
    assert game.turn_started_at is not None
    assert await games.turn_starts.seen(game, game.turn_started_at)


async def test_round_games_are_on_the_tournaments_clock_the_bots_by_default(
    games: Games,
) -> None:
    tid = await signed_up(games, BEN, CAT, clock=Clock(180.0, 2.0))
    started = await games.tournaments.start(tid, GROUP, ANN)
    assert started.tournament is not None and started.tournament.clock == Clock(180.0, 2.0)
    (game,) = started.games
    assert (game.clock_seconds, game.clock_delay) == (180.0, 2.0)
    assert game.x_clock == game.o_clock == 180.0
    assert game.flag_at is None  # ❌'s runs once her board is posted
    await games.tournaments.cancel(tid, GROUP, ANN)
    default = await signed_up(games, BEN, CAT)
    view = await games.tournaments.get(default)
    assert view is not None and view.clock == DEFAULT_CLOCK  # the bot's stranger clock


async def test_a_player_who_stops_moving_loses_on_time_and_the_round_goes_on(
    games: Games,
) -> None:
    tid = await signed_up(games, BEN, CAT, clock=Clock(60.0, 0.0))
    started = await games.tournaments.start(tid, GROUP, ANN)
    (game,) = started.games
    await shown_at_once(games, game)
    await play(games, game.id, [4])  # ❌ moves; ⭕ never does
    moved = await games.store.get_game(game.id)
    assert moved is not None and moved.turn_started_at is not None
    await shown_at_once(games, moved)
    early = moved.turn_started_at + timedelta(seconds=59)
    assert await games.timeouts.enforce(game.id, early, FRIENDS) is None
    late = moved.turn_started_at + timedelta(seconds=61)
    flagged = await games.timeouts.enforce(game.id, late, FRIENDS)
    assert flagged is not None and flagged[0] is TurnEvent.TIMEOUT
    assert flagged[1].result is Result.X and flagged[1].end_reason is EndReason.TIMEOUT
    after = await games.tournaments.advance(tid)
    assert after is not None and after.tournament is not None
    assert [p.result for p in after.tournament.pairings if p.round == 1 and not p.is_bye] == [
        PairResult.X
    ]
    assert after.tournament.round == 2 and len(after.games) == 1


async def aborted_round_one(games: Games) -> tuple[GameView, GameView, TournamentView]:
    """A three-player tournament on a minute's clock whose first game's ❌ never moves: the
    game as aborted, as stored, and the tournament once advanced after it."""
    tid = await signed_up(games, BEN, CAT, clock=Clock(60.0, 0.0))
    started = await games.tournaments.start(tid, GROUP, ANN)
    (game,) = started.games
    await shown_at_once(games, game)
    assert game.turn_started_at is not None
    late = game.turn_started_at + timedelta(seconds=61)
    aborted = await games.timeouts.enforce(game.id, late, FRIENDS)
    assert aborted is not None and aborted[0] is TurnEvent.ABORTED
    stored = await games.store.get_game(game.id)
    after = await games.tournaments.advance(tid)
    assert stored is not None and after is not None and after.tournament is not None
    return aborted[1], stored, after.tournament


async def test_an_absent_x_forfeits_the_aborted_game_and_the_round_completes(
    games: Games,
) -> None:
    aborted, stored, tournament = await aborted_round_one(games)
    # The game itself is aborted as any game whose ❌ never began (it is not rated)...
    assert aborted.status is GameStatus.ABANDONED and not aborted.is_rated
    assert stored.tournament_id == aborted.tournament_id == tournament.id
    # ...but the tournament scores it: ❌'s loss, and round 2 is paired.
    (pairing,) = [p for p in tournament.pairings if p.game_id == aborted.id]
    assert pairing.result is PairResult.O
    assert pairing.score_of(aborted.x_player_id or 0) == 0.0
    assert pairing.score_of(aborted.o_player_id or 0) == 1.0
    assert tournament.round == 2 and len(tournament.current) == 2  # a game and a bye


async def test_a_forfeit_names_the_player_who_never_moved_not_a_mark(games: Games) -> None:
    aborted, stored, _ = await aborted_round_one(games)
    absent = aborted.name_of(X)
    for view in (aborted, stored):  # as drawn at once, and drawn again from the database
        said = ending_text(view, en)
        assert absent in said and "❌" not in said and "⭕" not in said, said
        assert said == en.TOURNAMENT_GAME_ABORTED.format(name=absent)


async def test_an_aborted_games_board_and_the_standings_say_the_same(games: Games) -> None:
    aborted, stored, tournament = await aborted_round_one(games)
    absent, present = aborted.name_of(X), aborted.name_of(O)
    # The board: a forfeit, lost in the tournament by the one who never moved; not that the
    # game counts nowhere (it is unrated: that is all "nowhere" ever meant).
    board = render_game(stored).text
    said = ending_text(stored, en)
    assert said in board and absent in said and "counts nowhere" not in board, said
    assert said == en.TOURNAMENT_GAME_ABORTED.format(name=absent)
    # The standings after round 1: the same game a loss for them, a win for their opponent.
    round_one = tuple(p for p in tournament.pairings if p.round == 1)
    table = render_tournament(replace(tournament, round=1, pairings=round_one), en).text
    assert f"{absent} — 0 pts" in table and f"{present} — 1 pt" in table
