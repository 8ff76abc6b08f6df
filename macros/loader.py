"""Load data/incidents.yaml: parse strictly, validate against the JSON Schema
and against the site, and return the typed model.

Every problem becomes one line that names the file, the line and the incident;
all of them are reported together, and nothing is returned unless there are
none.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from datetime import date
from pathlib import Path

from . import validate
from .errors import ManualError, Problem
from .model import Incident, build
from .site import Site, load_site
from .yamlfile import decode, line_of, read

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "data" / "incidents.schema.json"

# Which repository and source kinds a GitHub-named incident points at.
_REPOS = {
    "sglang": ("sgl-project/sglang", {"sglang-issue", "sglang-pr"}),
    "miles": ("radixark/miles", {"miles-issue", "miles-pr"}),
    "vllm-discussion": ("vllm-project/vllm", {"vllm-discussion"}),
}
_NAMED = re.compile(r"^(?:(?P<miles>radixark/miles)|(?P<vllm>vLLM discussion ))?#(?P<nums>[0-9]+(?:, #[0-9]+)*)$")


def schema() -> dict:
    return validate.load_schema(SCHEMA)


def _schema_problems(data, shown: str) -> dict[int, list[Problem]]:
    """Schema violations, grouped by the index of the incident they concern."""
    grouped: dict[int, list[Problem]] = {}
    for error in validate.errors(data, SCHEMA, shown):
        path = list(error.absolute_path)
        if not path:  # the top level itself
            what = type(data).__name__.replace("LineDict", "mapping")
            message = ("expected a list of incidents (each starting with `- id:`), found a "
                       f"{what}") if error.validator == "type" else error.message
            raise ManualError([Problem(shown, getattr(data, "line", None) or 1, None, message)])
        index = path[0]
        item = data[index]
        ident = item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else f"#{index + 1} (no id)"
        grouped.setdefault(index, []).append(
            Problem(shown, validate.where(data, error), ident, validate.describe(error, skip=1, whole="the incident")))
    return grouped


def _github_problems(inc: Incident, shown: str, line) -> list[Problem]:
    """A GitHub-named incident links its own thread(s), under the right id."""
    match = _NAMED.match(inc.name)
    if not match:
        return []
    key = "miles" if match.group("miles") else "vllm-discussion" if match.group("vllm") else "sglang"
    repo, kinds = _REPOS[key]
    numbers = [int(n) for n in re.findall(r"[0-9]+", match.group("nums"))]
    problems = []

    def bad(message, *path):
        problems.append(Problem(shown, line(*path), inc.id, message))

    expected_id = f"{key}-{numbers[0]}"
    if inc.id != expected_id:
        bad(f"id {inc.id!r} does not match the name {inc.name!r}: expected {expected_id!r}", "id")
    linked, strays = set(), 0
    for i, src in enumerate(inc.sources):
        gh = src.github
        if gh and src.kind in kinds and gh[0] == repo:
            linked.add(gh[1])
            own_thread = (src.kind.endswith("-issue") or src.kind == "vllm-discussion") and not src.related
            if own_thread and gh[1] not in numbers:
                strays += 1
                bad(f"sources[{i}] points at {repo}#{gh[1]}, but the incident is "
                    f"{', '.join('#%d' % n for n in numbers)} (mark another thread `related: true`)",
                    "sources", i, "url")
    if not strays:  # a stray link already explains a missing one
        for n in numbers:
            if n not in linked:
                bad(f"no source links {repo}#{n}, which the name {inc.name!r} cites", "sources")
    return problems


RESERVED_IDS = frozenset({"index"})  # incidents/index.html is the table's own page


@lru_cache(maxsize=None)
def element_ids() -> frozenset[str]:
    """The fixed element ids the manual's templates write (the finder's field, "told-in", ...)."""
    found = set()
    for folder in (ROOT / "macros" / "templates", ROOT / "overrides"):
        for path in folder.rglob("*.html"):
            found.update(re.findall(r'\bid="([a-z0-9]+(?:-[a-z0-9]+)*)"', path.read_text("utf-8")))
    return frozenset(found)


def _id_problems(inc: Incident, site: Site) -> list[str]:
    """An id names pages and anchors: it must not take a name that a page already uses."""
    if inc.id in RESERVED_IDS:
        return [f"id {inc.id!r} is reserved: incidents/{inc.id}/ would replace the incident table's own page; "
                "choose another id"]
    if inc.id in {p.anchor for p in site.parts}:
        return [f"id {inc.id!r} is the anchor of a part's heading in the incident table; choose another id"]
    if inc.id in element_ids():
        return [f"id {inc.id!r} is the id of an element of the manual's pages; choose another id"]
    pages = [site.incidents_page] + [site.section(n).page for n in inc.sections if n in site.sections]
    for page in pages:
        if inc.id in site.anchors.get(page, ()):
            return [f"id {inc.id!r} is the anchor of a heading on docs/{page}, where the incident's own anchor "
                    "goes too; choose another id"]
    return []


def _status_problems(inc: Incident, line) -> list[tuple[int | None, str]]:
    """A status carries its evidence, and a declared correction really corrects something."""
    problems = []
    if inc.fixed_in and inc.status != "fixed":
        problems.append((line("fixed_in"), f"fixed_in belongs to status fixed, but the status is {inc.status}"))
    if inc.workaround and inc.status != "workaround":
        problems.append((line("workaround"), f"workaround belongs to status workaround, but the status is {inc.status}"))
    seen = set()
    for k, corr in enumerate(inc.corrections):
        if corr.field in seen:
            problems.append((line("corrections", k), f"corrections[{k}]: {corr.field} is corrected twice"))
        seen.add(corr.field)
        now = getattr(inc, corr.field)
        same = (list(now) == list(corr.index)) if corr.field == "sections" else (
            " ".join(str(now).replace("`", "").split()) == " ".join(str(corr.index).replace("`", "").split()))
        if same:
            problems.append((line("corrections", k), f"corrections[{k}]: {corr.field} still holds the index's text; "
                                                     "write the corrected text in the field, or drop the correction"))
    return problems


_ESCAPABLE = set("^$\\.*+?()[]{}|/")


def regex_subset_problem(regex: str) -> str | None:
    """Why ``regex`` falls outside the subset that Python's re and JavaScript's RegExp (flag u) read
    alike, or None. The subset: literal characters, ., classes of literals and ranges, \\d,
    quantifiers (greedy or lazy), plain and non-capturing groups, alternation, ^ and $."""
    from re import _constants as c
    from re import _parser as parser

    in_class, k = False, 0
    while k < len(regex):
        ch = regex[k]
        if ch == "\\":
            nxt = regex[k + 1:k + 2]
            if not (nxt == "d" or nxt in _ESCAPABLE or (in_class and nxt == "-")):
                return (f"the escape \\{nxt} reads differently in Python and in the browser; "
                        "use \\d, a class such as [ ], or escape only ^ $ \\ . * + ? ( ) [ ] { } | /")
            k += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            k += 1 + (regex[k + 1:k + 2] == "^")
            if regex[k:k + 1] == "]":
                return "a ] first in a class ends it in the browser; write \\] for the character"
            continue
        elif ch == "{":
            quantifier = re.match(r"\{[0-9]+(,[0-9]*)?\}", regex[k:])
            if not quantifier:
                return "a { that is not a quantifier such as {2} or {1,3}; write \\{ for the character"
            k += quantifier.end()
            continue
        elif ch in "]}":
            return f"an unescaped {ch} outside a class; write \\{ch} for the character"
        elif regex.startswith(("(?P", "(?<", "(?=", "(?!", "(?>", "(?#"), k) or (
                regex.startswith("(?", k) and not regex.startswith("(?:", k)):
            return "only plain ( ) and (?: ) groups are allowed: no flags, names, lookaround or comments"
        k += 1
    try:
        tree = parser.parse(regex)
    except re.error:
        return None  # reported as "does not compile"
    if tree.state.flags & ~(c.SRE_FLAG_UNICODE):
        return "inline flags such as (?i) are not allowed"
    allowed_at = {c.AT_BEGINNING, c.AT_END}
    stack = [list(tree)]
    while stack:
        for op, arg in stack.pop():
            if op in (c.LITERAL, c.NOT_LITERAL, c.ANY):
                continue
            if op is c.IN:
                for item_op, item in arg:
                    if item_op is c.CATEGORY and item is not c.CATEGORY_DIGIT:
                        return "classes such as \\w, \\s or \\b differ between Python and the browser; use [ ] or \\d"
                continue
            if op in (c.MAX_REPEAT, c.MIN_REPEAT):
                stack.append(list(arg[2]))
            elif op is c.SUBPATTERN:
                if arg[1] or arg[2]:
                    return "inline flags such as (?i:...) are not allowed"
                stack.append(list(arg[3]))
            elif op is c.BRANCH:
                stack.extend(list(b) for b in arg[1])
            elif op is c.AT and arg in allowed_at:
                continue
            else:
                return f"{str(op).lower()} is outside the subset Python and the browser read alike"
    return None


MIN_PREFILTER = 6  # characters of fixed text a regex must contain, so the triage scan stays fast


def _pattern_problems(inc: Incident, line) -> list[tuple[int | None, str]]:
    """Patterns compile, carry enough fixed text, and match the examples kept beside them."""
    problems, usable = [], []
    for k, pat in enumerate(inc.log_patterns):
        where = f"log_patterns[{k}]"
        if pat.regex is not None:
            try:
                re.compile(pat.regex)
            except re.error as err:
                problems.append((line("log_patterns", k), f"{where}: the regex does not compile: {err}"))
                continue
            outside = regex_subset_problem(pat.regex)
            if outside:
                problems.append((line("log_patterns", k), f"{where}: {outside}"))
                continue
            if len(pat.prefilter) < MIN_PREFILTER:
                problems.append((line("log_patterns", k),
                                 f"{where}: the regex needs a run of at least {MIN_PREFILTER} plain characters "
                                 f"outside groups (it has {pat.prefilter!r}); use a literal where one will do"))
                continue
        usable.append(pat)
        if not any(pat.matches(example) for example in inc.log_examples):
            problems.append((line("log_patterns", k), f"{where}: {pat.text!r} matches none of the log_examples"))
    if not problems:  # an unmatched example matters only once every pattern is sound
        for k, example in enumerate(inc.log_examples):
            if not any(p.matches(example) for p in usable):
                problems.append((line("log_examples", k), f"log_examples[{k}]: no pattern matches {example!r}"))
    return problems


def _engine_problems(sound, shown: str) -> list[Problem]:
    """The triage command's own engine (Hyperscan pre-check, then the regex) must find every
    pattern on the examples that Python's re matches it on, and only there."""
    if not sound:
        return []
    from .triage import engine_misses  # imported here: the triage command imports this module

    line = {inc.id: where for inc, where in sound}
    return [Problem(shown, line[inc.id](field, k), inc.id, message)
            for inc, field, k, message in engine_misses([inc for inc, _ in sound])]


