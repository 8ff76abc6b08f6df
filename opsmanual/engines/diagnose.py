"""Is this a known incident? The engine that reads a whole bug report (what the operator saw, the
launch command, ``python -m sglang.check_env`` or ``pip freeze`` output, nvidia-smi, a traceback)
and ranks the manual's incidents by the evidence together, with the reasons for each:

- the log lines the incidents print (the finder's and the triage command's patterns: a line only
  the incident prints is certain, a line several print is possible, its weight shared among them);
- the GitHub threads the report cites (``#37707``, ``sgl-project/sglang#37707``, an address): an
  incident's own issues, and the pull request that fixed it;
- the launch command's exposure conditions that hold (opsmanual/engines/exposure.py, run with the
  GPU and version read from the report; flags stated in the prose, as flags or as server arguments
  (``max_running_requests``), are checked with the model the report names, and the environment
  variables the prose sets are set for every command; SGLang's settings dump, ``ServerArgs(...)``,
  counts as a command) and whether the reported version is in the affected range;
- the kind of failure the report tells (out of memory, hang, wrong output, refused start, ...) and
  the incident's own text tells;
- the report's words that tell the incident (the incidents' text, weighted by how rare a word is;
  a flag that a launch condition names counts as a condition, never again as words; so does the GPU read).

An incident *matches* on a line only it prints; on a thread of its failure that the report cites (an
issue among its own sources, or the pull request that fixed it), when no other incident's is cited; on
its mechanism (a launch condition the report states, a release not outside its range, and evidence of
the same failure: its kind, a line it prints), when no other incident shows the same; or when it is far
ahead of every other incident on evidence of two kinds (at most one of them a condition: a flag, its
release, its GPU; one a launch condition stated when a common error tells the failure). Others with
some evidence are *related* (at most three, after those that match). When none matches the answer is
"not a known incident", with the related ones, a prefilled link to report a new incident and a draft
entry for data/incidents.yaml. Errors many incidents share bring their entry of data/guidance.yaml, with
the phase (start-up, capture, serving, shutdown) the error came in.

Everything comes from two JSON bundles: the diagnosis bundle (opsmanual/render/diagnose.py) and the
exposure bundle (opsmanual/render/bundle.py). The browser's engine (docs/javascripts/sgm/diagnose.js)
follows the same steps on the same bundles; tests/diagnose_conformance.json holds cases both must
answer alike. No I/O: the command line is opsmanual/cli/diagnose.py.
"""

from __future__ import annotations

import bisect
import math
import re
from functools import cmp_to_key
from urllib.parse import quote

from opsmanual.engines.command import placeholders
from opsmanual.engines.exposure import Engine as ExposureEngine
from opsmanual.engines.exposure import describe_range
from opsmanual.text.regex import compile as compile_pattern
from opsmanual.text.versions import compare, in_range, is_final, version_parts
from opsmanual.text.words import fold, stems

try:
    import re2
except ImportError:  # no wheel for this platform: Python's re (opsmanual/text/regex.py)
    re2 = None

FORMAT = "sgm-diagnose/1"
ANSWER_KNOWN = "a known incident"
ANSWER_UNKNOWN = "not a known incident"
_TOKEN = re.compile(r"[^\W_]+(?:[._+/:\-][^\W_]+)*")  # as opsmanual/text/words.py
_JOINER = re.compile(r"[._+/:\-]")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")  # what separates the words of a title (_title_key)
_OPTION = re.compile(r"(?<![^ \t])--?[A-Za-z][A-Za-z0-9_.-]*")  # an option's name in a command: --tp-size, -m
_FIELD = re.compile(r"\{(\w+)\}")


def fill(template: str, **values) -> str:
    """A message template with each {name} replaced by its value (as diagnose.js fill())."""
    return _FIELD.sub(lambda m: str(values[m.group(1)]), template)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[._+/:\-][A-Za-z0-9]+)*")  # _TOKEN on ASCII text
_CASED = re.compile(r"\\.|[A-Z]")
_TERM_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")  # what a component's term is made of


def _rx(rule: dict, multiline: bool = False):
    """A rule of the bundle, compiled with RE2 (opsmanual/text/regex.py): its time is linear in the
    text whatever the report holds. Python's re (ASCII) only where the RE2 wheel is missing; the
    rules' shapes (unambiguous, bounded repeats; tests/test_diagnose.py) keep it and the browser's
    RegExp from backtracking far."""
    flags = ("i" if "i" in rule.get("flags", "") else "") + ("m" if multiline else "")
    if re2 is not None:
        return re2.compile(f"(?{flags}){rule['re']}" if flags else rule["re"])
    return re.compile(
        rule["re"], re.ASCII | (re.IGNORECASE if "i" in flags else 0) | (re.MULTILINE if multiline else 0)
    )


def _rx_lower(rule: dict, multiline: bool = False) -> re.Pattern | None:
    """A case-insensitive rule written in lower case, as a case-sensitive regex for the text in ASCII
    lower case: the same matches at the same places, several times faster with Python's re. None for
    other rules, and where RE2 runs the rules."""
    if re2 is not None or "i" not in rule.get("flags", ""):
        return None
    for m in _CASED.finditer(rule["re"]):
        if m.group(0)[0] != "\\" or m.group(0)[1] in "xuUN":  # a capital, or a character by its code
            return None
    return re.compile(rule["re"], re.ASCII | (re.MULTILINE if multiline else 0))


def norm_name(name: str) -> str:
    """A GPU's name as names are compared: lower case, runs of spaces, hyphens and underscores as one space."""
    return " ".join(str(name).lower().replace("_", " ").replace("-", " ").split())


_ASCII_LETTER = re.compile(r"[a-z]")


def _is_term(token: str, stop: frozenset) -> bool:
    if len(token) < 2 or token in stop:
        return False
    if token.isascii():  # folded: lower case
        return _ASCII_LETTER.search(token) is not None
    return any(c.isalpha() for c in token)


def _forms(token: str) -> list[str]:
    return [token, *stems(token)]


def _uri(text: str) -> str:
    """encodeURIComponent."""
    return quote(text, safe="-_.!~*'()")


# What diagnose.js's trim() takes off a line's ends (str.strip() takes others: U+001C-U+001F, NEL).
SPACE = " \t\n\v\f\r\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_SURROGATE = re.compile("[\ud800-\udfff]")  # in a Python str, half a pair (as JSON "\\ud800" reads)
# a terminal's colour or cursor sequence (ESC [ ... letter), then any ESC left: a coloured log (Ray's, a
# logger's) reads as its text, and no pasted escape reaches the reader's terminal
_ANSI = re.compile("\x1b\\[[0-9;:?]{0,32}[ -/]{0,4}[@-~]|\x1b")


