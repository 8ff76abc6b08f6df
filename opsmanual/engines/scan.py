"""Launch commands in a deploy folder: where `exposure scan` finds the commands it checks.

Given a file's name and text, :func:`find_commands` returns each SGLang, router, bench or Miles launch
command written in it, with the line it starts on:

- Kubernetes manifests and Helm-rendered YAML: a container's ``command:`` and ``args:`` lists (joined,
  as the container runs them), any number of documents in a file;
- docker-compose: a service's ``command:`` (a string or a list), after its ``entrypoint:``;
- SkyPilot task YAML: the shell script in ``run:`` (and ``setup:``);
- Dockerfiles: ``CMD`` and ``ENTRYPOINT``, in exec form (a JSON list) or shell form;
- shell scripts and Slurm batch scripts: each line (backslash continuations joined) that runs a launch
  command, also behind ``srun``, ``exec``, ``nohup`` or ``&&``.

No I/O: the command line (opsmanual/cli/exposure.py) reads the files, with bounds, and checks each
command with the exposure engine. A file that cannot be read as its kind gives one ScanError with its line.
"""

from __future__ import annotations

from opsmanual.engines.command import _LOOKS_LIKE

MAX_NODES = 400_000  # YAML nodes (keys and values) in one file, aliases expanded: far above any manifest
MAX_EXPANDED = 4 << 20  # characters of a YAML file's scalars, aliases expanded: an anchor reused, never a bomb
MAX_TEXT = 4 << 20  # characters of the launch commands taken from one file
MAX_COMMANDS = 1_000  # launch commands taken from one file


class ScanError(Exception):
    """A file that cannot be read as what its name says; ``line`` is 1-based or None."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.message, self.line = message, line


def kind_of(name: str) -> str | None:
    """What a file is, from its name: dockerfile, yaml, shell; None for a file the scan skips in a folder."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    low = base.lower()
    if (
        low in ("dockerfile", "containerfile")
        or low.startswith(("dockerfile.", "containerfile."))
        or low.endswith((".dockerfile", ".containerfile"))
    ):
        return "dockerfile"
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    if low.endswith((".sh", ".bash", ".slurm", ".sbatch", ".zsh")):
        return "shell"
    return None


def looks_like(text: str) -> bool:
    """Whether ``text`` runs something the exposure check reads (the parser's own test)."""
    return _LOOKS_LIKE.search(text) is not None


# a Go template action as Helm writes them: {{ .Values.x }}, {{- include "name" . }}, {{ if ... }},
# {{ $var }}, {{/* a comment */}}; a Jinja chat template's {{ messages }} is none of these
_HELM_WORDS = (
    "include|template|if|else|end|range|with|define|block|toYaml|toJson|tpl|required|default|quote|printf"
    "|lookup|nindent|indent"
)
_HELM_ACTION = r"\{\{-?\s*(?:[.$]|/\*|(?:" + _HELM_WORDS + r")\b)"


def helm_action_line(text: str) -> int | None:
    """The line of the first Go template action (``{{ .Values.cmd }}``) in a YAML file's text: a Helm
    chart's template, whose real commands exist only once `helm template` renders it. None when none."""
    import re

    if "{{" not in text:
        return None
    m = re.search(_HELM_ACTION, text)  # re caches the compiled pattern
    return text.count("\n", 0, m.start()) + 1 if m else None


def helm_dynamic(text: str) -> str:
    """``text`` with each Go template action written as a shell expansion (``{{ .Values.tp }}`` as
    ``${{ .Values.tp }}``): the check then reads what the chart fills in as decided when it is
    rendered (a flag it may set, a value it may give), never as the literal braces."""
    import re

    if "{{" not in text:
        return text
    return re.sub(r"(?<!\$)" + _HELM_ACTION, lambda m: "$" + m.group(0), text)


# --------------------------------------------------------------------------- shell


def logical_lines(text: str, first_line: int = 1) -> list[tuple[int, str]]:
    """(line, text) of each logical line: backslash continuations joined, comment lines dropped. The text's last
    line keeps a backslash it ends with: the command is cut off there, which the check reads."""
    out: list[tuple[int, str]] = []
    start, parts = None, []
    lines = text.split("\n")
    last = max((k for k, raw in enumerate(lines) if raw.strip()), default=-1)
    for k, raw in enumerate(lines):
        line = raw.rstrip("\r")
        if start is None:
            if line.lstrip().startswith("#"):
                continue
            start = first_line + k
        stripped = line.rstrip()
        if stripped.endswith("\\") and not stripped.endswith("\\\\") and k < last:
            parts.append(stripped[:-1])
            continue
        parts.append(line)
        out.append((start, " ".join(p.strip() for p in parts if p.strip())))
        start, parts = None, []
    if start is not None and parts:
        out.append((start, " ".join(p.strip() for p in parts if p.strip())))
    return out


