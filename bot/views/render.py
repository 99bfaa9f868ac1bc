"""What users see, as pure functions: the board message, stats, leaderboard, review."""

from __future__ import annotations

import html
from dataclasses import dataclass

from telegram import InlineKeyboardMarkup

from bot.games.model import HUMAN, USER, GameStatus, GameView, Result
from bot.games.play import clock_rules, draw_rules
from bot.games.summaries import LeaderRow, Review, ReviewStatus, Stats
from bot.locales.texts import Texts, isolate, texts_for
from bot.views.endings import ending, invitation, opener, seats_left
from bot.views.keyboards import board_keyboard
from bot.views.match_score import match_lines
from bot.views.profile import PRIVATE_COMMANDS
from bot.views.rating import first_name, rating_lines
from bot.views.ultimate import position_lines, where_to_play
from bot.wire.game_spec import StartProblem
from core.ai import LEVELS
from core.board import (
    Board,
    CellNumberError,
    CellOccupiedError,
    MoveError,
    NotNumbersError,
    O,
    OutOfRangeError,
    X,
)
from core.mnk_results import is_forced_win
from core.positions import is_ultimate
from core.ultimate.rules import WrongBlockError


@dataclass(frozen=True)
class BoardMessage:
    text: str
    keyboard: InlineKeyboardMarkup | None