# --------------------------------------------------------------------------- exposure conditions

ARG_LISTS = ("sglang-router", "sglang-bench", "sglang", "miles")  # data/<list>-args-<version>.json; longest first
FLAG_LIST = {"sglang": "sglang", "router": "sglang-router", "bench": "sglang-bench", "miles": "miles"}
LIST_PRODUCT = {"sglang": "sglang", "sglang-bench": "sglang", "sglang-router": "sglang-router", "miles": "miles"}
LIST_LABEL = {"sglang": "SGLang", "sglang-bench": "SGLang's bench_serving", "sglang-router": "sglang-router",
              "miles": "Miles"}
AN_ARGUMENT = {"sglang": "an SGLang argument", "sglang-bench": "a bench_serving argument",
               "sglang-router": "an sglang-router argument", "miles": "a Miles argument"}
FACT_SCHEMAS = (("gpus.yaml", "gpus.schema.json"), ("models.yaml", "models.schema.json"),
                ("releases.yaml", "releases.schema.json"))


@dataclass(frozen=True)
class Facts:
    """What exposure conditions may name: each argument list's option names by program and version,
    the GPU ids and architectures of data/gpus.yaml and the families of data/models.yaml."""

    options: dict  # list name -> {version: frozenset of names and aliases}
    gpus: frozenset
    architectures: frozenset
    families: frozenset


