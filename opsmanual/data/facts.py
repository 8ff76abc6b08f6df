"""The facts exposure conditions are decided on (data/gpus.yaml, data/models.yaml,
data/releases.yaml and every program's argument lists, from data/<list>-args-<version>.json and
data/args-history/), read and validated once per state of the files."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from opsmanual.data import programs, validate
from opsmanual.data.errors import ManualError, Problem
from opsmanual.data.schema import ROOT
from opsmanual.data.yamlfile import line_of, read

# The argument lists (data/<list>-args-<version>.json): opsmanual/data/programs.py.
ARG_LISTS = tuple(
    sorted(programs.ARG_LISTS, key=len, reverse=True)
)  # longest first: a file name is matched on its start
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
    releases: dict[str, dict[str, Any]]  # product -> {"source", "listed", "versions" (newest first), "pins"}
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

    def pins(self, product: str, version: str) -> tuple[str, ...]:
        """The requirements ``product``'s release ``version`` pins to one version (``name==version``), as
        data/releases.yaml lists them; empty when it lists none for that release."""
        pinned = ((self.releases.get(product) or {}).get("pins") or {}).get(version) or {}
        return tuple(pinned.get("requires") or ())

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


def _fact_files(data_dir: Path, problems: list[Problem]) -> dict[str, Any]:
    """data/gpus.yaml, data/models.yaml and data/releases.yaml, each validated by its schema (the
    schema beside it, else the project's); a file with problems is left out and they are added."""
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
    return content


def _gpu_name_problems(gpus: Any) -> list[Problem]:
    """A GPU's name or alias must name that GPU only (compared folded)."""
    problems = []
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
    return problems


def _release_problems(releases: Any) -> list[Problem]:
    """Every release data/releases.yaml lists is a release number, and every release with pins is listed."""
    from opsmanual.text.versions import version_parts

    problems = []
    for product, entry in releases.items():
        listed = entry.get("versions") or ()

        def at(path: list[Any], message: str, product: str = product) -> Problem:
            return Problem("data/releases.yaml", line_of(releases, [product, *path]), None, f"{product}: {message}")

        problems += [
            at(["versions", j], f"{v!r} is not a release number")
            for j, v in enumerate(listed)
            if version_parts(str(v)) is None
        ]
        problems += [
            at(["pins", v], f"pins of {v!r}, a release its versions do not list")
            for v in entry.get("pins") or {}
            if v not in listed
        ]
    return problems


def _arg_list(path: Path, problems: list[Problem]) -> tuple[str, str, dict[str, Any]] | None:
    """(list name, version, the list) of one data/<list>-args-<version>.json, or None (and its
    problem added) when its name or content is not one tools/gen_args.py writes."""
    from opsmanual.data.yamlfile import read_json

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
        return None
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
        return None
    except (KeyError, TypeError) as err:
        problems.append(
            Problem(
                shown,
                None,
                None,
                f"not an argument list that tools/gen_args.py writes ({err!r}); generate it again",
            )
        )
        return None
    return program, version, listed


def _history(path: Path, problems: list[Problem]) -> tuple[str, dict[str, dict[str, Any]]] | None:
    """(list name, each release's list) of one data/args-history/<list>.json, or None (and its
    problem added)."""
    from opsmanual.data.yamlfile import read_json

    shown = f"data/{HISTORY_DIR}/{path.name}"
    try:
        history = read_json(path, shown)
        validate.check(history, ROOT / "data" / "args-history.schema.json", shown)
        program = history["program"]
        if path.stem != program:
            raise ManualError([Problem(shown, None, None, f"the file of {program}'s lists must be {program}.json")])
        return program, unfold_history(history)
    except ManualError as err:
        problems.extend(err.problems)
    except KeyError as err:
        problems.append(Problem(shown, None, None, f"{err.args[0]}; generate it again with tools/args_history.py"))
    return None


def _arglists(
    data_dir: Path, problems: list[Problem]
) -> tuple[dict[str, dict[str, dict[str, Any]]], dict[str, frozenset[str]]]:
    """Every list by name and version (the lists of their own in data/, then the histories' releases,
    which must agree with them), and the versions with a file of their own."""
    arglists: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(data_dir.glob("*-args-*.json")):
        found = _arg_list(path, problems)
        if found is not None:
            program, version, listed = found
            arglists.setdefault(program, {})[version] = listed
    bundled = {program: frozenset(lists) for program, lists in arglists.items()}
    for path in sorted((data_dir / HISTORY_DIR).glob("*.json")):
        unfolded = _history(path, problems)
        if unfolded is None:
            continue
        program, releases = unfolded
        mine = arglists.setdefault(program, {})
        for version, listed in releases.items():
            if version in mine and mine[version]["arguments"] != listed["arguments"]:
                problems.append(
                    Problem(
                        f"data/{program}-args-{version}.json",
                        None,
                        None,
                        f"its arguments differ from {version}'s in data/{HISTORY_DIR}/{path.name}; "
                        "generate both again from the release",
                    )
                )
            mine.setdefault(version, listed)
    return arglists, bundled


@lru_cache(maxsize=8)
def _facts(data_dir: Path, stamp: tuple[tuple[str, int, int], ...]) -> Facts:
    from opsmanual.data.model import plain_data

    problems: list[Problem] = []
    content = _fact_files(data_dir, problems)
    gpus = content.get("gpus.yaml") or []
    problems += _gpu_name_problems(gpus)
    releases = content.get("releases.yaml") or {}
    problems += _release_problems(releases)
    arglists, bundled = _arglists(data_dir, problems)
    if problems:
        raise ManualError(problems)
    return Facts(
        gpu_entries=tuple(plain_data(g) for g in gpus),
        models=tuple(plain_data(m) for m in content.get("models.yaml") or []),
        releases=plain_data(releases),
        arglists=arglists,
        bundled=bundled,
    )
