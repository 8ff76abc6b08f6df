"""The rules every log pattern keeps (an incident's log_patterns, an entry of data/guidance.yaml):
a regex in the subset that RE2, Python and the browser read alike, with repeats that cannot
backtrack without end; enough fixed text to mean something; no invisible or mixed-script
characters; and each pattern matched by an example kept beside it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from opsmanual.text.regex import sre_modules

if TYPE_CHECKING:
    from opsmanual.data.model import LogPattern

_ESCAPABLE = set("^$\\.*+?()[]{}|/")
MAX_REPEAT = 1000  # the largest count a {n,m} quantifier may give


def regex_subset_problem(regex: str) -> str | None:
    """Why ``regex`` falls outside the subset that Python's re and JavaScript's RegExp (flag u) read
    alike, or None. The subset: literal characters, ., classes of literals and ranges, \\d,
    quantifiers (greedy or lazy), plain and non-capturing groups, alternation, ^ and $."""
    return _written_problem(regex) or _parsed_problem(regex)


def _escape_problem(regex: str, k: int, in_class: bool) -> str | None:
    """Why the escape at ``regex[k]`` reads differently in Python and the browser, or None."""
    nxt = regex[k + 1 : k + 2]
    if nxt == "d" or nxt in _ESCAPABLE or (in_class and nxt == "-"):
        return None
    return (
        f"the escape \\{nxt} reads differently in Python and in the browser; "
        "use \\d, a class such as [ ], or escape only ^ $ \\ . * + ? ( ) [ ] { } | /"
    )


def _quantifier(regex: str, k: int) -> tuple[str | None, int]:
    """(why the quantifier at ``regex[k]`` is refused, or None; the index after it)."""
    quantifier = re.match(r"\{([0-9]+)(?:,([0-9]*))?\}", regex[k:])
    if not quantifier:
        return "a { that is not a quantifier such as {2} or {1,3}; write \\{ for the character", k
    if any(len(n) > 4 or int(n) > MAX_REPEAT for n in quantifier.groups() if n):
        return f"a repeat count above {MAX_REPEAT} in {quantifier.group()}; a log line never needs one", k
    return None, k + quantifier.end()


def _written_problem(regex: str) -> str | None:
    """What the subset refuses in the pattern as written, read character by character: escapes,
    classes, quantifiers and groups."""
    in_class, k = False, 0
    while k < len(regex):
        ch = regex[k]
        if ch == "\\":
            problem = _escape_problem(regex, k, in_class)
            if problem:
                return problem
            k += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            k += 1 + (regex[k + 1 : k + 2] == "^")
            if regex[k : k + 1] == "]":
                return "a ] first in a class ends it in the browser; write \\] for the character"
            continue
        elif ch == "{":
            problem, k = _quantifier(regex, k)
            if problem:
                return problem
            continue
        elif ch in "]}":
            return f"an unescaped {ch} outside a class; write \\{ch} for the character"
        elif regex.startswith(("(?P", "(?<", "(?=", "(?!", "(?>", "(?#"), k) or (
            regex.startswith("(?", k) and not regex.startswith("(?:", k)
        ):
            return "only plain ( ) and (?: ) groups are allowed: no flags, names, lookaround or comments"
        k += 1
    return None


def _parsed_problem(regex: str) -> str | None:
    """What the subset refuses in the pattern's syntax tree (as Python's own parser reads it): inline
    flags, classes such as \\w, lookaround and anything else the subset leaves out."""
    c, parser = sre_modules()
    try:
        tree = parser.parse(regex)
    except (re.error, OverflowError, RecursionError, ValueError):
        return None  # reported as "does not compile"
    if tree.state.flags & ~(c.SRE_FLAG_UNICODE):
        return "inline flags such as (?i) are not allowed"
    stack = [list(tree)]
    while stack:
        for op, arg in stack.pop():
            problem = _node_problem(c, op, arg, stack)
            if problem:
                return problem
    return None


def _node_problem(c: Any, op: Any, arg: Any, stack: list[list[Any]]) -> str | None:
    """What the subset refuses in one node of a parsed pattern; the node's children go on ``stack``."""
    if op in (c.LITERAL, c.NOT_LITERAL, c.ANY) or (op is c.AT and arg in (c.AT_BEGINNING, c.AT_END)):
        return None
    if op is c.IN:
        for item_op, item in arg:
            if item_op is c.CATEGORY and item is not c.CATEGORY_DIGIT:
                return "classes such as \\w, \\s or \\b differ between Python and the browser; use [ ] or \\d"
        return None
    if op in (c.MAX_REPEAT, c.MIN_REPEAT):
        stack.append(list(arg[2]))
    elif op is c.SUBPATTERN:
        if arg[1] or arg[2]:
            return "inline flags such as (?i:...) are not allowed"
        stack.append(list(arg[3]))
    elif op is c.BRANCH:
        stack.extend(list(b) for b in arg[1])
    else:
        return f"{str(op).lower()} is outside the subset Python and the browser read alike"
    return None


MIN_PREFILTER = 6  # characters of fixed text a regex must contain, so the triage scan stays fast


