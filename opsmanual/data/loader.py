"""Load data/incidents.yaml: parse strictly, validate against the JSON Schema
and against the site, and return the typed model.

Every problem becomes one line that names the file, the line and the incident;
all of them are reported together, and nothing is returned unless there are
none.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from opsmanual import ROOT as PROJECT
from opsmanual.data import programs, validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.model import Incident, build
from opsmanual.data.patterns import MAX_GENERIC_SHARE, pattern_problems
from opsmanual.data.site import Site, load_site
from opsmanual.data.yamlfile import LineDict, decode, line_of, read

if TYPE_CHECKING:
    from opsmanual.data.metrics import Metrics
    from opsmanual.data.model import Guidance

# The line of a field of one entry, from its path inside the entry: where("sources", 2, "url").
LineOf = Callable[..., int | None]

ROOT = Path(PROJECT)
SCHEMA = ROOT / "data" / "incidents.schema.json"

# Which repository and source kinds a GitHub-named incident points at.
_REPOS = {
    "sglang": ("sgl-project/sglang", {"sglang-issue", "sglang-pr"}),
    "miles": ("radixark/miles", {"miles-issue", "miles-pr"}),
    "vllm-discussion": ("vllm-project/vllm", {"vllm-discussion"}),
}
_NAMED = re.compile(r"^(?:(?P<miles>radixark/miles)|(?P<vllm>vLLM discussion ))?#(?P<nums>[0-9]+(?:, #[0-9]+)*)$")


def schema() -> dict[str, Any]:
    return validate.load_schema(SCHEMA)


def labels(field: str) -> dict[str, str]:
    """How a reader names each value of ``status``, of a source's ``kind``, of a version range's
    ``product``, of its ``kind`` (``range_kind``: what the range's evidence marks) or of a guidance
    entry's ``phase`` (as a heading: "At start-up"): the schema's ``x-labels``, in the order of its
    ``enum``. Every reader (the commands, the pages, the browser through the bundles) takes its labels
    from here."""
    if field == "phase":
        phases = validate.load_schema(GUIDANCE_SCHEMA)["$defs"]["entry"]["properties"]["phases"]
        where = phases["items"]["properties"]["phase"]
    else:
        defs = schema()["$defs"]
        where = {
            "status": defs["incident"]["properties"]["status"],
            "kind": defs["source"]["properties"]["kind"],
            "product": defs["version_range"]["properties"]["product"],
            "range_kind": defs["version_range"]["properties"]["kind"],
        }[field]
    named = where["x-labels"]
    return {value: named[value] for value in where["enum"]}


def _schema_problems(data: Any, shown: str) -> dict[int, list[Problem]]:
    """Schema violations, grouped by the index of the incident they concern."""
    grouped: dict[int, list[Problem]] = {}
    for error in validate.errors(data, SCHEMA, shown):
        path = list(error.absolute_path)
        if not path:  # the top level itself
            what = type(data).__name__.replace("LineDict", "mapping")
            message = (
                (f"expected a list of incidents (each starting with `- id:`), found a {what}")
                if error.validator == "type"
                else error.message
            )
            raise ManualError([Problem(shown, getattr(data, "line", None) or 1, None, message)])
        index = path[0]
        item = data[index]
        ident = (
            item.get("id") if isinstance(item, dict) and isinstance(item.get("id"), str) else f"#{index + 1} (no id)"
        )
        grouped.setdefault(index, []).append(
            Problem(shown, validate.where(data, error), ident, validate.describe(error, skip=1, whole="the incident"))
        )
    return grouped


def _github_problems(inc: Incident, shown: str, line: LineOf) -> list[Problem]:
    """A GitHub-named incident links its own thread(s), under the right id."""
    match = _NAMED.match(inc.name)
    if not match:
        return []
    key = "miles" if match.group("miles") else "vllm-discussion" if match.group("vllm") else "sglang"
    repo, kinds = _REPOS[key]
    numbers = [int(n) for n in re.findall(r"[0-9]+", match.group("nums"))]
    problems: list[Problem] = []

    def bad(message: str, *path: str | int) -> None:
        problems.append(Problem(shown, line(*path), inc.id, message))

    expected_id = f"{key}-{numbers[0]}"
    if inc.id != expected_id:
        bad(f"id {inc.id!r} does not match the name {inc.name!r}: expected {expected_id!r}", "id")
    linked: set[int] = set()
    strays = 0
    for i, src in enumerate(inc.sources):
        gh = src.github
        if gh and src.kind in kinds and gh[0] == repo:
            linked.add(gh[1])
            own_thread = (src.kind.endswith("-issue") or src.kind == "vllm-discussion") and not src.related
            if own_thread and gh[1] not in numbers:
                strays += 1
                bad(
                    f"sources[{i}] points at {repo}#{gh[1]}, but the incident is "
                    f"{', '.join(f'#{n:d}' for n in numbers)} (mark another thread `related: true`)",
                    "sources",
                    i,
                    "url",
                )
    if not strays:  # a stray link already explains a missing one
        for n in numbers:
            if n not in linked:
                bad(f"no source links {repo}#{n}, which the name {inc.name!r} cites", "sources")
    return problems


RESERVED_IDS = frozenset({"index"})  # incidents/index.html is the table's own page


def _id_problems(inc: Incident, site: Site) -> list[str]:
    """An id names pages and anchors: it must not take a name the manual's structure already uses.
    (That it takes no id a page's heading or a template's element writes is the site's check:
    opsmanual/site/checks.py.)"""
    if inc.id in RESERVED_IDS:
        return [
            f"id {inc.id!r} is reserved: incidents/{inc.id}/ would replace the incident table's own page; "
            "choose another id"
        ]
    if inc.id in {p.anchor for p in site.parts}:
        return [f"id {inc.id!r} is the anchor of a part's heading in the incident table; choose another id"]
    return []


def _status_problems(inc: Incident, line: LineOf) -> list[tuple[int | None, str]]:
    """A status carries its evidence, and a declared correction really corrects something."""
    problems: list[tuple[int | None, str]] = []
    if inc.fixed_in and inc.status != "fixed":
        problems.append((line("fixed_in"), f"fixed_in belongs to status fixed, but the status is {inc.status}"))
    if inc.workaround and inc.status != "workaround":
        problems.append(
            (line("workaround"), f"workaround belongs to status workaround, but the status is {inc.status}")
        )
    seen: set[str] = set()
    for k, corr in enumerate(inc.corrections):
        if corr.field in seen:
            problems.append((line("corrections", k), f"corrections[{k}]: {corr.field} is corrected twice"))
        seen.add(corr.field)
        now = getattr(inc, corr.field)
        same = (
            (list(now) == list(corr.index))
            if corr.field == "sections"
            else (" ".join(str(now).replace("`", "").split()) == " ".join(str(corr.index).replace("`", "").split()))
        )
        if same:
            problems.append(
                (
                    line("corrections", k),
                    f"corrections[{k}]: {corr.field} still holds the index's text; "
                    "write the corrected text in the field, or drop the correction",
                )
            )
    return problems


def _pattern_problems(inc: Incident, line: LineOf) -> list[tuple[int | None, str]]:
    return pattern_problems(inc.log_patterns, inc.log_examples, line)


def _sharing_problems(sound: Iterable[tuple[Incident, LineOf]], shown: str) -> list[Problem]:
    """A generic line (one several incidents print) stays useful only while few incidents share it."""
    sharing: dict[str, list[tuple[Incident, LineOf, int]]] = {}
    for inc, where in sound:
        for k, pat in enumerate(inc.log_patterns):
            if pat.generic:
                sharing.setdefault(pat.text, []).append((inc, where, k))
    return [
        Problem(
            shown,
            where("log_patterns", k),
            inc.id,
            f"log_patterns[{k}]: {text!r} is a generic line of {len(users)} incidents; at most "
            f"{MAX_GENERIC_SHARE} may share one (a line that many incidents print points at none of them: "
            "give the line a guidance entry instead)",
        )
        for text, users in sharing.items()
        if len(users) > MAX_GENERIC_SHARE
        for inc, where, k in users[MAX_GENERIC_SHARE : MAX_GENERIC_SHARE + 1]
    ]


# --------------------------------------------------------------------------- exposure conditions

# The argument lists (data/<list>-args-<version>.json), the program each launch line runs, the
# product whose releases a list follows and how readers name them: opsmanual/data/programs.py.
ARG_LISTS = tuple(
    sorted(programs.ARG_LISTS, key=len, reverse=True)
)  # longest first: a file name is matched on its start
FLAG_LIST = programs.ARGS_PROGRAM  # a flag condition's program -> its list
LIST_PRODUCT = programs.LIST_PRODUCT
LIST_LABEL = {name: entry["label"] for name, entry in programs.ARG_LISTS.items()}
AN_ARGUMENT = {name: entry["argument"] for name, entry in programs.ARG_LISTS.items()}
FACT_SCHEMAS = (
    ("gpus.yaml", "gpus.schema.json"),
    ("models.yaml", "models.schema.json"),
    ("releases.yaml", "releases.schema.json"),
)


@dataclass(frozen=True)
class Facts:
    """The facts exposure conditions are decided on, read and validated once: the GPUs of
    data/gpus.yaml, the model families of data/models.yaml, the releases of data/releases.yaml, and
    each program's argument list by version (data/<program>-args-<version>.json)."""

    gpu_entries: tuple[dict[str, Any], ...]  # the entries of data/gpus.yaml, as plain mappings
    models: tuple[dict[str, Any], ...]  # the entries of data/models.yaml
    releases: dict[str, dict[str, Any]]  # product -> {"source", "listed", "versions"} (newest first)
    # list name -> {version: the argument list as tools/gen_args.py writes it}: every release's, from
    # data/args-history/ and the lists of their own in data/
    arglists: dict[str, dict[str, dict[str, Any]]]
    # list name -> the versions with a file of their own in data/ (<list>-args-<version>.json): the
    # lists the exposure bundle carries to the browser
    bundled: dict[str, frozenset[str]] = field(default_factory=dict)

    @cached_property
    def options(self) -> dict[str, dict[str, frozenset[str]]]:
        """List name -> {version: frozenset of option names and aliases}, for the lists with a file of
        their own (the ones the exposure check ships, which exposure conditions are checked against)."""
        return {
            program: {
                version: frozenset(o for a in listed["arguments"] for o in [a["name"], *(a.get("aliases") or [])])
                for version, listed in lists.items()
                if version in self.bundled.get(program, ())
            }
            for program, lists in self.arglists.items()
        }

    @cached_property
    def gpus(self) -> frozenset[str]:
        return frozenset(g["id"] for g in self.gpu_entries)

    @cached_property
    def architectures(self) -> frozenset[str]:
        return frozenset(g["architecture"] for g in self.gpu_entries)

    @cached_property
    def families(self) -> frozenset[str]:
        return frozenset(m["family"] for m in self.models)

    def versions(self, product: str) -> tuple[str, ...]:
        """The releases of ``product``, newest first (empty when data/releases.yaml lists none)."""
        return tuple((self.releases.get(product) or {}).get("versions") or ())

    def argument(self, program: str, version: str, name: str) -> dict[str, Any] | None:
        """The argument ``name`` (or one of its aliases) of a list, as gen_args.py writes it."""
        arg: dict[str, Any]
        for arg in (self.arglists.get(program, {}).get(version) or {}).get("arguments", ()):
            if arg["name"] == name or name in (arg.get("aliases") or ()):
                return arg
        return None


HISTORY_DIR = "args-history"  # data/args-history/<list>.json: every release's list, as changes (tools/args_history.py)


def unfold_history(history: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each release's argument list from a history file (tools/args_history.py), as
    tools/gen_args.py wrote it: version -> {program, version, source, arguments}."""
    program = programs.LIST_PROGRAM.get(history["program"], history["program"])  # the history file names the list
    out: dict[str, dict[str, Any]] = {}
    now: dict[str, dict[str, Any]] = {}
    for entry in history["releases"]:
        if "arguments" in entry:
            now = {a["name"]: a for a in entry["arguments"]}
        else:
            now = dict(now)
            for name in entry.get("removed") or ():
                if name not in now:
                    raise KeyError(f"{entry['version']} removes {name}, which the release before it lacks")
                del now[name]
            for arg in [*(entry.get("added") or ()), *(entry.get("changed") or ())]:
                now[arg["name"]] = arg
        out[entry["version"]] = {
            "program": program,
            "version": entry["version"],
            "source": entry["source"],
            "arguments": [now[n] for n in sorted(now)],
        }
    return out


def facts(data_dir: Path) -> Facts:
    """Read (once per state of the files) and check the data exposure conditions refer to."""
    names = sorted(p.name for p in data_dir.glob("*-args-*.json")) + [n for n, _ in FACT_SCHEMAS]
    names += sorted(f"{HISTORY_DIR}/{p.name}" for p in (data_dir / HISTORY_DIR).glob("*.json"))
    stamp = tuple(
        (n, (data_dir / n).stat().st_mtime_ns, (data_dir / n).stat().st_size) for n in names if (data_dir / n).exists()
    )
    return _facts(data_dir, stamp)


def fold_gpu_name(name: str) -> str:
    """A GPU name as data/gpus.yaml matches it: NFKC, lower case, runs of spaces, hyphens and
    underscores as one space (the exposure engines fold a typed name the same way)."""
    import unicodedata

    text = unicodedata.normalize("NFKC", str(name)).lower().replace("_", " ").replace("-", " ")
    return " ".join(text.split())


@lru_cache(maxsize=8)
def _facts(data_dir: Path, stamp: tuple[tuple[str, int, int], ...]) -> Facts:
    from opsmanual.data.model import plain_data
    from opsmanual.data.yamlfile import read_json
    from opsmanual.text.versions import version_parts

    problems: list[Problem] = []
    content: dict[str, Any] = {}
    for name, schema_name in FACT_SCHEMAS:
        path = data_dir / name
        shown = f"data/{name}"
        try:
            value = read(path, shown)
            if value is None:
                raise ManualError([Problem(shown, 1, None, "the file is empty")])
            validate.check(
                value,
                data_dir / schema_name if (data_dir / schema_name).exists() else ROOT / "data" / schema_name,
                shown,
            )
        except ManualError as err:
            problems.extend(err.problems)
            continue
        content[name] = value
    gpus = content.get("gpus.yaml") or []
    claimed: dict[str, tuple[str, int | None]] = {}  # folded name -> (GPU id, line)
    for k, gpu in enumerate(gpus):
        for j, name in enumerate([gpu["name"], *gpu.get("aliases", ())]):
            key = fold_gpu_name(name)
            where = line_of(gpus, [k, "name"] if j == 0 else [k, "aliases", j - 1])
            if key in claimed and claimed[key][0] != gpu["id"]:
                problems.append(
                    Problem(
                        "data/gpus.yaml",
                        where,
                        None,
                        f"{gpu['id']}: the name {name!r} is also a name of {claimed[key][0]} "
                        f"(line {claimed[key][1]}); a name must say which GPU it is",
                    )
                )
            claimed.setdefault(key, (gpu["id"], where))
    releases = content.get("releases.yaml") or {}
    for product, entry in releases.items():
        for j, v in enumerate(entry.get("versions") or ()):
            if version_parts(str(v)) is None:
                problems.append(
                    Problem(
                        "data/releases.yaml",
                        line_of(releases, [product, "versions", j]),
                        None,
                        f"{product}: {v!r} is not a release number",
                    )
                )
    arglists: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(data_dir.glob("*-args-*.json")):
        shown = f"data/{path.name}"
        program = next((p for p in ARG_LISTS if path.name.startswith(p + "-args-")), None)
        if program is None:
            problems.append(
                Problem(
                    shown,
                    None,
                    None,
                    "the file name must be <program>-args-<version>.json, with "
                    f"program one of {', '.join(sorted(ARG_LISTS))}",
                )
            )
            continue
        try:
            listed = read_json(path, shown)
            version = listed["version"]
            arguments = listed["arguments"]
            if (
                not isinstance(version, str)
                or not isinstance(arguments, list)
                or not all(isinstance(a, dict) and isinstance(a.get("name"), str) for a in arguments)
            ):
                raise TypeError("version must be text and arguments a list of {name, ...}")
        except ManualError as err:
            problems.extend(err.problems)
            continue
        except (KeyError, TypeError) as err:
            problems.append(
                Problem(
                    shown,
                    None,
                    None,
                    f"not an argument list that tools/gen_args.py writes ({err!r}); generate it again",
                )
            )
            continue
        arglists.setdefault(program, {})[version] = listed
    bundled = {program: frozenset(lists) for program, lists in arglists.items()}
    for path in sorted((data_dir / HISTORY_DIR).glob("*.json")):
        shown = f"data/{HISTORY_DIR}/{path.name}"
        try:
            history = read_json(path, shown)
            validate.check(history, ROOT / "data" / "args-history.schema.json", shown)
            program = history["program"]
            if path.stem != program:
                raise ManualError([Problem(shown, None, None, f"the file of {program}'s lists must be {program}.json")])
            unfolded = unfold_history(history)
        except ManualError as err:
            problems.extend(err.problems)
            continue
        except KeyError as err:
            problems.append(Problem(shown, None, None, f"{err.args[0]}; generate it again with tools/args_history.py"))
            continue
        mine = arglists.setdefault(program, {})
        for version, listed in unfolded.items():
            if version in mine and mine[version]["arguments"] != listed["arguments"]:
                problems.append(
                    Problem(
                        f"data/{program}-args-{version}.json",
                        None,
                        None,
                        f"its arguments differ from {version}'s in {shown}; generate both again from the release",
                    )
                )
            mine.setdefault(version, listed)
    if problems:
        raise ManualError(problems)
    return Facts(
        gpu_entries=tuple(plain_data(g) for g in gpus),
        models=tuple(plain_data(m) for m in content.get("models.yaml") or []),
        releases=plain_data(releases),
        arglists=arglists,
        bundled=bundled,
    )


def _leaves(cond: Any, path: list[str | int]) -> Iterator[tuple[str, Any, list[str | int]]]:
    """Each leaf condition (key, value, path from the incident) of an exposure condition."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return
    ((key, value),) = cond.items()
    if key in ("all", "any") and isinstance(value, list):
        for k, child in enumerate(value):
            yield from _leaves(child, [*path, key, k])
    elif key == "not":
        yield from _leaves(value, [*path, key])
    else:
        yield key, value, [*path, key]


def _covered(ranges: list[dict[str, Any]], program: str, known: Facts, site: Site) -> list[str]:
    """The versions of ``program``'s argument lists that the incident's ranges cover, newest first;
    the manual's release (for SGLang's own lists; else the newest list) where the range is unknown."""
    from opsmanual.text.versions import version_key

    lists = known.options.get(program) or {}
    product = LIST_PRODUCT[program]
    mine = [r for r in ranges if r.get("product") == product]
    covered: set[str | None] = set()
    if not mine or any(r.get("unknown") or r.get("unaffected") for r in mine):
        newest = max(lists, key=version_key) if lists else None
        covered.add(site.version if site.version in lists and product == "sglang" else newest)
    for r in mine:
        if r.get("unknown") or r.get("unaffected"):
            continue
        lo = version_key(r.get("introduced", "0"))
        for v in lists:
            k = version_key(v)
            inside = (
                k >= lo
                and ("fixed" not in r or k < version_key(r["fixed"]))
                and ("last_affected" not in r or k <= version_key(r["last_affected"]))
            )
            if inside:
                covered.add(v)
    return sorted((v for v in covered if v is not None), key=version_key, reverse=True)


def _number(value: Any) -> float:
    """A bound as a number: compute capabilities are written as text ("8.9")."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _range_problems(ranges: list[Any], line: LineOf, known: Facts) -> list[tuple[int | None, str]]:
    """Every release a range names is a release of its product, and a range never runs backwards."""
    from opsmanual.text.versions import compare

    problems: list[tuple[int | None, str]] = []
    for k, r in enumerate(ranges):
        product = r.get("product")
        released = known.versions(product)
        named: list[tuple[str, Any]] = [
            (key, r[key]) for key in ("introduced", "fixed", "last_affected") if key in r and r[key] != "0"
        ]
        named += [("seen", v) for v in r.get("seen") or ()]
        for key, version in named:
            if not released:
                problems.append(
                    (
                        line("exposure", "versions", k, key),
                        f"exposure.versions[{k}].{key}: data/releases.yaml lists no {product} releases, so "
                        f"{version} cannot be checked; add the product's releases there",
                    )
                )
                break
            if not any(compare(version, v) == 0 for v in released):
                problems.append(
                    (
                        line("exposure", "versions", k, key),
                        f"exposure.versions[{k}].{key}: {product} has no release {version} "
                        f"(data/releases.yaml lists {released[-1]} to {released[0]})",
                    )
                )
        start = r.get("introduced", "0")
        for key in ("fixed", "last_affected"):
            if (
                key in r
                and start != "0"
                and released
                and (compare(start, r[key]) > 0 or (key == "fixed" and compare(start, r[key]) == 0))
            ):
                problems.append(
                    (
                        line("exposure", "versions", k, key),
                        f"exposure.versions[{k}]: introduced {start} is not before {key} {r[key]}, so the "
                        "range holds no release; swap them or correct one",
                    )
                )
    return problems


def _contradictions(cond: Any, path: list[str | int], line: LineOf) -> list[tuple[int | None, str]]:
    """Tests of one ``all`` that no command can meet together: a flag both given and not given, two
    different values, a minimum above a maximum, two programs at once."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return []
    ((key, value),) = cond.items()
    problems: list[tuple[int | None, str]] = []
    if key in ("all", "any") and isinstance(value, list):
        for k, child in enumerate(value):
            problems += _contradictions(child, [*path, key, k], line)
    elif key == "not":
        problems += _contradictions(value, [*path, key], line)
    if key != "all" or not isinstance(value, list):
        return problems
    programs = [(k, c["program"]) for k, c in enumerate(value) if isinstance(c, dict) and "program" in c]
    if len({p for _, p in programs}) > 1:
        k = programs[1][0]
        problems.append(
            (
                line(*path, "all", k),
                f"{validate.field_name([*path, 'all', k])}: a command is one program, "
                f"not both {programs[0][1]} and {programs[1][1]}; use any: for either",
            )
        )
    tests: dict[tuple[str, str, str | None], list[tuple[int, dict[str, Any]]]] = {}
    for k, c in enumerate(value):
        if isinstance(c, dict) and len(c) == 1:
            ((kind, test),) = c.items()
            if kind in ("flag", "env") and isinstance(test, dict):
                tests.setdefault((kind, test.get("program", "sglang"), test.get("name")), []).append((k, test))
    for (_kind, _, name), found in tests.items():
        if len(found) < 2:
            continue
        merged: dict[str, list[Any]] = {}
        for _, test in found:
            for op in ("present", "absent", "equals", "min", "max"):
                if op in test:
                    merged.setdefault(op, []).append(test[op])
            if "in" in test:
                merged.setdefault("in", []).append([str(v) for v in test["in"]])
        equals = {str(v) for v in merged.get("equals", [])}
        lo = max((_number(v) for v in merged.get("min", [])), default=None)
        hi = min((_number(v) for v in merged.get("max", [])), default=None)
        why = None
        if "present" in merged and "absent" in merged:
            why = "both given and not given"
        elif len(equals) > 1:
            why = f"equal to {' and to '.join(sorted(equals))} at once"
        elif lo is not None and hi is not None and lo > hi:
            why = f"at least {lo:g} and at most {hi:g}"
        elif equals and any(next(iter(equals)) not in allowed for allowed in merged.get("in", [])):
            why = f"equal to {next(iter(equals))} and one of values that leave it out"
        if why:
            k = found[-1][0]
            problems.append(
                (
                    line(*path, "all", k),
                    f"{validate.field_name([*path, 'all', k])}: `{name}` would have to be "
                    f"{why}: no command meets this all:",
                )
            )
    return problems


_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_TYPE_WORDS = {"int": "an integer", "float": "a number", "bool": "true or false (it is given or not)"}


def _can_equal(want: Any, kind: str) -> bool:
    """Whether a condition's ``equals``/``in`` value can ever equal a value the command parser reads for
    a flag of type ``kind`` (opsmanual/engines/exposure.py's _equals: numbers as numbers, else the
    text fmt_value writes): `1:20` (YAML 1.1's 80) is text that no integer flag's value ever is."""
    if kind == "int":
        if isinstance(want, bool):
            return False
        if isinstance(want, (int, float)):
            return float(want).is_integer()
        return (
            isinstance(want, str)
            and want.lstrip("-").isascii()
            and want.lstrip("-").isdigit()
            and str(int(want)) == want
        )
    if kind == "float":
        if isinstance(want, bool):
            return False
        return isinstance(want, (int, float)) or (isinstance(want, str) and _FLOAT_TEXT.fullmatch(want) is not None)
    if kind == "bool":
        return isinstance(want, bool) or want in ("true", "false")
    return True  # text, JSON: any value the YAML holds can be written on the command line


def _type_problems(
    wanted: list[Any], args: dict[str, Any], name: str, where: int | None, lead: str
) -> list[tuple[int | None, str]]:
    """A value no release the range covers could ever read for the flag, given the flag's type there."""
    kinds = {v: a.get("type") for v, a in args.items()}
    if not kinds or not all(k in _TYPE_WORDS for k in kinds.values()):
        return []
    for want in wanted:
        if not any(_can_equal(want, k) for k in kinds.values()):
            kind = next(iter(kinds.values()))
            shown = f"`{want}` ({'text' if isinstance(want, str) else type(want).__name__})"
            return [
                (
                    where,
                    f"{lead}{shown} can never equal `{name}`, which takes {_TYPE_WORDS[kind]} at "
                    f"{', '.join(kinds)}: no command meets this condition",
                )
            ]
    return []


def _policy_problems(
    policies: Any, ranges: list[Any], known: Facts, site: Site, line: LineOf, path: list[str | int], lead: str
) -> list[tuple[int | None, str]]:
    """Every router policy a ``deployment: {router_policy: [...]}`` test names is one the router's
    `--policy` takes at a release the range covers (exact names: never `__proto__` or `toString`)."""
    if not isinstance(policies, list):
        return []
    versions = _covered(ranges, "sglang-router", known, site)
    choices: dict[str, list[str]] = {}
    for v in versions:
        arg = known.argument("sglang-router", v, "--policy")
        if arg is not None and arg.get("choices"):
            choices[v] = [str(c) for c in arg["choices"]]
    if not choices:
        return []
    for k, policy in enumerate(policies):
        if not any(str(policy) == c for listed in choices.values() for c in listed):
            v = next(iter(choices))
            return [
                (
                    line(*path, "router_policy", k),
                    f"{lead}router_policy: `{policy}` is not a policy the router's `--policy` takes at "
                    f"{', '.join(choices)}; at {v} it takes {', '.join(f'`{c}`' for c in choices[v])}",
                )
            ]
    return []


def _exposure_problems(inc: Incident, line: LineOf, known: Facts, site: Site) -> list[tuple[int | None, str]]:
    """Every flag a condition names exists at a version the incident's range covers, and every GPU,
    architecture and model family it names is in data/gpus.yaml or data/models.yaml."""
    exposure = inc.exposure or {}
    if "when" not in exposure:
        return []
    problems = _range_problems(exposure.get("versions") or [], line, known)
    if problems:  # the releases the range covers are what the flags are checked at
        return problems
    problems += _contradictions(exposure["when"], ["exposure", "when"], line)
    ranges = exposure.get("versions") or []
    for key, value, path in _leaves(exposure["when"], ["exposure", "when"]):
        where, lead = line(*path), validate.field_name(path) + ": "
        if key in ("gpu",) and isinstance(value, dict):
            for test, bound in value.items():
                if (
                    isinstance(bound, dict)
                    and "min" in bound
                    and "max" in bound
                    and _number(bound["min"]) > _number(bound["max"])
                ):
                    problems.append(
                        (
                            line(*path, test),
                            f"{lead}{test}: min {bound['min']} is above max {bound['max']}, so no GPU can meet it",
                        )
                    )
        if key == "flag":
            program = FLAG_LIST[value.get("program", "sglang")]
            versions = _covered(ranges, program, known, site)
            for test in ("equals", "in"):
                if test not in value:
                    continue
                wanted = [value[test]] if test == "equals" else value[test]
                # a value must be one the flag takes at some release the range covers (a later
                # release may add choices, such as lower-case spellings, or drop the fixed list)
                args: dict[str, Any] = {v: known.argument(program, v, value["name"]) for v in versions}
                args = {v: a for v, a in args.items() if a is not None}
                lists: Mapping[str, Collection[str]] = {
                    v: [str(c) for c in a.get("choices") or ()] for v, a in args.items()
                }
                if args and all(lists.values()):
                    odd = next((w for w in wanted if not any(str(w) in c for c in lists.values())), None)
                    if odd is not None:
                        v = next(iter(lists))
                        problems.append(
                            (
                                line(*path, test),
                                f"{lead}`{odd}` is not a value `{value['name']}` takes "
                                f"at {', '.join(lists)}; at {v} it takes "
                                f"{', '.join(f'`{c}`' for c in lists[v])}",
                            )
                        )
                if not (args and all(lists.values())):  # no fixed list of values: the flag's type decides
                    problems += _type_problems(wanted, args, value["name"], line(*path, test), lead)
            label = LIST_LABEL[program]
            if not versions:
                problems.append(
                    (
                        where,
                        f"{lead}no argument list of {label} falls in the incident's version range; "
                        "generate one with tools/gen_args.py, or correct the range",
                    )
                )
                continue
            name = value["name"]
            lists = known.options[program]
            if any(name in lists[v] for v in versions):
                continue
            from opsmanual.text.versions import version_key

            elsewhere = sorted((v for v in lists if name in lists[v]), key=version_key)
            import difflib

            near = difflib.get_close_matches(name, sorted(set().union(*(lists[v] for v in versions))), n=3)
            message = (
                f"{lead}`{name}` is not {AN_ARGUMENT[program]} at {', '.join(versions)}, the release(s) "
                "the incident's version range covers"
            )
            if elsewhere:
                message += f" (it is one at {', '.join(elsewhere)})"
            elif near:
                message += f"; did you mean {', '.join(f'`{n}`' for n in near)}?"
            problems.append((where, message))
        elif key == "deployment" and isinstance(value, dict) and "router_policy" in value:
            problems += _policy_problems(value["router_policy"], ranges, known, site, line, path, lead)
        elif key == "gpu" and isinstance(value, dict):
            for field_name, have, what in (
                ("name", known.gpus, "GPU id"),
                ("architecture", known.architectures, "architecture"),
            ):
                for k, item in enumerate(value.get(field_name) or []):
                    if item not in have:
                        problems.append(
                            (line(*path, field_name, k), f"{lead}`{item}` is not a {what} in data/gpus.yaml")
                        )
        elif key == "model" and isinstance(value, dict):
            for k, item in enumerate(value.get("family") or []):
                if item not in known.families:
                    problems.append(
                        (line(*path, "family", k), f"{lead}`{item}` is not a model family in data/models.yaml")
                    )
    return problems


def load(
    path: Path, site: Site, *, shown: str | None = None, today: date | None = None, data_dir: Path | None = None
) -> tuple[Incident, ...]:
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
    names_seen: set[str] = set()
    sound: list[tuple[Incident, LineOf]] = []  # (incident, its line function) whose patterns passed _pattern_problems
    known = facts(data_dir or ROOT / "data")
    for index, raw in enumerate(data):
        if index in grouped:
            continue
        line = cast(int, line_of(data, [index]))  # every item of a parsed list has its line
        try:
            inc = build(raw, line)
        except ValueError as err:  # a well-formed but impossible date
            problems.append(
                Problem(
                    shown,
                    line_of(data, [index, "checked"]),
                    raw["id"],
                    f"checked: {raw['checked']!r} is not a real date ({err})",
                )
            )
            continue
        if inc.id in first_line:
            problems.append(Problem(shown, line, inc.id, f"duplicate id (first used at line {first_line[inc.id]})"))
            continue
        first_line[inc.id] = line
        same = unicodedata.normalize("NFKC", inc.name).casefold()  # names that read alike are the same name
        if same in first_name:
            problems.append(
                Problem(
                    shown,
                    line,
                    inc.id,
                    f"duplicate name {inc.name!r} (also incident {first_name[same]}"
                    f"{'' if inc.name in names_seen else ', written with other code points'})",
                )
            )
        first_name.setdefault(same, inc.id)
        names_seen.add(inc.name)
        if inc.checked > today:
            problems.append(
                Problem(shown, line_of(data, [index, "checked"]), inc.id, f"checked: {inc.checked} is in the future")
            )
        for k, number in enumerate(inc.sections):
            if number not in site.sections:
                problems.append(
                    Problem(
                        shown,
                        line_of(data, [index, "sections", k]),
                        inc.id,
                        f"sections: {number} has no page; the manual's sections are "
                        f"{site.parts[0].sections[0].number} to {site.parts[-1].sections[-1].number} "
                        f"as listed in data/manual.yaml",
                    )
                )
        where: LineOf = lambda *p, i=index: line_of(data, [i, *p])
        problems.extend(_github_problems(inc, shown, where))
        pattern_problems = _pattern_problems(inc, where)
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in pattern_problems)
        if inc.log_patterns and not pattern_problems:
            sound.append((inc, where))
            inc.lines.update(
                {
                    (f, k): where(f, k)
                    for f, items in (("log_patterns", inc.log_patterns), ("log_examples", inc.log_examples))
                    for k in range(len(items))
                }
            )
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in _status_problems(inc, where))
        problems.extend(Problem(shown, where("id"), inc.id, msg) for msg in _id_problems(inc, site))
        problems.extend(Problem(shown, ln, inc.id, msg) for ln, msg in _exposure_problems(inc, where, known, site))
        incidents.append(inc)
    problems.extend(_sharing_problems(sound, shown))
    if problems:
        raise ManualError(problems)
    return tuple(incidents)