def _command_parts(text: str) -> list[str]:
    """The launch commands of a logical shell line: its command part (:func:`_command_part`), or, when the
    launch command is quoted as a shell's ``-c`` script (``srun bash -c "cd /w && python3 -m ..."``),
    the launch commands of that script, read line by line as the shell that runs it reads them."""
    m = _LOOKS_LIKE.search(text)
    if m is not None and _inside_quotes(text[: m.start()]):
        found = _quoted_script(text)
        if found is not None:
            return found
    return [_command_part(text)]


def _inside_quotes(head: str) -> bool:
    """Whether text ending with ``head`` is inside a quote there (the shell cannot split ``head`` alone)."""
    from opsmanual.engines.command import CommandError, shell_split

    try:
        shell_split(head)
    except CommandError:
        return True
    return False


_SHELLS = ("sh", "bash", "dash", "zsh", "ash", "ksh", "su")  # programs whose -c takes a shell script


def _c_script(words: list[str]) -> int | None:
    """Where the script of a shell's ``-c`` stands in ``words`` (``bash -c SCRIPT``, ``sh -lc SCRIPT``,
    after a launcher such as ``srun``), when that script runs a launch command; None otherwise. Words after
    the script are the script's ``$0``, ``$1``...: they run nothing."""
    shell = next((k for k, w in enumerate(words) if w.rsplit("/", 1)[-1] in _SHELLS), None)
    if shell is None or looks_like(" ".join(words[:shell])):  # `docker run IMAGE sh -c`: the parser reads it
        return None
    for k in range(shell + 1, len(words) - 1):
        w = words[k]
        if w == "--command" or (w.startswith("-") and not w.startswith("--") and w[1:].isalpha() and "c" in w):
            return k + 1 if looks_like(words[k + 1]) else None
    return None


def _quoted_script(text: str) -> list[str] | None:
    """The launch commands of the ``-c`` script a shell line quotes (:func:`_c_script`), each after the
    variables the line assigns before the shell (they reach the script's commands); None when it holds none."""
    from opsmanual.engines.command import CommandError, shell_split

    try:
        commands = shell_split(text)
    except CommandError:
        return None
    for words in commands:
        plain = [str(w) for w in words]
        at = _c_script(plain)
        if at is not None:
            prefix = "".join(quote(w) + " " for w in plain[:at] if _assignment(w))
            return [prefix + t for _, t in shell_commands(plain[at])] or None
    return None


def _command_part(text: str) -> str:
    """The launch command of a logical shell line: what follows ``&&``, ``;`` or ``|`` before it (a `cd`,
    an `export`), without a trailing ``&``; the line as it is when it has no such separator."""
    m = _LOOKS_LIKE.search(text)
    if m is None:
        return text
    head = text[: m.start()]
    cut = max(head.rfind("&&"), head.rfind(";"), head.rfind("||"))
    if cut >= 0:
        text = text[cut + (1 if text[cut] == ";" else 2) :]
    text = text.rstrip()
    if text.endswith("&") and not text.endswith("&&"):
        text = text[:-1].rstrip()
    text = text.strip()
    # a launcher in front (srun ..., mpirun ..., a timeout): the command starts where the parser's
    # test matches; variables assigned before the launcher still reach it
    m = _LOOKS_LIKE.search(text)
    launcher = text[: m.start()].split() if m else []
    if launcher and not all(_assignment(w) or w in _PASS_THROUGH for w in launcher):
        kept = [w for w in launcher if _assignment(w)]
        text = " ".join(kept + [text[m.start() :]]) if m else text
    return text


_PASS_THROUGH = ("exec", "nohup", "env", "time", "command")


def _assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return (
        bool(eq)
        and bool(name)
        and (name[0].isalpha() or name[0] == "_")
        and name.isascii()
        and all(c.isalnum() or c == "_" for c in name)
    )


def shell_commands(text: str, first_line: int = 1) -> list[tuple[int, str]]:
    """The launch commands of a shell script (or a YAML ``run:`` block), with their lines."""
    return [(line, c) for line, t in logical_lines(text, first_line) if looks_like(t) for c in _command_parts(t)]


# --------------------------------------------------------------------------- Dockerfile


def _json_list(text: str) -> list[str] | None:
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def quote(word: str) -> str:
    """A word as a shell would need it written (shlex.quote's rule). A word with ``$`` in it (``$(VAR)``,
    which Kubernetes fills in, or ``$VAR``) is double-quoted, so that the check reads its value as one
    that is decided at run time."""
    safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-"
    if word and all(c in safe for c in word):
        return word
    dynamic = helm_dynamic(word)
    if dynamic != word:  # a Helm template's action: a value given when the chart is rendered
        return '"' + dynamic.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`") + '"'
    if "$" in word and not any(c in word for c in '"`\\'):
        return '"' + word + '"'
    return "'" + word.replace("'", "'\"'\"'") + "'"