def _atom_set(op: Any, arg: Any) -> Callable[[str], bool] | None:
    """The characters a single-character item of a parsed regex matches, as a test function; None for
    anything longer than one character."""
    c, _ = sre_modules()

    if op is c.LITERAL:
        return lambda ch: ord(ch) == arg
    if op is c.NOT_LITERAL:
        return lambda ch: ord(ch) != arg
    if op is c.ANY:
        return lambda ch: ch != "\n"
    if op is c.IN:
        negate = bool(arg) and arg[0][0] is c.NEGATE
        items = arg[1:] if negate else arg

        def test(ch: str) -> bool:
            o = ord(ch)
            inside = any(
                (kind is c.LITERAL and o == v)
                or (kind is c.RANGE and v[0] <= o <= v[1])
                or (kind is c.CATEGORY and ch.isdigit() and ch.isascii())
                for kind, v in items
            )
            return inside != negate

        return test
    return None


_PROBES = [chr(n) for n in range(32, 127)] + ["\u00e9", "\u4e2d"]  # characters two adjacent repeats are compared on


def regex_safety_problem(regex: str) -> str | None:
    """Why ``regex`` could make a backtracking engine (the browser's, or Python's re) take more than
    polynomial time, or None.

    Within the subset, exponential backtracking needs a repeat that can match one piece of text in
    several ways: a repeat inside a repeat ((a+)+), a repeated alternation ((a|ab)+), or two repeats
    that can take the same characters with nothing between them but characters both can take
    ([0-9]+[0-9]*, .*.*, [a-z_]*_?[a-z_]*, [a-z_]*_[a-z_]*). Refusing those leaves one way to split a
    run between neighbours, so each start of a search costs time linear in the line. A search tries
    every start, so the line's length times that cost is bounded only when an unbounded repeat cannot
    scan over the starts of other matches: the pattern must not open with one ([a-z_]+_port, which is
    the same test for a line as [a-z_]_port), nor with fixed text the repeat can take whole
    (abc.*d on a line of abcabc...)."""
    c, parser = sre_modules()

    try:
        tree = list(parser.parse(regex))
    except (re.error, OverflowError, RecursionError, ValueError):
        return None  # reported as "does not compile"
    return _walk(tree, False) or _start_problem(c, tree)


def _start_problem(c: Any, tree: list[tuple[Any, Any]]) -> str | None:
    """Why each start of a search could scan the rest of the line: the first unbounded repeat opens the
    pattern, or can take every character of the fixed text before it. None for a pattern anchored
    with ^, and when fixed text before the repeat holds a character it cannot take (no other start lies
    inside its run)."""
    if tree and tree[0] == (c.AT, c.AT_BEGINNING):
        return None
    before: list[Callable[[str], bool]] = []
    for op, arg in tree:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[1] == c.MAXREPEAT:
            body = list(arg[2])
            takes = _atom_set(*body[0]) if len(body) == 1 else None
            if takes is None:
                takes = _anything  # a group: taken as able to take anything
            if not before:
                return (
                    "an unbounded repeat opens the pattern, so a search scans the rest of the line from "
                    "every start; a line holds a match just as well with one character (a+x finds what ax "
                    "finds) or none (a*x finds what x finds)"
                )
            if all(any(one(ch) and takes(ch) for ch in _PROBES) and _within(one, takes) for one in before):
                return (
                    "an unbounded repeat can take every character of the fixed text before it, so a search "
                    "scans the rest of the line from each place that text occurs; bound it ({0,200}) or "
                    "begin with a character it cannot take"
                )
            return None
        one = _atom_set(op, arg)
        if one is None:
            return None  # a group or a bounded repeat before the first unbounded one: starts are not fixed text
        before.append(one)
    return None


def _anything(ch: str) -> bool:
    return True


def _within(one: Callable[[str], bool], takes: Callable[[str], bool]) -> bool:
    """Whether every probe character ``one`` matches is one ``takes`` matches too."""
    return all(takes(ch) for ch in _PROBES if one(ch))


def _repeat_problem(
    body: list[tuple[Any, Any]], previous: Callable[[str], bool] | None, inside_repeat: bool
) -> tuple[str | None, Callable[[str], bool] | None]:
    """(Why an unbounded repeat of ``body`` can backtrack without end, or None; the character test of
    its one item, if it repeats a single character). ``previous``: the test of the unbounded
    repeat just before it, if any."""
    c, _ = sre_modules()
    if inside_repeat:
        return "a repeat inside a repeat, such as (a+)+, can take exponential time on some lines", None
    if any(o is c.BRANCH for o, _ in body) or any(
        o is c.SUBPATTERN and any(p is c.BRANCH for p, _ in a[3]) for o, a in body
    ):
        return (
            "a repeated alternation, such as (a|ab)+, can take exponential time on some "
            "lines; repeat a class such as [ab]+ instead"
        ), None
    single = _atom_set(*body[0]) if len(body) == 1 else None
    if single is not None and previous is not None and any(previous(ch) and single(ch) for ch in _PROBES):
        return (
            "two repeats in a row that can take the same characters (with at most characters both take "
            "between them), such as [0-9]+[0-9]*, .*.* or [a-z_]*_[a-z_]*, make a search slow on long "
            "lines; merge them into one"
        ), None
    return _walk(body, True), single


