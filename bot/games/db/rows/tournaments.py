"""Reading and writing a tournament's rows (`tournaments`, `tournament_players`,
`tournament_pairings`) as the plain values of `tournament_rules`: Core statements, in a read
session or in a write transaction of the store."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm.exc import StaleDataError

from bot.games.db.models import Game, Tournament, TournamentPairing, TournamentPlayer
from bot.games.db.reads import Db
from bot.games.db.writes import CoreTransaction
from bot.games.model import EndReason, GameStatus, PlayerInfo, Result
from bot.games.play.clock_rules import Clock, clock_key, clock_of_key
from bot.games.tournaments.rules import (
    Entrant,
    Format,
    Pairing,
    PairResult,
    TournamentStatus,
    TournamentView,
    game_result,
)

TOURNAMENTS: Any = Tournament.__table__
PLAYERS: Any = TournamentPlayer.__table__
PAIRINGS: Any = TournamentPairing.__table__
GAMES: Any = Game.__table__
#: Tournaments still going: one at a time per chat.
UNDERWAY = (TournamentStatus.SIGNUP.value, TournamentStatus.RUNNING.value)


async def load(session: Db, tournament_id: int) -> TournamentView | None:
    row = (
        await session.execute(select(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id))
    ).first()
    if row is None:
        return None
    entrants = await session.execute(
        select(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id)
    )
    pairings = await session.execute(
        select(PAIRINGS)
        .where(PAIRINGS.c.tournament_id == tournament_id)
        .order_by(PAIRINGS.c.round, PAIRINGS.c.id)
    )
    return TournamentView(
        id=row.id,
        chat_id=row.chat_id,
        message_id=row.message_id,
        organiser_id=row.organiser_id,
        board=row.board,
        format=Format(row.format) if row.format else None,
        status=TournamentStatus(row.status),
        round=row.round,
        rounds=row.rounds,
        language=row.language,
        clock=clock_of_key(row.clock) if row.clock else None,
        entrants=tuple(
            Entrant(e.player_id, e.name, e.seed, bool(e.withdrawn))
            for e in sorted(entrants, key=lambda e: e.seed)
        ),
        pairings=tuple(
            Pairing(
                p.round,
                p.x_player_id,
                p.o_player_id,
                PairResult(p.result) if p.result else None,
                game_id=p.game_id,
                id=p.id,
            )
            for p in pairings
        ),
    )


async def underway_in_chat(session: Db, chat_id: int) -> int | None:
    """The chat's tournament in sign-up or running, if any."""
    return await session.scalar(
        select(TOURNAMENTS.c.id).where(
            TOURNAMENTS.c.chat_id == chat_id, TOURNAMENTS.c.status.in_(UNDERWAY)
        )
    )


async def running(session: Db) -> list[int]:
    rows = await session.execute(
        select(TOURNAMENTS.c.id).where(TOURNAMENTS.c.status == TournamentStatus.RUNNING.value)
    )
    return [row.id for row in rows]


async def lapse(session: CoreTransaction, created_before: datetime, now: datetime) -> list[int]:
    """Cancel the sign-ups opened before `created_before` that nobody started: their ids."""
    lapsed = await session.execute(
        TOURNAMENTS.update()
        .where(
            TOURNAMENTS.c.status == TournamentStatus.SIGNUP.value,
            TOURNAMENTS.c.created_at < created_before,
        )
        .values(status=TournamentStatus.CANCELLED.value, updated_at=now)
        .returning(TOURNAMENTS.c.id)
    )
    return [row.id for row in lapsed]


async def insert(
    session: CoreTransaction,
    chat_id: int,
    organiser: PlayerInfo,
    board: str,
    fmt: Format | None,
    clock: Clock,
    now: datetime,
) -> int:
    tournament_id = await session.scalar(
        TOURNAMENTS.insert()
        .values(
            chat_id=chat_id,
            organiser_id=organiser.id,
            board=board,
            format=fmt.value if fmt else None,
            status=TournamentStatus.SIGNUP.value,
            round=0,
            rounds=0,
            language=organiser.language_code,
            clock=clock_key(clock),
            created_at=now,
            updated_at=now,
        )
        .returning(TOURNAMENTS.c.id)
    )
    assert tournament_id is not None
    return int(tournament_id)


async def add_entrant(
    session: CoreTransaction, tournament_id: int, player: PlayerInfo, now: datetime
) -> None:
    last = await session.scalar(
        select(func.max(PLAYERS.c.seed)).where(PLAYERS.c.tournament_id == tournament_id)
    )
    await session.execute(
        PLAYERS.insert().values(
            tournament_id=tournament_id,
            player_id=player.id,
            seed=(last or 0) + 1,
            name=player.name,
            withdrawn=False,
            joined_at=now,
        )
    )


async def remove_entrant(session: CoreTransaction, tournament_id: int, player_id: int) -> None:
    await session.execute(
        PLAYERS.delete().where(
            PLAYERS.c.tournament_id == tournament_id, PLAYERS.c.player_id == player_id
        )
    )