_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


REDIRECTS_SCHEMA = ROOT / "data" / "redirects.schema.json"


def load_redirects(path: Path, incidents: Iterable[Incident], *, shown: str = "data/redirects.yaml") -> dict[str, str]:
    """Old id -> current id, for incidents that were merged or renamed."""
    data = read(path, shown)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ManualError([Problem(shown, 1, None, "expected a mapping of old id: new id")])
    validate.check(data, REDIRECTS_SCHEMA, shown)
    current = {i.id for i in incidents}
    problems: list[Problem] = []
    for old, new in data.items():
        line = cast(LineDict, data).key_lines.get(old)
        if old in current:
            problems.append(Problem(shown, line, old, "is still an incident; only an id that is gone redirects"))
        elif new not in current:
            problems.append(Problem(shown, line, old, f"redirects to {new!r}, which is not an incident"))
    if problems:
        raise ManualError(problems)
    return dict(data)


def published_ids(path: Path, shown: str = "data/published-ids.txt") -> list[str]:
    """The ids listed in data/published-ids.txt, in order (a leading byte-order mark is dropped)."""
    from opsmanual.data.yamlfile import read_bytes

    if not path.exists():
        raise ManualError(
            [
                Problem(
                    shown,
                    None,
                    None,
                    "the file is missing; it lists every incident id ever "
                    "published, one per line, and an id never leaves it",
                )
            ]
        )
    text = decode(read_bytes(path, shown), shown)
    ids: list[str] = []
    problems: list[Problem] = []
    for number, line in enumerate(text.splitlines(), 1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        if not _ID.match(entry):
            problems.append(
                Problem(
                    shown,
                    number,
                    None,
                    f"{entry!r} is not an id (lowercase letters and digits joined by single hyphens, one per line)",
                )
            )
        ids.append(entry)
    if problems:
        raise ManualError(problems)
    return ids


def lost_ids(published: list[str], incidents: Iterable[Incident], redirects: dict[str, str]) -> list[str]:
    """Published ids that are neither an incident nor redirected: links to them would break."""
    current = {i.id for i in incidents}
    return [i for i in published if i not in current and i not in redirects]


SYNONYMS_SCHEMA = ROOT / "data" / "synonyms.schema.json"


def load_synonyms(path: Path, shown: str = "data/synonyms.yaml") -> tuple[dict[str, Any], ...]:
    """The finder's synonym groups. A term belongs to one group, unless it means two things: then
    every group that holds it lists it under ``shared``, and the finder looks for both meanings."""
    data = read(path, shown)
    validate.check(data, SYNONYMS_SCHEMA, shown)
    from opsmanual.text.words import fold

    def key(term: str) -> str:
        return " ".join(fold(term).split())

    shared = [{key(t) for t in g.get("shared", ())} for g in data]
    holders: dict[str, list[int]] = {}  # term -> the groups it stands in, in file order
    for k, group in enumerate(data):
        for term in group["terms"]:
            places = holders.setdefault(key(term), [])
            if not places or places[-1] != k:
                places.append(k)
    problems: list[Problem] = []
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
            problems.append(
                Problem(
                    shown,
                    line_of(data, [k, "terms", j]),
                    None,
                    f"{term!r} is already in the group at line {line_of(data, [first])}; "
                    "a term belongs to one group, unless it means two things: then list it "
                    "under shared in both groups",
                )
            )
    if problems:
        raise ManualError(problems)
    return tuple(
        {
            field: (list(value) if isinstance(value, list) else value)
            for field, value in g.items()
            if field in ("terms", "shared", "note")
        }
        for g in data
    )


GUIDANCE_SCHEMA = ROOT / "data" / "guidance.schema.json"


def load_guidance(
    path: Path, site: Site, incidents: Iterable[Incident], *, shown: str = "data/guidance.yaml"
) -> tuple[Guidance, ...]:
    """The errors that many incidents share, checked: patterns as strict as the incidents' own, each
    matching an example, a section that exists, and related incidents that exist."""
    from opsmanual.data.model import build_guidance

    data = read(path, shown)
    if data is None:
        raise ManualError([Problem(shown, 1, None, "the file is empty; it lists the errors many incidents share")])
    validate.check(data, GUIDANCE_SCHEMA, shown)
    known = {i.id for i in incidents}
    problems: list[Problem] = []
    entries: list[Guidance] = []
    seen: dict[str, int | None] = {}
    for index, raw in enumerate(data):
        where: LineOf = lambda *p, i=index: line_of(data, [i, *p])
        entry = build_guidance(raw, cast(int, where()))  # every item of a parsed list has its line
        if entry.id in seen or entry.id in known:
            problems.append(
                Problem(
                    shown,
                    where("id"),
                    None,
                    f"{entry.id}: the id is already used "
                    f"({'by the entry at line ' + str(seen[entry.id]) if entry.id in seen else 'by an incident'})",
                )
            )
        seen.setdefault(entry.id, where())
        for line, message in pattern_problems(entry.lines, entry.examples, where, fields=("lines", "examples")):
            problems.append(Problem(shown, line, None, f"{entry.id}: {message}"))
        phase_lines = [p.when for p in entry.phases]
        for line, message in pattern_problems(
            phase_lines,
            (),
            lambda _f, k, i=index: line_of(data, [i, "phases", k, "when"]),
            fields=("phases", "examples"),
            check_examples=False,
        ):
            problems.append(Problem(shown, line, None, f"{entry.id}: {message.replace('phases[', 'phases[', 1)}"))
        if entry.section not in site.sections:
            problems.append(Problem(shown, where("section"), None, f"{entry.id}: section {entry.section} has no page"))
        for k, ident in enumerate(entry.related):
            if ident not in known:
                problems.append(
                    Problem(
                        shown,
                        where("related", k),
                        None,
                        f"{entry.id}: related: {ident!r} is not an incident of data/incidents.yaml",
                    )
                )
        entries.append(entry)
    if problems:
        raise ManualError(problems)
    return tuple(entries)


@dataclass(frozen=True)
class Manual:
    """Everything one build knows: where things live, the incidents, and the old ids that redirect."""

    site: Site
    incidents: tuple[Incident, ...]
    redirects: dict[str, str]
    synonyms: tuple[dict[str, Any], ...] = ()
    facts: Facts | None = None  # the GPUs, models, releases and argument lists, validated
    guidance: tuple[Guidance, ...] = ()  # the errors many incidents share (data/guidance.yaml)
    metrics: Metrics | None = None  # the metrics and alert rules (data/metrics.yaml: opsmanual.data.metrics.Metrics)

    @cached_property
    def by_id(self) -> dict[str, Incident]:
        return {i.id: i for i in self.incidents}

    @cached_property
    def ordered(self) -> tuple[Incident, ...]:
        """The incidents in the manual's order: by the section that first tells them, then as listed."""
        key = lambda p: (tuple(int(x) for x in p[1].sections[0].split(".")), p[0])
        return tuple(inc for _, inc in sorted(enumerate(self.incidents), key=key))


def load_manual(project: Path, docs_dir: Path | None = None) -> Manual:
    """Load and check the whole manual's data under ``project``; raise ManualError on any problem."""
    data = project / "data"
    site = load_site(data / "manual.yaml", docs_dir or project / "docs")
    incidents = load(data / "incidents.yaml", site, shown="data/incidents.yaml", data_dir=data)
    redirects = load_redirects(data / "redirects.yaml", incidents)
    listed = published_ids(data / "published-ids.txt")
    lost = lost_ids(listed, incidents, redirects)
    if lost:
        raise ManualError(
            [
                Problem(
                    "data/published-ids.txt",
                    None,
                    i,
                    "was published but is no longer an incident; "
                    "add it to data/redirects.yaml with the id that now tells it",
                )
                for i in lost
            ]
        )
    from opsmanual.data.history import ever_published

    history = ever_published(project) or {}
    gone = [i for i in lost_ids(list(history), incidents, redirects) if i not in listed]
    if gone:
        raise ManualError(
            [
                Problem(
                    "data/published-ids.txt",
                    None,
                    i,
                    f"was published (added in commit {history[i]}) and has left both this file and "
                    "the incidents; an id never leaves: put it back here, and in data/redirects.yaml "
                    "with the id that now tells it",
                )
                for i in gone
            ]
        )
    from opsmanual.data.metrics import load_metrics

    return Manual(
        site,
        incidents,
        redirects,
        load_synonyms(data / "synonyms.yaml"),
        facts(data),
        load_guidance(data / "guidance.yaml", site, incidents),
        load_metrics(data / "metrics.yaml", incidents),
    )
