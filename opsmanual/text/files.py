"""Reading a file with bounds, for every reader of the manual's own files and of the files a command is
given: only a regular file is read (opened without blocking, so a FIFO put in its place never hangs the
reader, and never read when it is not a regular file: /dev/zero never ends), and at most ``limit`` bytes.
Each caller words the reasons for its own readers."""

from __future__ import annotations

import os
import stat


class NotRegular(ValueError):
    """The path is a FIFO, a device, a socket or a folder; ``mode`` is its st_mode."""

    def __init__(self, path: str, mode: int) -> None:
        self.mode = mode
        super().__init__(f"{path}: not a regular file")


class TooLarge(ValueError):
    """The file holds more than the limit; ``size`` is what was seen of it."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        self.size = size
        super().__init__(f"{path}: more than {limit:,} bytes")


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of ``path`` when it is a regular file of at most ``limit`` bytes. Raises
    FileNotFoundError when it is missing, OSError when it cannot be read, NotRegular or TooLarge."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(str(path), info.st_mode)
        if info.st_size > limit:
            raise TooLarge(str(path), info.st_size, limit)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew after it was measured
        raise TooLarge(str(path), len(data), limit)
    return data
