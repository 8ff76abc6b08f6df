"""Read a pasted launch command the way the shell and SGLang's argument parser would.

    parse(text, args) -> dict

``args`` maps an argument list's program name (``sglang``, ``sglang-router``,
``sglang-bench``, ``miles``) to one release's list, in the shape of
``data/<program>-args-<version>.json`` (``{"version": ..., "arguments": [...]}``).
The result is plain data (see :func:`parse`); nothing here raises on bad input:
a problem with the paste is an ``error`` in the result, a problem with one flag
is a ``finding``.

Accepted forms (the JavaScript twin, docs/javascripts/sgm/command.js, accepts
the same ones and gives the same messages):

* ``python -m sglang.launch_server ...``, ``python3 -m ...``, ``sglang serve ...``,
  ``python -m sglang_router.launch_router ...``, ``python -m sglang.bench_serving ...``,
  ``python3 train.py ...`` (Miles);
* in front of them: ``NAME=value`` prefixes, ``env [-i] [-u NAME] NAME=value``,
  ``export NAME=value`` lines, ``sudo``, ``nohup``, ``exec``, ``time``, ``uv run``,
  ``bash -c "..."``, ``ray job submit ... --``, ``docker run [options] IMAGE ...``,
  ``docker exec [options] CONTAINER ...`` (or ``podman``), ``kubectl exec POD -- ...`` and
  ``kubectl run NAME [options] -- ...``: the command they run in a container, with only the variables their
  own options (``-e``/``--env``) pass in;
* backslash continuations, comments, quotes, redirections, pipes and ``&&``;
* ``--flag value``, ``--flag=value``, switches, lists (``nargs``), aliases and the
  unambiguous abbreviations argparse accepts (``--tp`` for ``--tp-size``);
* a Python ``sgl.Engine(...)`` / ``Engine(...)`` / ``ServerArgs(...)`` call, read
  with :mod:`ast`; its keyword arguments are ``ServerArgs`` fields.
"""

from __future__ import annotations

# `re` (with the enum module it imports) costs more start-up time than a whole check, so the
# patterns every command meets are written out below; `re` is imported only for rarer ones.

MAX_CHARS = 100_000  # a launch command is a few hundred characters; a paste beyond this is refused

# The program a command runs -> the argument list that describes it, and the modules `python -m`
# runs, by program: opsmanual/data/programs.py.
# How findings name an argument list (article, label), and every message: opsmanual/data/exposure_words.py.
from opsmanual.data.exposure_words import ARG_LABELS as ARGS_LABEL  # noqa: E402
from opsmanual.data.exposure_words import CUT_MARKS, ELISIONS, MESSAGES, SHELL_OPTIONS, say  # noqa: E402
from opsmanual.data.programs import ARGS_PROGRAM, MODULES  # noqa: E402

MILES_SCRIPTS = ("train.py", "train_async.py")
NOT_A_COMMAND = MESSAGES["p_not_a_command"]


def _re():
    import re

    return re


