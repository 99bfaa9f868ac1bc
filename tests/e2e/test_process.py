"""`python -m bot` as a real process: settings, start-up, a session, SIGINT, restart, secrecy.

The fake Bot API server runs in the test's event loop, so the bot is started with
`asyncio.create_subprocess_exec` (a blocking `subprocess.run` would freeze the server).
Its output goes to files, so a chatty DEBUG log can never fill a pipe and block the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from core.notation import parse_cells
from core.rules import outcome
from tests.support.chat import RESULTS, board_cells, button_texts, cell_data, current
from tests.support.fake_telegram import FakeTelegram, StoredMessage
from tests.support.processes import (
    WAIT,
    BotProcess,
    bot_env,
    bot_process,
    bots_done,
    clean_env,
    free_port,
    get_text,
    run_to_exit,
)

# Every test here runs `python -m bot` (or its script) as a process.
pytestmark = pytest.mark.process

TOKEN = "7412589630:AAF-secretPart_ForTests-xyz"
SECRET = TOKEN.split(":", 1)[1]
ALICE = FakeTelegram.user(1001, "Alice")


# --- the process -----------------------------------------------------------------------------


def sqlite_env(fake: FakeTelegram, tmp_path: Path, **values: str) -> dict[str, str]:
    """Everything the bot needs to talk to ``fake`` and store games in ``tmp_path``, with a
    DEBUG log and short AI pauses."""
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    return bot_env(
        fake, database_url, **{"LOG_LEVEL": "DEBUG", "AI_PAUSE_SECONDS": "0.01", **values}
    )


def sqlite_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.sqlite3*"))


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram(token=TOKEN) as telegram:
        yield telegram


# --- the user's side -------------------------------------------------------------------------


def finished(fake: FakeTelegram, message: StoredMessage) -> bool:
    return outcome(parse_cells(board_cells(fake, message))) in RESULTS


def sent_to_alice(call: Any) -> bool:
    return call.method == "sendMessage" and call.ok and call.params.get("chat_id") == ALICE["id"]


async def send(fake: FakeTelegram, text: str) -> StoredMessage:
    """Alice sends ``text``; returns the bot's answer, a new message, once the bot is done.

    The bot paces its messages under Telegram's flood limits (about one a second in a private
    chat), so the tests wait for the message itself, not for a quiet moment."""
    mark = fake.mark()
    fake.send_text(ALICE, text)
    await fake.wait_for(sent_to_alice, WAIT, since=mark)
    await bots_done(fake)
    return fake.last_bot_message(ALICE["id"])


async def tap(fake: FakeTelegram, message: StoredMessage, data: str) -> dict[str, Any]:
    """Alice taps a button; returns the answerCallbackQuery params once the bot is done."""
    query_id = fake.tap(ALICE, message, data)
    answer = await fake.answer_to(query_id, timeout=WAIT)
    await bots_done(fake)
    return answer


async def tap_label(fake: FakeTelegram, message: StoredMessage, label: str) -> dict[str, Any]:
    data = dict(button for row in fake.keyboard(message) for button in row).get(label)
    assert data, f"no button {label!r} on {fake.keyboard(message)!r}"
    return await tap(fake, message, data)


async def play_free_cell(fake: FakeTelegram, message: StoredMessage) -> StoredMessage:
    """Tap the first free cell; returns the board after the bot's answer (a paced edit)."""
    cells = board_cells(fake, message)
    answer = await tap(fake, message, cell_data(fake, message, cells.index("_"), prefix=""))
    assert not answer.get("text"), answer  # no pop-up: the move was taken
    await fake.wait_until(lambda: board_cells(fake, current(fake, message)) != cells, WAIT)
    await bots_done(fake)
    return current(fake, message)


async def play_to_the_end(fake: FakeTelegram, message: StoredMessage) -> StoredMessage:
    for _ in range(9):
        if finished(fake, message):
            break
        message = await play_free_cell(fake, message)
    assert finished(fake, message)
    return message


def result_line(fake: FakeTelegram, message: StoredMessage) -> str:
    words = outcome(parse_cells(board_cells(fake, message)))
    assert words in message.text.splitlines(), message.text
    return words