def render_game(
    game: GameView, hint: int | None = None, block: int | None = None, seat: str | None = None
) -> BoardMessage:
    """The board message, in the language of the game's creator: who plays whom, whose turn
    or the result, and the keyboard (with the `hint` cell lit; on ultimate's, the small
    board `block` if the player chose one; `seat`: whose board, where each has their own).
    Ultimate's whole position is in the text."""
    tr = texts_for(game.language)
    lines = [game_title(game, tr)]
    ultimate = is_ultimate(game.board)
    lines.extend(board_lines(game, tr))
    lines.append("")
    if game.is_open:
        lines.append(_invitation(game, tr))
    elif game.is_active:
        lines.extend(_turn_lines(game, tr))
        if ultimate and game.kind_to_move == USER:
            lines.append(where_to_play(game, tr, block if hint is None else hint // 9))
    elif game.status == GameStatus.ABANDONED:
        lines.append(_closed_line(game, tr))
    elif game.status in (GameStatus.CANCELLED, GameStatus.DECLINED):
        lines.append(ending_text(game, tr))
    else:
        lines.extend(result_lines(game, tr))
    if clock_rules.is_clocked(game) and not game.is_open:
        lines.append(_clock_line(game, tr))
    if game.assisted:
        lines.append(tr.ASSISTED_LINE)
    elif game.is_finished and game.is_against_ai and is_forced_win(game.board):
        lines.append(tr.UNRATED_FORCED_WIN)
    lines.extend(rating_lines(game, tr, player_name))
    lines.extend(match_lines(game, tr, player_name))
    return BoardMessage("\n".join(lines), board_keyboard(game, tr, hint, block, seat))


def board_lines(game: GameView, tr: Texts) -> list[str]:
    """What the keyboard does not show of the board: its size and k, or ultimate's whole
    position."""
    if is_ultimate(game.board):
        return [tr.ULTIMATE_LINE, "", *position_lines(game, tr)]
    if not game.board.is_classic:
        return [tr.BOARD_SIZE.format(size=game.board.size, k=game.board.k)]
    return []


def _closed_line(game: GameView, tr: Texts) -> str:
    return ending_text(game, tr)


def _clock_line(game: GameView, tr: Texts) -> str:
    """Both sides' clocks, as read when the view was (`clock_read_at`), else at the turn's
    start: the time the side to move had then."""
    now = game.clock_read_at or game.turn_started_at
    left = {
        mark: clock_rules.shown(
            clock_rules.time_left(game, mark, now)
            if now is not None
            else clock_rules.stored_left(game, mark)
        )
        for mark in (X, O)
    }
    return tr.CLOCK_LINE.format(x_mark=symbol(X, tr), x=left[X], o_mark=symbol(O, tr), o=left[O])


def symbol(mark: str, tr: Texts) -> str:
    """❌ ⭕ 🔺 🟦 for X, O, T and S."""
    return tr.text(f"{mark}_SYMBOL")


def player_name(game: GameView, mark: str, tr: Texts) -> str:
    kind = game.kind_of(mark)
    if kind == USER:
        name = game.name_of(mark) or _invited_to(game, mark)
        if name and game.is_between_strangers:
            name = first_name(name)  # strangers see each other's first name only
        return isolate(name, tr) if name else tr.NOBODY_YET
    return tr.AI_NAME.format(level=tr.LEVEL_NAMES[kind])


def _invited_to(game: GameView, mark: str) -> str | None:
    """The name of whom an open challenge or rematch offer is for, on the one seat left for
    them (a rematch offer of a match names both players, as the match line does)."""
    if game.invited_name is None or game.status is not GameStatus.OPEN:
        return None
    empty = [m for m in game.marks if game.kind_of(m) == USER and game.player_id_of(m) is None]
    return game.invited_name if empty == [mark] else None


def opponent_name(game: GameView, user_id: int, tr: Texts) -> str:
    """Who the user plays in a game of two: the AI level, or the other person's name."""
    mine = game.mark_of(user_id)
    theirs = next((mark for mark in game.marks if mark != mine), O)
    return player_name(game, theirs, tr)


def render_nudge(game: GameView, tr: Texts) -> str:
    """The nudge to the player to move, in Telegram-HTML: their name is a mention (a
    `text_mention` of their id), so that Telegram notifies them even in a busy group."""
    mark = game.to_move
    name = html.escape(player_name(game, mark, tr), quote=False)
    player_id = game.player_id_of(mark)
    if player_id is not None and game.kind_of(mark) == USER:
        name = f'<a href="tg://user?id={player_id}">{name}</a>'
    return html.escape(tr.NUDGE_MESSAGE, quote=False).format(name=name)


def render_games_going_on(games: list[GameView], user_id: int, tr: Texts) -> str:
    """What a new game does to the user's running games against people here: nothing. They
    go on, and end by /stop (a resignation) or by the user's turn running out."""
    names = [
        player_name(game, mark, tr)
        for game in games
        for mark in game.in_play
        if game.player_id_of(mark) != user_id
    ]
    return tr.GAMES_GO_ON.format(names=", ".join(dict.fromkeys(names)))


def _is_private(game: GameView) -> bool:
    # Telegram gives private chats the user's (positive) id and groups negative ids.
    return game.chat_id is not None and game.chat_id > 0


def _invited(game: GameView, tr: Texts) -> str:
    if game.invited_name:
        return isolate(game.invited_name, tr)
    return f"@{game.invited_username}" if game.invited_username else tr.NOBODY_YET


def game_title(game: GameView, tr: Texts) -> str:
    """Who plays whom, with their marks."""
    if game.is_many:
        return " · ".join(f"{symbol(m, tr)} {player_name(game, m, tr)}" for m in game.marks)
    if game.is_one_phone:
        return tr.TWO_PLAYERS_TITLE
    return tr.VERSUS.format(
        x=tr.X_SYMBOL,
        x_name=player_name(game, "X", tr),
        o=tr.O_SYMBOL,
        o_name=player_name(game, "O", tr),
    )


def _opener(game: GameView, tr: Texts) -> str:
    """Who opened an open game: the challenger (❌), or who offered a rematch (any seat)."""
    return player_name(game, opener(game), tr)


def _invitation(game: GameView, tr: Texts) -> str:
    text = tr.text(invitation(game).key)
    name, invited = _opener(game, tr), _invited(game, tr)
    return text.format(
        name=name, invited=invited, seats=game.seats, left=seats_left(game), o=tr.O_SYMBOL
    )


def _turn_lines(game: GameView, tr: Texts) -> list[str]:
    mark = game.to_move
    name = player_name(game, mark, tr)
    if game.kind_of(mark) != USER:
        return [tr.AI_THINKING.format(name=name, mark=symbol(mark, tr))]
    if game.is_one_phone:
        return [tr.MARK_TO_MOVE.format(mark=symbol(mark, tr))]
    if _is_private(game) and not game.is_between_people:
        return [tr.YOUR_MOVE.format(mark=symbol(mark, tr))]
    lines = [tr.NAME_TO_MOVE.format(name=name, mark=symbol(mark, tr))]
    if game.nudges:
        lines.append(tr.NUDGE_LINE.format(name=name))
    offered = draw_rules.draw_offer(game)
    offerer = None if offered is None else game.mark_of(offered)
    if offerer is not None:
        lines.append(tr.DRAW_OFFER_LINE.format(name=player_name(game, offerer, tr)))
    return lines + _out_lines(game, tr)


def _out_lines(game: GameView, tr: Texts) -> list[str]:
    """Who left a game of three or four (resigned, timed out)."""
    if not game.out:
        return []
    return [tr.MANY_OUT.format(names=", ".join(player_name(game, m, tr) for m in game.out))]


def result_lines(game: GameView, tr: Texts) -> list[str]:
    # The Hyperskill words (`X wins`, `O wins`, `Draw`) in the board's language.
    if game.result == Result.DRAW:
        return [tr.OUTCOME_DRAW, ending_text(game, tr)]  # by agreement, or not
    winner = game.result or "X"
    # A private chat's board speaks to its player (against the AI); others name the players.
    private = _is_private(game) and not game.is_between_strangers
    you = (X if game.x_kind == USER else O) if private else None
    line = ending_text(game, tr, you)
    if game.is_many:
        # The Hyperskill words exist for X and O only.
        words = {X: [tr.OUTCOME_X_WINS], O: [tr.OUTCOME_O_WINS]}.get(winner, [])
        return [*words, line, *_out_lines(game, tr)]
    return [tr.OUTCOME_X_WINS if winner == X else tr.OUTCOME_O_WINS, line]


def ending_text(game: GameView, tr: Texts, you: str | None = None) -> str:
    """The `ending` line in words."""
    end = ending(game, you)
    page_key = end.key.removeprefix("PAGE.")
    text = tr.PAGE[page_key] if page_key != end.key else tr.text(end.key)
    if end.key == "CHALLENGE_DECLINED":
        return text.format(invited=_invited(game, tr))
    if end.mark is None:
        return text
    return text.format(name=player_name(game, end.mark, tr), mark=symbol(end.mark, tr))


def render_stats(stats: Stats, tr: Texts) -> str:
    """The /stats reply: one line per opponent kind played, the total and the streaks, and
    apart from them the games played with a hint or an undo."""
    if not stats.by_opponent and not stats.assisted.played and not stats.unrated.played:
        return tr.STATS_EMPTY
    lines = [tr.STATS_HEADER]
    for opponent in (*LEVELS, HUMAN):
        record = stats.by_opponent.get(opponent)
        if record is not None:
            label = tr.STATS_HUMANS if opponent == HUMAN else tr.LEVEL_NAMES[opponent]
            lines.append(
                tr.STATS_LINE.format(
                    opponent=label, wins=record.wins, losses=record.losses, draws=record.draws
                )
            )
    total = stats.total
    lines.append(
        tr.STATS_TOTAL.format(
            wins=total.wins,
            losses=total.losses,
            draws=total.draws,
            games=tr.count("COUNT_GAMES", total.played),
        )
    )
    lines.append(tr.STATS_STREAK.format(current=stats.current_streak, best=stats.best_streak))
    helped = stats.assisted
    if helped.played:
        lines.append(
            tr.STATS_ASSISTED.format(wins=helped.wins, losses=helped.losses, draws=helped.draws)
        )
    unrated = stats.unrated
    if unrated.played:
        lines.append(
            tr.STATS_UNRATED.format(wins=unrated.wins, losses=unrated.losses, draws=unrated.draws)
        )
    return "\n".join(lines)


def render_top(rows: list[LeaderRow], tr: Texts) -> str:
    """The /top reply: the group's leaderboard."""
    if not rows:
        return tr.TOP_EMPTY
    lines = [tr.TOP_HEADER]
    for rank, row in enumerate(rows, start=1):
        record = row.record
        lines.append(
            tr.TOP_LINE.format(
                rank=rank,
                name=isolate(row.name, tr),
                wins=record.wins,
                losses=record.losses,
                draws=record.draws,
            )
        )
    return "\n".join(lines)


def render_review(review: Review, tr: Texts) -> str | None:
    """One short line about the first move that could have been better; None when there is
    nothing to review for this person."""
    if review.status is ReviewStatus.WON:
        return tr.REVIEW_WON
    if review.status is ReviewStatus.PERFECT:
        return tr.REVIEW_PERFECT
    if review.status is not ReviewStatus.MISTAKE:
        return None
    assert review.played_cell is not None and review.better_cell is not None
    assert review.better_score is not None and review.played_score is not None
    board = Board.empty()
    if review.better_score > 0:
        would = tr.REVIEW_WOULD_WIN if review.played_score <= 0 else tr.REVIEW_WOULD_WIN_SOONER
    elif review.better_score == 0:
        would = tr.REVIEW_WOULD_DRAW
    else:
        would = tr.REVIEW_WOULD_LOSE_LATER
    return tr.REVIEW_MISTAKE.format(
        move=review.move_number,
        played="{} {}".format(*board.row_col(review.played_cell)),
        better="{} {}".format(*board.row_col(review.better_cell)),
        would=would,
    )


def render_move_error(error: MoveError, tr: Texts) -> str:
    """A typed move's mistake in the player's language (core's errors carry no words)."""
    if isinstance(error, NotNumbersError):
        return tr.ERROR_NOT_NUMBERS
    if isinstance(error, CellNumberError):  # one number, not a row and a column
        return tr.ERROR_CELL_OUT_OF_RANGE.format(cells=error.cells)
    if isinstance(error, OutOfRangeError):
        return tr.ERROR_OUT_OF_RANGE.format(size=error.size)
    if isinstance(error, CellOccupiedError):
        return tr.ERROR_OCCUPIED
    if isinstance(error, WrongBlockError):
        return tr.ERROR_WRONG_BOARD.format(boards=", ".join(str(b + 1) for b in error.allowed))
    return tr.POPUP_UNKNOWN_BUTTON


def render_bad_parameters(problem: StartProblem | None, tr: Texts) -> str:
    """A refused /start: `Bad parameters!` first (the Hyperskill words), then what was wrong
    with the size when that can be told, then the usage line with every accepted range."""
    first, _, usage = tr.BAD_PARAMETERS.partition("\n")
    if problem is None:
        return tr.BAD_PARAMETERS
    reasons = {
        "size": tr.BAD_SIZE,
        "k": tr.BAD_K.format(size=problem.size),
        "ultimate_size": tr.BAD_ULTIMATE_SIZE,
        "many_size": tr.BAD_MANY_SIZE,
    }
    return "\n".join([first, reasons[problem.what], usage])


def chat_commands(tr: Texts, *, group: bool) -> list[tuple[str, str]]:
    """The commands of a kind of chat, as its command menu lists them: (name, description)."""
    names = None if group else PRIVATE_COMMANDS
    return [(name, text) for name, text in tr.COMMANDS if names is None or name in names]


def render_welcome(tr: Texts, *, group: bool) -> str:
    """/start's welcome above the menu: what to tap, and every command by name."""
    others = " ".join(f"/{name}" for name, _ in chat_commands(tr, group=group) if name != "play")
    welcome = tr.WELCOME_GROUP if group else tr.WELCOME
    return f"{welcome}\n\n{tr.WELCOME_COMMANDS.format(commands=others)}"


def render_help(tr: Texts, bot: str | None, *, group: bool) -> str:
    """/help: how to play, then every command with what it does."""
    menu = "\n".join(f"/{name} — {text}" for name, text in chat_commands(tr, group=group))
    lines = [tr.HELP.format(bot=bot), tr.HELP_ASSISTS, tr.HELP_ULTIMATE, tr.HELP_MANY]
    how = "\n".join([*lines, tr.HELP_MATCHES])
    return f"{how}\n\n{tr.HELP_COMMANDS}\n{menu}"
