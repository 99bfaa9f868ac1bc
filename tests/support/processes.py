"""`python -m bot` as a real process against the fake Bot API server: its environment, starting
it, waiting until it long polls or listens for webhooks, posting updates to it, stopping it.

The fake server runs in the test's event loop, so the bot is started with
`asyncio.create_subprocess_exec` (a blocking `subprocess.run` would freeze the server). Its
output goes to files, so a chatty DEBUG log can never fill a pipe and block the bot."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import aiohttp

from tests.support.fake_telegram import FakeTelegram

WAIT = 10.0  # generous: a wait only takes this long when something is broken
#: A start-up's wait: importing the bot, migrating a new database and reading the catalogs
#: take 2-3 s of CPU, and a loaded CI machine (two cores, four test processes and their
#: bots) has given a start-up a third of a core: starts stalled past 10 s there.
START_WAIT = 30.0
STOP_WAIT = 5.0  # a signal to exit: "within a few seconds"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: Inherited settings that would change what the process does (TELEGRAM_* go too).
SETTINGS_VARS = ("DATABASE_URL", "LOG_LEVEL", "AI_PAUSE_SECONDS")
SETTINGS_PREFIXES = ("TELEGRAM_", "WEBHOOK_")
#: The line the bot logs (at INFO) when it is done with an update: text, or JSON
#: (LOG_FORMAT=json, whose objects begin with time, level, logger and message).
HANDLED_RE = re.compile(
    r'(?: bot\.app: |"logger": "bot\.app", "message": ")update (\d+) \S+ chat \S+ handled in '
)


def sigint_at_its_default() -> None:
    """`preexec_fn` of a child whose Ctrl-C is tested: SIGINT at its default even when this
    test run was started with SIGINT ignored (a background job of a non-interactive shell
    starts so, and its children inherit it: Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def clean_env(**values: str) -> dict[str, str]:
    """This process's environment without any bot setting, plus ``values``."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(SETTINGS_PREFIXES) and name not in SETTINGS_VARS
    }
    env["PYTHONUNBUFFERED"] = "1"
    env.update(values)
    return env


def bot_env(fake: FakeTelegram, database_url: str, **values: str) -> dict[str, str]:
    """Everything the bot needs to talk to ``fake`` and store games at ``database_url``, with
    an INFO log; ``values`` add settings or replace these."""
    settings = {
        "TELEGRAM_BOT_TOKEN": fake.token,
        "TELEGRAM_API_BASE_URL": fake.base_url,
        "DATABASE_URL": database_url,
        "LOG_LEVEL": "INFO",
    }
    return clean_env(**{**settings, **values})


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class BotProcess:
    """`python -m bot ...` in ``cwd``; stdout and stderr go to files there, named after it."""

    def __init__(self, cwd: Path, env: Mapping[str, str], name: str = "bot") -> None:
        self.cwd = cwd
        self.env = dict(env)
        self.name = name
        self.stdout_path = cwd / f"{name}.stdout"
        self.stderr_path = cwd / f"{name}.stderr"
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, *args: str) -> None:
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                *args,
                cwd=self.cwd,
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                preexec_fn=sigint_at_its_default,
            )

    @property
    def stdout(self) -> str:
        return self.stdout_path.read_text(encoding="utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    @property
    def output(self) -> str:
        """Everything it wrote (its log goes to stderr)."""
        return self.stdout + self.stderr

    def tail(self, lines: int = 40) -> str:
        """The last lines of its output, for failure messages."""
        return f"--- {self.name} ---\n" + "\n".join(self.output.splitlines()[-lines:])

    def handled(self) -> set[int]:
        """The ids of the updates it logged as handled (it logs at INFO or DEBUG)."""
        return {int(m.group(1)) for m in HANDLED_RE.finditer(self.output)}

    async def wait_handled(self, update_ids: set[int], timeout: float = WAIT) -> None:  # noqa: ASYNC109
        """Until the bot has logged every one of ``update_ids`` as handled."""
        deadline = time.monotonic() + timeout
        while not update_ids <= self.handled():
            if time.monotonic() > deadline:
                missing = sorted(update_ids - self.handled())
                raise AssertionError(f"updates {missing} never handled:\n{self.tail()}")
            await asyncio.sleep(0.02)

    async def wait_ready(
        self,
        fake: FakeTelegram,
        since: int,
        timeout: float = START_WAIT,  # noqa: ASYNC109
    ) -> None:
        """Until the bot registered its commands (after call ``since``) and long polls; fails
        fast if it exits."""

        async def ready() -> None:
            await fake.wait_for("setMyCommands", timeout, since=since)
            await fake.wait_for_poll(timeout)

        assert self.proc is not None
        # The fake knows its bots, so that a test can wait until they handled everything.
        if not hasattr(fake, "bot_processes"):
            fake.bot_processes = []  # type: ignore[attr-defined]
        fake.bot_processes.append(self)  # type: ignore[attr-defined]
        ready_task = asyncio.ensure_future(ready())
        exit_task = asyncio.ensure_future(self.proc.wait())
        try:
            await asyncio.wait({ready_task, exit_task}, return_when=asyncio.FIRST_COMPLETED)
            if not ready_task.done():
                raise AssertionError(f"the bot exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                ready_task.result()
            except AssertionError as error:
                raise AssertionError(f"{error}\nthe bot's output:\n{self.tail()}") from None
        finally:
            for task in (ready_task, exit_task):
                task.cancel()
            await asyncio.gather(ready_task, exit_task, return_exceptions=True)

    async def stop(
        self,
        how: signal.Signals = signal.SIGINT,
        timeout: float = STOP_WAIT,  # noqa: ASYNC109
        *,
        exited_ok: bool = False,
    ) -> int:
        """Send ``how`` (SIGINT as Ctrl+C would, SIGTERM as a process manager would) and wait
        for the exit; the exit code. A process still running after ``timeout`` is killed and
        the test fails; so does one that had already exited, unless ``exited_ok``."""
        assert self.proc is not None
        if exited_ok and self.proc.returncode is not None:
            return self.proc.returncode
        assert self.proc.returncode is None, f"{self.name} had exited:\n{self.tail()}"
        self.proc.send_signal(how)
        try:
            code = await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            await self.kill()
            raise AssertionError(
                f"still running {timeout}s after {how.name}:\n{self.tail()}"
            ) from None
        return code

    async def kill(self) -> None:
        """SIGKILL, if it is still running."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


async def bots_done(fake: FakeTelegram, timeout: float = WAIT) -> None:  # noqa: ASYNC109
    """Until the bot processes running against `fake` (`wait_ready` names them) logged every
    update queued so far as handled, and no call is in flight: what the test sees next is
    all the bots did."""
    processes: list[BotProcess] = getattr(fake, "bot_processes", [])
    assert processes, "no bot process is known to be running against this fake"
    queued = {update["update_id"] for update in fake.updates}
    deadline = time.monotonic() + timeout
    while not queued <= set().union(*(process.handled() for process in processes)):
        if time.monotonic() > deadline:
            raise AssertionError(f"updates never handled:\n{processes[-1].tail()}")
        await asyncio.sleep(0.02)
    await fake.wait_idle(quiet=0.0, timeout=max(0.0, deadline - time.monotonic()))


@contextlib.asynccontextmanager
async def bot_process(
    cwd: Path, env: Mapping[str, str], *args: str, name: str = "bot"
) -> AsyncIterator[BotProcess]:
    """A started process that is always killed on the way out (if it is still running)."""
    process = BotProcess(cwd, env, name)
    await process.start(*args)
    try:
        yield process
    finally:
        await process.kill()


class WebhookBot(BotProcess):
    """`python -m bot` in webhook mode on a free port of 127.0.0.1, against the fake server."""

    def __init__(
        self,
        fake: FakeTelegram,
        cwd: Path,
        database_url: str,
        secret: str,
        *,
        name: str = "bot",
        log_level: str = "INFO",
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/telegram-updates"
        self.secret = secret
        webhook = {
            "LOG_LEVEL": log_level,
            "WEBHOOK_URL": self.url,
            "WEBHOOK_LISTEN": "127.0.0.1",
            "WEBHOOK_PORT": str(self.port),
            "WEBHOOK_SECRET": secret,
        }
        super().__init__(cwd, bot_env(fake, database_url, **webhook), name)

    @property
    def health_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/healthz"

    async def wait_listening(self, timeout: float = START_WAIT) -> None:  # noqa: ASYNC109
        """Until /healthz answers 200: the server listens, the webhook is registered and the
        bot handles updates. Fails fast if the bot exits."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                if self.proc.returncode is not None:
                    raise AssertionError(
                        f"the bot exited with {self.proc.returncode}:\n{self.tail()}"
                    )
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(self.health_url) as response:
                        if response.status == 200:
                            return
                await asyncio.sleep(0.05)
        raise AssertionError(f"the webhook server never became healthy:\n{self.tail()}")


async def get_text(url: str) -> tuple[int, str]:
    """GET ``url``; the HTTP status and the body as text."""
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.text()


async def get_json(url: str) -> tuple[int, Any]:
    """GET ``url``; the HTTP status and the JSON body."""
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        return response.status, await response.json()


async def post_update(
    url: str,
    update: dict[str, Any],
    secret: str | None,
    session: aiohttp.ClientSession | None = None,
) -> int:
    """POST an update the way Telegram does (with the secret header unless ``secret`` is
    None), on ``session`` or a session of its own; the HTTP status."""
    if session is None:
        async with aiohttp.ClientSession() as own:
            return await post_update(url, update, secret, own)
    headers = {SECRET_HEADER: secret} if secret is not None else {}
    async with session.post(url, json=update, headers=headers) as response:
        return response.status


async def run_to_exit(
    cwd: Path,
    env: Mapping[str, str],
    *args: str,
    stdin: bytes = b"",
    timeout: float = 2 * WAIT,  # noqa: ASYNC109
) -> tuple[int, str, str]:
    """Run `python -m bot ...` to its end; (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=cwd,
        env=dict(env),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")