def normalise(text: str) -> str:
    """The report as both engines read it: no byte-order mark, \\n line breaks, the line and paragraph
    separators as spaces, no terminal escape sequences, half a surrogate pair as U+FFFD (a pasted report
    may hold one; RE2 reads UTF-8), cut at the bundle's limit."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", " ").replace("\u2029", " ")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _SURROGATE.sub("\ufffd", text)


class _Evidence:
    """What one report shows for each incident (by position): its points and reasons, and the kinds of
    evidence the verdict rests on."""

    def __init__(self, count: int):
        self.score = [0] * count
        self.why: list[list[str]] = [[] for _ in range(count)]
        self.own = [False] * count  # a line only this incident prints
        self.held = [False] * count  # a launch condition of it that the report states (its mechanism)
        self.kind = [False] * count  # the report tells a kind of failure its own text tells
        self.told = [False] * count  # ... or only lines several incidents or a common error print tell it
        self.support = [0] * count  # evidence of the same failure: its kind, a line it prints, many of its words
        self.failure = [0] * count  # of that evidence, what is not words: its kind, a line it prints
        # a release in a range that ended before the newest release, its GPU where its launch conditions name one
        self.condition = [False] * count
        self.hardware = [False] * count  # its GPU or GPU architecture, named in the report
        self.few = [False] * count  # a line it prints that at most relatedMax incidents print
        self.other = [False] * count  # evidence besides words and the GPU: a log line, a launch condition, the version
        self.cited = [False] * count  # the report cites a thread of it
        self.found = [False] * count  # among the finder's first for the report's own words (words too)
        # the reported release is outside the affected range, or its GPU outside what it needs
        self.outside = [False] * count
        self.line = [False] * count  # a line it prints that other incidents (or a common error) print too
        self.denied = [False] * count  # the report says it does not use a flag its condition needs
        self.ruled: list[str | None] = [None] * count  # why a launch command shown whole rules it out
        self.lead = self.score  # the points that decide who is far ahead: those before the finder's rank
        self.components: list[str] = []  # the components the report's opening names


class Diagnoser:
    """A diagnosis bundle and an exposure bundle, indexed once for many reports."""

    def __init__(self, bundle: dict, exposure_bundle: dict):
        if bundle.get("format") != FORMAT:
            raise ValueError(f"diagnosis bundle format {bundle.get('format')!r}, expected {FORMAT}")
        self.bundle = bundle
        self.exposure = ExposureEngine(exposure_bundle)
        self.exposure_by_id = {i["id"]: i.get("exposure") for i in exposure_bundle["incidents"]}
        # the flags the incidents' launch conditions name: in a report they count as conditions, not as words
        exposures = [i.get("exposure") for i in exposure_bundle["incidents"]]
        self.condition_flags = frozenset(_flags_of(exposures))
        # and the variables they name: set in a report, they count as conditions, not as words
        self.condition_env = frozenset(_flags_of(exposures, "env"))
        # the incidents whose launch conditions name a GPU (its architecture, its memory): for them the GPU a
        # report names is a condition of the failure; for the others it is where the failure was seen
        self.gpu_conditions = {i["id"] for i in exposure_bundle["incidents"] if _names_gpu(i.get("exposure"))}
        r = bundle["rules"]
        self.rules = r
        # what every launch of an incident runs on (its GPUs' vendor, architecture, compute capability): a GPU
        # outside it rules the incident out, as a release outside its range does
        self.gpu_needs = {i["id"]: _gpu_needs(i.get("exposure"), r["gpuNeeds"]) for i in exposure_bundle["incidents"]}
        self.w = r["weights"]
        self.stop = frozenset(r["stopWords"])
        self.incidents = bundle["incidents"]
        self._index = {inc["id"]: n for n, inc in enumerate(self.incidents)}
        self.versions = [(v["product"], _rx(v, True), _rx_lower(v, True)) for v in r["versions"]]
        self.gpu_lines = [_rx(g, True) for g in r["gpuLines"]]
        self.gpu_number_not = _rx(r["gpuNumberNot"])
        self.gpu_name_not = _rx(r["gpuNameNot"])
        self.gpu_memory = [(_rx(g, True), bool(g.get("mib"))) for g in r["gpuMemory"]]
        self.allocation = _rx(r["allocation"])
        self.negated_by = frozenset(r["negatedBy"])
        self.negated_articles = frozenset(r["negatedArticles"])
        self.error_advice = _rx(r["errorAdvice"])
        self.arch = [_rx(a) for a in r["arch"]]
        self.arch_list_line = _rx(r["archListLine"])
        self.command_start = _rx(r["commandStart"])
        self.command_start_all = _rx(r["commandStart"], True)
        self.command_prompt = _rx(r["commandPrompt"])
        self.model_lines = [_rx(m, True) for m in r["modelLines"]]
        self.phases = [(p["phase"], _rx(p, True)) for p in r["phases"]]
        self.frame_phases = [(p["phase"], _rx(p)) for p in r["framePhases"]]
        self.errorish = _rx(r["errorish"])
        self.errorish_lower = _rx_lower(r["errorish"])
        self.traceback = _rx(r["traceback"])
        self.exception_line = _rx(r["exceptionLine"])
        self.prefix = _rx(r["linePrefix"])
        self.generic_reason = _rx(r["exposureGeneric"])
        self.env_line = _rx(r["envLine"])
        self.newest = _newest_releases(self.exposure.releases)
        self.url = _rx(r["url"])
        self.hint = _rx(r["hint"])
        self.url_or_hint = _rx({"re": f"{r['url']['re']}|{r['hint']['re']}", "flags": ""})  # one pass over each line
        self.citation = _rx(r["citation"], True)
        self.cited_miles = _rx(r["citedMiles"])
        self.cited_not = _rx(r["citedNot"])
        # a thread (owner/name#N) -> the incidents whose failure it is
        self.threads: dict[str, list[int]] = {}
        for n, inc in enumerate(self.incidents):
            for thread in inc["threads"]:
                self.threads.setdefault(thread, []).append(n)
        self.title_tags = _rx(r["titleTags"])
        self.titles = self._titles()
        self.hex = _rx(r["hex"])
        self.absent_reason = _rx(r["absentReason"])
        self.frame_line = _rx(r["frameLine"])
        self.process_prefix = _rx(r["processPrefix"])
        self.code_line = _rx(r["codeLine"])
        self.raised_line = _rx(r["raisedLine"])
        self.routine_line = _rx(r["routineLine"])
        self.condition_open = _rx(r["conditionOpen"])
        self.model_reason = _rx(r["modelReason"])
        self.common_flags = frozenset(r["commonFlags"])
        self.cut_command = _rx(r["cutCommand"])
        self.prose_flag = _rx(r["proseFlag"])
        self.prose_name = _rx(r["proseName"])
        self.prose_value = _rx(r["proseValue"])
        self.prose_value_end = _rx(r["proseValueEnd"])
        self.prose_number = _rx(r["proseNumber"])
        # the flags whose conditions compare numbers, and the values the conditions list for a flag
        self.numeric_flags, self.listed_values = _values_of(exposures)
        self.valued_flags = sorted(self.numeric_flags | set(self.listed_values))
        # the switches the prose may name by their words: (flag, its words' pattern on ASCII-lowered text)
        self.switches = [
            (flag, compile_pattern(r"(?:^|[^a-z0-9_-])(" + "[ _-]".join(words) + r")(?:[^a-z0-9_-]|$)"))
            for flag in sorted(self.condition_flags)
            if flag.startswith(r["proseSwitch"])
            for words in [flag[len(r["proseSwitch"]) :].split("-")]
            if len(words) >= r["proseSwitchWords"]
        ]
        self.switch_off = _rx(r["proseSwitchOff"])
        self.switch_off_after = _rx(r["proseSwitchOffAfter"])
        self.switch_reach = r["proseSwitchReach"]
        self.prose_env = _rx(r["proseEnv"])
        self.args_dump = _rx(r["argsDump"])
        self.args_end = _rx(r["argsEnd"])
        # each argument an incident's condition names, as a settings dump writes it (sorted: one order)
        self.arg_values = [
            (flag, compile_pattern(r["argsValue"].replace("NAME", flag[2:].replace("-", "_"))))
            for flag in sorted(self.condition_flags)
        ]
        self.model_word = _rx(r["modelWord"])
        self.kinds = [(k["kind"], _rx(k), _rx_lower(k)) for k in r["kinds"]]
        self.components = [(c["component"], _rx(c), _rx_lower(c)) for c in r["components"]]
        self.headline_words = _rx(r["headlineWords"])
        self.log_prefix = _rx(r["logPrefix"])
        self.msg = bundle["messages"]
        # log patterns: (owner, needle, regex or None, generic); owner is an incident's position or
        # ("g", guidance position), ("c", guidance position) for a line that tells a consequence,
        # ("m", guidance position, phase), or ("k", guidance position, lead) for a line that makes one
        # of its checks the first thing to do
        self.patterns: list[tuple] = []
        for p in bundle["patterns"]:
            self.patterns.append((p["i"], *self._pattern(p)))
        for n, g in enumerate(bundle["guidance"]):
            for p in g["lines"]:
                self.patterns.append((("c" if p.get("consequence") else "g", n), *self._pattern(p)))
            for ph in g["phases"]:
                self.patterns.append((("m", n, ph["phase"]), *self._pattern(ph["when"])))
            for j, lead in enumerate(g["leads"]):
                self.patterns.append((("k", n, j), *self._pattern(lead["when"])))
        # words: each form of an incident word -> the words it stands for
        self.terms = bundle["terms"]
        self.forms: dict[str, list[str]] = {}
        self.total = [0] * len(self.incidents)
        for word, postings in self.terms.items():
            for f in _forms(word):
                self.forms.setdefault(f, []).append(word)
            for n, weight in postings:
                self.total[n] += weight
        # GPU names as a report writes them, longest first
        names: dict[str, dict] = {}
        for g in self.exposure.gpus:
            for name in [g["name"], *(g.get("aliases") or [])]:
                key = norm_name(name)
                if key and key not in names:
                    names[key] = g
        self.gpu_by_name = names
        self.gpu_vendor = {g["id"]: g.get("vendor") for g in self.exposure.gpus}
        self.gpu_arch = {
            g["id"]: "SM" + g["compute_capability"].replace(".", "")
            for g in self.exposure.gpus
            if g.get("compute_capability")
        }
        alternatives = sorted(names, key=lambda k: (-len(k), k))
        # on the text in ASCII lower case (as diagnose.js's flag i without u): the name is group 1,
        # its neighbours are not letters or digits
        self.gpu_any = (
            compile_pattern(
                # a count before it with "x" (8xH100) is no part of another word
                r"(?:^|[^a-z0-9]|[0-9]x)("
                + "|".join("[-_ ]+".join(re.escape(p) for p in k.split(" ")) for k in alternatives)
                + r")(?:[^a-z0-9]|$)"
            )
            if alternatives
            else None
        )

    @staticmethod
    def _pattern(p: dict) -> tuple:
        if p.get("literal") is not None:
            return p["literal"], None, bool(p.get("generic"))
        return p.get("fixed") or "", compile_pattern(p["regex"]), bool(p.get("generic"))

    # ------------------------------------------------------------------ reading the report

    def read(self, text: str) -> dict:
        """The facts of a report: versions, GPU, commands, model, phase, error lines."""
        body, lines, starts, notes = self._lines(text)
        lower = body.translate(_ASCII_LOWER)  # the same length and line breaks as body
        facts: dict = {
            "versions": {},
            "gpu": None,
            "gpuUnlisted": None,  # the GPU a GPU line names when it is none the manual lists (`GPU 0: NVIDIA A40`)
            "arch": None,
            "memory": None,
            "allocation": None,  # GiB that the out-of-memory message says one allocation asked for
            "commands": [],
            "model": None,
            "phase": None,
            "errors": [],
            "notes": notes,
        }
        for product, rx, rx_lower in self.versions:
            if product in facts["versions"]:
                continue
            m = rx_lower.search(lower) if rx_lower is not None else rx.search(body)
            if m:
                spans = [m.span(k) for k in range(1, (m.lastindex or 1) + 1)]
                written = [body[a:b] for a, b in spans]  # as written, not lowered
                facts["versions"][product] = (
                    written[0] if product != "cuda" or len(written) == 1 else f"{written[0]}.{written[1]}"
                )
        facts["versions"] = {p: facts["versions"][p] for p in self.rules["products"] if p in facts["versions"]}
        facts["gpu"] = self._gpu(body)
        if facts["gpu"] is None:
            facts["gpuUnlisted"] = self._gpu_unlisted(body)
        facts["arch"] = self._arch(body, lines, starts, facts["gpu"])
        for rx, mib in self.gpu_memory:
            m = rx.search(body)
            if m:
                value = float(m.group(1))
                facts["memory"] = _gib(value, mib)
                break
        if facts["memory"] is None and facts["gpu"] and facts["gpu"].get("memory_gb"):
            facts["memory"] = facts["gpu"]["memory_gb"]
        facts["commands"], command_lines = self._commands(lines, body, starts)
        for command in facts["commands"]:
            try:
                parsed = self.exposure.parse(filled(command))
            except Exception:  # noqa: S112 (a command the parser cannot read names no model; diagnose.js alike)
                continue
            entry = (parsed.get("flags") or {}).get("--model-path")
            if entry and entry.get("raw") and not entry.get("dynamic"):
                facts["model"] = str(entry["raw"])
                break
        if not facts["model"]:
            facts["model"] = self.model_of(body)
        code = self._code(lines)
        facts["errors"] = self._errors(lines, lower, code | command_lines)
        # the allocation the first out-of-memory error line says failed, in GiB
        for e in facts["errors"]:
            m = self.allocation.search(e["text"])
            if m:
                value = float(m.group(1))
                facts["allocation"] = _gib(value, m.group(2) == "MiB")
                break
        facts["phase"] = self._phase(body, lines, starts, facts["errors"], code)
        return facts | {"_body": body, "_lines": lines, "_starts": starts, "_code": code, "_command": command_lines}

    def _code(self, lines: list[str]) -> set[int]:
        """The lines of a traceback that are code, not words of the failure: the source line under a Python
        frame (the indented line after ``File "…", line N``, or an indented line right before the exception
        line), the carets under it, and C++ stack frames."""
        code = set()
        for n, line in enumerate(lines):
            if self.code_line.search(line):
                code.add(n)
            elif line[:1] in (" ", "\t") and line.strip(SPACE) and not self.frame_line.search(line):
                after = lines[n + 1].strip(SPACE) if n + 1 < len(lines) else ""
                if (n and self.frame_line.search(lines[n - 1])) or self.raised_line.search(after):
                    code.add(n)
        return code

    def _unprefixed(self, line: str) -> str:
        """``line`` without the prefix a multi-process launcher wrote before it (PROCESS_PREFIX)."""
        m = self.process_prefix.search(line)
        return line[m.end() :] if m is not None and m.end() > 0 else line

    def _lines(self, text: str):
        notes = []
        text = normalise(text)
        if len(text) > self.rules["maxChars"]:
            text = text[: self.rules["maxChars"]]
            notes.append(fill(self.msg["cut"], limit=f"{self.rules['maxChars']:,}"))
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        cut = self.rules["maxLine"]
        lines = [self._unprefixed(line[:cut]) for line in lines]
        starts, at = [], 0
        for line in lines:
            starts.append(at)
            at += len(line) + 1
        return "\n".join(lines), lines, starts, notes

    def _gpu(self, body: str) -> dict | None:
        for rx in self.gpu_lines:
            for m in rx.finditer(body):
                found = self._gpu_in(m.group(1))
                if found:
                    return found
        return self._gpu_in(body)

    def _gpu_unlisted(self, body: str) -> str | None:
        """The name the first GPU line gives (check_env's, nvidia-smi's), for a GPU the manual does not list:
        said, not dropped; clipped to the rules' length."""
        for rx in self.gpu_lines:
            m = rx.search(body)
            if m:
                return _clip(m.group(1), self.rules["gpuNameMax"])
        return None

    def _arch(self, body: str, lines: list[str], starts: list[int], gpu: dict | None) -> str | None:
        """The GPU's architecture ("SM120"): the named GPU's, else the one the report names alone (a line
        that lists the architectures a build supports names none); none for a GPU of another vendor (ROCm's
        `Compute Capability: 9.4` on an MI300X is no SM94)."""
        if gpu and self.gpu_arch.get(gpu["id"]):
            return self.gpu_arch[gpu["id"]]
        if gpu and self.gpu_vendor.get(gpu["id"]) != "nvidia":  # an AMD or Apple GPU has no SM architecture
            return None
        found: set[str] = set()
        for rx in self.arch:
            for m in rx.finditer(body):
                # the line of the token's last character: the match may start on the newline before it
                if self.arch_list_line.search(lines[bisect.bisect_right(starts, m.end() - 1) - 1]):
                    continue
                found.add("SM" + "".join(m.groups()))
                if len(found) > 1:
                    return None
        return found.pop() if found else None

    def _gpu_in(self, text: str) -> dict | None:
        if self.gpu_any is None:
            return None
        lower = text.translate(_ASCII_LOWER)
        reach = self.rules["gpuNumberReach"]
        m = self.gpu_any.search(lower)
        while m:
            written = text[m.start(1) : m.end(1)]
            before = lower[max(0, m.start(1) - reach) : m.start(1)]
            # a name that is a number alone, where the text before makes it a value (`#token: 4090`); any name
            # in a link's fragment (`x.py#L20-L40`)
            if not ((written.isdigit() and self.gpu_number_not.search(before)) or self.gpu_name_not.search(before)):
                g = self.gpu_by_name[norm_name(written)]
                return {"id": g["id"], "name": g["name"], "written": written, "memory_gb": g.get("memory_gb")}
            m = self.gpu_any.search(lower, m.end(1))
        return None

    def _commands(self, lines: list[str], body: str, starts: list[int]) -> tuple[list[str], set[int]]:
        """The launch commands the report shows, and the lines they take (a command is no error line)."""
        out: list[str] = []
        spanned: set[int] = set()
        # the lines where a command starts, from one pass over the report (a start is within a line)
        begins = sorted({bisect.bisect_right(starts, m.start()) - 1 for m in self.command_start_all.finditer(body)})
        n = 0
        while n < len(lines) and len(out) < self.rules["maxCommands"]:
            at = bisect.bisect_left(begins, n)
            if at == len(begins):
                break
            n = begins[at]
            m = self.command_start.search(lines[n])
            if not m:
                n += 1
                continue
            parts = [lines[n]]
            k = n
            while (
                parts[-1].rstrip(SPACE).endswith("\\")
                and k + 1 < len(lines)
                and len(parts) < self.rules["maxCommandLines"]
            ):
                k += 1
                parts.append(lines[k])
            spanned.update(range(n, k + 1))
            head = self.command_prompt.sub("", parts[0], count=1)
            before = head[: max(0, m.start() - (len(parts[0]) - len(head)))]
            if before.strip(SPACE) and not re.fullmatch(r"(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*", before, re.ASCII):
                head = head[len(before) :]
                head = head.lstrip(" \t;&|(`'\"")
            command = "\n".join([head, *parts[1:]]).strip(SPACE).strip("`").strip(SPACE)
            if command and command not in out:
                out.append(command)
            n = k + 1
        return out, spanned

    def _errors(self, lines: list[str], lower: str, code: set[int]) -> list[dict]:
        found: list[dict] = []
        lowered = lower.split("\n") if self.errorish_lower is not None else None
        limit = self.rules["maxErrorLines"]

        def add(n: int, line: str) -> None:
            core = self.prefix.sub("", line, count=1).strip(SPACE)
            if len(re.findall(r"[A-Za-z]{2,}", core)) < 2 or len(core) < 12:
                return
            if len(found) < limit and all(e["text"] != core for e in found):
                found.append({"line": n + 1, "text": core})

        in_tb = False
        last = len(lines) - 1
        for n, line in enumerate(lines):
            if len(found) >= limit:
                break
            if n in code:
                continue
            if self.env_line.search(line):
                in_tb = False
                continue
            if self.traceback.search(self.prefix.sub("", line, count=1)):
                in_tb = True
                continue
            if in_tb:
                if line[:1] in (" ", "\t"):
                    continue
                in_tb = False
                if self.exception_line.search(line.strip(SPACE)):
                    add(n, line)
                    continue
            errorish = (
                self.errorish_lower.search(lowered[n])
                if lowered is not None and self.errorish_lower
                else self.errorish.search(line)
            )
            # a settings dump is the launch command's echo, not an error (even with `log_level='error'` in it)
            if (
                self.exception_line.search(self.prefix.sub("", line, count=1).strip(SPACE)) or errorish
            ) and not self.args_dump.search(line):
                add(n, line)
            if n == last and self.exception_line.search(line.strip(SPACE)):
                add(n, line)
        return found

    def _phase(self, body: str, lines: list[str], starts: list[int], errors: list[dict], code: set[int]) -> str | None:
        """The phase the first error came in: the innermost frame of its own traceback that tells one (the
        function it ran), else the last phase line at or before the first error line (else the last phase
        line, else the last frame that tells one), read outside tracebacks: a path or a line of code in a
        frame tells nothing.

        The same answer as diagnose.js, which reads every phase line from the start: here the lines
        before the error are searched backwards, in growing windows (a phase line is one line)."""
        if errors:
            told = self._frame_phase(lines, errors[0]["line"] - 1, code)
            if told is not None:
                return told
        limit = starts[errors[0]["line"] - 1] if errors else len(body)
        end = body.find("\n", limit)
        end = len(body) if end < 0 else end
        size = 8192
        while True:
            begin = max(0, end - size)
            if begin > 0:
                begin = body.rfind("\n", 0, begin) + 1
            best, at = None, -1
            for phase, rx in self.phases:
                for m in rx.finditer(body, begin, end):
                    if m.start() > limit:
                        break
                    if m.start() > at and not self._in_traceback(
                        lines, bisect.bisect_right(starts, m.start()) - 1, code
                    ):
                        best, at = phase, m.start()
            if best is not None:
                return best
            if begin == 0:
                return None if errors else self._frame_phase(lines, None, code)
            size *= 4

    def _in_traceback(self, lines: list[str], n: int, code: set[int]) -> bool:
        """Whether line ``n`` is a traceback's frame line or a line of code under one."""
        return n in code or bool(self.frame_line.search(lines[n]))

    def _frame_phase(self, lines: list[str], e: int | None, code: set[int]) -> str | None:
        """The phase the frames of line ``e``'s traceback tell (the frame and code lines right before and
        right after it), or of every frame when ``e`` is None: the innermost (last) frame whose function
        tells one."""
        start, end = 0, len(lines)
        if e is not None:
            start = e
            while start > 0 and self._in_traceback(lines, start - 1, code):
                start -= 1
            end = e + 1
            while end < len(lines) and self._in_traceback(lines, end, code):
                end += 1
        told = None
        for n in range(start, end):
            if n != e and self.frame_line.search(lines[n]):
                for phase, rx in self.frame_phases:
                    if rx.search(lines[n]):
                        told = phase
                        break
        return told

    # ------------------------------------------------------------------ log lines

    def _log(self, body: str, lines: list[str], starts: list[int]):
        certain: dict[int, set] = {}
        possible: dict[int, set] = {}
        first: dict[int, int] = {}
        guidance: dict[int, list[int]] = {}
        causes: set[int] = set()  # the guidance found by a line of its own, not only by a consequence's
        markers: dict[int, list[tuple[int, str]]] = {}
        leads: dict[int, set[int]] = {}  # guidance position -> the leads whose lines the report shows
        for owner, needle, regex, generic in self.patterns:
            hits: list[int] = []
            if needle == "":
                hits = [n for n, line in enumerate(lines) if regex.search(line)]
            else:
                at = body.find(needle)
                seen = -1
                while at >= 0:
                    n = bisect.bisect_right(starts, at) - 1
                    if n != seen:
                        seen = n
                        if regex is None or regex.search(lines[n]):
                            hits.append(n)
                    at = body.find(needle, starts[n] + len(lines[n]) + 1) if n + 1 < len(starts) else -1
            if not hits:
                continue
            if isinstance(owner, int):
                (possible if generic else certain).setdefault(owner, set()).update(hits)
                first[owner] = min(first.get(owner, hits[0]), hits[0])
            elif owner[0] in ("g", "c"):
                guidance.setdefault(owner[1], []).extend(hits)
                if owner[0] == "g":
                    causes.add(owner[1])
            elif owner[0] == "k":
                leads.setdefault(owner[1], set()).add(owner[2])
            else:
                markers.setdefault(owner[1], []).extend((h, owner[2]) for h in hits)
        return certain, possible, first, (guidance, causes, leads), markers

    # ------------------------------------------------------------------ the diagnosis

    def diagnose(self, text: str, finder=None) -> dict:
        """The diagnosis of ``text``. ``finder(words)``, when given, is the finder's search: the incident
        ids it ranks for the report's own words (:meth:`prepare`'s ``query``), best first."""
        prepared = self.prepare(text)
        found = finder(prepared["query"]) if finder is not None and prepared["query"] else []
        return self.finish(prepared, found)

    def prepare(self, text: str) -> dict:
        """Everything read from ``text`` before the finder is asked, and ``query``: the report's own words
        for the finder ("" when it has none). Pass it to :meth:`finish` with the finder's ids."""
        facts = self.read(text)
        body, lines, starts, code = facts.pop("_body"), facts.pop("_lines"), facts.pop("_starts"), facts.pop("_code")
        command_lines = facts.pop("_command")
        ev = _Evidence(len(self.incidents))
        certain, possible, _, (guidance_hits, causes, leads), markers = self._log(body, lines, starts)
        self._lines_evidence(ev, certain, possible, lines)
        self._citations(ev, body)
        # a settings dump (ServerArgs(...)) is the launch command's, not words of the failure
        dumps = [n for n, line in enumerate(lines) if self.args_dump.search(line)]
        exposure = self._exposure(facts, body, lines[dumps[0]] if dumps else None, lines)
        self._conditions(ev, exposure, facts)
        # lines several incidents or a common error print count as lines, not again as words; the flags
        # the launch conditions name count as conditions, not again as words
        shared = {h for found in possible.values() for h in found}
        shared.update(h for hits in guidance_hits.values() for h in hits)
        written = {f for r in exposure["results"].values() for y in r["why"] for f in self.prose_flag.findall(y)}
        # a traceback's code and the lines every healthy run prints are no words of the failure
        routine = {n for n, line in enumerate(lines) if self.routine_line.search(line)}
        # a launch command's program and option names are its settings (conditions), not words of the failure
        worded = [self._unflagged(line) if n in command_lines else line for n, line in enumerate(lines)]
        prose = self._prose(
            worded, shared.union(dumps, code, routine), self.condition_flags | self.condition_env | written
        )
        # the GPU read counts as the incidents' hardware condition, not again as words
        prose = self._without_gpu(prose, facts["gpu"])
        # the components the opening names (not those it denies, whose words are blanked)
        cut = _nth(prose, "\n", self.rules["kindLines"])
        opening, ev.components = self._named(prose[:cut])
        prose = opening + prose[cut:]
        self._kinds(ev, prose, facts, shared)
        text_points, words, bare = self._words(prose, facts["arch"])
        self._text_evidence(ev, text_points, words, bare)
        facts["query"] = self._finder_query(lines, facts, shared)
        return {
            "query": facts["query"],
            "facts": facts,
            "lines": lines,
            "evidence": ev,
            "points": text_points,
            "words": words,
            "guidance": (guidance_hits, markers, causes, leads),
            "notes": exposure["notes"],
        }

    def finish(self, prepared: dict, found: list[str]) -> dict:
        """The diagnosis, from :meth:`prepare`'s reading and ``found``: the incident ids the finder ranks
        for its ``query``, best first."""
        facts, ev = prepared["facts"], prepared["evidence"]
        text_points, words = prepared["points"], prepared["words"]
        self._finder_evidence(ev, found)
        self._component_evidence(ev)
        results = self._ranked(ev, text_points, words, bool(prepared["guidance"][0]))
        known = bool(results) and results[0]["verdict"] == "matches"
        hits, markers, causes, leads = prepared["guidance"]
        guidance = self._guidance(hits, markers, causes, prepared["lines"], facts, leads)
        facts["symptoms"] = _top_words(words, text_points, results, self.incidents, self.w["words"] * 2)
        facts["commandNotes"] = prepared["notes"]
        out = {
            "answer": ANSWER_KNOWN if known else ANSWER_UNKNOWN,
            "first": self._first(results, guidance, known, facts),
            "facts": facts,
            "results": results,
            "guidance": guidance,
        }
        if not known:
            out["report"] = self._report(facts, guidance)
        return out

    def log_line(self, line: str) -> bool:
        """Does ``line`` read as a line of a log rather than words typed: a prefix with a time, a number or
        a level (`[2026-01-02 10:00:00 TP0]`, `[rank3]:`, `ERROR`), a traceback's first line, or an
        exception's (`ValueError: …`)? As sgm/logmatch.js looksLikeLog() reads one line
        (tests/log_lines.json holds the cases both answer alike)."""
        line = line.lstrip(SPACE)
        rest = self.prefix.sub("", line, count=1)
        core = rest.strip(SPACE)
        return bool(
            self.log_prefix.search(line[: len(line) - len(rest)])
            or self.traceback.search(core)
            or self.exception_line.search(core)
        )

    def _finder_query(self, lines: list[str], facts: dict, shared: set[int]) -> str:
        """The report's own words for the finder: its headline (the first line, when it is a sentence
        rather than a log line, a command, a traceback or an environment dump's line) and its first error
        lines that no common error and no several incidents print; "" when there are none."""
        parts = []
        for n, line in enumerate(lines):
            if not line.strip(SPACE):
                continue
            rest = self.prefix.sub("", line, count=1)
            core = rest.strip(SPACE)
            if not (
                n in shared
                or self.log_prefix.search(line[: len(line) - len(rest)])
                or self.env_line.search(line)
                or self.command_prompt.search(line)
                or self.command_start.search(line)
                or self.traceback.search(core)
                or self.exception_line.search(core)
                or len(self.headline_words.findall(core)) < self.rules["headlineWords"]["min"]
            ):
                parts.append(self._named(core)[0])
            break
        errors = [e["text"] for e in facts["errors"] if e["line"] - 1 not in shared]
        parts.extend(e for e in errors[: self.rules["finderErrors"]] if e not in parts)
        return " ".join(parts)[: self.rules["finderChars"]].strip(SPACE)

    def _finder_evidence(self, ev: _Evidence, found: list[str]) -> None:
        """5. The finder's first incidents for the report's own words: its first counts most."""
        ranks = self.rules["finderRanks"]
        ev.lead = list(ev.score)  # the finder ranks by words: it makes no incident far ahead
        for k, incident_id in enumerate(found[: len(ranks)]):
            n = self._index.get(incident_id)
            if n is None:
                continue
            ev.score[n] += self.w["finder"] * (len(ranks) - k) // len(ranks)
            ev.found[n] = True
            ev.why[n].append(fill(self.msg["finderReport"], rank=ranks[k]))

    def _lines_evidence(self, ev: _Evidence, certain: dict, possible: dict, lines: list[str]) -> None:
        """1. Log lines. A line only this incident prints is its own: it matches. A line several incidents (or
        a common error) print counts as much as it is rare: its weight shared among the incidents that print
        it, and it corroborates a launch condition as the same failure."""
        w = self.w
        for n, found in certain.items():
            k = min(len(found), w["certainLines"])
            ev.score[n] += w["certain"] + w["certainMore"] * (k - 1)
            ev.own[n] = ev.other[n] = True
            line = min(found)
            ev.why[n].append(
                fill(self.msg["certainLine"], line=line + 1, text=_clip(lines[line]))
                + (fill(self.msg["certainMore"], more=len(found) - 1) if len(found) > 1 else "")
            )
        printers: dict[int, int] = {}  # a line -> how many incidents print it
        for found in possible.values():
            for h in found:
                printers[h] = printers.get(h, 0) + 1
        for n, found in possible.items():
            if n in certain:
                continue
            line = min(found, key=lambda h: (printers[h], h))  # the rarest line it prints
            ev.score[n] += w["possible"] // printers[line]
            ev.other[n] = True
            ev.support[n] += 1
            ev.failure[n] += 1
            ev.line[n] = True
            ev.few[n] = printers[line] <= w["relatedMax"]  # a line so few print relates each of them
            ev.why[n].append(fill(self.msg["possibleLine"], line=line + 1, text=_clip(lines[line])))

    def _citations(self, ev: _Evidence, body: str) -> None:
        """1b. The threads the report cites (an issue it follows, the pull request that fixes it): a thread
        of one incident's failure names it, as its own line does; each cited thread counts once. A bare #N is
        SGLang's thread, or Miles' when the report names Miles and SGLang's thread of that number is no
        incident's. A report whose first line is the title of one of an incident's threads is that thread."""
        r = self.rules
        seen: set[str] = set()
        # the report is the thread: its first line is the thread's title
        first = next((line for line in body.split("\n", 8)[:8] if line.strip(SPACE)), "")
        for n, thread in self.titles.get(self._title_key(first), ()):
            seen.add(thread)
            self._cite(ev, n, "citedTitle", thread)
        miles = self.cited_miles.search(body) is not None
        for m in self.citation.finditer(body):
            if self._denied(body, m.start(), m.end()):
                continue
            repo = r["citedRepositories"].get((m.group(1) or "").lower(), r["citedDefault"])
            thread = f"{repo}#{int(m.group(2) or m.group(3))}"
            if m.group(3) and miles and thread not in self.threads:
                thread = f"{r['citedMilesRepository']}#{int(m.group(3))}"
            if thread in seen:
                continue
            seen.add(thread)
            for n in self.threads.get(thread, ()):
                self._cite(ev, n, "cited", thread)

    def _cite(self, ev: _Evidence, n: int, message: str, thread: str) -> None:
        """Incident ``n`` is cited by ``thread`` (said with ``message``), once whatever cites it again."""
        if not ev.cited[n]:
            ev.cited[n] = ev.other[n] = True
            ev.score[n] += self.w["cited"]
            ev.why[n].append(fill(self.msg[message], thread=thread.split("/", 1)[1]))

    def _titles(self) -> dict[str, list[tuple[int, str]]]:
        """A thread's title, read as a report's first line is read (:meth:`_title_key`) -> (incident, thread)."""
        titles: dict[str, list[tuple[int, str]]] = {}
        for n, inc in enumerate(self.incidents):
            for thread, title in inc["titles"]:
                key = self._title_key(title)
                if key:
                    titles.setdefault(key, []).append((n, thread))
        return titles

    def _title_key(self, line: str) -> str:
        """A title as titles are compared: without the tags it opens with ("[Bug]"), in ASCII lower case, each
        run of other characters than ASCII letters and digits one space; "" when it has fewer than
        titleWords words."""
        words = _NOT_ALNUM.sub(" ", self.title_tags.sub("", line[:1000], count=1).translate(_ASCII_LOWER)).split()
        return " ".join(words) if len(words) >= self.rules["titleWords"] else ""

    def _denied(self, body: str, start: int, end: int) -> bool:
        """Whether the sentence that holds body[start:end] denies it ("I don't think it's the same"): the
        sentence up to . ! ? or a line break on each side, at most citedNotReach characters each way."""
        reach = self.rules["citedNotReach"]
        low = max(0, start - reach)
        left = max(body.rfind(c, low, start) for c in ".!?\n")
        high = min(len(body), end + reach)
        rights = [i for i in (body.find(c, end, high) for c in ".!?\n") if i >= 0]
        sentence = body[max(left + 1, low) : min(rights) if rights else high]
        return self.cited_not.search(sentence.translate(_ASCII_LOWER)) is not None

    def _conditions(self, ev: _Evidence, exposure: dict, facts: dict) -> None:
        """2. The launch command's conditions, the GPU and the versions. A launch condition the report states
        (a flag given, the GPU, the model) is the incident's mechanism; a release outside its range rules the
        match out. The release in its range and its GPU are conditions too, not evidence of the failure: the
        release only in a range that ended before the newest release (every current release is in a range that
        reaches it, so being there tells nothing), its GPU only where its launch conditions name a GPU
        (elsewhere the GPU is where it was seen: an H200 with any out-of-memory error is no sign of one incident
        seen on an H200)."""
        w = self.w
        versions = facts["versions"]
        for n, inc in enumerate(self.incidents):
            result = exposure["results"].get(inc["id"])
            specific = [r for r in result["why"] if not self.generic_reason.search(r)] if result is not None else []
            if specific:
                ev.other[n] = True
                if result["result"] == "applies":
                    ev.score[n] += min(w["exposureMax"], w["exposure"] * len(specific))
                else:
                    ev.score[n] += min(w["mayApplyMax"], w["mayApply"] * len(specific))
                ev.why[n].extend(specific)
                # the model named but not placed in a family, or a flag named without its value, leaves a
                # condition open: no mechanism; nor is the model's family one on its own
                ev.held[n] = not any(self.condition_open.search(u) for u in result["undecided"]) and any(
                    self._states(r) and not self.model_reason.search(r) for r in specific
                )
            said = exposure["denied"].get(inc["id"]) if result is None else None
            if said:
                # the report says it does not use what it needs: no mechanism, and never far ahead
                ev.denied[n] = True
                ev.why[n].append(fill(self.msg["deniedFlags"], flags=", ".join(f"`{f}`" for f in said)))
            ruled = exposure["ruled"].get(inc["id"]) if result is None and not said else None
            if ruled:
                # no points off: the command shown is often not the one that failed
                said_out = fill(self.msg["ruledOut"], why="; ".join(ruled))
                ev.ruled[n] = said_out
                ev.why[n].append(said_out)
            verdict, reason = self._version(inc["id"], versions)
            if verdict is True:
                ev.score[n] += w["versionIn"]
                # a range that reaches the newest release holds every current report: no evidence besides words
                if self._dated(inc["id"], versions):
                    ev.other[n] = ev.condition[n] = True
                ev.why[n].append(reason)
            elif verdict is False:
                ev.score[n] += w["versionOut"]
                ev.outside[n] = True
                ev.why[n].append(reason)
            wanted = self._gpu_outside(inc["id"], facts)
            if wanted is not None:
                if not ev.outside[n]:
                    ev.score[n] += w["gpuOut"]
                    ev.outside[n] = True
                ev.why[n].append(fill(self.msg["gpuOut"], gpu=self._gpu_shown(facts), wanted=wanted))
            if inc["hardware"] and self._same_hardware(inc["hardware"], facts["gpu"], facts["arch"]):
                ev.score[n] += w["hardware"]
                ev.hardware[n] = True
                if inc["id"] in self.gpu_conditions:
                    ev.condition[n] = True
                ev.why[n].append(
                    fill(self.msg["hardware"], gpu=facts["gpu"]["name"])
                    if facts["gpu"]
                    else fill(self.msg["hardwareArch"], arch=facts["arch"])
                )

    def _gpu_outside(self, incident_id: str, facts: dict) -> str | None:
        """What the incident needs of a GPU that the report's GPU is not ("compute capability 9.0 or lower"), or
        None: it meets every need, the report names no GPU, or what the GPU is stays unknown. A GPU named by
        its architecture alone ("SM120") tells its compute capability only."""
        needs = self.gpu_needs.get(incident_id)
        if not needs:
            return None
        if facts["gpu"]:
            gpu = self.exposure.gpus_by_id.get(facts["gpu"]["id"]) or {}
        elif facts["arch"]:
            digits = facts["arch"][2:]
            gpu = {"name": facts["arch"], "compute_capability": f"{digits[:-1]}.{digits[-1]}"}
        else:
            return None
        for need in needs:
            for key, label in self.rules["gpuNeeds"].items():
                # a need the GPU's record tells, decided as the launch check decides it (one it must not meet
                # rules out the GPU that meets it)
                if (
                    key in need
                    and gpu.get(key)
                    and self.exposure.gpu_meets({key: need[key]}, gpu) is bool(need.get("not"))
                ):
                    wanted = (
                        _span(need[key], self.msg) if key == "compute_capability" else self.msg["or"].join(need[key])
                    )
                    return fill(label, value=fill(self.msg["spanNot"], value=wanted) if need.get("not") else wanted)
        return None

    def _gpu_shown(self, facts: dict) -> str:
        return facts["gpu"]["name"] if facts["gpu"] else facts["arch"]

    def _states(self, reason: str) -> bool:
        """Whether a reason of the exposure check is a launch condition the report states: not a flag's
        absence, and not a flag that about every other real launch command gives (``--tp-size``; the
        reason's first flag is its own, others say how it was written)."""
        if self.absent_reason.search(reason):
            return False
        flag = self.prose_flag.search(reason)
        return flag is None or flag.group(1) not in self.common_flags

    def _kinds(self, ev: _Evidence, prose: str, facts: dict, shared: set[int]) -> None:
        """3. The kind of failure, read in the report's opening prose and its error lines (a bounded text). A
        kind told only by lines several incidents print is what those lines say: it counts, but it is no
        further evidence besides them."""
        opening = prose[: _nth(prose, "\n", self.rules["kindLines"])]
        # the error lines without SGLang's own guess at a cause (the opening, prose, has none)
        said = [(e["line"] - 1, self.hint.sub(" ", e["text"])) for e in facts["errors"]]
        own = self._told(opening + "\n" + "\n".join(t for n, t in said if n not in shared))
        told = self._told(opening + "\n" + "\n".join(t for _, t in said))
        for n, inc in enumerate(self.incidents):
            same = [k for k in told if k in inc["kinds"]]
            if same:
                ev.told[n] = True
                ev.score[n] += self.w["kind"]
                ev.why[n].append(fill(self.msg["kind"], kind=", ".join(same)))
            if [k for k in own if k in inc["kinds"]]:
                ev.support[n] += 1
                ev.failure[n] += 1
                ev.kind[n] = True

    def _told(self, text: str) -> list[str]:
        """The kinds of failure ``text`` names, each where the words around it do not deny it ("not an OOM",
        "it didn't hang")."""
        lower = text.translate(_ASCII_LOWER)
        out = []
        for kind, rx, rx_lower in self.kinds:
            for m in rx_lower.finditer(lower) if rx_lower else rx.finditer(text):
                if not self._off(lower, *m.span()):
                    out.append(kind)
                    break
        return out

    def _component_evidence(self, ev: _Evidence) -> None:
        """6. The components the report's opening names (HiCache, speculative decoding, the router) that the
        incident is about: more than shared words, but no part of who is far ahead."""
        for n, inc in enumerate(self.incidents):
            same = [c for c in inc["components"] if c in ev.components]
            if same:
                ev.score[n] += self.w["component"] * min(len(same), self.w["components"])
                ev.why[n].append(fill(self.msg["component"], components=", ".join(same)))

    def _text_evidence(self, ev: _Evidence, text_points: list[int], words: list[list[str]], bare: list[int]) -> None:
        """4. The words: as much as they are rare among the incidents; many of them (besides the architecture
        read, ``bare``, which is the GPU's evidence) corroborate a condition."""
        for n in range(len(self.incidents)):
            if text_points[n]:
                ev.score[n] += text_points[n]
                ev.why[n].append(fill(self.msg["words"], words=", ".join(words[n][: self.w["words"]])))
                if bare[n] >= self.w["strongText"]:
                    ev.support[n] += 1

    def _ranked(
        self, ev: _Evidence, text_points: list[int], words: list[list[str]], common: bool = False
    ) -> list[dict]:
        """The verdicts. An incident *matches* on its own log line; on a thread of it that the report cites,
        when no other incident's is cited; on its mechanism: a launch condition the
        report states, in a release not outside its range, with evidence of the same failure besides words
        (its kind, a line it prints), when it is the only incident that shows one and no other has as much
        evidence; or far ahead of every other on two kinds of evidence (of the failure, or one of its
        conditions: a flag, its release, its GPU; a line other incidents print and the kind of failure count
        once together, since the line tells the kind), with a launch condition stated when a common error
        tells the failure. Others are *related* with evidence besides words, or with several rare words (the
        finder's rank among them); at most relatedMax of them."""
        w = self.w
        ranked = []
        lead = ev.lead
        top = sorted(range(len(self.incidents)), key=lambda k: -lead[k])[:2]
        # a launch condition stated, with evidence of the same failure besides words (a flag and shared
        # words are no mechanism: many reports give the common flags); one that several incidents show
        # tells none of them apart
        shown = [
            n for n in range(len(self.incidents)) if ev.held[n] and ev.failure[n] >= w["support"] and not ev.outside[n]
        ]
        # a thread that the report cites, of one incident only
        cited = [n for n in range(len(self.incidents)) if ev.cited[n]]
        for n in range(len(self.incidents)):
            # its own line names it unless its release or GPU rules it out
            own = ev.own[n] and not ev.outside[n]
            # a mechanism names the incident only when no other has as much evidence (before the finder's rank)
            best = top[0] == n and (len(top) < 2 or lead[n] > lead[top[1]])
            mechanism = (shown == [n] and best) or (cited == [n] and not ev.outside[n] and not ev.denied[n])
            # or one incident far ahead of every other, on evidence of two kinds (at most one a condition); when a
            # common error tells the failure, only with a launch condition of it stated: words and a kind of
            # failure besides that error's line are no more than what many reports of the error hold
            second = lead[top[1]] if len(top) > 1 and top[0] == n else None
            ahead = (
                (not common or ev.held[n])
                and second is not None
                and lead[n] * 100 >= w["lead"] * max(second, 0)
                # a shared line and the kind of failure it tells are one kind of evidence
                and ev.support[n] - (ev.line[n] and ev.kind[n]) + (ev.held[n] or ev.condition[n]) >= w["leadKinds"]
                and not ev.outside[n]
                and not ev.denied[n]
            )
            if (own or mechanism or ahead) and ev.score[n] > 0:
                verdict = "matches"
            elif (ev.few[n] and ev.score[n] > 0) or (
                ev.score[n] >= w["related"]
                and (
                    ev.other[n]
                    or (ev.kind[n] and text_points[n] > 0)
                    # the finder's rank is words too: with one word of the incident (and not its GPU) it
                    # relates nothing
                    or ((ev.found[n] or text_points[n] >= w["relatedWords"]) and len(words[n]) >= w["relatedWordsMin"])
                    or (ev.found[n] and ev.hardware[n])
                    # a condition of it (its GPU, an old release of its range) and the kind of failure it tells
                    or (ev.condition[n] and ev.told[n])
                )
            ):
                verdict = "related"
            else:
                continue
            ranked.append((0 if verdict == "matches" else 1, -ev.score[n], n, verdict))
        ranked.sort()
        matching = [x for x in ranked if x[3] == "matches"]
        # at most relatedMax related; when a common error tells the failure, fewer by words alone (their
        # words and the finder's rank) or with the kind of failure besides: the error's own words, and the kind
        # it tells, are what they share
        related: list[tuple] = []
        alone = 0
        for x in ranked:
            n = x[2]
            if x[3] == "matches" or len(related) >= w["relatedMax"]:
                continue
            if common and not (ev.other[n] or ev.hardware[n] or ev.few[n]):
                if alone >= w["wordsAloneMax"]:
                    continue
                alone += 1
            related.append(x)
        ranked = matching + related
        return [
            {
                "id": self.incidents[n]["id"],
                "verdict": verdict,
                "score": ev.score[n],
                # its own line shows it happened: the command shown is not the one that failed
                "why": [y for y in ev.why[n] if verdict != "matches" or y != ev.ruled[n]],
                "title": self.incidents[n]["title"],
                "name": self.incidents[n]["name"],
                "path": self.incidents[n]["path"],
            }
            for _, _, n, verdict in ranked[: w["shown"]]
        ]

    def _first(self, results: list[dict], guidance: list[dict], known: bool, facts: dict) -> dict | None:
        """What to do first: the matching incident's workaround or fix, else the advice of the first common
        error for the phase read (its summary when the phase is not told, with the advice of each phase, or
        its first check when its advice is not by phase), led by the check the report's lines make the
        first thing to do; for one allocation larger than the whole GPU, that, with no memory flag's advice;
        None when there is neither."""
        inc = self.incidents[self._index[results[0]["id"]]] if known else None
        action = inc.get("action") if inc else None
        # An incident with nothing to do yet (no fix, no workaround) gives way to a common error's advice.
        if inc and action and (action["kind"] not in ("none", "closed") or not guidance):
            return {
                # its workaround, the release that fixes it, or the incident's state (what to do, the thread)
                "kind": self.rules["firstKinds"].get(action["kind"], self.rules["firstOther"]),
                "id": inc["id"],
                "title": inc["title"],
                "path": inc["path"],
                "text": action["text"]
                if action["kind"] in ("workaround", "upgrade")
                else f"{action['label']}: {action['text']}",
                "fixedIn": action["fixedIn"],
                "steps": [],
            }
        if guidance:
            g = guidance[0]
            # the check the report's lines make the first thing to do, else (below) the entry's first check
            steps = [g["lead"]] if g["lead"] else []
            # one allocation larger than the whole GPU: no memory flag helps, so no advice that lowers one
            if facts["allocation"] and facts["memory"] and facts["allocation"] > facts["memory"]:
                return {
                    "kind": "guidance",
                    "id": g["id"],
                    "title": g["title"],
                    "path": g["path"],
                    "text": fill(
                        self.msg["allocationAboveGpu"],
                        allocation=_number(facts["allocation"]),
                        memory=_number(facts["memory"]),
                    ),
                    "fixedIn": [],
                    "steps": steps,
                }
            # the phase is not told: the advice of each phase, or the entry's first check
            if not g["advice"] and not g["leadAlone"]:
                entry = next(e for e in self.bundle["guidance"] if e["id"] == g["id"])
                steps += [fill(self.msg["phaseAdvice"], label=p["label"], advice=p["advice"]) for p in entry["phases"]]
                if not steps and entry.get("check"):
                    steps = [entry["check"]]
            return {
                "kind": "guidance",
                "id": g["id"],
                "title": g["title"],
                "path": g["path"],
                "text": g["advice"] or g["summary"],
                "fixedIn": [],
                "steps": steps,
            }
        return None

    def _exposure(self, facts: dict, body: str, dump: str | None = None, lines: list[str] | None = None) -> dict:
        """The exposure check of each command read, merged: an incident's best result with its reasons.
        A reason that rests on a flag being absent is dropped when the command is cut off or the report
        names the flag elsewhere (a flag stated in prose counts as given). The environment variables the
        prose sets are set for each command, before its own; ``dump``, SGLang's settings dump (the first
        ``ServerArgs(...)`` line), is checked as a command too."""
        out: dict = {"results": {}, "notes": [], "ruled": {}, "denied": {}}
        outside = body
        for command in facts["commands"]:
            outside = outside.replace(command, "")
        # an error line and the advice that continues it are SGLang's words ("set the env var
        # SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1", "1. set --mem-fraction-static to a smaller value")
        for line in self._error_lines(facts, lines or []):
            outside = outside.replace(line, "")
        env = self._prose_env(outside)
        written, denied = self._prose_flags_said(outside)
        for command in facts["commands"]:
            checked = self._check(env + command, facts)
            if checked["error"]:
                out["notes"].append(fill(self.msg["notCommand"], error=checked["error"]))
                continue
            cut = bool(self.cut_command.search(command)) or len(command.split("\n")) >= self.rules["maxCommandLines"]
            self._merge(out, checked, cut, command, body)
            if not cut:
                self._ruled(out, checked, frozenset(written))
        # SGLang's echo of its settings: a command of the arguments the conditions name
        if dump is not None:
            command, cut = self._dumped(dump, facts, env)
            checked = self._check(command, facts)
            if not checked["error"]:
                self._merge(out, checked, cut, command, body)
                if not cut:
                    self._ruled(out, checked, frozenset(written))
        # the flags stated in the prose (outside every command read), with the model the report names: what
        # they leave out proves nothing; a model of another family rules an incident out
        flags = list(dict.fromkeys(written))[: self.rules["maxProseFlags"]]
        values = self._prose_values(outside)
        prose = " ".join(
            f + (" " + values[f] if f in values else "") for f in flags if f not in ("--model-path", "--model")
        )
        stated = []
        if prose and facts["model"] and self.model_word.search(facts["model"]):
            stated.append(f"{env}{self.rules['proseCommand']} --model-path {facts['model']} {prose}")
        if prose:
            stated.append(f"{env}{self.rules['proseCommand']} {prose}")
        for command in stated:
            checked = self._check(command, facts)
            if not checked["error"]:
                self._merge(out, checked, True, command, body)
                break
        # the flags the report says it does not use ("no --enable-dp-attention", "we do not use DP attention")
        # rule out each incident whose condition needs one of them
        if denied:
            out["denied"] = self._denied_flags(facts, f"{env}{self.rules['proseCommand']}", prose, denied)
        return out

    def _error_lines(self, facts: dict, lines: list[str]) -> list[str]:
        """The error lines read that a program printed (an exception's line, a log line; not the report's
        own sentences about the failure), each with the lines after it that continue its message with
        advice."""
        out = []
        for e in facts["errors"]:
            n = e["line"] - 1
            if n >= len(lines):
                continue
            rest = self.prefix.sub("", lines[n], count=1)
            if not (
                self.log_prefix.search(lines[n][: len(lines[n]) - len(rest)])
                or self.exception_line.search(rest.strip(SPACE))
            ):
                continue
            out.append(lines[n])
            for after in lines[n + 1 : n + 1 + self.rules["errorAdviceLines"]]:
                if not self.error_advice.search(after):
                    break
                out.append(after)
        return [line for line in out if line.strip(SPACE)]

    def _denied_flags(self, facts: dict, start: str, prose: str, denied: set[str]) -> dict[str, list[str]]:
        """The flags the report says it does not use that each incident's condition needs, each incident's
        in the order its reasons name them; checked on a command of the model and the flags it states."""
        model = f" --model-path {facts['model']}" if facts["model"] and self.model_word.search(facts["model"]) else ""
        checked = self._check(f"{start}{model} {prose}", facts)
        out: dict[str, list[str]] = {}
        for incident_id, reasons in [] if checked["error"] else checked["ruled_out"].items():
            flags = [f for f in (self._absent_flag(y) for y in reasons) if f in denied]
            if flags:
                out[incident_id] = list(dict.fromkeys(flags))
        return out

    def _dumped(self, line: str, facts: dict, env: str) -> tuple[str, bool]:
        """A settings dump (``ServerArgs(...)``, ``Engine(...)``) as a launch command of the arguments the
        conditions name, and whether the dump is cut off."""
        settings = line[self.args_dump.search(line).end() - 1 :]
        given, not_given = self.rules["argsGiven"], self.rules["argsNotGiven"]
        parts = []
        for flag, rx in self.arg_values:
            v = rx.search(settings)
            if v is not None and v.group(1) not in not_given:
                parts.append(flag if v.group(1) == given else f"{flag} {v.group(1)}")
        model = f" --model-path {facts['model']}" if facts["model"] and self.model_word.search(facts["model"]) else ""
        return f"{env}{self.rules['proseCommand']}{model} {' '.join(parts)}".rstrip(), not self.args_end.search(line)

    def _prose_flags(self, text: str) -> list[str]:
        """The flags ``text`` names: as flags, as the server arguments an incident's condition names, and as
        the words of a switch it names (PROSE_SWITCH), unless the word before them turns it off ("without
        --enable-dp-attention") or the word after them does ("DP attention off")."""
        return self._prose_flags_said(text)[0]

    def _prose_flags_said(self, text: str) -> tuple[list[str], set[str]]:
        """:meth:`_prose_flags`, and the flags ``text`` names only where the words around them turn them off
        (the flags the report says it does not use)."""
        lower = text.translate(_ASCII_LOWER)
        named, off = [], set()
        for m in self.prose_name.finditer(text):
            flag = _flag_of(m.group(1))
            if flag in self.condition_flags:
                if self._off(lower, m.start(1), m.end(1)):
                    off.add(flag)
                else:
                    named.append((m.start(1), flag))
        for flag, rx in self.switches:
            for m in rx.finditer(lower):
                if not self._off(lower, m.start(1), m.end(1)):
                    named.append((m.start(1), flag))
                    break
                off.add(flag)
        written = []
        for m in self.prose_flag.finditer(text):
            if self._off(lower, *m.span(1)):
                off.add(m.group(1))
            else:
                written.append((m.start(1), m.group(1)))
        given = [f for _, f in sorted(written + named)]
        return given, off.difference(given)

    def _off(self, lower: str, start: int, end: int) -> bool:
        """Whether the words around lower[start:end], within its line and the switches' reach, turn it off."""
        before = lower[max(0, start - self.switch_reach) : start]
        after = lower[end : end + self.switch_reach].split("\n", 1)[0]
        return bool(self.switch_off.search(before[before.rfind("\n") + 1 :]) or self.switch_off_after.search(after))

    def _prose_values(self, text: str) -> dict[str, str]:
        """The value the prose gives each flag, first kept: a number for a flag whose conditions compare
        numbers, or a value a condition lists for it (PROSE_VALUE)."""
        out: dict[str, str] = {}
        for m in self.prose_value.finditer(text):
            flag, value = m.group(1), m.group(2)
            if flag in out or not self.prose_value_end.search(text[m.end() : m.end() + 1]):
                continue
            # a flag written shorter (``--speculative-algo``) is the one flag it begins, as argparse reads it
            valued = [f for f in self.valued_flags if f.startswith(flag)]
            main = flag if flag in self.valued_flags else valued[0] if len(valued) == 1 else None
            if main is not None and (
                (main in self.numeric_flags and self.prose_number.search(value))
                or value.lower() in self.listed_values.get(main, ())
            ):
                out[flag] = value
        return out

    def _prose_env(self, text: str) -> str:
        """The environment variables ``text`` sets, first value kept, as a command's prefix ("" if none)."""
        seen: dict[str, str] = {}
        for m in self.prose_env.finditer(text):
            if m.group(1) not in seen and len(seen) < self.rules["maxProseEnv"]:
                seen[m.group(1)] = m.group(2)
        return "".join(f"{k}={v} " for k, v in seen.items())

    def _check(self, command: str, facts: dict) -> dict:
        """The exposure check of ``command`` with the GPU and the release read (without the release when the
        check does not know it)."""
        command = filled(command)
        gpu = facts["gpu"]["name"] if facts["gpu"] else None
        version = facts["versions"].get("sglang")
        checked = self.exposure.check(command, gpu=gpu, version=version)
        if checked["error"] and version:
            checked = self.exposure.check(command, gpu=gpu, version=None)
        return checked

    def _merge(self, out: dict, checked: dict, cut: bool, command: str, body: str) -> None:
        named: list[frozenset[str]] = []  # the flags the report names outside the command, read once

        def stated() -> frozenset[str]:
            if not named:
                named.append(frozenset(self._prose_flags(body.replace(command, ""))))
            return named[0]

        for found in checked["results"]:
            r = found
            why = [y for y in r["why"] if not self._unproven(y, cut, stated)]
            if len(why) != len(r["why"]):
                if not [y for y in why if not self.generic_reason.search(y)]:
                    continue
                r = {**r, "why": why, "result": "may apply"}
            kept = out["results"].get(r["id"])
            if kept is None or (kept["result"] != "applies" and r["result"] == "applies"):
                out["results"][r["id"]] = r

    def _ruled(self, out: dict, checked: dict, written: frozenset[str]) -> None:
        """The incidents a command shown whole rules out (a flag it needs not given), with the reasons; the
        first command's kept. A reason on a flag that the report names outside the commands
        (``written``) proves nothing."""
        for incident_id, reasons in checked["ruled_out"].items():
            why = [y for y in reasons if not self.generic_reason.search(y)]
            if (
                why
                and incident_id not in out["ruled"]
                and not any(self._unproven(y, False, lambda: written) for y in why)
            ):
                out["ruled"][incident_id] = why

    def _unproven(self, reason: str, cut: bool, stated) -> bool:
        """Whether ``reason`` rests on a flag being absent that the command cannot prove: it is cut off, or
        the report names the flag elsewhere (``stated()``: the flags it names outside the command)."""
        flag = self._absent_flag(reason)
        if flag is None:
            return False
        if cut:
            return True
        return flag.startswith("--") and flag in stated()

    def _absent_flag(self, reason: str) -> str | None:
        """The flag (or variable) a reason of the exposure check says is absent ("`--tp-size` is not given"),
        or None for a reason of another kind."""
        m = self.absent_reason.search(reason)
        return m.group(1).strip("`") if m else None

    def _version(self, incident_id: str, versions: dict):
        exp = self.exposure_by_id.get(incident_id)
        if not exp or not isinstance(exp.get("versions"), list):
            return None, None
        inside_any, outside = None, None
        labels = self.rules["productLabels"]
        for r in exp["versions"]:
            v = versions.get(r["product"])
            if v is None or version_parts(v) is None:
                continue
            shown = fill(self.msg["versionShown"], product=labels.get(r["product"], r["product"]), version=v)
            if r.get("unknown"):
                if any(compare(v, s) == 0 for s in r.get("seen") or []):
                    inside_any = fill(self.msg["versionSeen"], version=shown)
                continue
            what = (
                describe_range(r)
                if r.get("introduced", "0") != "0" or r.get("unaffected")
                else f"({describe_range(r)})"
            )
            if in_range(v, r):
                inside_any = fill(self.msg["versionIn"], version=shown, range=what)
            elif outside is None:
                outside = fill(self.msg["versionOut"], version=shown, range=what)
        if inside_any:
            return True, inside_any
        if outside:
            return False, outside
        return None, None

    def _dated(self, incident_id: str, versions: dict) -> bool:
        """Whether a reported release is in a range of the incident that ended before the newest release of its
        product (an older, affected release): a range that reaches the newest release holds every current
        report, so being in it tells nothing."""
        exp = self.exposure_by_id.get(incident_id)
        if not exp or not isinstance(exp.get("versions"), list):
            return False
        for r in exp["versions"]:
            v = versions.get(r["product"])
            newest = self.newest.get(r["product"])
            if r.get("unknown") or v is None or version_parts(v) is None or newest is None:
                continue
            if in_range(v, r) and not in_range(newest, r):
                return True
        return False

    @staticmethod
    def _same_hardware(hardware: list[str], gpu: dict | None, arch: str | None = None) -> bool:
        """Whether the GPU named (by its name or its architecture, "SM120") is hardware an incident names."""
        names = [norm_name(gpu["name"]), norm_name(gpu["written"]), norm_name(gpu["id"])] if gpu else []
        names += [norm_name(arch)] if arch else []
        for hw in hardware:
            h = norm_name(hw)
            if any(n == h or f" {h} " in f" {n} " for n in names):
                return True
        return False

    def _prose(self, lines: list[str], skip: set[int] | frozenset[int] = frozenset(), flags=frozenset()) -> str:
        """The report's text whose words can be evidence: no environment dump's lines, no URLs, no hint of
        SGLang's own messages (what a failure may be), none of the lines in ``skip``, none of the ``flags`` (a
        flag or a variable set that counts as a launch condition counts not again as words)."""
        kept = [
            self.url_or_hint.sub(" ", line)
            for n, line in enumerate(lines)
            if n not in skip and not self.env_line.search(line)
        ]
        prose = "\n".join(kept)
        if not flags:
            return prose
        prose = self.prose_flag.sub(
            lambda m: m.group(0)[: m.start(1) - m.start(0)] + " " if m.group(1) in flags else m.group(0), prose
        )
        prose = self.prose_name.sub(
            lambda m: m.group(0).replace(m.group(1), " ", 1) if _flag_of(m.group(1)) in flags else m.group(0),
            prose,
        )
        return self.prose_env.sub(
            lambda m: m.group(0).replace(m.group(1), " ", 1) if m.group(1) in flags else m.group(0), prose
        )

    def _unflagged(self, line: str) -> str:
        """A line of a launch command without its program (``python -m sglang.launch_server``) and its option
        names (``--tool-call-parser``): the values stay."""
        m = self.command_start.search(line)
        if m:
            line = line[: m.start()] + " " + line[m.end() :]
        return _OPTION.sub(" ", line)

    def _without_gpu(self, prose: str, gpu: dict | None) -> str:
        """``prose`` without each name of ``gpu`` (the GPU the report names), in any of its spellings."""
        if gpu is None or self.gpu_any is None:
            return prose
        lower = prose.translate(_ASCII_LOWER)
        parts, end, pos = [], 0, 0
        while (m := self.gpu_any.search(lower, pos)) is not None:
            pos = m.end(1)
            if self.gpu_by_name[norm_name(prose[m.start(1) : m.end(1)])]["id"] == gpu["id"]:
                parts.append(prose[end : m.start(1)] + " ")
                end = m.end(1)
        return "".join(parts) + prose[end:]

    def _named(self, text: str) -> tuple[str, list[str]]:
        """``text`` with each mention of a component that the words around it turn off ("no router",
        "without HiCache", "speculative decoding disabled") blanked, and the components it names otherwise:
        a component the report denies is none of its failure, neither as its component nor as its words."""
        lower = text.translate(_ASCII_LOWER)
        named = []
        for component, rx, rx_lower in self.components:
            for m in (rx_lower or rx).finditer(lower if rx_lower else text):
                said = m.group(0).translate(_ASCII_LOWER)
                # the match holds the character on each side of the term, when there is one
                start = m.start() + (said[:1] not in _TERM_CHARS)
                end = m.end() - (len(said) > 1 and said[-1:] not in _TERM_CHARS)
                if not self._off(lower, start, end):
                    named.append(component)
                    break
                text = text[:start] + " " * (end - start) + text[end:]
        return text, named

    def _seen_forms(self, body: str) -> dict[str, str]:
        """Each form of each word of ``body`` that can be evidence, with the word as written (first one)."""
        seen_forms: dict[str, str] = {}
        folded = fold(body)
        # each word once, in the order written; not where the word before it denies it ("no pattern")
        kept: dict[str, None] = {}
        denying, end = False, 0  # the words just before, with only spaces between, deny ("no", "not a")
        for m in (_ASCII_TOKEN if folded.isascii() else _TOKEN).finditer(folded):
            token = m.group(0)
            denied = denying and not folded[end : m.start()].strip(" \t")
            if not denied or token in self.negated_articles:
                kept.setdefault(token)
            denying = token in self.negated_by or (denied and token in self.negated_articles)
            end = m.end()
        for token in kept:
            if "/" in token:  # a path: its parts are where a file lies, not what went wrong
                continue
            tokens = [token] + ([p for p in _JOINER.split(token) if p] if _JOINER.search(token) else [])
            for t in tokens:
                if t in seen_forms or not _is_term(t, self.stop) or self.hex.search(t):
                    continue
                for f in _forms(t):
                    if f not in seen_forms:
                        seen_forms[f] = t
        return seen_forms

    def _words(self, body: str, arch: str | None = None):
        """Each incident's text points for the words of ``body``, those words, and its points without the
        architecture read (``arch``, "SM120", written ``sm_120``): they rank the incidents of that
        architecture, but as evidence of a kind it is the GPU's, which counts once (:meth:`_text_evidence`)."""
        count = len(self.incidents)
        sums = [0] * count
        gpu = [0] * count
        hits: list[list[tuple[int, str]]] = [[] for _ in range(count)]
        seen_forms = self._seen_forms(body)
        spelled = {arch.lower(), f"sm_{arch[2:]}", "sm"} if arch else set()
        matched: dict[str, str] = {}
        for f, written in seen_forms.items():
            for word in self.forms.get(f, ()):
                if word not in matched:
                    matched[word] = written
        for word in sorted(matched):
            for n, weight in self.terms[word]:
                sums[n] += weight
                if matched[word] in spelled:
                    gpu[n] += weight
                hits[n].append((weight, matched[word]))
        points = [0] * count
        bare = [0] * count
        words: list[list[str]] = [[] for _ in range(count)]
        for n in range(count):
            if not sums[n] or not self.total[n]:
                continue
            root = math.sqrt(self.total[n])
            points[n] = min(self.w["textMax"], math.floor(self.w["textScale"] * sums[n] / root))
            bare[n] = min(self.w["textMax"], math.floor(self.w["textScale"] * (sums[n] - gpu[n]) / root))
            shown: list[str] = []
            for _, written in sorted(hits[n], key=lambda h: (-h[0], h[1])):
                if written not in shown:
                    shown.append(written)
            words[n] = shown
        return points, words, bare

    def _guidance(
        self, hits: dict, markers: dict, causes: set, lines: list[str], facts: dict, leads: dict | None = None
    ) -> list[dict]:
        """The common errors found, as every front end orders them: one found by a line of its own before
        one found only by a line that tells a consequence (`Scheduler hit an exception`), then the
        earliest, then the manual's order. Each with the check its lines make the first thing to do
        (``lead``: the first of its leads whose line the report shows), or None."""
        out = []
        for n in sorted(hits, key=lambda k: (k not in causes, min(hits[k]), k)):
            g = self.bundle["guidance"][n]
            line = min(hits[n])
            phase, at = None, -1
            for where, name in markers.get(n, []):
                if at < where <= line:
                    phase, at = name, where
            if phase is None:
                phase = facts["phase"] if any(p["phase"] == facts["phase"] for p in g["phases"]) else None
            advice = next((p for p in g["phases"] if p["phase"] == phase), None)
            lead = g["leads"][min(leads[n])] if leads and n in leads else None
            # a lead whose line tells another cause stands instead of the phase's advice
            alone = bool(lead and lead["alone"])
            if alone:
                advice = None
            out.append(
                {
                    "id": g["id"],
                    "title": g["title"],
                    "summary": g["summary"],
                    "path": g["path"],
                    "line": line + 1,
                    "text": _clip(lines[line]),
                    "phase": phase,
                    "phaseLabel": advice["label"] if advice else None,
                    "advice": advice["advice"] if advice else None,
                    "lead": lead["check"] if lead else None,
                    "leadAlone": alone,
                    "related": g["related"],
                }
            )
        return out

    def _report(self, facts: dict, guidance: list[dict]) -> dict:
        """A prefilled "Report an incident" link and a draft entry for data/incidents.yaml."""
        msg = self.msg
        symptom = facts["errors"][0]["text"] if facts["errors"] else (guidance[0]["text"] if guidance else "")
        symptom = symptom[:200]
        versions = facts["versions"]
        hardware = facts["gpu"]["name"] if facts["gpu"] else ""
        lines = []
        labels = self.rules["productLabels"]
        for p, v in versions.items():
            lines.append(fill(msg["factVersion"], product=labels.get(p, p), version=v))
        if facts["gpu"]:
            lines.append(
                fill(msg["factGpu"], gpu=facts["gpu"]["name"])
                + (fill(msg["factMemory"], memory=_number(facts["memory"])) if facts["memory"] else "")
            )
        if facts["model"]:
            lines.append(fill(msg["factModel"], model=facts["model"]))
        if facts["phase"]:
            lines.append(fill(msg["factPhase"], phase=facts["phase"]))
        for c in facts["commands"][:1]:
            lines.append(fill(msg["factCommand"], command=c[:600]))
        for e in facts["errors"][:4]:
            lines.append(fill(msg["factError"], line=e["line"], text=e["text"][:300]))
        sources = "\n".join(lines)
        url = None
        if self.bundle.get("report"):
            fields = [
                ("title", fill(msg["reportTitle"], symptom=symptom[:80])),
                ("symptom", symptom),
                ("version", versions.get("sglang", "")),
                ("hardware", hardware),
                ("sources", sources),
            ]
            url = self.bundle["report"] + "".join(f"&{k}={_uri(v)}" for k, v in fields if v)
        values = {
            "symptom": _q(symptom or "TODO"),
            "name": _q(symptom[:60] or "TODO"),
            "hardware": f"[{_q(hardware)}]" if hardware else "[]",
        }
        d = self.bundle["draft"]
        draft = "\n".join(fill(t, **values) for t in [*d["head"], *(d["logged"] if symptom else []), *d["tail"]]) + "\n"
        return {"url": url, "draft": draft, "facts": sources}

    def model_of(self, body: str) -> str | None:
        for rx in self.model_lines:
            m = rx.search(body)
            if m:
                return m.group(1)
        return None


