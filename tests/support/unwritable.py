"""A SQLite database's files made read-only for a while, as a host's full disk, a remount or
a wrong owner would: for the tests of an unwritable database and the soak's database faults."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class CannotMakeReadOnly(Exception):
    """This machine cannot make the files read-only for this process (root without chattr,
    or a file system that takes no immutable flag)."""


@contextmanager
def read_only(files: list[Path]) -> Iterator[None]:
    """The files read-only while inside: immutable for root (chmod does not bind root), else
    no write permission on the files and their folder (no new -wal or -shm either)."""
    files = [path for path in files if path.exists()]
    folder = files[0].parent
    if os.geteuid() == 0:
        chattr = shutil.which("chattr")
        if chattr is None:
            raise CannotMakeReadOnly("root, and no chattr to make the files read-only with")
        made = subprocess.run([chattr, "+i", *map(str, files)], capture_output=True)
        if made.returncode:
            raise CannotMakeReadOnly(f"this file system takes no immutable flag: {made.stderr!r}")
        try:
            yield
        finally:
            subprocess.run([chattr, "-i", *map(str, files)], check=True)
        return
    modes = {path: path.stat().st_mode for path in [*files, folder]}
    for path in files:
        path.chmod(0o444)
    folder.chmod(0o555)
    try:
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)