async def start_hard_game_from_the_menu(fake: FakeTelegram) -> StoredMessage:
    menu = await send(fake, "/start")
    assert "Welcome to Tic-Tac-Toe" in menu.text
    mark = fake.mark()
    answer = await tap_label(fake, menu, "❌ Hard")
    assert not answer.get("text"), answer
    await fake.wait_for(sent_to_alice, WAIT, since=mark)
    board = fake.last_bot_message(ALICE["id"])
    assert board.key != menu.key
    assert "❌ Alice vs ⭕ Hard AI" in board.text
    assert board_cells(fake, board) == "_________"
    return board


# --- tests -----------------------------------------------------------------------------------


async def test_without_a_token_it_says_what_to_do_in_one_line(tmp_path: Path) -> None:
    assert not (tmp_path / ".env").exists()
    code, out, err = await run_to_exit(tmp_path, clean_env(TELEGRAM_BOT_TOKEN=""))
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "TELEGRAM_BOT_TOKEN" in lines[0]
    assert "`tictactoe-bot console`" in lines[0]
    assert "Traceback" not in err
    assert not sqlite_files(tmp_path), "no database before the settings are valid"


@pytest.mark.parametrize("log_level", ["INFO", "DEBUG"])
async def test_a_rejected_token_is_one_line_and_not_printed(
    fake: FakeTelegram, tmp_path: Path, log_level: str
) -> None:
    wrong = "7412589630:AAF-wrongSecret-abc"
    env = sqlite_env(fake, tmp_path, TELEGRAM_BOT_TOKEN=wrong, LOG_LEVEL=log_level)
    code, out, err = await run_to_exit(tmp_path, env)
    assert code == 2, err
    last = err.splitlines()[-1]
    assert last.startswith("Telegram rejected TELEGRAM_BOT_TOKEN"), err
    assert "@BotFather" in last
    assert "wrongSecret" not in out + err
    assert "Traceback" not in err
    assert [call.ok for call in fake.calls_of("getMe")] == [False]
    if log_level == "INFO":
        assert err.splitlines() == [last]
    else:
        # DEBUG shows the API URL PTB uses, with the token scrubbed from it.
        assert f"Set Bot API URL: {fake.base_url}<token>" in err


def unreachable_env(tmp_path: Path) -> tuple[dict[str, str], str]:
    """Settings whose Bot API is a port of 127.0.0.1 that nothing listens on; and that URL."""
    api = f"http://127.0.0.1:{free_port()}/bot"
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'bot.sqlite3'}"
    env = clean_env(TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_BASE_URL=api, DATABASE_URL=database_url)
    return env, api


async def test_an_unreachable_bot_api_is_one_line(tmp_path: Path) -> None:
    env, api = unreachable_env(tmp_path)
    code, out, err = await run_to_exit(tmp_path, env, timeout=60)
    assert code == 1, err
    assert out == ""
    # One line, naming the API's address and why; the retries before it are not logged.
    assert err.count("\n") == 1 and err.endswith("\n"), err
    line = err.rstrip("\n")
    assert line.startswith(f"cannot reach the Telegram Bot API at {api}: "), line
    assert "ClientConnectorError" in line  # aiohttp's reason: the connection was refused
    assert "Traceback" not in err
    assert SECRET not in err and "7412589630" not in err
    assert not sqlite_files(tmp_path), "nothing is opened before Telegram answered"


async def test_ctrl_c_while_telegram_does_not_answer_exits_at_once(tmp_path: Path) -> None:
    """A Bot API that accepts connections and never answers: the bot waits in getMe, and
    Ctrl-C there ends it quietly, without waiting for the timeouts and retries."""
    connected = asyncio.Event()
    held: list[asyncio.StreamWriter] = []

    async def silent(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)
        connected.set()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    env, _ = unreachable_env(tmp_path)
    env["TELEGRAM_API_BASE_URL"] = f"http://127.0.0.1:{port}/bot"
    try:
        async with bot_process(tmp_path, env) as bot:
            await asyncio.wait_for(connected.wait(), WAIT)
            assert await bot.stop(signal.SIGINT) == 0, bot.tail()
    finally:
        for writer in held:
            writer.close()
        server.close()
        await server.wait_closed()
    assert bot.output == "", bot.tail()
    assert not sqlite_files(tmp_path)