# What a YAML double-quoted string must escape (as diagnose.js yamlString()): the quote, the
# backslash, C0 and C1 controls and DEL, the characters YAML 1.1 reads as line breaks (NEL, U+2028,
# U+2029), U+FEFF, U+FFFE, U+FFFF and half a surrogate pair.
_YAML_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]')
_YAML_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _nth(text: str, sep: str, count: int) -> int:
    """Where the ``count``-th ``sep`` of ``text`` stands (the length of its first ``count`` lines, for "\\n"),
    or its length when it holds fewer."""
    at = -1
    for _ in range(count):
        at = text.find(sep, at + 1)
        if at < 0:
            return len(text)
    return at


def _gib(value: float, mib: bool) -> float:
    """A size in GiB, from MiB to two decimals (as diagnose.js gib())."""
    return math.floor(value / 1024 * 100 + 0.5) / 100 if mib else value


def filled(command: str) -> str:
    """``command`` with each word a report left for the reader to fill in (``<model_path>``) read as an
    unknown value (``$PLACEHOLDER``), as diagnose.js filled(): a shell would read its ``<`` and ``>`` as
    redirections and lose the next word (``--model-path <model_path> --tp 8`` would give the model path
    ``8``), but a report means a value it does not show."""
    for word in placeholders(command) if "<" in command else ():
        command = command.replace(word, "$PLACEHOLDER")
    return command