def join_words(words: list[str]) -> str:
    return " ".join(quote(w) for w in words)


def dockerfile_commands(text: str) -> list[tuple[int, str]]:
    """CMD and ENTRYPOINT of each stage; an exec-form ENTRYPOINT runs with the stage's CMD after it."""
    out: list[tuple[int, str]] = []
    entry: tuple[int, list[str] | None, str] | None = None  # line, exec words, text
    env: dict[str, str] = {}  # the stage's ENV: the container starts with these set

    size = 0

    def emit(line: int, cmd: str) -> None:
        nonlocal size
        prefix = "".join(f"{k}={quote(v)} " for k, v in env.items())
        size += len(prefix) + len(cmd)
        if size > MAX_TEXT:  # a long ENV written before each of many CMDs
            raise ScanError(f"the launch commands come to more than {MAX_TEXT:,} characters", line)
        out.extend((line, prefix + c) for c in _command_parts(cmd))

    for line, instr in logical_lines(text):
        word, _, rest = instr.strip().partition(" ")
        op = word.upper()
        rest = rest.strip()
        if op == "FROM":
            if entry is not None and looks_like(entry[2]):
                emit(entry[0], entry[2])
            entry, env = None, {}
        elif op == "ENV":
            env.update(_env_instruction(rest))
        elif op == "ENTRYPOINT":
            words = _json_list(rest)
            entry = (line, words, join_words(words) if words is not None else rest)
        elif op == "CMD":
            words = _json_list(rest)
            cmd = join_words(words) if words is not None else rest
            if entry is not None and entry[1] is not None:
                cmd = entry[2] + (" " + cmd if cmd else "")
                if looks_like(cmd):
                    emit(line, cmd)
                    entry = (entry[0], entry[1], "")  # the pair is reported once, at the CMD
                continue
            if looks_like(cmd):
                emit(line, cmd)
    if entry is not None and looks_like(entry[2]):
        emit(entry[0], entry[2])
    return out


def _env_instruction(rest: str) -> dict[str, str]:
    """``ENV A=1 B="two words"`` or the old ``ENV A 1``, as name -> value (quotes removed)."""
    from opsmanual.engines.command import CommandError, shell_split

    try:
        words = [str(w) for part in shell_split(rest) for w in part]
    except CommandError:
        return {}
    if words and "=" not in words[0] and len(words) >= 2:
        return {words[0]: " ".join(words[1:])} if _assignment(words[0] + "=") else {}
    return dict(w.split("=", 1) for w in words if _assignment(w))


# --------------------------------------------------------------------------- YAML


def _scalar_text(node) -> tuple[str, int]:
    """A scalar's value and the line its text starts on (a block scalar starts after its indicator)."""
    line = node.start_mark.line + 1
    if node.style in ("|", ">"):
        line += 1
    return helm_dynamic(node.value), line


def _words(node) -> list[str] | None:
    """A YAML list of strings as words; None when it is not one."""
    from yaml import ScalarNode, SequenceNode

    if not isinstance(node, SequenceNode):
        return None
    if not all(isinstance(n, ScalarNode) for n in node.value):
        return None
    return [n.value for n in node.value]


def _entry(mapping, key: str):
    from yaml import ScalarNode

    for k, v in mapping.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return k, v
    return None


def _from_value(node, key_line: int) -> list[tuple[int, str]]:
    """The launch commands in a ``command:``/``args:``/``run:`` value: a list of words, or shell text."""
    from yaml import ScalarNode

    words = _words(node)
    if words is not None:
        return _word_commands(words, node.value, key_line)
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        text, line = _scalar_text(node)
        if "\n" in text.strip():
            return shell_commands(text, line)
        return [(line, c) for c in _command_parts(text)] if looks_like(text) else []
    return []


def _word_commands(words: list[str], nodes: list, key_line: int) -> list[tuple[int, str]]:
    """The launch commands of a command written as a YAML list of words (``nodes``, one per word): the
    script of a shell's ``-c`` (``[bash, -c]`` then ``["python3 -m ..."]``), read line by line as the
    shell reads it, whether it is one line, a folded block or a literal one; else the words joined, at
    ``key_line``."""
    at = _c_script(words)
    if at is not None:
        script, line = _scalar_text(nodes[at])
        prefix = "".join(quote(w) + " " for w in words[:at] if _assignment(w))
        found = [(n, prefix + t) for n, t in shell_commands(script, line)]
        if found:
            return found
    text = join_words(words)
    return [(key_line, text)] if looks_like(text) else []