class _Lazy:
    """A pattern compiled on first use: most checks never need it, and compiling costs start-up time."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags, self._compiled = pattern, flags, None

    def __getattr__(self, name):
        if self._compiled is None:
            self._compiled = _re().compile(self.pattern, self.flags)
        return getattr(self._compiled, name)


DIGITS = frozenset("0123456789")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_REST = _NAME_START | DIGITS


def digits(text: str) -> bool:
    """[0-9]+"""
    return bool(text) and all(c in DIGITS for c in text)


def _grouped(text: str) -> bool:
    """[0-9]+(_[0-9]+)*"""
    return all(digits(part) for part in text.split("_"))


def assignment(text: str):
    """(NAME, value) for a shell assignment word NAME=value (NAME: [A-Za-z_][A-Za-z0-9_]*), else None."""
    at = text.find("=")
    if at <= 0 or text[0] not in _NAME_START or not all(c in _NAME_REST for c in text[1:at]):
        return None
    return text[:at], text[at + 1 :]


def _is_python(name: str) -> bool:
    """python[0-9]*(.[0-9]+)*: python, python3, python3.11"""
    if not name.startswith("python"):
        return False
    head, *rest = name[6:].split(".")
    return (head == "" or digits(head)) and all(digits(p) for p in rest)


def negative_number(text: str) -> bool:
    """-([0-9]+|[0-9]*.[0-9]+): a word argparse reads as a value, not an option"""
    if not text.startswith("-"):
        return False
    whole, dot, frac = text[1:].partition(".")
    return digits(frac) and (whole == "" or digits(whole)) if dot else digits(whole)


def is_int(text: str) -> bool:
    """[+-]?[0-9]+(_[0-9]+)*"""
    return _grouped(text[1:] if text[:1] in ("+", "-") else text)


def is_float(text: str, *, underscores: bool = True) -> bool:
    """[+-]?(D(.D?)?|.D)([eE][+-]?[0-9]+)? where D is [0-9]+, with single underscores between
    digits when ``underscores``."""
    body = text[1:] if text[:1] in ("+", "-") else text
    cut = next((k for k, c in enumerate(body) if c in "eE"), -1)
    if cut >= 0:
        exponent = body[cut + 1 :]
        if not digits(exponent[1:] if exponent[:1] in ("+", "-") else exponent):
            return False
        body = body[:cut]
    group = _grouped if underscores else digits
    whole, dot, frac = body.partition(".")
    if not dot:
        return group(whole)
    if whole == "":
        return group(frac)
    return group(whole) and (frac == "" or group(frac))


_CALL = _Lazy(r"(?<![A-Za-z0-9_])(?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)*(Engine|ServerArgs)\s*\(")
_LOOKS_LIKE = _Lazy(
    r"python[0-9.]*\s+(-[a-zA-Z]+\s+)*-m\s*sglang|sglang\s+serve|sglang_router"
    r"|(docker|podman)\s+(run|exec)|kubectl\s+(exec|run)\s|train(_async)?\.py"
)
_DASHES = ("\u2013", "\u2014", "\u2212")  # en dash, em dash, minus sign: what chat tools turn "--" into

# docker run / docker exec, sudo and uv run options that take a value (everything else is a switch).
DOCKER_VALUE = frozenset(SHELL_OPTIONS["docker"])
SUDO_VALUE = frozenset(SHELL_OPTIONS["sudo"])
UV_VALUE = frozenset(SHELL_OPTIONS["uv"])


class CommandError(Exception):
    """The paste cannot be read as a command; the message says why, in one line."""


# --------------------------------------------------------------------------- shell words


class Word(str):
    """A shell word after quote removal; ``dynamic`` when it holds an unexpanded $... or `...`."""

    dynamic: bool = False


def _word(text: str, dynamic: bool) -> Word:
    w = Word(text)
    w.dynamic = dynamic
    return w


def _split_option(word: str) -> tuple[str, str | None]:
    """``--name=value`` as (``--name``, ``value``); a word without ``=`` as (the word, None)."""
    name, eq, value = word.partition("=")
    return name, value if eq else None


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    col = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return say("p_where", line=line, column=col)


def _skip_balanced(text: str, i: int, open_: str, close: str) -> int:
    """Index just past the ``close`` that balances the ``open_`` at ``i``; -1 if none."""
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and open_ == "(":
            end = text.find("'", i + 1)
            if end < 0:
                return -1
            i = end + 1
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


_REDIRECTS = ("<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">")  # longest first


def shell_split(text: str) -> list[list[Word]]:
    """Split shell text into simple commands (lists of words), as a POSIX shell would,
    without expanding anything. Raises CommandError on unbalanced quotes."""
    w = _Words()
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            ch, i = _escaped(text, i)
            if ch is not None:
                w.add(ch)
        elif c in " \t\r\f\v":
            w.end_word()
            i += 1
        elif c in "\n;":
            w.new_command()
            i += 1
        elif c in "&|":
            i = _operator(text, i, w)
        elif c in "<>":
            if w.cur is not None and digits("".join(w.cur)) and not w.dyn:
                w.cur, w.dyn = None, False  # a file descriptor number: 2>&1
            else:
                w.end_word()
            i += next(len(op) for op in _REDIRECTS if text.startswith(op, i))
            w.skip_next = True
        elif c == "#" and w.cur is None:
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c in "'\"`" or (c == "$" and i + 1 < n and text[i + 1] in "({'"):
            chunk, i, dynamic = _quoted(text, i)
            w.add(chunk, dynamic)
        else:
            w.add(c, c == "$" and i + 1 < n and (text[i + 1] in _NAME_REST or text[i + 1] in "@*#?$!-"))
            i += 1
    w.end_word()
    return [cmd for cmd in w.commands if cmd]


class _Words:
    """The simple commands shell_split builds: the words so far and the word being read."""

    __slots__ = ("commands", "cur", "dyn", "skip_next")

    def __init__(self) -> None:
        self.commands: list[list[Word]] = [[]]
        self.cur: list[str] | None = None
        self.dyn = False
        self.skip_next = False  # the word after a redirection is its target, not an argument

    def add(self, chunk: str, dynamic: bool = False) -> None:
        if self.cur is None:
            self.cur = []
        self.cur.append(chunk)
        if dynamic:
            self.dyn = True

    def end_word(self) -> None:
        if self.cur is not None:
            if self.skip_next:
                self.skip_next = False
            else:
                self.commands[-1].append(_word("".join(self.cur), self.dyn))
        self.cur, self.dyn = None, False

    def new_command(self) -> None:
        self.end_word()
        if self.commands[-1]:
            self.commands.append([])


def _escaped(text: str, i: int) -> tuple[str | None, int]:
    """The character a backslash at ``i`` quotes (None for a line continuation or a backslash at the
    end), and where the text goes on."""
    if text.startswith("\r\n", i + 1):
        return None, i + 3
    if i + 1 < len(text) and text[i + 1] == "\n":
        return None, i + 2
    if i + 1 >= len(text):
        return None, i + 1
    return text[i + 1], i + 2


def _operator(text: str, i: int, w: _Words) -> int:
    """Read the control operator or the ``&>`` redirection at ``i`` (an ``&`` or a ``|``); where the
    text goes on."""
    if text.startswith("&>", i):
        if w.cur is not None and not w.skip_next:
            w.end_word()
        w.skip_next = True
        return i + (3 if text.startswith("&>>", i) else 2)
    w.new_command()
    if text[i] == "&":
        return i + (2 if text.startswith("&&", i) else 1)
    return i + (2 if text.startswith(("||", "|&"), i) else 1)


def _quoted(text: str, i: int) -> tuple[str, int, bool]:
    """The quoted part or substitution that starts at ``i`` (``'...'``, ``"..."``, ``$'...'``,
    ``$(...)``, ``${...}``, a backquote): what the word gets, where the text goes on, and whether its
    value is decided at run time."""
    c = text[i]
    if c == '"':
        return _double_quoted(text, i)
    if c == "$" and text[i + 1] in "({":
        end = _skip_balanced(text, i + 1, text[i + 1], ")" if text[i + 1] == "(" else "}")
        if end < 0:
            raise CommandError(say("p_unbalanced_paren", paren=text[i + 1], where=_where(text, i)))
        return text[i:end], end, True
    quote, start = ("$'", i + 2) if c == "$" else (c, i + 1)
    end = text.find(quote[-1], start)
    if end < 0:
        raise CommandError(say("p_unbalanced", quote=quote, where=_where(text, i)))
    if c == "`":
        return text[i : end + 1], end + 1, True
    return text[start:end], end + 1, False


def _double_quoted(text: str, i: int) -> tuple[str, int, bool]:
    """The text of the double-quoted part that starts at ``i``, where the text goes on after it, and
    whether it holds a ``$`` or a backquote."""
    out: list[str] = []
    dyn = False
    j, n = i + 1, len(text)
    while True:
        if j >= n:
            raise CommandError(say("p_unbalanced", quote='"', where=_where(text, i)))
        d = text[j]
        if d == '"':
            break
        if d == "\\" and j + 1 < n and text[j + 1] in '"\\$`\n':
            if text[j + 1] != "\n":
                out.append(text[j + 1])
            j += 2
            continue
        if d in "$`":
            dyn = True
        out.append(d)
        j += 1
    return "".join(out), j + 1, dyn


def _strip_prompts(text: str) -> str:
    """Drop a shell prompt ("$ ") in front of pasted lines."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        rest = line.lstrip(" \t")
        if rest[:1] == "$" and rest[1:2] in (" ", "\t"):
            lines[k] = rest[1:].lstrip(" \t")
    return "\n".join(lines)