def facts(data_dir: Path) -> Facts:
    """Read (once per state of the files) and check the data exposure conditions refer to."""
    names = sorted(p.name for p in data_dir.glob("*-args-*.json")) + [n for n, _ in FACT_SCHEMAS]
    stamp = tuple((n, (data_dir / n).stat().st_mtime_ns, (data_dir / n).stat().st_size)
                  for n in names if (data_dir / n).exists())
    return _facts(data_dir, stamp)


@lru_cache(maxsize=8)
def _facts(data_dir: Path, stamp) -> Facts:
    problems: list[Problem] = []
    content = {}
    for name, schema_name in FACT_SCHEMAS:
        path = data_dir / name
        if not path.exists():
            content[name] = None
            continue
        shown = f"data/{name}"
        try:
            value = read(path, shown)
            validate.check(value, data_dir / schema_name if (data_dir / schema_name).exists()
                           else ROOT / "data" / schema_name, shown)
        except ManualError as err:
            problems.extend(err.problems)
            continue
        content[name] = value
    options: dict = {}
    for path in sorted(data_dir.glob("*-args-*.json")):
        shown = f"data/{path.name}"
        program = next((p for p in ARG_LISTS if path.name.startswith(p + "-args-")), None)
        try:
            listed = json.loads(path.read_text("utf-8"))
            version = str(listed["version"])
            options.setdefault(program, {})[version] = frozenset(
                o for a in listed["arguments"] for o in [a["name"], *(a.get("aliases") or [])])
        except (ValueError, KeyError, TypeError) as err:
            problems.append(Problem(shown, None, None, f"not an argument list that macros/gen_args.py writes ({err!r}); "
                                                       "generate it again"))
            continue
        if program is None:
            problems.append(Problem(shown, None, None, "the file name must be <program>-args-<version>.json, with "
                                                       f"program one of {', '.join(sorted(ARG_LISTS))}"))
    if problems:
        raise ManualError(problems)
    gpus = content.get("gpus.yaml") or []
    return Facts(options=options, gpus=frozenset(g["id"] for g in gpus),
                 architectures=frozenset(g["architecture"] for g in gpus),
                 families=frozenset(m["family"] for m in content.get("models.yaml") or []))