def _expansion_check(doc, used: list[int]) -> None:
    """Count a document's nodes and scalar characters as its aliases expand them (``used`` carries the
    counts of the file's earlier documents) and stop past MAX_NODES or MAX_EXPANDED: a few hundred
    bytes of anchors and aliases can stand for gigabytes (a YAML "billion laughs"). The walk counts a
    node as it is reached and stops at the bound, so its work is bounded too, cycles included."""
    from yaml import MappingNode, ScalarNode, SequenceNode

    nodes, chars = used
    stack = [doc]
    nodes += 1
    while stack:
        n = stack.pop()
        if isinstance(n, ScalarNode):
            chars += len(n.value)
        elif isinstance(n, MappingNode):
            nodes += 2 * len(n.value)
            if nodes <= MAX_NODES:
                stack.extend(x for pair in n.value for x in pair)
        elif isinstance(n, SequenceNode):
            nodes += len(n.value)
            if nodes <= MAX_NODES:
                stack.extend(n.value)
        if nodes > MAX_NODES or chars > MAX_EXPANDED:
            raise ScanError(
                f"more than {MAX_NODES:,} YAML nodes or {MAX_EXPANDED:,} characters, each alias (*name) "
                "counted as what it stands for; a deploy file is far smaller"
            )
    used[:] = [nodes, chars]


def _size(around: dict) -> int:
    """Characters of the environment a command runs in that the file does not show."""
    return sum(len(k) + len(v.get("from") or "") for k, v in around.get("env", {}).items()) + sum(
        len(x) for x in around.get("env_opaque", ())
    )


def yaml_commands(text: str) -> list[tuple[int, str, dict]]:
    """Launch commands in every document of a YAML file: containers (command + args), compose services
    (entrypoint + command), and shell scripts under run:/setup:/command:/args:; each with the environment
    its mapping sets that the file does not show (:func:`_mapping_commands`)."""
    import yaml
    from yaml import MappingNode, ScalarNode, SequenceNode

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: list[tuple[int, str, dict]] = []
    used = [0, 0]  # nodes and characters, aliases expanded, over the file's documents so far
    size = 0  # characters of the commands taken so far

    def walk(node):
        nonlocal size
        # the nodes of this document, held (not their id(): once a document is freed, Python gives
        # the next one's nodes the same ids); an alias's node is walked once
        seen: set = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if isinstance(n, MappingNode):
                found = _mapping_commands(n)
                out.extend(found)
                size += sum(len(t) + _size(around) for _, t, around in found)
                if size > MAX_TEXT:
                    raise ScanError(f"the launch commands come to more than {MAX_TEXT:,} characters")
                if len(out) > MAX_COMMANDS:
                    raise ScanError(f"more than {MAX_COMMANDS:,} launch commands in one file")
                taken = (
                    [
                        v
                        for k, v in n.value
                        if isinstance(k, ScalarNode) and k.value in ("command", "args", "entrypoint", "run", "setup")
                    ]
                    if found
                    else []
                )
                stack.extend(v for k, v in reversed(n.value) if not any(v is t for t in taken))
            elif isinstance(n, SequenceNode):
                stack.extend(reversed(n.value))

    try:
        for doc in yaml.compose_all(text, Loader=loader):
            if doc is not None:
                _expansion_check(doc, used)
                walk(doc)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        raise ScanError(f"not YAML: {err.problem or err.context}", mark.line + 1 if mark else None) from None
    except yaml.YAMLError as err:
        raise ScanError(f"not YAML: {str(err).splitlines()[0] if str(err) else type(err).__name__}") from None
    except RecursionError:
        raise ScanError("the YAML nests too deep to be a deploy file") from None
    return out


def _environment(n) -> tuple[str, dict, list[str]]:
    """What a container (``env:``, ``envFrom:``) or a compose service (``environment:``, ``env_file:``) sets
    in its command's environment: the variables whose values the file writes, as assignments written
    before the command; those whose values it does not show (a Kubernetes ``valueFrom:``, a compose
    variable passed through from the host), as entries for command.add_environment; and what may set
    variables the file does not name (an ``envFrom:`` source, an ``env_file:``). A variable named twice
    is set by the last."""
    settings: dict[str, tuple[str, dict | None]] = {}  # name -> (value written, or the entry of one not shown)
    opaque: list[str] = []
    _container_env(n, settings, opaque)
    _compose_env(n, settings, opaque)
    settings = {
        k: v
        for k, v in settings.items()
        if k and (k[0].isalpha() or k[0] == "_") and all(c.isalnum() or c == "_" for c in k) and k.isascii()
    }
    prefix = "".join(f"{k}={quote(value)} " for k, (value, hidden) in settings.items() if hidden is None)
    return prefix, {k: hidden for k, (_, hidden) in settings.items() if hidden is not None}, opaque


def _set(settings: dict, name: str, value: str, hidden: dict | None = None) -> None:
    settings.pop(name, None)  # the last one counts, in its place
    settings[name] = (value, hidden)