# --------------------------------------------------------------------------- argument lists


class ArgList:
    """One release's argument list, indexed for the parser."""

    def __init__(self, program: str, data: dict):
        self.program = program
        self.version = data.get("version")
        self.arguments = data.get("arguments") or []
        self.by_option: dict[str, dict] = {}
        self.by_field: dict[str, dict] = {}
        for arg in self.arguments:
            for name in [arg["name"], *(arg.get("aliases") or [])]:
                self.by_option.setdefault(name, arg)
            if arg.get("field"):
                self.by_field.setdefault(arg["field"], arg)
        self._options: list[str] | None = None
        self._suggestable: list[str] | None = None

    @property
    def options(self) -> list[str]:
        """Every option string, sorted (needed only for abbreviations and suggestions)."""
        if self._options is None:
            self._options = sorted(self.by_option)
        return self._options

    @property
    def suggestable(self) -> list[str]:
        """What a suggestion may offer: not the abbreviations an argument list records as aliases
        (a prefix of another name of the same argument, such as `--tp` of `--tp-size`)."""
        if self._suggestable is None:

            def names(o):
                return [self.by_option[o]["name"], *(self.by_option[o].get("aliases") or [])]

            self._suggestable = [o for o in self.options if not any(n != o and n.startswith(o) for n in names(o))]
        return self._suggestable

    @property
    def label(self) -> str:
        """ "an SGLang 0.5.22" (with its article)."""
        article, label = ARGS_LABEL.get(self.program, ("a", self.program))
        return say("p_list_label", article=article, label=label, version=self.version)

    @property
    def name(self) -> str:
        """ "SGLang 0.5.22"."""
        return say("p_list_name", label=ARGS_LABEL.get(self.program, ("a", self.program))[1], version=self.version)

    def resolve(self, written: str) -> tuple[dict | None, list[dict]]:
        """The argument an option string names: exact, or an unambiguous prefix (as argparse
        allows). Returns (argument, []) or (None, the arguments an ambiguous prefix could mean)."""
        arg = self.by_option.get(written)
        if arg is not None:
            return arg, []
        if not written.startswith("--") or len(written) < 3:
            return None, []
        found: list[dict] = []
        for name in self.options:
            if name.startswith(written):
                arg = self.by_option[name]
                if not any(a is arg for a in found):
                    found.append(arg)
        if len(found) == 1:
            return found[0], []
        return None, found


class Specs:
    """Argument lists by program name, each made when first asked for: a check reads one or two."""

    def __init__(self, makers: dict):
        self._makers = makers
        self._made: dict = {}

    def get(self, program: str, default=None):
        if program not in self._made:
            maker = self._makers.get(program)
            self._made[program] = maker() if maker is not None else None
        found = self._made[program]
        return default if found is None else found


def is_switch(arg: dict) -> bool:
    return arg.get("nargs") == 0


def close_matches(word: str, options: list[str]) -> list[str]:
    import difflib

    if len(word) > 200:  # a pasted blob, not a typo
        return []
    return difflib.get_close_matches(word, options, n=3, cutoff=0.6)


def or_list(items: list[str]) -> str:
    quoted = [say("code", text=x) for x in items]
    return quoted[0] if len(quoted) == 1 else MESSAGES["list"].join(quoted[:-1]) + MESSAGES["or"] + quoted[-1]


def convert(value: str, kind: str):
    """A command-line word as the argument's type; raises ValueError when it is not one."""
    if kind == "int":
        if not is_int(value):
            raise ValueError(say("p_an_integer"))
        return int(value.replace("_", ""))
    if kind == "float":
        if not is_float(value):
            raise ValueError(say("p_a_number"))
        return float(value.replace("_", ""))
    if kind == "json":
        import json

        try:
            return json.loads(value)
        except ValueError:
            raise ValueError(say("p_valid_json")) from None
    return value