def _leaves(cond, path: list):
    """Each leaf condition (key, value, path from the incident) of an exposure condition."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return
    (key, value), = cond.items()
    if key in ("all", "any") and isinstance(value, list):
        for k, child in enumerate(value):
            yield from _leaves(child, [*path, key, k])
    elif key == "not":
        yield from _leaves(value, [*path, key])
    else:
        yield key, value, [*path, key]


def _covered(ranges: list, program: str, known: Facts, site: Site) -> list[str]:
    """The versions of ``program``'s argument lists that the incident's ranges cover, newest first;
    the manual's release (for SGLang's own lists; else the newest list) where the range is unknown."""
    from .exposure import version_key  # imported here: the loader's other users do not need it

    lists = known.options.get(program) or {}
    product = LIST_PRODUCT[program]
    mine = [r for r in ranges if r.get("product") == product]
    covered = set()
    if not mine or any(r.get("unknown") for r in mine):
        newest = max(lists, key=version_key) if lists else None
        covered.add(site.version if site.version in lists and product == "sglang" else newest)
    for r in mine:
        if r.get("unknown"):
            continue
        lo = version_key(r.get("introduced", "0"))
        for v in lists:
            k = version_key(v)
            inside = k >= lo and ("fixed" not in r or k < version_key(r["fixed"])) and \
                ("last_affected" not in r or k <= version_key(r["last_affected"]))
            if inside:
                covered.add(v)
    return sorted((v for v in covered if v is not None), key=version_key, reverse=True)


def _exposure_problems(inc: Incident, line, known: Facts, site: Site) -> list[tuple[int | None, str]]:
    """Every flag a condition names exists at a version the incident's range covers, and every GPU,
    architecture and model family it names is in data/gpus.yaml or data/models.yaml."""
    exposure = inc.exposure or {}
    if "when" not in exposure:
        return []
    problems = []
    ranges = exposure.get("versions") or []
    for key, value, path in _leaves(exposure["when"], ["exposure", "when"]):
        where, lead = line(*path), validate.field_name(path) + ": "
        if key == "flag":
            program = FLAG_LIST[value.get("program", "sglang")]
            versions = _covered(ranges, program, known, site)
            label = LIST_LABEL[program]
            if not versions:
                problems.append((where, f"{lead}no argument list of {label} falls in the incident's version range; "
                                        "generate one with macros/gen_args.py, or correct the range"))
                continue
            name = value["name"]
            lists = known.options[program]
            if any(name in lists[v] for v in versions):
                continue
            from .exposure import version_key

            elsewhere = sorted((v for v in lists if name in lists[v]), key=version_key)
            import difflib

            near = difflib.get_close_matches(name, sorted(set().union(*(lists[v] for v in versions))), n=3)
            message = f"{lead}`{name}` is not {AN_ARGUMENT[program]} at {', '.join(versions)}, the release(s) " \
                      "the incident's version range covers"
            if elsewhere:
                message += f" (it is one at {', '.join(elsewhere)})"
            elif near:
                message += f"; did you mean {', '.join(f'`{n}`' for n in near)}?"
            problems.append((where, message))
        elif key == "gpu" and isinstance(value, dict):
            for field_name, have, what in (("name", known.gpus, "GPU id"),
                                           ("architecture", known.architectures, "architecture")):
                for k, item in enumerate(value.get(field_name) or []):
                    if item not in have:
                        problems.append((line(*path, field_name, k),
                                         f"{lead}`{item}` is not a {what} in data/gpus.yaml"))
        elif key == "model" and isinstance(value, dict):
            for k, item in enumerate(value.get("family") or []):
                if item not in known.families:
                    problems.append((line(*path, "family", k),
                                     f"{lead}`{item}` is not a model family in data/models.yaml"))
    return problems


def load(path: Path, site: Site, *, shown: str | None = None, today: date | None = None,
         data_dir: Path | None = None) -> tuple[Incident, ...]:
    """Read, validate and model the incidents at ``path``; raise ManualError on any problem.

    ``data_dir`` holds the argument lists, GPUs and model families that exposure conditions
    name (the project's data/ unless given)."""
    shown = shown or path.as_posix()
    data = read(path, shown)
    if data is None:
        raise ManualError([Problem(shown, 1, None, "the file holds no incidents (it is empty)")])
    grouped = _schema_problems(data, shown)
    problems = [p for index in sorted(grouped) for p in grouped[index]]
    today = today or date.today()
    incidents: list[Incident] = []
    first_line: dict[str, int] = {}
    first_name: dict[str, str] = {}
    sound: list = []  # (incident, its line function) whose patterns passed _pattern_problems
    known = facts(data_dir or ROOT / "data")
    for index, raw in enumerate(data):
        if index in grouped:
            continue
        line = line_of(data, [index])
        try:
            inc = build(raw, line)
        except ValueError as err:  # a well-formed but impossible date
            problems.append(Problem(shown, line_of(data, [index, "checked"]), raw["id"],
                                    f"checked: {raw['checked']!r} is not a real date ({err})"))
            continue
        if inc.id in first_line:
            problems.append(Problem(shown, line, inc.id, f"duplicate id (first used at line {first_line[inc.id]})"))
            continue
        first_line[inc.id] = line
        if inc.name in first_name:
            problems.append(Problem(shown, line, inc.id, f"duplicate name {inc.name!r} (also incident {first_name[inc.name]})"))
        first_name.setdefault(inc.name, inc.id)
        if inc.checked > today:
            problems.append(Problem(shown, line_of(data, [index, "checked"]), inc.id,
                                    f"checked: {inc.checked} is in the future"))
        for k, number in enumerate(inc.sections):
            if number not in site.sections:
                problems.append(Problem(shown, line_of(data, [index, "sections", k]), inc.id,
                                        f"sections: {number} has no page; the manual's sections are "
                                        f"{site.parts[0].sections[0].number} to {site.parts[-1].sections[-1].number} "
                                        f"as listed in data/manual.yaml"))
        where = lambda *p, i=index: line_of(data, [i, *p])  # noqa: E731
        problems.extend(_github_problems(inc, shown, where))
        pattern_problems = _pattern_problems(inc, where)
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in pattern_problems)
        if inc.log_patterns and not pattern_problems:
            sound.append((inc, where))
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in _status_problems(inc, where))
        problems.extend(Problem(shown, where("id"), inc.id, msg) for msg in _id_problems(inc, site))
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in _exposure_problems(inc, where, known, site))
        incidents.append(inc)
    problems.extend(_engine_problems(sound, shown))
    if problems:
        raise ManualError(problems)
    return tuple(incidents)