def _text(mapping, key: str) -> str | None:
    """The text of ``key``'s scalar value in a YAML mapping; None when it has none."""
    from yaml import MappingNode, ScalarNode

    found = _entry(mapping, key) if isinstance(mapping, MappingNode) else None
    if found is None or not isinstance(found[1], ScalarNode) or found[1].tag == "tag:yaml.org,2002:null":
        return None
    return str(found[1].value)


def _container_env(n, settings: dict, opaque: list[str]) -> None:
    """A Kubernetes container's ``env:`` (a ``value:``, a ``valueFrom:`` source, or neither: the empty
    value) and ``envFrom:`` (ConfigMaps and Secrets, whose variables the manifest does not name)."""
    from yaml import MappingNode, SequenceNode

    from opsmanual.data.exposure_words import say

    env = _entry(n, "env")
    for item in env[1].value if env is not None and isinstance(env[1], SequenceNode) else []:
        name = _text(item, "name")
        if name is None:
            continue
        source = _entry(item, "valueFrom")
        if source is None:
            _set(settings, name, _text(item, "value") or "")
            continue
        kinds = source[1].value if isinstance(source[1], MappingNode) else []
        kind, ref = (str(kinds[0][0].value), kinds[0][1]) if kinds else ("valueFrom", None)
        where = "/".join(x for x in (_text(ref, k) for k in ("name", "key", "fieldPath", "resource")) if x)
        shown = say("code", text=f"{kind} {where}".strip())
        _set(settings, name, "", {"value": None, "dynamic": False, "host": True, "from": shown})
    sources = _entry(n, "envFrom")
    for item in sources[1].value if sources is not None and isinstance(sources[1], SequenceNode) else []:
        for kind in ("configMapRef", "secretRef"):
            found = _entry(item, kind) if isinstance(item, MappingNode) else None
            if found is not None:
                opaque.append(say("code", text=f"envFrom: {kind} {_text(found[1], 'name') or ''}".strip()))


def _compose_env(n, settings: dict, opaque: list[str]) -> None:
    """A compose service's ``environment:`` (a mapping, or a list of NAME=value; a NAME with no value is
    passed through from the host) and ``env_file:`` (files whose variables the compose file does not name)."""
    from yaml import MappingNode, ScalarNode, SequenceNode

    from opsmanual.data.exposure_words import say

    host = {"value": None, "dynamic": False, "host": True}
    environment = _entry(n, "environment")
    if environment is not None and isinstance(environment[1], MappingNode):
        for k, v in environment[1].value:
            if isinstance(k, ScalarNode) and isinstance(v, ScalarNode):
                if v.tag == "tag:yaml.org,2002:null":
                    _set(settings, str(k.value), "", dict(host))
                else:
                    _set(settings, str(k.value), str(v.value))
    elif environment is not None and isinstance(environment[1], SequenceNode):
        for item in environment[1].value:
            if isinstance(item, ScalarNode) and item.tag != "tag:yaml.org,2002:null":
                name, eq, value = str(item.value).partition("=")
                _set(settings, name, value, None if eq else dict(host))
    files = _entry(n, "env_file")
    items = [] if files is None else files[1].value if isinstance(files[1], SequenceNode) else [files[1]]
    for item in items:
        path = str(item.value) if isinstance(item, ScalarNode) else _text(item, "path")
        if path:
            opaque.append(say("code", text=f"env_file: {path}"))


def _with_env(found: list[tuple[int, str]], env: str) -> list[tuple[int, str]]:
    if len(env) * len(found) > MAX_TEXT:  # the variables written before each command of a long script
        raise ScanError(f"the launch commands come to more than {MAX_TEXT:,} characters")
    return [(line, env + text) for line, text in found] if env else found


def _mapping_commands(n) -> list[tuple[int, str, dict]]:
    """The launch commands one mapping holds, after the variables it sets (``env:``, ``environment:``), each
    with the environment the file does not show (``{"env": ..., "env_opaque": ...}``, empty when none)."""
    found = _mapping_commands_bare(n)
    if not found:
        return []
    prefix, hidden, opaque = _environment(n)
    around = {"env": hidden, "env_opaque": opaque} if hidden or opaque else {}
    return [(line, text, around) for line, text in _with_env(found, prefix)]