def fmt_value(v) -> str:
    """A value as the manual writes it (the same text in Python and JavaScript)."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and v.is_integer() and abs(v) < 1e16:
            return str(int(v))
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{fmt_value(k)}: {fmt_value(x)}" for k, x in v.items()) + "}"
    return str(v)


# --------------------------------------------------------------------------- flags

MAX_FINDINGS = 30  # findings listed for one command; a paste of thousands of unknown flags stays quick to read


def _finding(findings: list, code: str, message: str) -> None:
    if len(findings) >= MAX_FINDINGS or any(f["message"] == message for f in findings):
        return
    if len(findings) == MAX_FINDINGS - 1:
        findings.append({"code": "more-findings", "message": say("p_more_findings")})
        return
    findings.append({"code": code, "message": message})


def _full(findings: list) -> bool:
    """No finding will be added: work that only serves one (a spelling suggestion) can be skipped."""
    return len(findings) >= MAX_FINDINGS


def parse_flags(words: list[Word], spec: ArgList | None, program: str, result: dict, *, serve: bool = False) -> None:
    """Read the words after the program into result["flags"] (canonical name -> entry)."""
    findings = result["findings"]
    check_unknown = program != "miles"  # Miles hands the flags it does not define to Megatron
    unknown: set[str] = set()
    if serve and words and not words[0].startswith("-"):  # `sglang serve MODEL`: the first word is the model
        words = [_word("--model-path", False), *words]
    i, n = 0, len(words)
    only_values = False
    while i < n:
        w = words[i]
        i += 1
        if w.dynamic and w[:1] in "$`":
            _opaque(result, "opaque", f"`{w}`", "flags")
            continue
        if w == "--" and not only_values:
            only_values = True
            continue
        if w in ELISIONS and not only_values:  # `python -m sglang.launch_server ... --tp 2`: options left out
            cut_off(result, say("p_cut_word", mark=w))
            continue
        if w[:1] in _DASHES and not only_values:
            fixed = "--" + w.lstrip("".join(_DASHES) + "-")
            _finding(findings, "typographic-dash", say("p_dash", word=w, fixed=fixed.split("=")[0]))
            w = _word(fixed, w.dynamic)
        if only_values or not w.startswith("-") or w == "-" or negative_number(w):
            _finding(findings, "unexpected-word", say("p_unexpected", word=w))
            continue
        written: str = w
        attached: str | None = None
        if w.startswith("--") and "=" in w:
            written, attached = w.split("=", 1)
        if serve and written == "--model-type":  # read by `sglang serve` itself
            if attached is None and _takes(words, i):
                i += 1
            continue
        arg = _look_up(written, spec, findings, unknown if check_unknown else None)
        name = arg["name"] if arg is not None else written
        if arg is not None and is_switch(arg):
            if attached is not None:
                _finding(findings, "bad-value", say("p_takes_no_value", word=w, flag=name))
            negated = written.startswith("--no-") and not arg["name"].startswith("--no-")
            value = False if negated or arg.get("action") == "store_false" else True
            entry = {"name": name, "written": written, "raw": None, "value": value, "dynamic": False}
        else:
            nargs = arg.get("nargs") if arg is not None else None
            many = nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1)
            if attached is not None:
                values = [_word(attached, w.dynamic)]
            else:
                limit = nargs if isinstance(nargs, int) and nargs > 1 else (n if many else 1)
                values = _values_at(words, i, limit)
                i += len(values)
            entry = _valued_entry(name, written, values, arg, findings)
            if many:
                entry["list"] = True
        _keep(entry, arg, written, spec, result)


def _keep(entry: dict, arg: dict | None, written: str, spec: ArgList | None, result: dict) -> None:
    """Put a flag's entry into result["flags"]: an unknown, deprecated or repeated flag is a finding,
    and ``--config`` makes the command opaque."""
    flags, findings, name = result["flags"], result["findings"], entry["name"]
    if arg is None:
        entry["unknown"] = True
    elif arg.get("deprecated"):
        _finding(findings, "deprecated-flag", say("p_deprecated", flag=written, list=spec.name if spec else ""))
    if name in flags:
        _finding(findings, "repeated-flag", say("p_repeated", flag=name))
    flags[name] = entry
    if name == "--config":
        _opaque(result, "opaque", f"`--config {entry['raw'] or ''}`".replace(" `", "`"), "flags")


def _takes(words: list[Word], k: int) -> bool:
    """Whether the word at ``k`` can be a flag's value (it is there, is not ``--`` and is not a flag)."""
    if k >= len(words) or words[k] == "--":
        return False
    nxt = words[k]
    return not nxt.startswith("-") or negative_number(nxt)


def _values_at(words: list[Word], i: int, limit: int) -> list[Word]:
    """Up to ``limit`` values from ``i`` on, as argparse takes them after a flag."""
    values: list[Word] = []
    while len(values) < limit and _takes(words, i + len(values)):
        values.append(words[i + len(values)])
    return values


def _look_up(written: str, spec: ArgList | None, findings: list, unknown: set[str] | None) -> dict | None:
    """The argument ``written`` names in ``spec``, or None; an ambiguous prefix, or an unknown flag
    (when ``unknown`` collects them: each is reported once), is a finding."""
    arg, ambiguous = spec.resolve(written) if spec is not None else (None, [])
    if ambiguous:
        _finding(
            findings,
            "ambiguous-flag",
            say(
                "p_ambiguous",
                flag=written,
                list=spec.name if spec else "",
                options=or_list([a["name"] for a in ambiguous]),
            ),
        )
    elif arg is None and spec is not None and unknown is not None and not _full(findings) and written not in unknown:
        unknown.add(written)  # each unknown flag is looked up once, however often it is written
        matches = close_matches(written, spec.suggestable)
        hint = say("p_did_you_mean", options=or_list(matches)) if matches else ""
        _finding(findings, "unknown-flag", say("p_unknown", flag=written, list=spec.label, hint=hint))
    return arg


