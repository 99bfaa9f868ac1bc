"""No module of bot/ or core/ leans on a library's private names, outside the seam modules.

A name with a leading underscore is a library's own business: it may change in any release,
without a word in the changelog. Where a library offers no public way, the private use goes
into one seam module, allowed below, whose contract test fails when the library changes it
(and pyproject pins the library's range). Checked on the source:

* `from x._y import …`, `import x._y` and `from x import _y` of a library (not of ours);
* reading `obj._name` where `obj` is not `self`, `cls`, or a name imported from our packages
  (dunders such as `__table__` are public protocol, not private).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = ("bot", "core", "migrations", "tests")

#: Seam modules that may use a library's private names, each with the contract test that
#: fails when the library changes what the seam relies on.
SEAMS: dict[str, str] = {
    # PTB's timeout type and DefaultValue, for BaseRequest.do_request overrides.
    "bot/telegram/request_timeouts.py": "tests/bot/test_request_timeouts.py",
}


@dataclass(frozen=True)
class Use:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


#: Names that start with an underscore and are a library's documented public API.
PUBLIC = frozenset({"os._exit"})  # "Exit the process with status n, without calling cleanup"


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_ours(module: str) -> bool:
    return module.split(".")[0] in OURS


def private_uses(path: Path) -> list[Use]:
    """Where the module at `path` imports or reads a private name of a library."""
    return private_uses_in(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())


def private_uses_in(source: str, where: str) -> list[Use]:
    """Where a module's source imports or reads a private name of a library."""
    tree = ast.parse(source, filename=where)
    ours = {"self", "cls"}  # names whose private attributes are our own business
    uses = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_ours(alias.name):
                    # `import bot.games.db.store` binds bot, and bot.games.db.store is ours too.
                    parts = alias.name.split(".")
                    ours.add(alias.asname or parts[0])
                    ours.update(".".join(parts[:n]) for n in range(1, len(parts) + 1))
                elif any(is_private(part) for part in alias.name.split(".")):
                    uses.append(Use(where, node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or is_ours(module):  # relative imports are of our own package
                ours.update(alias.asname or alias.name for alias in node.names)
                continue
            private = [a.name for a in node.names if is_private(a.name)]
            if module != "__future__" and any(is_private(p) for p in module.split(".")):
                private = [a.name for a in node.names]
            if private:
                uses.append(Use(where, node.lineno, f"from {module} import {', '.join(private)}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            if ast.unparse(node.value) in ours or ast.unparse(node) in PUBLIC:
                continue
            uses.append(Use(where, node.lineno, f"{ast.unparse(node)}"))
    return uses


def modules() -> list[Path]:
    return sorted(p for package in ("bot", "core") for p in (ROOT / package).rglob("*.py"))


def test_no_module_uses_a_private_name_of_a_library_outside_the_seams() -> None:
    found = [str(use) for path in modules() for use in private_uses(path) if use.path not in SEAMS]
    assert found == []


@pytest.mark.parametrize(("seam", "contract"), sorted(SEAMS.items()))
def test_each_seam_uses_private_names_and_has_a_contract_test(seam: str, contract: str) -> None:
    assert private_uses(ROOT / seam), f"{seam} uses no private name any more: take it off SEAMS"
    test = ROOT / contract
    module = seam.removesuffix(".py").replace("/", ".")
    assert test.is_file(), f"{seam} needs its contract test, {contract}"
    assert module in test.read_text(encoding="utf-8"), f"{contract} does not test {module}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "from telegram._utils.types import ODVInput",
            ["from telegram._utils.types import ODVInput"],
        ),
        ("import telegram._bot", ["import telegram._bot"]),
        ("from telegram import _bot", ["from telegram import _bot"]),
        ("def f(app):\n    return app.bot._request", ["app.bot._request"]),
        ("def f(x):\n    return x.__cause__", []),
        ("class A:\n    def f(self):\n        return self._x, type(self)._y", ["type(self)._y"]),
        ("from bot.games import store\nstore._remember", []),
        ("import bot.config\nbot.config._read_values", []),
        ("from __future__ import annotations", []),
        ("from . import _sibling", []),
    ],
)
def test_the_check_sees_what_it_should(source: str, expected: list[str]) -> None:
    assert [use.what for use in private_uses_in(source, "bot/example.py")] == expected