def _mapping_commands_bare(n) -> list[tuple[int, str]]:
    """The launch commands one mapping holds: a container's command + args, a compose service's
    entrypoint + command, or a script under run: / setup: (SkyPilot) / command: / args:."""
    from yaml import ScalarNode

    command, args, entrypoint = _entry(n, "command"), _entry(n, "args"), _entry(n, "entrypoint")
    out: list[tuple[int, str]] = []
    cmd_words = _words(command[1]) if command else None
    args_words = _words(args[1]) if args else None
    entry_words = _words(entrypoint[1]) if entrypoint else None
    if cmd_words is not None and args_words is not None:  # a container: the args follow the command
        return _word_commands(cmd_words + args_words, command[1].value + args[1].value, command[0].start_mark.line + 1)
    entry_text = (
        join_words(entry_words)
        if entry_words is not None
        else (
            helm_dynamic(entrypoint[1].value)
            if entrypoint is not None and isinstance(entrypoint[1], ScalarNode)
            else None
        )
    )
    if entry_words is not None and cmd_words is not None and _c_script(entry_words + cmd_words) is not None:
        first = min(command[0].start_mark.line, entrypoint[0].start_mark.line) + 1  # a shell's -c script
        return _word_commands(entry_words + cmd_words, entrypoint[1].value + command[1].value, first)
    if entry_text is not None and command is not None:  # compose: the command follows the entrypoint
        tail = (
            join_words(cmd_words)
            if cmd_words is not None
            else (helm_dynamic(command[1].value) if isinstance(command[1], ScalarNode) else "")
        )
        text = (entry_text + " " + tail).strip()
        if looks_like(text):
            first = min(command[0].start_mark.line, entrypoint[0].start_mark.line if entrypoint else 1 << 30)
            return [(first + 1, c) for c in _command_parts(text)]
    for key in ("command", "args", "run", "setup"):
        found = _entry(n, key)
        if found is not None:
            out += _from_value(found[1], found[0].start_mark.line + 1)
    return out


# --------------------------------------------------------------------------- one file


def find_launches(name: str, text: str, kind: str | None = None) -> list[dict]:
    """Each launch command in a file, in line order: its ``line``, its ``command`` and the environment it
    runs in that the file does not show, as command.add_environment takes it (``env``: a container's
    variables set from elsewhere, ``env_opaque``: its files or sources of variables). ``kind`` as
    :func:`kind_of` says, else from the name (a file of another name is read as a shell script).
    Raises ScanError."""
    kind = kind or kind_of(name) or "shell"
    if kind == "dockerfile":
        found: list = dockerfile_commands(text)
    elif kind == "yaml":
        found = yaml_commands(text)
    else:
        found = shell_commands(text)
    launches: dict[tuple[int, str], dict] = {}
    for line, command, *around in found:
        env = around[0] if around else {}
        launches.setdefault(
            (line, command),
            {"line": line, "command": command, "env": env.get("env", {}), "env_opaque": env.get("env_opaque", [])},
        )
    if len(launches) > MAX_COMMANDS:
        raise ScanError(f"more than {MAX_COMMANDS:,} launch commands in one file")
    return sorted(launches.values(), key=lambda f: f["line"])


def find_commands(name: str, text: str, kind: str | None = None) -> list[tuple[int, str]]:
    """(line, command) of each launch command in a file, in line order (:func:`find_launches`)."""
    return [(f["line"], f["command"]) for f in find_launches(name, text, kind)]


# --------------------------------------------------------------------------- the release a file pins

_RELEASE = r"v?([0-9]+\.[0-9]+\.[0-9]+(?:rc[0-9]+)?(?:\.post[0-9]+)?)"


def image_release(ref: str) -> str | None:
    """The SGLang release an image reference pins: ``lmsysorg/sglang:v0.5.9-cu129`` -> ``0.5.9``,
    ``...:v0.5.10rc0-cu126`` -> ``0.5.10rc0``. None for a tag that names no release (``latest``, ``dev``,
    a nightly), for no tag at all, and for an image that is not SGLang's (its last name is not ``sglang``)."""
    import re

    ref = ref.strip().strip("'\"").split("@", 1)[0]
    name, colon, tag = ref.rsplit("/", 1)[-1].partition(":")
    if not colon or name.lower() != "sglang":
        return None
    m = re.fullmatch(_RELEASE + r"(?:[-_].*)?", tag)
    return m.group(1) if m else None


# `pip install` (`pip3`, `python -m pip`, `uv pip`) and what it installs, up to the end of its command
_PIP_INSTALL = r"(?<![\w.\-])pip[0-9.]*\s+install(?![\w-])(?P<args>[^;&|`)\n]*)"
_OPERATOR = r"(?:===|==|~=|!=|<=|>=|<|>)\s*[^\s,;\"'\]]+"
# a requirement of the sglang package: sglang, sglang[all], "sglang [all] >= 0.5.8, < 0.5.9", sglang @ URL
_REQUIREMENT = (
    r"(?<![\w.\-/@=])sglang(?:\s*\[[^\]\s\"']*\])?"
    r"(?:\s*(?P<spec>" + _OPERATOR + r"(?:\s*,\s*" + _OPERATOR + r")*)|\s*@\s*(?P<url>[^\s\"']+))?(?![\w.\-/])"
)
# SGLang's repository (its python/ folder holds the package), at a tag, a branch or a commit: git+https://...
_GIT = r"(?:(?<![\w.\-/@=])sglang(?:\s*\[[^\]\s\"']*\])?\s*@\s*)?git\+\S*?/sglang(?:\.git)?(?=[@#\s\"']|$)(?:@(?P<ref>[^\s#\"']+))?[^\s\"']*"
_WHEEL = r"(?<![\w.\-])sglang-(?P<version>[0-9][^-\s\"'/]*)-[^\s\"'/]*\.whl"