def _valued_entry(name: str, written: str, values: list[Word], arg: dict | None, findings: list) -> dict:
    """The entry of a flag that takes values, from the ``values`` written after it (none: a switch
    if the flag is unknown, an empty list for nargs="*", else a value missing)."""
    if values:
        return _typed_entry(name, written, values, arg, findings)
    if arg is None:  # an unknown flag with no value after it: read it as a switch
        return {"name": name, "written": written, "raw": None, "value": True, "dynamic": False}
    nargs = arg.get("nargs")
    if nargs == "*":
        return {"name": name, "written": written, "raw": "", "value": [], "dynamic": False}
    if nargs != "?":
        _finding(findings, "missing-value", say("p_needs_value", flag=name))
    return {"name": name, "written": written, "raw": None, "value": None, "dynamic": True}


def add_environment(result: dict, env: dict, opaque: list[str]) -> None:
    """Add to a parse ``result`` the environment its command runs in that the text does not show: ``env``
    (NAME -> an entry of the result's ``env``, such as ``{"value": None, "dynamic": False, "host": True}``
    for a variable passed through from the host), under the variables the command sets itself, and each
    of ``opaque`` (a file of variables, such as ``--env-file``'s) as something that may set any other."""
    result["env"] = {**env, **result["env"]}
    for subject in opaque:
        _opaque(result, "opaque-env", subject, "env")


def cut_off(result: dict, subject: str) -> None:
    """Note that the paste leaves part of the command out (``subject`` says where): like ``--config``, what it
    leaves out may set any flag, so it proves none absent."""
    if result.get("cut") is None:
        result["cut"] = subject
    _opaque(result, "cut-off", subject, "flags")


def cut_mark(text: str) -> str | None:
    """The mark a command cut off ends with (its last line's backslash, ``...`` or an ellipsis), else None."""
    tail = text.rstrip(" \t\r\n")
    for mark in CUT_MARKS:
        if tail.endswith(mark) and not (mark == "\\" and tail.endswith("\\\\")):
            return mark
    return None


def _opaque(result: dict, code: str, subject: str, what: str) -> None:
    """Note something that may set flags (or variables) the paste does not show."""
    key = "opaque" if what == "flags" else "env_opaque"
    if subject not in result[key]:
        result[key].append(subject)
    noun = say("p_noun_flags") if what == "flags" else say("p_noun_env")
    _finding(result["findings"], code, say("p_opaque", subject=subject, noun=noun))


def _typed_entry(name: str, written: str, values: list[Word], arg: dict | None, findings: list) -> dict:
    raw = " ".join(values)
    dynamic = any(v.dynamic for v in values)
    entry: dict = {"name": name, "written": written, "raw": raw, "value": None, "dynamic": dynamic}
    if dynamic:
        return entry
    kind = (arg or {}).get("type") or "str"
    typed = []
    for v in values:
        try:
            typed.append(convert(v, kind))
        except ValueError as err:
            _finding(findings, "bad-value", say("p_bad_value", flag=name, raw=raw, what=err))
            entry["dynamic"] = True
            return entry
    choices = (arg or {}).get("choices")
    if choices:
        allowed = {fmt_value(c) for c in choices}
        for t in typed:
            if fmt_value(t) not in allowed:
                _finding(
                    findings,
                    "invalid-choice",
                    say(
                        "p_invalid_choice",
                        flag=name,
                        value=fmt_value(t),
                        choices=MESSAGES["list"].join(fmt_value(c) for c in choices),
                    ),
                )
    entry["value"] = typed if len(values) > 1 or ((arg or {}).get("nargs") in ("+", "*")) else typed[0]
    return entry


# --------------------------------------------------------------------------- Python calls


def _call_text(code: str) -> tuple[str, int] | None:
    """The first ``Engine(...)``/``ServerArgs(...)`` call in ``code``, as text, and where it starts."""
    for m in _CALL.finditer(code):
        start = m.start()
        # skip a match inside a comment or a string, judged by the line before it
        line_start = code.rfind("\n", 0, start) + 1
        if "#" in code[line_start:start]:
            continue
        end = _skip_balanced_py(code, m.end() - 1)
        if end < 0:
            return code[start:], start
        return code[start:end], start
    return None