_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


REDIRECTS_SCHEMA = ROOT / "data" / "redirects.schema.json"


def load_redirects(path: Path, incidents, *, shown: str = "data/redirects.yaml") -> dict[str, str]:
    """Old id -> current id, for incidents that were merged or renamed."""
    data = read(path, shown)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ManualError([Problem(shown, 1, None, "expected a mapping of old id: new id")])
    validate.check(data, REDIRECTS_SCHEMA, shown)
    current = {i.id for i in incidents}
    problems = []
    for old, new in data.items():
        line = data.key_lines.get(old)
        if old in current:
            problems.append(Problem(shown, line, old, "is still an incident; only an id that is gone redirects"))
        elif new not in current:
            problems.append(Problem(shown, line, old, f"redirects to {new!r}, which is not an incident"))
    if problems:
        raise ManualError(problems)
    return dict(data)


def published_ids(path: Path, shown: str = "data/published-ids.txt") -> list[str]:
    """The ids listed in data/published-ids.txt, in order (a leading byte-order mark is dropped)."""
    text = decode(path.read_bytes(), shown)
    ids, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if not _ID.match(entry):
            problems.append(Problem(shown, number, None, f"{entry!r} is not an id (lowercase letters and digits "
                                                         "joined by single hyphens, one per line)"))
        ids.append(entry)
    if problems:
        raise ManualError(problems)
    return ids