def _pip_pins(text: str) -> list[dict]:
    """Each sglang requirement a ``pip install`` of the file's text names, with its line and the text as
    written: its version specifiers (``spec``: ``==0.5.8``, ``>=0.5.8,<0.5.9``, ``==0.5.*``; empty for an
    unpinned ``sglang``, which allows any release), and ``pre`` when ``--pre`` lets pip take pre-releases.
    SGLang's repository at a release's tag (``git+https://...sglang.git@v0.5.8``) and a wheel of a release
    are that release; at another branch or commit, any release."""
    import re

    out = []
    for line, t in logical_lines(text):
        if "sglang" not in t or "install" not in t:
            continue
        for m in re.finditer(_PIP_INSTALL, t):
            args = m.group("args")
            pre = re.search(r"(?<!\S)--pre(?!\S)", args) is not None
            for g in re.finditer(_GIT, args):
                tag = re.fullmatch(_RELEASE, g.group("ref") or "")
                out.append(
                    {"line": line, "written": g.group(0), "spec": f"=={tag.group(1)}" if tag else "", "pre": pre}
                )
            args = re.sub(_GIT, " ", args)
            for w in re.finditer(_WHEEL, args):
                out.append({"line": line, "written": w.group(0), "spec": f"=={w.group('version')}", "pre": pre})
            for r in re.finditer(_REQUIREMENT, args):
                spec = "".join((r.group("spec") or "").split())
                if r.group("url"):  # a URL other than the repository: a wheel names its release, else any
                    wheel = re.search(_WHEEL, r.group("url"))
                    spec = f"=={wheel.group('version')}" if wheel else ""
                out.append({"line": line, "written": " ".join(r.group(0).split()), "spec": spec, "pre": pre})
    return out


def allowed_releases(pin: dict, known: list[str]) -> list[str] | None:
    """The releases of ``known`` a pin allows, oldest first: an image's tag, its one release; a pip
    requirement, each release its specifiers allow as pip reads them (PEP 440, a local label such as
    ``+cu128`` aside; a pre-release only when the requirement names one, or with ``--pre``). None when pip
    cannot read the requirement."""
    from opsmanual.text.versions import compare, version_key

    order = sorted(known, key=version_key)
    if pin["kind"] != "pip":
        return [v for v in order if compare(v, pin["release"]) == 0]
    import re

    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(re.sub(r"\+[0-9A-Za-z.]*", "", pin["spec"]))
    except InvalidSpecifier:
        return None
    return list(spec.filter(order, prereleases=True if pin["pre"] else None))


def _yaml_images(text: str) -> list[dict]:
    """Each ``image:`` of a YAML file that pins an SGLang release, with the lines of the mapping that holds
    it (a Kubernetes container, a compose service): the commands inside it run that image."""
    import yaml
    from yaml import MappingNode, ScalarNode, SequenceNode

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: list[dict] = []
    seen: set[int] = set()
    try:
        for doc in yaml.compose_all(text, Loader=loader):
            stack = [doc] if doc is not None else []
            while stack:
                n = stack.pop()
                if id(n) in seen:
                    continue
                seen.add(id(n))
                if len(seen) > MAX_NODES:
                    return out
                if isinstance(n, MappingNode):
                    for k, v in n.value:
                        if isinstance(k, ScalarNode) and k.value == "image" and isinstance(v, ScalarNode):
                            release = image_release(str(v.value))
                            if release is not None:
                                out.append(
                                    {
                                        "line": v.start_mark.line + 1,
                                        "release": release,
                                        "written": str(v.value).strip(),
                                        "start": n.start_mark.line + 1,
                                        "end": n.end_mark.line + 1,
                                        "kind": "image",
                                    }
                                )
                    stack.extend(v for _, v in n.value)
                elif isinstance(n, SequenceNode):
                    stack.extend(n.value)
    except (yaml.YAMLError, RecursionError):
        return out
    return out