def _skip_balanced_py(code: str, i: int) -> int:
    depth, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in "'\"":
            q = code[i : i + 3] if code[i : i + 3] in ('"""', "'''") else c
            j = i + len(q)
            while j < n and not code.startswith(q, j):
                j += 2 if code[j] == "\\" else 1
            if j >= n:
                return -1
            i = j + len(q)
            continue
        if c == "#":
            nl = code.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _plain(value):
    """A Python literal as JSON-like data (tuples as lists, keys as text); ValueError for sets, bytes,
    complex numbers and the ellipsis, which no flag takes."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else fmt_value(_plain(k))): _plain(v) for k, v in value.items()}
    raise ValueError(type(value).__name__)


def parse_python(code: str, spec: ArgList | None, result: dict) -> bool:
    """Read the keyword arguments of the first Engine(...) call in ``code`` into ``result``.
    Returns False when there is no such call."""
    import ast

    found = _call_text(code)
    if found is None:
        return False
    text, _ = found
    try:
        import warnings

        with warnings.catch_warnings():  # "invalid decimal literal" and the like: not the reader's concern
            warnings.simplefilter("ignore")
            call = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        result["error"] = say("p_python_invalid")
        return True
    if not isinstance(call, ast.Call):
        result["error"] = say("p_python_invalid")
        return True
    source = text.strip()
    result["program"] = "engine"
    result["label"] = say("p_engine_label")
    flags, findings = result["flags"], result["findings"]
    if call.args:
        _finding(findings, "positional", say("p_positional"))
    for kw in call.keywords:
        segment = " ".join((ast.get_source_segment(source, kw.value) or "").split())
        if kw.arg is None:
            _opaque(result, "opaque", f"`**{segment}`", "flags")
            continue
        if kw.arg == "server_args":
            _opaque(result, "opaque", f"`server_args={segment}`", "flags")
            continue
        arg = spec.by_field.get(kw.arg) if spec is not None else None
        if arg is None and spec is not None:
            cli = spec.by_option.get("--" + kw.arg.replace("_", "-"))
            matches = close_matches(kw.arg, sorted(spec.by_field))
            hint = say("p_did_you_mean", options=or_list(matches)) if matches else ""
            only_cli = say("p_only_cli", option=cli["name"]) if cli is not None else ""
            _finding(
                findings,
                "unknown-kwarg",
                say("p_unknown_kwarg", name=kw.arg, version=spec.version, only_cli=only_cli, hint=hint),
            )
        try:
            value, dynamic = _plain(ast.literal_eval(kw.value)), False
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value, dynamic = None, True
        name = arg["name"] if arg is not None else kw.arg
        if name in flags:
            _finding(findings, "repeated-flag", say("p_repeated", flag=kw.arg))
        entry = {"name": name, "written": kw.arg, "raw": segment, "value": value, "dynamic": dynamic, "kwarg": True}
        if arg is None:
            entry["unknown"] = True
        flags[name] = entry
    return True


# --------------------------------------------------------------------------- commands


def _basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1]


def _set_env(env: dict, text: str) -> None:
    found = assignment(text)
    if found:
        env[found[0]] = {"value": found[1], "dynamic": getattr(text, "dynamic", False)}


def _recognize(words: list[Word], env: dict, result: dict, args: dict | Specs, depth: int = 0) -> bool:
    """Find the program in one simple command; fill ``result``. False when it is none of ours."""
    if depth > 8:
        return False
    i, n = 0, len(words)
    while i < n:
        while i < n and assignment(words[i]):
            _set_env(env, words[i])
            i += 1
        if i >= n:
            return False
        w = _basename(words[i])
        after = _after_wrapper(w, words, i)
        if after is not None:
            i = after
            continue
        if w == "ray" and words[i + 1 : i + 3] == ["job", "submit"]:
            rest = words[i + 3 :]
            if "--" not in rest:
                return False
            i = i + 3 + rest.index("--") + 1  # type: ignore[arg-type]  # a Word is a str: index compares text
            continue
        if w in ("bash", "sh", "zsh", "dash") and i + 1 < n and _re().match(r"^-[a-z]*c[a-z]*$", words[i + 1]):
            if i + 2 >= n:
                return False
            return _recognize_text(words[i + 2], env, result, args, depth + 1)
        inside = _container(w, words, i, env, result)
        if isinstance(inside, bool):
            return inside
        if inside is not None:
            words, i, n = inside, 0, len(inside)
            continue
        if _is_python(w):
            return _python(words, i + 1, result, args)
        if w == "sglang" and i + 1 < n and words[i + 1] == "serve":
            return _found(result, "sglang", say("p_label_serve"), words[i + 2 :], args, serve=True)
        return False
    return False


def _after_wrapper(w: str, words: list[Word], i: int) -> int | None:
    """Where the wrapped command starts when the word at ``i`` (named ``w``) runs another command
    (env, sudo, nohup, exec, time, command, builtin, stdbuf, uv run), with the wrapper's options
    skipped; None for any other word."""
    n = len(words)
    if w == "env":
        i += 1
        while i < n and words[i].startswith("-"):
            if words[i] == "--":
                return i + 1
            i += 2 if words[i] in ("-u", "--unset", "-C", "--chdir", "-S", "--split-string") else 1
        return i
    if w == "sudo":
        i += 1
        while i < n and words[i].startswith("-"):
            i += 2 if words[i] in SUDO_VALUE else 1
        return i
    if w in ("nohup", "exec", "time", "command", "builtin", "stdbuf"):
        i += 1
        while w == "stdbuf" and i < n and words[i].startswith("-"):
            i += 1
        return i
    if w == "uv" and i + 1 < n and words[i + 1] == "run":
        i += 2
        while i < n and words[i].startswith("-"):
            i += 2 if words[i] in UV_VALUE and words[i] != "--isolated" else 1
        return i
    return None


def _container(w: str, words: list[Word], i: int, env: dict, result: dict) -> list[Word] | bool | None:
    """The command a container launcher at ``i`` (named ``w``: docker, podman, kubectl) runs, or what _recognize
    answers (False: nothing to read; True: an error is set); None when the word is no container launcher."""
    mode = words[i + 1] if i + 1 < len(words) else None
    if w in ("docker", "podman") and mode in ("run", "exec", "container"):
        return _docker(words, i, env, result)
    if w == "kubectl" and mode in ("exec", "run"):
        inside = _kubectl(words, i, env, result)
        return False if inside is None else inside
    return None


def _image(word: str) -> dict | None:
    """The SGLang release an image reference's tag names (``lmsysorg/sglang:v0.5.9-cu129``), as
    {"name", "version"}; None for any other image or tag."""
    m = _re().match(
        r"^(?:[^/]+/)*[^/:@]*sglang[^/:@]*:v?([0-9]+\.[0-9]+\.[0-9]+(?:rc[0-9]+)?(?:\.post[0-9]+)?)(?:[-_].*)?$",
        word,
    )
    return {"name": str(word), "version": m.group(1)} if m else None


def _container_env(env: dict) -> dict:
    """Start the environment of a container's command: what the shell set so far (assignments in front of the
    launcher, ``export`` lines) is the launcher's own and is not passed in; it is returned for the options that
    pass a variable by its name alone (``-e NAME``)."""
    outer = dict(env)
    env.clear()
    return outer


def _docker(words: list[Word], i: int, env: dict, result: dict) -> list[Word] | bool:
    """``docker|podman run|exec|container run|exec`` at ``i``: the command it runs in the container (its
    entrypoint first), or what _recognize answers (False: nothing to read; True: an error is set)."""
    n = len(words)
    j = i + 2 if words[i + 1] != "container" else i + 3
    if words[i + 1] == "container" and (i + 2 >= n or words[i + 2] not in ("run", "exec")):
        return False
    mode = words[i + 1] if words[i + 1] != "container" else words[i + 2]
    options = _docker_options(words, j, env, _container_env(env), result)
    if options is None:
        return False
    j, entry = options
    if j + 1 >= n:  # no image, or nothing after it
        result["error"] = say("p_docker_own", tool=_basename(words[i]), mode=mode)
        return True
    if mode == "run":
        result["image"] = _image(words[j]) or result["image"]
    rest = words[j + 1 :]
    if entry:
        rest = [_word(x, False) for x in entry.split()] + rest
    return rest


def _docker_options(words: list[Word], j: int, env: dict, outer: dict, result: dict) -> tuple[int, str | None] | None:
    """Read docker's options from ``j``: the environment they set (into ``env``; ``-e NAME`` passes the value
    ``outer``, the launcher's own environment, holds), an env file (opaque); where the image is, and the
    ``--entrypoint``. None when an option's value is missing."""
    n = len(words)
    entry = None
    while j < n and words[j].startswith("-"):
        opt, val = _split_option(words[j]) if words[j].startswith("--") else (words[j], None)
        if not opt.startswith("--") and len(opt) > 2 and opt[:2] in DOCKER_VALUE:
            opt, val = opt[:2], opt[2:]
        if val is not None:  # written in the option's word (`--env=A=$X`, `-eA=1`): its expansions are its own
            val = _word(val, words[j].dynamic)
        if opt in DOCKER_VALUE and val is None:
            if j + 1 >= n:
                return None
            val = words[j + 1]
            j += 1
        j += 1
        if opt in ("-e", "--env") and val is not None:
            if "=" in val:
                _set_env(env, val)
            elif val in outer:
                env[val] = dict(outer[val])
            else:
                env[val] = {"value": None, "dynamic": False, "host": True}
        elif opt == "--env-file":
            _opaque(result, "opaque-env", f"`--env-file {val}`", "env")
        elif opt == "--entrypoint":
            entry = val
    return j, entry