def lost_ids(published: list[str], incidents, redirects: dict[str, str]) -> list[str]:
    """Published ids that are neither an incident nor redirected: links to them would break."""
    current = {i.id for i in incidents}
    return [i for i in published if i not in current and i not in redirects]


SYNONYMS_SCHEMA = ROOT / "data" / "synonyms.schema.json"


def load_synonyms(path: Path, shown: str = "data/synonyms.yaml") -> tuple[dict, ...]:
    """The finder's synonym groups. A term belongs to one group, unless it means two things: then
    every group that holds it lists it under ``shared``, and the finder looks for both meanings."""
    data = read(path, shown)
    validate.check(data, SYNONYMS_SCHEMA, shown)
    from .search import fold

    def key(term: str) -> str:
        return " ".join(fold(term).split())

    shared = [{key(t) for t in g.get("shared", ())} for g in data]
    holders: dict[str, list[int]] = {}  # term -> the groups it stands in, in file order
    for k, group in enumerate(data):
        for term in group["terms"]:
            places = holders.setdefault(key(term), [])
            if not places or places[-1] != k:
                places.append(k)
    problems = []
    for k, group in enumerate(data):
        terms = {key(t) for t in group["terms"]}
        for j, term in enumerate(group.get("shared", ())):
            where = line_of(data, [k, "shared", j])
            if key(term) not in terms:
                problems.append(Problem(shown, where, None, f"shared: {term!r} is not one of this group's terms"))
            elif len(holders[key(term)]) < 2:
                problems.append(Problem(shown, where, None, f"shared: {term!r} stands in no other group"))
        for j, term in enumerate(group["terms"]):
            first = holders[key(term)][0]
            if first == k or key(term) in shared[k] & shared[first]:
                continue
            problems.append(Problem(shown, line_of(data, [k, "terms", j]), None,
                                    f"{term!r} is already in the group at line {line_of(data, [first])}; "
                                    "a term belongs to one group, unless it means two things: then list it "
                                    "under shared in both groups"))
    if problems:
        raise ManualError(problems)
    return tuple({field: (list(value) if isinstance(value, list) else value)
                  for field, value in g.items() if field in ("terms", "shared", "note")} for g in data)


@dataclass(frozen=True)
class Manual:
    """Everything one build knows: where things live, the incidents, and the old ids that redirect."""

    site: Site
    incidents: tuple[Incident, ...]
    redirects: dict[str, str]
    synonyms: tuple[dict, ...] = ()

    @cached_property
    def by_id(self) -> dict[str, Incident]:
        return {i.id: i for i in self.incidents}


def load_manual(project: Path, docs_dir: Path | None = None) -> Manual:
    """Load and check the whole manual's data under ``project``; raise ManualError on any problem."""
    data = project / "data"
    site = load_site(data / "manual.yaml", docs_dir or project / "docs")
    incidents = load(data / "incidents.yaml", site, shown="data/incidents.yaml", data_dir=data)
    redirects = load_redirects(data / "redirects.yaml", incidents)
    lost = lost_ids(published_ids(data / "published-ids.txt"), incidents, redirects)
    if lost:
        raise ManualError([Problem("data/published-ids.txt", None, i, "was published but is no longer an incident; "
                                   "add it to data/redirects.yaml with the id that now tells it") for i in lost])
    return Manual(site, incidents, redirects, load_synonyms(data / "synonyms.yaml"))