def _q(text: str) -> str:
    """A YAML double-quoted string that reads back as ``text`` whatever it holds: JSON.stringify's
    escapes, and \\uXXXX for every character YAML does not take as it is."""
    return '"' + _YAML_ESCAPE.sub(lambda m: _YAML_SHORT.get(m.group()) or f"\\u{ord(m.group()):04x}", text) + '"'


def _number(value) -> str:
    """A number as JavaScript's String() writes it (79.11, 80)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _clip(line: str, size: int = 200) -> str:
    line = line.strip(SPACE)
    return line if len(line) <= size else line[: size - 1] + "…"


def _top_words(words, points, results, incidents, limit: int) -> list[str]:
    out: list[str] = []
    index = {inc["id"]: n for n, inc in enumerate(incidents)}
    for r in results:
        for word in words[index[r["id"]]]:
            if word not in out and len(out) < limit:
                out.append(word)
    return out


def _flag_of(name: str) -> str:
    """The flag of a server argument's name: ``max_running_requests`` -> ``--max-running-requests``."""
    return "--" + name.replace("_", "-")


def _newest_releases(releases: dict) -> dict[str, str]:
    """Each product's newest final release (no rc, dev, alpha or beta), as diagnose.js's constructor."""
    out: dict[str, str] = {}
    for product, listed in releases.items():
        final = [k for k in (listed or {}).get("versions") or [] if is_final(k)]
        if final:
            out[product] = max(final, key=cmp_to_key(compare))
    return out