def _kubectl(words: list[Word], i: int, env: dict, result: dict) -> list[Word] | None:
    """``kubectl exec POD ... -- CMD`` or ``kubectl run NAME ... -- CMD`` at ``i``: the command it runs in the
    container, with the variables ``kubectl run --env NAME=value`` sets and the release its ``--image`` names;
    None without ``--`` (the image's own command, which the paste does not show)."""
    rest = words[i + 2 :]
    if "--" not in rest:
        return None
    end = rest.index("--")  # type: ignore[arg-type]  # a Word is a str: index compares text
    _container_env(env)
    options = rest[:end]
    for k, w in enumerate(options):
        name, attached = _split_option(w)
        val = _word(attached, w.dynamic) if attached is not None else None
        if val is None and name in ("--env", "--image") and k + 1 < end:
            val = options[k + 1]
        if words[i + 1] == "run" and name == "--env" and val is not None:
            _set_env(env, val)
        elif words[i + 1] == "run" and name == "--image" and val is not None:
            result["image"] = _image(val) or result["image"]
    return rest[end + 1 :]


def _python(words: list[Word], i: int, result: dict, args: dict | Specs) -> bool:
    """A Python interpreter's options from ``i``: ``-m MODULE``, ``-c CODE`` or a Miles script."""
    n = len(words)
    module = None
    while i < n and words[i].startswith("-"):
        opt = words[i]
        if opt == "-m" and i + 1 < n:
            module, i = str(words[i + 1]), i + 2
            break
        if opt.startswith("-m") and len(opt) > 2:
            module, i = opt[2:], i + 1
            break
        if opt == "-c" and i + 1 < n:
            return _recognize_python(words[i + 1], result, args)
        i += 2 if opt in ("-X", "-W", "-Q") else 1
    if module is None:
        if i < n and _basename(words[i]) in MILES_SCRIPTS:
            return _found(result, "miles", say("p_label_miles", script=_basename(words[i])), words[i + 1 :], args)
        return False
    program = MODULES.get(module)
    if program is None:
        if module.startswith(("sglang", "sglang_router")):
            result["error"] = say("p_module", module=module)
            return True
        return False
    return _found(result, program, say("p_label_module", module=module), words[i:], args)


def _found(result: dict, program: str, label: str, words: list[Word], args: dict | Specs, *, serve=False) -> bool:
    result["program"] = program
    result["label"] = label
    spec = args.get(ARGS_PROGRAM[program])
    if spec is None and program != "miles":
        label = ARGS_LABEL[ARGS_PROGRAM[program]][1]
        _finding(result["findings"], "no-argument-list", say("p_no_arglist", label=label))
    parse_flags(words, spec, program, result, serve=serve)
    return True


def _recognize_python(code: str, result: dict, args: dict | Specs) -> bool:
    if getattr(code, "dynamic", False) and "Engine" not in code:
        return False
    return parse_python(str(code), args.get("sglang"), result)


