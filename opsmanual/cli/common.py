"""What the command lines share: their options, their input read with a bound, their one-line errors
(exit status 2) and their output on a terminal.

The exposure command imports this module on every check, so it imports nothing at module level but
``os``, ``sys`` and the terminal rules (no ``typing``, no ``json``): a check starts in tens of
milliseconds. The messages each command adds (what its input is, its usage line) stay in its module.
"""

from __future__ import annotations

import os
import sys

from opsmanual.text.files import read_regular  # caches and data files, read as the data loader reads its own
from opsmanual.text.terminal import escape_controls

LOCAL_SITE = "http://127.0.0.1:8000/"  # the local preview's address, the links' default
STDIN = "(standard input)"  # how a message names standard input, given as -
INVOKED: str | None = None  # "sglang-manual" or "python -m opsmanual" when run through cli/main.py
RUNNING: str | None = None  # "sglang-manual scan" when cli/main.py runs it, for an internal error's line


def prog(command: str, legacy: str) -> str:
    """How a command names itself in its usage line and messages: as it was run (``sglang-manual
    triage``), or ``legacy`` (``python -m macros.triage``) when a shim ran it."""
    return f"{INVOKED} {command}" if INVOKED else legacy


class UsageError(Exception):
    """Bad input or a bad option: one line on standard error, exit status 2."""


def site_url() -> str:
    """The manual's address for the links: $SITE_URL, else the local preview's."""
    return os.environ.get("SITE_URL") or LOCAL_SITE


def base_url(url: str) -> str:
    """An address with exactly one slash at its end, for page paths to follow."""
    return url.rstrip("/") + "/"


# --------------------------------------------------------------------------- options


def help_text(doc: str | None, usage: str) -> str:
    """What -h prints: the first paragraph of a command's docstring, then its usage."""
    return (doc or "").strip().split("\n\n")[0] + "\n\n" + usage


def help_page(usage: str, summary: str, options, exits, examples) -> str:
    """What a command's -h prints: its usage, what it does, every option, its exit status and an
    example. ``options`` and ``exits`` are (name, meaning) pairs; ``examples`` are command lines."""

    def table(rows) -> str:
        width = max(len(name) for name, _ in rows)
        return "\n".join(f"  {name.ljust(width)}  {meaning}" for name, meaning in rows)

    return (
        f"{usage}\n\n{summary}\n\noptions:\n{table(options)}\n\nexit status:\n{table(exits)}\n\n"
        + ("examples:\n" if len(examples) > 1 else "example:\n")
        + "\n".join(f"  {e}" for e in examples)
    )


def check_choice(name: str, value: object, allowed) -> None:
    """UsageError when ``allowed`` does not hold option ``name``'s ``value``: "--format takes text, json
    or sarif, not 'xml'"."""
    allowed = list(allowed)
    if value not in allowed:
        listed = allowed[0] if len(allowed) == 1 else ", ".join(allowed[:-1]) + " or " + allowed[-1]
        raise UsageError(f"{name} takes {listed}, not {value!r}")


def parse_options(
    argv: list[str],
    opts: dict,
    valued: dict[str, str],
    flags: dict,
    *,
    doc: str | None,
    usage: str,
    stop_at_word: bool = False,
    unknown_hint: str = "",
    choices: dict | None = None,
    help: str | None = None,  # what -h prints, when the command gives its whole help page
) -> list[str]:
    """Read ``argv`` into ``opts`` and return the words that are not options.

    ``valued`` maps an option that takes a value (``--gpu NAME`` or ``--gpu=NAME``) to its key in
    ``opts``; ``flags`` maps an option without one to the (key, value) it sets. ``--`` ends the
    options; ``-`` is a word (standard input). With ``stop_at_word`` the first word ends the options
    too (a command line follows it); otherwise options and words may mix. ``choices`` maps an option
    to the values it takes, checked as it is read. ``-h``/``--help`` prints :func:`help_text` and
    exits 0. Raises UsageError for an unknown option (``unknown_hint`` follows its name), an option
    without its value, or a value ``choices`` does not allow."""
    words: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return words + argv[i + 1 :]
        if a in ("-h", "--help"):
            raise SystemExit(print(help if help is not None else help_text(doc, usage)) or 0)
        if a in flags:
            key, value = flags[a]
            opts[key] = value
            i += 1
            continue
        name, eq, val = a.partition("=")
        if name in valued:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"{name} needs a value")
                i += 1
                val = argv[i]
            if choices and name in choices:
                check_choice(name, val, choices[name])
            opts[valued[name]] = val
        elif a.startswith("-") and a != "-":
            raise UsageError(f"unknown option {a}{unknown_hint}")
        elif stop_at_word:
            return argv[i:]
        else:
            words.append(a)
        i += 1
    return words


# --------------------------------------------------------------------------- input


def open_input(
    name: str, what: str, error: type[Exception] = UsageError, instead: str = "give a file", buffering: int = -1
):
    """A binary stream of the file ``name``, or of standard input for ``-``; the caller closes a file.
    Raises ``error`` with one line naming the input: standard input closed (``instead``, or pipe the
    ``what`` in), a folder, a file that cannot be opened."""
    if name == "-":
        if sys.stdin is None or getattr(sys.stdin, "buffer", None) is None:
            raise error(f"{STDIN}: standard input is closed; {instead}, or pipe the {what} in")
        return sys.stdin.buffer
    if os.path.isdir(name):
        raise error(f"{name}: is a directory")
    try:
        return open(name, "rb", buffering=buffering)
    except OSError as err:
        raise error(f"{name}: cannot read: {err.strerror or err}") from None