def _dockerfile_images(text: str) -> list[dict]:
    """The SGLang release each stage's ``FROM`` pins, over the lines of that stage (a stage built ``FROM``
    an earlier one inherits its pin)."""
    out: list[dict] = []
    stages: dict[str, dict] = {}
    froms = [(line, instr.strip()) for line, instr in logical_lines(text) if instr.strip()[:5].upper() == "FROM "]
    for n, (line, instr) in enumerate(froms):
        rest = instr[5:]
        words = [w for w in rest.split() if not w.startswith("--")]
        if not words:
            continue
        end = froms[n + 1][0] - 1 if n + 1 < len(froms) else 1 << 30
        parent = stages.get(words[0].lower())
        release = image_release(words[0])
        pin = (
            {"line": line, "release": release, "written": words[0], "kind": "image"}
            if release is not None
            else (dict(parent) if parent else None)
        )
        if len(words) >= 3 and words[1].lower() == "as" and pin is not None:
            stages[words[2].lower()] = pin
        if pin is not None:
            out.append(dict(pin, start=line, end=end))
    return out


def _shell_images(text: str) -> list[dict]:
    """The image of each ``docker run`` / ``podman run`` line that pins an SGLang release: it pins the
    command of that line only."""
    out = []
    for line, t in logical_lines(text):
        if "docker" not in t and "podman" not in t:
            continue
        for w in t.split():
            release = image_release(w)
            if release is not None:
                out.append({"line": line, "release": release, "written": w.strip("'\""), "kind": "image"})
                out[-1].update(start=line, end=line)
                break
    return out


def release_pins(name: str, text: str, kind: str | None = None) -> list[dict]:
    """Every place a deploy file pins the SGLang release: image references (a YAML ``image:``, a
    Dockerfile ``FROM``, a ``docker run`` line), with their ``release``, and the sglang requirements of
    ``pip install`` lines (:func:`_pip_pins`), with their ``spec``. Each pin has its line, its kind (image,
    pip), the text as written and the lines it covers (start, end). Never raises."""
    kind = kind or kind_of(name) or "shell"
    if kind == "yaml":
        pins = _yaml_images(text)
    elif kind == "dockerfile":
        pins = _dockerfile_images(text)
    else:
        pins = _shell_images(text)
    for pin in _pip_pins(text):
        # an install covers what runs after it; in YAML the order of keys is no order of running
        pins.append(dict(pin, kind="pip", start=1 if kind == "yaml" else pin["line"], end=1 << 30))
    return pins


def covering_pins(pins: list[dict], line: int) -> list[dict]:
    """The pins that decide the release of the command on ``line``, of those whose lines cover it: every
    install (an install replaces the image's package, and of several, in the branches of an ``if`` or one
    after another, any may be the one that ran), in line order; else the image nearest before the command,
    else the first after it. Empty when no pin covers it."""
    cover = [p for p in pins if p["start"] <= line <= p["end"]]
    installs = sorted((p for p in cover if p["kind"] == "pip"), key=lambda p: p["line"])
    if installs or not cover:
        return installs
    before = [p for p in cover if p["line"] <= line]
    return [max(before, key=lambda p: p["line"]) if before else min(cover, key=lambda p: p["line"])]


# --------------------------------------------------------------------------- a range of releases


def check_releases(engine, command: str, releases: list[str], question: str, **kw) -> dict:
    """The check of ``command`` (``engine.check`` with ``kw``) at each of ``releases``, the releases a deploy
    file's pins allow, oldest first, merged: an incident applies when it applies at every one of them and
    does not apply when it applies at none; otherwise it may apply, with ``question`` (which release the
    deploy installs) undecided. Each incident's reasons, and the findings and notes, are those of the
    newest release where it applies (or may). Releases of one class (Engine.release_class) are checked once."""
    from opsmanual.engines.exposure import APPLIES, MAY_APPLY

    classes: dict[tuple, str] = {}
    for v in releases:  # oldest first: a class is checked at its newest release
        classes[engine.release_class(v)] = v
    outs = [engine.check(command, version=v, **kw) for v in sorted(classes.values(), key=releases.index)]
    base = outs[-1]
    if base["error"]:
        return base
    found: dict[str, list] = {}
    for k, out in enumerate(outs):
        for r in out["results"]:
            found.setdefault(r["id"], [None] * len(outs))[k] = r
    applies, may = [], []
    for inc in engine.incidents:
        results = found.get(inc["id"])
        if results is None:
            continue
        newest = next(r for r in reversed(results) if r is not None)
        verdicts = {r["result"] if r is not None else None for r in results}
        if verdicts == {APPLIES}:
            applies.append(newest)
        elif verdicts == {MAY_APPLY}:
            may.append(newest)
        else:  # the release decides: it applies at some of them and not at others
            add = list(dict.fromkeys([*(newest.get("add") or []), "version"]))
            may.append(dict(newest, result=MAY_APPLY, undecided=[*newest["undecided"], question], add=add))
    may.sort(key=lambda r: (-len(r["why"]), len(r["undecided"])))
    never = set.intersection(*(set(out["does_not_apply"]) for out in outs))
    return dict(
        base,
        results=applies + may,
        does_not_apply=[i for i in base["does_not_apply"] if i in never],
        ruled_out={i: why for i, why in base["ruled_out"].items() if i in never},
    )