def _walk(items: Iterable[tuple[Any, Any]], inside_repeat: bool) -> str | None:
    """The first item of a parsed regex (or of what it holds) that can backtrack without end."""
    c, _ = sre_modules()
    previous = None  # the character test of the unbounded repeat just before, if any
    for op, arg in list(items):
        problem = None
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            _lo, hi, body = arg
            if hi > 1:
                problem, previous = _repeat_problem(list(body), previous, inside_repeat)
                if problem:
                    return problem
                continue
            one = _atom_set(*body[0]) if len(body) == 1 else None
            if previous is not None and one is not None and _within(one, previous):
                continue  # an optional character the repeat before can take: the two repeats still meet
            problem = _walk(body, inside_repeat)
        elif previous is not None and (one := _atom_set(op, arg)) is not None and _within(one, previous):
            continue  # a character the repeat before can take: a repeat after it that takes it too is ambiguous
        elif op is c.SUBPATTERN:
            problem = _walk(arg[3], inside_repeat)
        elif op is c.BRANCH:
            problem = next((p for p in (_walk(b, inside_repeat) for b in arg[1]) if p), None)
        if problem:
            return problem
        previous = None
    return None


# Words every log is full of: a literal made only of them (and spaces or punctuation) says nothing.
COMMON_LOG_WORDS = frozenset(
    """
error errors warning warn info debug critical fatal exception traceback failed failure fail timeout
killed true false none null ok the a an in on of to at is was""".split()
)
# Characters that show as nothing: a literal that holds one cannot be typed or seen as it is.
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
MAX_GENERIC_SHARE = 5  # incidents that may share one generic log pattern (the schema says so too); about.md says why


def literal_problem(text: str) -> str | None:
    """Why a pattern's fixed text would match lines it says nothing about, or could not be read, or None."""
    import unicodedata

    bad = _INVISIBLE.search(text)
    if bad:
        return (
            f"the text holds U+{ord(bad.group()):04X} ({unicodedata.name(bad.group(), 'a format character')}), "
            "which shows as nothing; delete it"
        )
    for word in re.findall(r"[^\W\d_]+", text):
        scripts = {unicodedata.name(ch, "UNKNOWN").split(" ")[0] for ch in word}
        if len(scripts) > 1:
            return (
                f"the word {word!r} mixes scripts ({', '.join(sorted(scripts)).lower()}); a letter that only "
                "looks like another would never match a real log"
            )
    meaningful = re.sub(r"[\W_]+", "", text)
    if len(meaningful) < MIN_PREFILTER:
        return (
            f"{text!r} has {len(meaningful)} letters or digits; a pattern needs at least {MIN_PREFILTER} to "
            "say something about a line"
        )
    words = {w.lower() for w in re.findall(r"[^\W_]+", text)}
    if words and words <= COMMON_LOG_WORDS:
        return f"{text!r} is made of words every log is full of ({', '.join(sorted(words))}); quote more of the line"
    return None


def pattern_problems(
    patterns: Sequence[LogPattern],
    examples: Sequence[str],
    line: Callable[..., int | None],
    fields: tuple[str, str] = ("log_patterns", "log_examples"),
    check_examples: bool = True,
) -> list[tuple[int | None, str]]:
    """Patterns compile, keep to the subset, carry enough fixed text, and match the examples kept
    beside them (``fields`` names the two lists in the data, for the messages)."""
    field, example_field = fields
    problems, usable = [], []
    for k, pat in enumerate(patterns):
        where = f"{field}[{k}]"
        if pat.regex is not None:
            outside = regex_subset_problem(pat.regex)  # before compiling: it refuses what re cannot bound
            if outside:
                problems.append((line(field, k), f"{where}: {outside}"))
                continue
            try:
                re.compile(pat.regex)
            except (re.error, OverflowError, RecursionError, ValueError) as err:
                problems.append((line(field, k), f"{where}: the regex does not compile: {err}"))
                continue
            outside = regex_safety_problem(pat.regex)
            if outside:
                problems.append((line(field, k), f"{where}: {outside}"))
                continue
            if len(pat.prefilter) < MIN_PREFILTER:
                problems.append(
                    (
                        line(field, k),
                        f"{where}: the regex needs a run of at least {MIN_PREFILTER} plain characters "
                        f"outside groups (it has {pat.prefilter!r}); use a literal where one will do",
                    )
                )
                continue
        weak = literal_problem(pat.literal if pat.literal is not None else pat.prefilter)
        if weak:
            problems.append((line(field, k), f"{where}: {weak}"))
            continue
        usable.append(pat)
        if check_examples and not any(pat.matches(example) for example in examples):
            problems.append((line(field, k), f"{where}: {pat.text!r} matches none of the {example_field}"))
    if check_examples and not problems:  # an unmatched example matters only once every pattern is sound
        for k, example in enumerate(examples):
            if not any(p.matches(example) for p in usable):
                problems.append((line(example_field, k), f"{example_field}[{k}]: no pattern matches {example!r}"))
    return problems