def _recognize_text(text: str, env: dict, result: dict, args: dict | Specs, depth: int) -> bool:
    try:
        commands = shell_split(_strip_prompts(text))
    except CommandError as err:
        result["error"] = say("p_in_c", error=err)
        return True
    for words in commands:
        if _statement(words, env):
            continue
        if _recognize(words, env, result, args, depth):
            return True
    return False


def _statement(words: list[Word], env: dict) -> bool:
    """An `export A=1` line or a line of bare assignments: set the variables, run nothing."""
    if words[0] == "export":
        for w in words[1:]:
            _set_env(env, w)
        return True
    if all(assignment(w) for w in words):
        for w in words:
            _set_env(env, w)
        return True
    return False


def empty_result() -> dict:
    return {
        "program": None,
        "label": None,
        "flags": {},
        "env": {},
        "findings": [],
        "opaque": [],
        "env_opaque": [],
        "image": None,
        "error": None,
        "cut": None,
    }


_PLACEHOLDER_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_PLACEHOLDER_REST = _PLACEHOLDER_START | frozenset("0123456789_.-")


def placeholders(text: str) -> list[str]:
    """Words such as ``<target-model-path>`` that a document left for the reader to fill in: a shell
    reads their ``<`` and ``>`` as redirections (so the word after one is lost), which is worth saying."""
    found: list[str] = []
    i = text.find("<")
    while i >= 0 and len(found) < 5:
        end = i + 1
        if end < len(text) and text[end] in _PLACEHOLDER_START and (i == 0 or text[i - 1] in " \t\n="):
            while end < len(text) and text[end] in _PLACEHOLDER_REST:
                end += 1
            if end < len(text) and text[end] == ">" and text[i : end + 1] not in found:
                found.append(text[i : end + 1])
        i = text.find("<", i + 1)
    return found


def _placeholder_finding(text: str) -> dict | None:
    found = placeholders(text) if "<" in text else []
    if not found:
        return None
    shown = [say("code", text=x) for x in found]
    if len(shown) == 1:
        return {"code": "placeholder", "message": say("p_placeholder_one", word=shown[0])}
    return {
        "code": "placeholder",
        "message": say("p_placeholder_many", words=MESSAGES["list"].join(shown[:-1]), last=shown[-1]),
    }


def _rejoined(commands: list[list[Word]], pending: list[dict]) -> list[list[Word]]:
    """The commands with each pasted line that lost its backslash (`--flag` starting a line of its
    own) joined to the one before, said once in ``pending``."""
    merged: list[list[Word]] = []
    for words in commands:
        if merged and words[0].startswith("--") and not words[0].dynamic:
            merged[-1] = merged[-1] + words
            if not any(f["code"] == "lost-continuation" for f in pending):
                pending.append({"code": "lost-continuation", "message": say("p_lost_continuation", word=words[0])})
        else:
            merged.append(words)
    return merged


def parse(text: str, args: dict | Specs) -> dict:
    """Parse a pasted command.

    ``args``: argument-list program name -> {"version", "arguments"} (or an ArgList).
    Returns {"program": sglang|router|bench|miles|engine|None, "label", "flags": {canonical
    name: {"name", "written", "raw", "value", "dynamic", ["unknown"], ["list"], ["kwarg"]}},
    "env": {NAME: {"value", "dynamic", ["host"]}}, "findings": [{"code", "message"}],
    "opaque": [why flags not in the command may still be set], "env_opaque": [...],
    "image": {"name", "version"} | None, "error": str | None, "cut": where the paste leaves part of the
    command out (a subject of "opaque"), or None}.
    """
    specs = (
        args
        if isinstance(args, Specs)
        else Specs({k: (lambda k=k, v=v: v if isinstance(v, ArgList) else ArgList(k, v)) for k, v in args.items()})
    )
    result = empty_result()
    if not isinstance(text, str) or not text.strip():
        result["error"] = say("p_empty")
        return result
    if len(text) > MAX_CHARS:
        result["error"] = say("p_too_long", length=f"{len(text):,}", max=f"{MAX_CHARS:,}")
        return result
    text = text.replace("\r\n", "\n")
    env: dict = {}
    pending: list[dict] = []
    shell_error = None
    try:
        commands = shell_split(_strip_prompts(text))
    except CommandError as err:
        commands, shell_error = [], str(err)
    merged = _rejoined(commands, pending)
    placeholder = _placeholder_finding(text)
    if placeholder is not None:
        pending.append(placeholder)
    recognized = 0
    last = False  # whether the command checked is the paste's last
    for k, words in enumerate(merged):
        if _statement(words, env):
            continue
        probe = empty_result()
        local_env = dict(env)
        if _recognize(words, local_env, probe, specs):
            recognized += 1
            if recognized == 1:
                result = probe
                result["env"] = local_env
                last = k == len(merged) - 1
                if result["error"]:  # the first command is one this checker cannot read: say so
                    return result
    if recognized > 1:
        _finding(result["findings"], "more-commands", say("p_more_commands", n=recognized, label=result["label"]))
    mark = cut_mark(text) if recognized and last and result["cut"] is None else None
    if mark is not None:  # the paste stops inside the command: its last line ends with a backslash or dots
        cut_off(result, say("p_cut_end", mark=mark))
    if recognized:
        result["findings"][:0] = pending
        return result
    if _CALL.search(text):
        probe = empty_result()
        cleaned = _re().sub(r"(?m)^[ \t]*(>>>|\.\.\.)[ \t]?", "", text)
        if parse_python(cleaned, specs.get("sglang"), probe):
            return probe
    result["error"] = shell_error if shell_error and _LOOKS_LIKE.search(text) else NOT_A_COMMAND
    return result