async def withdraw(session: CoreTransaction, tournament_id: int, player_id: int) -> None:
    await session.execute(
        PLAYERS.update()
        .where(PLAYERS.c.tournament_id == tournament_id, PLAYERS.c.player_id == player_id)
        .values(withdrawn=True)
    )


async def change(
    session: CoreTransaction, view: TournamentView, now: datetime, **values: Any
) -> None:
    """Update the tournament from the state `view` was read in (its status and round): of two
    writers one wins, the other's transaction raises StaleDataError and rolls back."""
    stored = {
        k: v.value if isinstance(v, Format | TournamentStatus) else v for k, v in values.items()
    }
    done = await session.execute(
        TOURNAMENTS.update()
        .where(
            TOURNAMENTS.c.id == view.id,
            TOURNAMENTS.c.status == view.status.value,
            TOURNAMENTS.c.round == view.round,
        )
        .values(updated_at=now, **stored)
    )
    if done.rowcount != 1:
        raise StaleDataError("the tournament changed since it was read")


async def forget(session: CoreTransaction, player_id: int) -> None:
    """/forget: the player is out of every tournament's sign-up, and out of every tournament
    under way or over for good, as a stand-in with no name whose id is minus their seed (no
    Telegram user has one): its pairings keep their shape, and what is left is forfeited. A
    tournament they organised has no organiser any more."""
    entries = await session.execute(
        select(PLAYERS.c.tournament_id, PLAYERS.c.seed, TOURNAMENTS.c.status)
        .join(TOURNAMENTS, TOURNAMENTS.c.id == PLAYERS.c.tournament_id)
        .where(PLAYERS.c.player_id == player_id)
    )
    for tournament_id, seed, status in list(entries):
        entry = (PLAYERS.c.tournament_id == tournament_id, PLAYERS.c.player_id == player_id)
        if status == TournamentStatus.SIGNUP.value:
            await session.execute(PLAYERS.delete().where(*entry))
            continue
        stand_in = -seed
        await session.execute(
            PLAYERS.update().where(*entry).values(player_id=stand_in, name="—", withdrawn=True)
        )
        for side in ("x_player_id", "o_player_id"):
            await session.execute(
                PAIRINGS.update()
                .where(PAIRINGS.c.tournament_id == tournament_id, PAIRINGS.c[side] == player_id)
                .values({side: stand_in})
            )
    await session.execute(
        TOURNAMENTS.update()
        .where(TOURNAMENTS.c.organiser_id == player_id)
        .values(organiser_id=None)
    )


async def migrate(session: CoreTransaction, old_chat_id: int, new_chat_id: int) -> None:
    """A group became a supergroup: its tournaments follow it."""
    await session.execute(
        TOURNAMENTS.update().where(TOURNAMENTS.c.chat_id == old_chat_id).values(chat_id=new_chat_id)
    )


async def close_in_chat(session: CoreTransaction, chat_id: int, now: datetime) -> None:
    """The bot left the chat: its sign-up is cancelled, its running tournament finished as
    it stands (no round could be posted there)."""
    for was, becomes in (
        (TournamentStatus.SIGNUP, TournamentStatus.CANCELLED),
        (TournamentStatus.RUNNING, TournamentStatus.FINISHED),
    ):
        await session.execute(
            TOURNAMENTS.update()
            .where(TOURNAMENTS.c.chat_id == chat_id, TOURNAMENTS.c.status == was.value)
            .values(status=becomes.value, updated_at=now)
        )


async def attach_message(session: CoreTransaction, tournament_id: int, message_id: int) -> None:
    await session.execute(
        TOURNAMENTS.update().where(TOURNAMENTS.c.id == tournament_id).values(message_id=message_id)
    )


async def add_pairing(
    session: CoreTransaction, tournament_id: int, pairing: Pairing, game_id: int | None
) -> None:
    await session.execute(
        PAIRINGS.insert().values(
            tournament_id=tournament_id,
            round=pairing.round,
            x_player_id=pairing.x,
            o_player_id=pairing.o,
            game_id=game_id,
            result=pairing.result.value if pairing.result else None,
        )
    )


async def decide(session: CoreTransaction, pairing_id: int, result: PairResult) -> None:
    await session.execute(
        PAIRINGS.update()
        .where(PAIRINGS.c.id == pairing_id, PAIRINGS.c.result.is_(None))
        .values(result=result.value)
    )


async def endings(session: Db, pairings: Iterable[Pairing]) -> dict[int, PairResult]:
    """The pairings among these whose game is over (or gone), and what each game gave it
    (`tournament_rules.game_result`)."""
    undecided = [p for p in pairings if p.result is None and not p.is_bye]
    ids = [p.game_id for p in undecided if p.game_id is not None]
    rows = await session.execute(
        select(GAMES.c.id, GAMES.c.status, GAMES.c.result, GAMES.c.end_reason).where(
            GAMES.c.id.in_(ids)
        )
    )
    games = {
        row.id: (
            GameStatus(row.status),
            Result(row.result) if row.result else None,
            EndReason(row.end_reason) if row.end_reason else None,
        )
        for row in rows
    }
    decided = {}
    for pairing in undecided:
        result = game_result(*games.get(pairing.game_id or 0, (None, None, None)))
        if result is not None:
            decided[pairing.id] = result
    return decided
