"""A database URL setting whose password never shows: `bot.config`'s DATABASE_URL."""

from __future__ import annotations

import re
from typing import Any

from pydantic import GetCoreSchemaHandler, SecretStr
from pydantic_core import core_schema

#: Where a database URL keeps its password, as SQLAlchemy's `make_url` reads it
#: (`name://user:password@…`; the password runs to the first `@`).
_PASSWORD_IN_URL = re.compile(r"(?P<head>[\w+]+://[^:/]*:)(?P<password>[^@]*)(?P<tail>@.*)", re.S)


class DatabaseUrl:
    """A database URL whose password is a `SecretStr`: str() and repr() show `***` in its
    place; `get_secret_value()` is the URL as given, to connect with."""

    __slots__ = ("_head", "_password", "_tail")

    def __init__(self, url: str) -> None:
        match = _PASSWORD_IN_URL.fullmatch(url)
        if match is None:  # no password in it (a SQLite file, a peer-authenticated socket)
            self._head, self._password, self._tail = url, None, ""
        else:
            self._head, self._tail = match["head"], match["tail"]
            self._password = SecretStr(match["password"])

    @property
    def password(self) -> SecretStr | None:
        return self._password

    def get_secret_value(self) -> str:
        if self._password is None:
            return self._head
        return f"{self._head}{self._password.get_secret_value()}{self._tail}"

    def __str__(self) -> str:
        return self._head if self._password is None else f"{self._head}***{self._tail}"

    def __repr__(self) -> str:
        return f"DatabaseUrl({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DatabaseUrl):
            return NotImplemented
        return self.get_secret_value() == other.get_secret_value()

    def __hash__(self) -> int:
        return hash(self.get_secret_value())

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[Any], handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # A DatabaseUrl as is, or a str made into one; dumped as its str (password ***).
        from_str = core_schema.no_info_after_validator_function(cls, core_schema.str_schema())
        return core_schema.union_schema(
            [core_schema.is_instance_schema(cls), from_str],
            serialization=core_schema.to_string_ser_schema(),
        )