def _names_gpu(node) -> bool:
    """Whether an exposure condition names a GPU (a ``gpu`` condition anywhere in it), as diagnose.js namesGpu()."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if "gpu" in item:
                return True
            stack.extend(item.values())
    return False


def _gpu_needs(node, keys) -> list[dict]:
    """The GPU tests among an exposure condition's ``all`` (every launch meets them) on what a GPU is (``keys``:
    its vendor, architecture, compute capability; as diagnose.js gpuNeeds()), and those it must not meet
    (``{not: {gpu: ...}}`` of one key, marked ``not``). Its memory or its name is where the failure was seen,
    no need of it."""
    when = node.get("when") if isinstance(node, dict) else None
    if not isinstance(when, dict) or not isinstance(when.get("all"), list):
        return []
    out = []
    for c in when["all"]:
        if not isinstance(c, dict):
            continue
        if isinstance(c.get("gpu"), dict) and any(k in c["gpu"] for k in keys):
            out.append(c["gpu"])
        # a GPU it must not be ({not: {gpu: ...}}): one test of one key, so that meeting it rules the GPU out
        denied = c.get("not")
        test = denied.get("gpu") if isinstance(denied, dict) and len(denied) == 1 else None
        if isinstance(test, dict) and len(test) == 1 and next(iter(test)) in keys:
            out.append({**test, "not": True})
    return out


def _span(span: dict, msg: dict) -> str:
    """A compute capability range in words ("9.0 or lower")."""
    if "min" in span and "max" in span:
        return span["min"] if span["min"] == span["max"] else fill(msg["spanBoth"], min=span["min"], max=span["max"])
    return fill(msg["spanMin"], min=span["min"]) if "min" in span else fill(msg["spanMax"], max=span["max"])


def _flag_tests(node, key: str = "flag") -> list[dict]:
    """Every flag test (``key`` "env": every variable test) an exposure condition holds, in the order met (as
    diagnose.js flagTests())."""
    out: list[dict] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            test = item.get(key)
            if isinstance(test, dict) and isinstance(test.get("name"), str):
                out.append(test)
            stack.extend(reversed([v for k, v in item.items() if k != key]))
    return out


def _flags_of(node, key: str = "flag") -> list[str]:
    """Every flag name (``key`` "env": every variable name) an exposure condition names, in the order met."""
    return [test["name"] for test in _flag_tests(node, key)]


def _values_of(node) -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """The flags whose conditions compare numbers (min, max, or a number listed), and each flag's words that
    conditions list (in, equals), lower-cased (as diagnose.js valuesOf())."""
    numeric: set[str] = set()
    listed: dict[str, set[str]] = {}
    for test in _flag_tests(node):
        if "min" in test or "max" in test:
            numeric.add(test["name"])
        for key in ("in", "equals"):
            said = test.get(key)
            for v in said if isinstance(said, list) else [] if said is None else [said]:
                if isinstance(v, str):
                    listed.setdefault(test["name"], set()).add(v.lower())
                elif isinstance(v, (int, float)) and not isinstance(v, bool):
                    numeric.add(test["name"])
    return frozenset(numeric), {k: frozenset(v) for k, v in listed.items()}


def diagnose(bundle: dict, exposure_bundle: dict, text: str) -> dict:
    return Diagnoser(bundle, exposure_bundle).diagnose(text)