async def test_the_token_can_come_from_dot_env_in_the_working_directory(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    (tmp_path / ".env").write_text(
        f'# made by the test\n\nexport TELEGRAM_BOT_TOKEN="{fake.token}"\nLOG_LEVEL=info\n',
        encoding="utf-8",
    )
    env = clean_env(TELEGRAM_API_BASE_URL=fake.base_url)  # no token, no DATABASE_URL
    assert "TELEGRAM_BOT_TOKEN" not in env
    async with bot_process(tmp_path, env) as bot:
        await bot.wait_ready(fake, since=0)
        commands = fake.calls_of("setMyCommands")[-1].params["commands"]
        assert {"start", "stop", "stats", "help"} <= {c["command"] for c in commands}
        menu = await send(fake, "/start")
        assert "Welcome to Tic-Tac-Toe" in menu.text
        assert await bot.stop() == 0, bot.tail()
    # The default database: a SQLite file in the working directory.
    assert (tmp_path / "tictactoe.sqlite3").is_file()
    assert " DEBUG " not in bot.stderr  # LOG_LEVEL=info came from .env too
    assert " INFO " in bot.stderr


async def test_a_full_session_survives_a_restart(fake: FakeTelegram, tmp_path: Path) -> None:
    env = sqlite_env(fake, tmp_path)

    async with bot_process(tmp_path, env, name="first") as first:
        await first.wait_ready(fake, since=0)
        board = await start_hard_game_from_the_menu(fake)
        board = await play_free_cell(fake, board)
        board = await play_free_cell(fake, board)
        assert not finished(fake, board)
        assert await first.stop() == 0, first.tail()
    stopped_at = board_cells(fake, board)
    assert stopped_at.count("X") == 2 and stopped_at.count("O") == 2

    database = tmp_path / "bot.sqlite3"
    assert database.is_file()
    with contextlib.closing(sqlite3.connect(database)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"players", "games", "moves", "alembic_version"} <= tables
        assert db.execute("SELECT status FROM games").fetchall() == [("active",)]
        assert db.execute("SELECT count(*) FROM moves").fetchone() == (4,)

    since = fake.mark()
    async with bot_process(tmp_path, env, name="second") as second:
        await second.wait_ready(fake, since=since)
        board = fake.messages[board.key]  # type: ignore[index]
        assert board_cells(fake, board) == stopped_at
        # The same board message goes on working: the game continues where it stopped.
        final = await play_to_the_end(fake, board)
        assert fake.last_bot_message(ALICE["id"]).key == board.key
        words = result_line(fake, final)
        assert words in ("O wins", "Draw")  # the hard AI never loses
        assert "🔁 Play again" in button_texts(fake, final)

        stats = (await send(fake, "/stats")).text.splitlines()
        wins, losses, draws = 0, int(words == "O wins"), int(words == "Draw")
        assert f"Hard: {wins} / {losses} / {draws}" in stats, stats
        assert any(line.startswith(f"Total: {wins} / {losses} / {draws} in 1 ") for line in stats)
        assert await second.stop() == 0, second.tail()

    with contextlib.closing(sqlite3.connect(database)) as db:
        status = db.execute("SELECT status FROM games").fetchall()
        moves = db.execute("SELECT count(*) FROM moves").fetchone()
    assert len(status) == 1 and status[0] != ("active",)
    assert moves == (9 - board_cells(fake, final).count("_"),)
    for process in (first, second):
        assert "Traceback" not in process.stderr, process.tail()


async def test_the_token_never_reaches_the_output(fake: FakeTelegram, tmp_path: Path) -> None:
    env = sqlite_env(fake, tmp_path)
    async with bot_process(tmp_path, env) as bot:
        # At DEBUG every statement is a log line or two: a loaded CI machine once took over
        # 10 s to reach the profile's calls (the start-up migrates a new file too).
        await bot.wait_ready(fake, since=0)
        board = await start_hard_game_from_the_menu(fake)

        # A failing edit: the error handler logs it, with its traceback, at ERROR.
        fake.fail_next("editMessageText", 400)
        cells = board_cells(fake, board)
        mark = fake.mark()
        query_id = fake.tap(ALICE, board, fake.keyboard(board)[1][1][1] or "")
        await fake.answer_to(query_id, timeout=WAIT)
        await fake.wait_for(lambda call: call.method == "editMessageText", WAIT, since=mark)
        await bots_done(fake)
        failed = [call for call in fake.calls_of("editMessageText") if not call.ok]
        assert len(failed) == 1
        assert board_cells(fake, fake.messages[board.key]) == cells  # type: ignore[index]

        # The bot carries on: the game (its move was stored) stopped, a new game played to
        # the end, and the stats.
        await send(fake, "/stop")
        board = await send(fake, "/start hard")
        assert "Your move ❌" in board.text
        final = await play_to_the_end(fake, board)
        result_line(fake, final)
        assert "Your record" in (await send(fake, "/stats")).text
        assert await bot.stop() == 0, bot.tail()

    output = bot.stdout + bot.stderr
    # The log is there (so this test could fail): start-up, API calls, the error, the stop.
    assert " DEBUG telegram.ext.ExtBot: Calling Bot API endpoint `getUpdates`" in output
    assert "Calling Bot API endpoint `editMessageText`" in output
    assert " ERROR bot.handlers.errors: update " in output
    assert "telegram.error.BadRequest: Injected failure" in output
    assert "Traceback (most recent call last)" in output
    assert "bot @tictactoe_test_bot is ready" in output
    assert "Application.stop() complete" in output
    assert len(output.splitlines()) > 100
    # ... and the token is not, not even its secret part (PTB logs the API URL at DEBUG).
    assert "Set Bot API URL: " in output and "/bot<token>" in output
    assert TOKEN not in output
    assert SECRET not in output
    assert SECRET[:12] not in output


async def test_the_console_game_needs_no_token(tmp_path: Path) -> None:
    code, out, err = await run_to_exit(
        tmp_path, clean_env(), "console", stdin=b"start hard hard\nexit\n"
    )
    assert code == 0, err
    assert err == ""
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines[-2:] == ["Draw", "Input command: "], out[-500:]
    assert out.count('Making move level "hard"') == 9


async def test_a_kill_leaves_no_warning_of_leaked_semaphores(
    telegram: FakeTelegram, tmp_path: Path, database_url: str
) -> None:
    # Issue 50: every kill -9 left "resource_tracker: There appear to be 5 leaked semaphore
    # objects" in the log (the AI pool's; Python's resource tracker removes them).
    bot = BotProcess(tmp_path, bot_env(telegram, database_url))
    since = telegram.mark()
    await bot.start()
    await bot.wait_ready(telegram, since)
    await bot.kill()
    await asyncio.sleep(0.5)  # the tracker notices its pipe closed, and cleans up
    assert "leaked" not in bot.output, bot.tail()


# --- what the people who run it see: metrics and JSON logs -----------------------------------

#: A scrape of /metrics: each sample's value by its name and labels.
Scrape = dict[tuple[str, frozenset[tuple[str, str]]], float]


def sample(scrape: Scrape, name: str, **labels: str) -> float:
    return scrape.get((name, frozenset(labels.items())), 0.0)


async def scrape_until(url: str, condition: Callable[[Scrape], bool]) -> Scrape:
    """GET /metrics until ``condition`` holds of it (what a game did reaches its counters as
    its updates end and its events are heard, a moment after the last answer)."""
    deadline = time.monotonic() + WAIT
    while True:
        status, text = await get_text(url)
        assert status == 200, text
        scrape = {
            (s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }
        if condition(scrape):
            return scrape
        if time.monotonic() > deadline:
            raise AssertionError(f"/metrics never showed what was played:\n{text}")
        await asyncio.sleep(0.05)


async def test_metrics_count_what_a_game_did(fake: FakeTelegram, tmp_path: Path) -> None:
    port = free_port()
    env = sqlite_env(fake, tmp_path, METRICS_PORT=str(port), LOG_LEVEL="INFO")
    async with bot_process(tmp_path, env) as bot:
        await bot.wait_ready(fake, since=0)
        board = await start_hard_game_from_the_menu(fake)
        final = await play_to_the_end(fake, board)
        reason = {"O wins": "line", "Draw": "full"}[result_line(fake, final)]
        taps = [call for call in fake.calls_of("answerCallbackQuery") if call.ok]
        handled = bot.handled()
        url = f"http://127.0.0.1:{port}/metrics"

        def played(scrape: Scrape) -> bool:
            updates = sum(
                value
                for (name, _), value in scrape.items()
                if name == "tictactoe_update_duration_seconds_count"
            )
            ended = sample(scrape, "tictactoe_games_ended_total", kind="ai", reason=reason)
            return updates == len(handled) and ended == 1

        scrape = await scrape_until(url, played)
        assert await bot.stop() == 0, bot.tail()

    # The counters moved by what was played: the updates (a /start, then taps), the Bot API
    # calls (every tap answered), the game started and ended with its reason.
    count = "tictactoe_update_duration_seconds_count"
    assert sample(scrape, count, kind="callback_query") == len(taps)
    assert sample(scrape, count, kind="message") == len(handled) - len(taps) == 1
    calls = "tictactoe_bot_api_calls_total"
    assert sample(scrape, calls, method="answerCallbackQuery", outcome="ok") == len(taps)
    edits = [call for call in fake.calls_of("editMessageText") if call.ok]
    assert sample(scrape, calls, method="editMessageText", outcome="ok") == len(edits)
    assert sample(scrape, calls, method="getUpdates", outcome="ok") >= 1
    assert sample(scrape, "tictactoe_games_started_total", kind="ai") == 1
    assert sample(scrape, "tictactoe_games_live") == 0
    # The histograms have observations: each update's latency, each message's wait in the
    # flood gate (a private chat's pace), each write transaction.
    assert sample(scrape, "tictactoe_update_duration_seconds_sum", kind="callback_query") > 0
    waits = sample(scrape, "tictactoe_flood_wait_seconds_count", chat="private", pace="person")
    assert waits == len(edits) + len(fake.calls_of("sendMessage"))
    assert sample(scrape, "tictactoe_db_transaction_duration_seconds_count", outcome="commit") > 0
    assert sample(scrape, "process_resident_memory_bytes") > 0


async def test_a_metrics_port_taken_stops_the_start_in_one_line(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = sqlite_env(fake, tmp_path, METRICS_PORT=str(port), LOG_LEVEL="WARNING")
        code, out, err = await run_to_exit(tmp_path, env)
    assert code == 1, err
    assert out == "" and "Traceback" not in err
    where = f"cannot listen on 127.0.0.1:{port} (METRICS_LISTEN, METRICS_PORT): "
    assert err.splitlines()[-1].startswith(where), err


async def test_json_logs_are_one_object_a_line_and_never_show_the_token(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    env = sqlite_env(fake, tmp_path, LOG_FORMAT="json")  # at DEBUG: every call logged
    async with bot_process(tmp_path, env) as bot:
        await bot.wait_ready(fake, since=0)
        board = await start_hard_game_from_the_menu(fake)
        # A failing edit: the error handler logs it at ERROR, with its traceback.
        fake.fail_next("editMessageText", 400)
        mark = fake.mark()
        await tap(fake, board, fake.keyboard(board)[1][1][1] or "")
        await fake.wait_for(lambda call: call.method == "editMessageText", WAIT, since=mark)
        await bots_done(fake)
        assert await bot.stop() == 0, bot.tail()

    output = bot.stdout + bot.stderr
    assert TOKEN not in output and SECRET not in output and SECRET[:12] not in output
    lines = [json.loads(line) for line in output.splitlines()]  # every line, or it raises
    assert len(lines) > 100
    assert {line["instance"] for line in lines} == {lines[0]["instance"]}
    assert any(line["message"] == "bot @tictactoe_test_bot is ready" for line in lines)
    # What each line is about, where it is known: the update handled, its chat, its game.
    handled = [
        line for line in lines if line["logger"] == "bot.app" and "handled in" in line["message"]
    ]
    assert handled and all(line["chat"] == ALICE["id"] and "update" in line for line in handled)
    [error] = [line for line in lines if line["level"] == "ERROR"]
    assert error["chat"] == ALICE["id"] and isinstance(error["game"], int), error
    assert error["exc_info"].startswith("Traceback (most recent call last)")
    assert "telegram.error.BadRequest: Injected failure" in error["exc_info"]
