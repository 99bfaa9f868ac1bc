"""The house's shape, checked on the source: what each package may import, no import cycles,
and modules, classes and functions small enough to hold one job each."""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "bot")
MAX_MODULE_LINES = 400
MAX_CLASS_LINES = 250
MAX_FUNCTION_LINES = 60
# Tables of strings, not logic.
EXEMPT_MODULES = {"bot.locales.en", "bot.locales.ru"}


@cache
def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


@cache
def tree(name: str) -> ast.Module:
    return ast.parse(modules()[name].read_text(encoding="utf-8"))


def imported(name: str) -> set[str]:
    """Every module `name` imports, at any depth of its body (type-checking imports too)."""
    found = set()
    package = name if modules()[name].name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree(name)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            # `from bot.games import store` imports the module bot.games.db.store.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def project_imports(name: str) -> set[str]:
    return {m for m in imported(name) if m in modules() and m != name}


def test_core_imports_only_the_standard_library() -> None:
    for name in (m for m in modules() if m.split(".")[0] == "core"):
        for module in imported(name):
            top = module.split(".")[0]
            assert top == "core" or top in sys.stdlib_module_names or top == "__future__", (
                name,
                module,
            )


def test_the_games_layer_knows_nothing_of_telegram() -> None:
    for name in (m for m in modules() if m.startswith("bot.games")):
        telegram = {m for m in imported(name) if m.split(".")[0] == "telegram"}
        assert not telegram, (name, telegram)


def test_rendering_imports_the_model_never_the_use_cases() -> None:
    # pairing: pure rules too; the callback data of the queue's buttons names its board keys.
    # clock_rules: pure rules too; a board shows its clocks.
    allowed = {"bot.games", "bot.games.model", "bot.games.summaries", "bot.games.strangers.pairing"}
    allowed.add("bot.games.play.clock_rules")
    allowed.add("bot.games.play.resign_rules")  # a board asks Resign's question
    allowed.add("bot.games.play.draw_rules")  # and offers a draw
    # Packages named on the way to a module (`from bot.games.play import clock_rules`).
    allowed |= {"bot.games.play", "bot.games.strangers"}
    for name in (
        "bot.views.render",
        "bot.views.keyboards",
        "bot.chat.boards",
        "bot.wire.callback_data",
    ):
        games = {m for m in project_imports(name) if m.startswith("bot.games")}
        assert games <= allowed, (name, games - allowed)


def test_no_import_cycles() -> None:
    graph = {name: project_imports(name) for name in modules()}
    # `from bot.games import store` names the package bot.games too; a module that names its
    # own parent package that way closes no cycle (the edge is skipped below).
    state: dict[str, int] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if name.startswith(target + "."):
                continue  # a module "imports" its parent package; not a cycle
            if state.get(target) == 1:
                pytest.fail("import cycle: " + " -> ".join([*path, name, target]))
            if target not in state:
                visit(target, [*path, name])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [])


def test_modules_classes_and_functions_stay_small() -> None:
    too_big = []
    for name, path in modules().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES and name not in EXEMPT_MODULES:
            too_big.append(f"module {name}: {lines} lines")
        for node in ast.walk(tree(name)):
            if not isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            kind, limit = (
                ("class", MAX_CLASS_LINES)
                if isinstance(node, ast.ClassDef)
                else ("function", MAX_FUNCTION_LINES)
            )
            if length > limit:
                too_big.append(f"{kind} {name}.{node.name}: {length} lines")
    assert too_big == []


MAX_FOLDER_MODULES = 15


def test_no_folder_holds_more_than_15_modules() -> None:
    # A folder says what lives in it; past 15 modules it says too many things at once.
    folders: dict[Path, int] = {}
    for path in modules().values():
        folders[path.parent] = folders.get(path.parent, 0) + 1
    crowded = {str(f.relative_to(ROOT)): n for f, n in folders.items() if n > MAX_FOLDER_MODULES}
    assert crowded == {}


def test_no_handler_chore_or_page_announces_an_ending_by_hand() -> None:
    # An ending is shown and said by the game's listeners (`bot.listeners`, wired once by
    # `bot.app`): whoever ends a game only changes it, and the event does the rest.
    announcers = {"bot.listeners", "bot.listeners.announcer", "bot.listeners.ended_boards"}
    callers = ("bot.handlers", "bot.chores", "bot.webapp", "bot.intake", "bot.chat")
    for name in (m for m in modules() if m.startswith(callers)):
        assert not project_imports(name) & announcers, name
    wired_by = {m for m in modules() if "bot.listeners" in project_imports(m)}
    assert wired_by == {"bot.app"}