def read_input(name: str, limit: int, what: str, instead: str = "give a file") -> bytes:
    """The bytes of the file ``name`` (``-``: standard input), at most ``limit`` + 1 of them: more than
    ``limit`` means the input is too long, and reading stops there (standard input may never end).
    Raises UsageError as :func:`open_input` does, or when reading fails."""
    stream = open_input(name, what, instead=instead)
    try:
        return stream.read(limit + 1)
    except OSError as err:
        raise UsageError(f"{STDIN if name == '-' else name}: cannot read: {err.strerror or err}") from None
    finally:
        if name != "-":
            stream.close()


def read_json(path: str):
    """A JSON file's value (a bundle given with --bundle); raises OSError or ValueError, also for a
    FIFO or a device (opened without blocking, never read: /dev/zero never ends)."""
    import json
    import stat

    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with open(fd, encoding="utf-8") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{path}: not a regular file")
        return json.load(f)


# --------------------------------------------------------------------------- the commands' caches

MAX_CACHE = 256 << 20  # bytes of a cache a command wrote: the exposure bundle's is under 1 MiB


def file_digest(path: str, limit: int) -> str:
    """A file's part of a cache key: its name, size and CRC-32 (a key, not a defence), or its name and
    why it cannot be read (missing, not a regular file, too long, unreadable), read as
    :func:`read_regular` reads. Never raises and never blocks."""
    import zlib

    name = os.path.basename(path)
    try:
        data = read_regular(path, limit)
    except FileNotFoundError:
        return f"{name} missing"
    except (OSError, ValueError):
        return f"{name} unreadable"
    return f"{name} {len(data)} {zlib.crc32(data):08x}"


def _key_line(key: str, body: bytes) -> bytes:
    """A cache file's first line: the key, then the length and CRC-32 of the body that follows it."""
    import zlib

    return f"{key}|body {len(body)} {zlib.crc32(body):08x}".encode()


def unseal(path: str, key: str) -> bytes | None:
    """The body of the cache file ``path`` when its key line is ``key`` and the body is whole (its length
    and CRC-32 as the key line says); None for anything else: missing, another key, truncated, changed, a
    FIFO, a device or a folder in its place, longer than MAX_CACHE. Never raises and never blocks."""
    try:
        data = read_regular(path, MAX_CACHE)
    except (OSError, ValueError):
        return None
    head, newline, body = data.partition(b"\n")
    if not newline or not head.startswith(key.encode() + b"|body "):  # another key: no need to sum the body
        return None
    return body if head == _key_line(key, body) else None


def write_cache(path: str, key: str, body: bytes) -> None:
    """Write the cache file ``path`` (its key line, then ``body``) whole or not at all: into a temporary
    file beside it, renamed over it. On any failure (a read-only checkout, a folder in the cache's place) the temporary
    file is removed and nothing is raised: the command works without its cache, only slower."""
    import tempfile

    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), 0o644)  # as open() would make it: mkstemp's file is the owner's alone
            f.write(_key_line(key, body) + b"\n" + body)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


# --------------------------------------------------------------------------- output and errors


def fail(prog: str, message: str) -> int:
    """``prog: message`` on standard error, control characters escaped on a terminal; returns 2."""
    shown = escape_controls if sys.stderr.isatty() else str
    print(f"{prog}: {shown(message)}", file=sys.stderr, flush=True)  # at once: --follow notes as it watches
    return 2


def data_error(prog: str, err: BaseException, one_line: bool = False) -> int:
    """The manual's data could not be loaded: its problems, one a line (one problem, or ``one_line``:
    the first line of the error only, after the heading), on standard error; returns 2."""
    from opsmanual.data.errors import ManualError

    if one_line:
        first = str(err).splitlines()[0] if str(err) else err
        print(f"{prog}: cannot load the manual's data: {first}", file=sys.stderr)
    elif isinstance(err, ManualError) and len(err.problems) == 1:  # one line, naming the file
        print(f"{prog}: the manual's data has a problem: {err}", file=sys.stderr)
    elif isinstance(err, ManualError):
        print(f"{prog}: the manual's data has problems:\n{err}", file=sys.stderr)
    else:
        print(f"{prog}: cannot load the manual's data: {err}", file=sys.stderr)
    return 2


def internal_error(prog: str, err: BaseException, given: str) -> int:
    """An engine failed on input it should have answered: say so, and what to report, in one line;
    returns 2 (never 1, which the gates read as "found something")."""
    try:
        said = " ".join(str(err).split())
    except Exception:  # an exception that cannot be printed still gets its line
        said = "(its message cannot be printed)"
    if len(said) > 300:
        said = said[:297] + "..."
    text = f"{prog}: internal error ({type(err).__name__}: {said}); please report it with the {given}"
    shown = escape_controls if sys.stderr.isatty() else str
    print(shown(text), file=sys.stderr, flush=True)
    return 2


def print_text(text: str) -> None:
    """``text`` on standard output, each line's control characters escaped when it is a terminal."""
    shown = escape_controls if sys.stdout.isatty() else str
    print("\n".join(shown(line) for line in text.split("\n")))


def run(main, prog: str | None = None) -> None:
    """Run a command's ``main()`` and leave with its status, without tearing down the interpreter:
    freeing a bundle object by object takes longer than the check, and the process ends anyway.
    Interrupted: 130; the reader of standard output gone: 0. Any other exception is a bug: one line
    naming the command (``prog``, else the subcommand cli/main.py ran) and exit status 2, never a
    traceback and never 1, which the gates (scan, exposure, upgrade) read as "found something"."""
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    except Exception as err:  # the one place every unexpected failure ends
        try:
            code = internal_error(prog or RUNNING or "sglang-manual", err, "command line")
        except Exception:  # standard error itself failing: the status still says "not a finding"
            code = 2
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass
    os._exit(code)
