"""Find each configuration incident's affected releases from the code of the releases themselves.

An incident's mechanism is tied to code: "the function that caps the running requests by the
Mamba state cache exists and logs nothing", "the ZeroMQ socket is bound without IPv6". This tool
holds those tests as data (``tools/range_predicates.yaml``), evaluates each on the published
releases of its product, and writes the range it finds, with its evidence, into
``data/incidents.yaml`` (``exposure.versions``). Nothing of a release is imported or run: its
files are read out of the wheel (or, for old releases, the source archive) as text.

Run it from the project root; it needs the wheels, so maintainers run it, never the site::

    .venv/bin/python -m tools.bisect_ranges --wheels /work/wheels            # every predicate
    .venv/bin/python -m tools.bisect_ranges --wheels /work/wheels sglang-19953
    .venv/bin/python -m tools.bisect_ranges --wheels /work/wheels --verify   # every release, not a bisection
    .venv/bin/python -m tools.bisect_ranges --wheels /work/wheels --dry-run  # print, write nothing
    .venv/bin/python -m tools.bisect_ranges --note note.md                   # the ranges as a Markdown list

A release that is not in ``--wheels`` is fetched with ``pip download <package>==<version>
--no-deps -d <wheels>``. The releases come from ``data/releases.yaml`` (refresh it first to
include a new release). Output is deterministic: the same wheels give the same bytes.

sglang-router's wheels hold compiled Rust, so its predicates read the source archive (sdist,
``sglang_router-<version>.tar.gz``) instead, from ``--router-sdists`` (default
``<wheels>/router-sdists``). A missing one is downloaded as the file itself, from the URL that
PyPI's JSON API (``https://pypi.org/pypi/sglang-router/<version>/json``) lists for the release's
sdist, and checked against the SHA-256 listed there; ``pip download`` would try to build it. Its
files are named from the archive's top folder, as in the repository's ``sgl-router/`` folder:
``src/routers/pd_router.rs``, ``py_src/sglang_router/launch_router.py``.

The search
----------
For each predicate the releases of its product from ``since`` (the earliest relevant release)
to the newest are sorted as PEP 440 orders them. The predicate must hold at ``anchor`` (a
release where the incident was seen; the newest release when not given). It is taken to be
false before the change that introduced the mechanism and true until the change that removed
it, so two binary searches find the boundaries: the first release where it holds in
``since..anchor`` and the first release after ``anchor`` where it no longer holds. Each
boundary is verified (the release before ``introduced`` does not hold, ``introduced`` does;
the release before ``fixed`` holds, ``fixed`` does not). ``--verify`` evaluates every release
instead and refuses a predicate that flips more than twice.

The range written is ``introduced`` (the first release where the predicate holds) and
``fixed`` (the first later release where it no longer holds), or ``last_affected`` (the newest
release listed, when it still holds there). When the predicate holds at ``since`` and ``since``
is not the product's first release, the tool refuses: start earlier.

The predicates file
-------------------
::

    - incident: sglang-19953          # the incident's id
      product: sglang                 # sglang | sglang-router (miles only with reason)
      kind: bug                       # bug: the predicate is the cause (or the missing fix) the story
                                      # names, with the incident's own conditions, so the range is the
                                      # bug's; feature: it only shows that the feature the failure needs
                                      # exists, and the failure needs more than the release
      since: "0.4.0"                  # earliest release searched
      anchor: "0.5.9"                 # optional: a release where it holds
      description: >-                 # reader words: what holds in the affected releases
        The scheduler's ZeroMQ sockets are bound with IPv6 off
      file: sglang/srt/utils.py       # the file the evidence names (a glob; * does not cross /)
      holds:                          # every test must pass
        - match: 'def get_zmq_socket'            # a Python regular expression (re.M) found in `file`
        - no_match: 'IPV6'                       # ... not found in `file`
        - {file: "sglang/srt/**/x.py", match: '...'}   # another file (** crosses /)

    - incident: capture-l4-tp2-shared-gpu
      product: sglang
      reason: Another user's processes held memory on the second GPU; no release's code decides it

An entry with ``reason`` keeps the range unknown (``seen`` releases already in the data are
kept) and writes the reason, one line for readers. With ``unaffected: true`` as well, the code at
fault is known to be in no published release (it lived only between two releases): the range is
written as ``unaffected: true`` with the reason, which says where the code was. Regular expressions are run by Python's
``re`` on the file's text (``(?s)`` lets ``.`` cross lines); they are data read by maintainers,
never incident text from readers.

The evidence written
--------------------
::

    versions:
      - product: sglang
        kind: bug
        introduced: "0.5.4"
        fixed: "0.5.10"
        evidence:
          predicate: The scheduler's ZeroMQ sockets are bound with IPv6 off
          file: sglang/srt/utils.py
          line: 1234                  # the first `match` in `file` at holds_last
          holds_first: "0.5.4"
          holds_last: "0.5.9"
          checked: ["0.5.3", "0.5.4", ...]   # every release evaluated, oldest first
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
PREDICATES = Path(__file__).resolve().parent / "range_predicates.yaml"
PACKAGES = {"sglang": "sglang", "sglang-router": "sglang-router"}
SDIST_ONLY = {"sglang-router"}  # products whose wheels hold compiled code: read the source archive
KEYS = {"incident", "product", "kind", "since", "anchor", "description", "file", "holds", "reason", "unaffected"}
KINDS = ("bug", "feature")  # the predicate marks the bug and its fix | only that the feature it needs exists


class Refused(Exception):
    """A problem with one predicate or one file: reported as one line."""


def version_key(text: str):
    from opsmanual.text.versions import version_key as key

    return key(text)


# --------------------------------------------------------------------------- releases' files


class Release:
    """The text files of one release, read from its wheel or source archive."""

    def __init__(self, path: Path, package: str, whole: bool = False):
        """``whole``: a source archive named from its top folder (``src/...``), not from the package."""
        self.path = path
        self.files: dict[str, bytes | None] = {}
        self._reader: tuple[str, Any]  # ("zip", the ZipFile) or ("tar", the TarFile), set below
        top = package.replace("-", "_")
        if path.suffix == ".whl":
            archive = zipfile.ZipFile(path)
            self._reader = ("zip", archive)
            for name in archive.namelist():
                self.files[name] = None
        else:
            tar = tarfile.open(path)
            self._reader = ("tar", tar)
            self._members: dict[str, tarfile.TarInfo] = {}
            for member in tar.getmembers():
                if not member.isfile():
                    continue
                parts = member.name.split("/")
                if whole:
                    # sglang_router-0.1.9/src/routers/pd_router.rs: keep from below the top folder
                    if len(parts) > 1:
                        name = "/".join(parts[1:])
                        self.files.setdefault(name, None)
                        self._members.setdefault(name, member)
                    continue
                # sglang-0.4.0/sglang/... or sglang-0.1.3/python/sglang/...: keep from the package folder
                if top in parts[1:]:
                    name = "/".join(parts[parts.index(top, 1) :])
                    self.files.setdefault(name, None)
                    self._members.setdefault(name, member)

    def find(self, pattern: str) -> list[str]:
        rx = _glob(pattern)
        return sorted(n for n in self.files if rx.match(n))

    def text(self, name: str) -> str:
        data = self.files.get(name)
        if data is None:
            kind, archive = self._reader
            data = archive.read(name) if kind == "zip" else archive.extractfile(self._members[name]).read()
            self.files[name] = data
        return data.decode("utf-8", errors="replace")


def _glob(pattern: str) -> re.Pattern:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + r"\Z")


class Wheels:
    """Release archives in a folder, fetched when missing: wheels with pip, source archives of the
    SDIST_ONLY products straight from PyPI (never built)."""

    def __init__(self, folder: Path, fetch: bool = True, sdists: Path | None = None):
        self.folder = folder
        self.sdists = sdists if sdists is not None else folder / "router-sdists"
        self.fetch = fetch
        self.cache: dict[tuple[str, str], Release] = {}

    def _local(self, package: str, version: str, sdist_only: bool = False) -> Path | None:
        stem = package.replace("-", "_")
        if sdist_only:
            places = [(self.sdists, [f"{stem}-{version}.tar.gz", f"{package}-{version}.tar.gz"])]
        else:
            places = [
                (
                    self.folder,
                    [
                        f"{stem}-{version}-*.whl",
                        f"{package}-{version}-*.whl",
                        f"{stem}-{version}.tar.gz",
                        f"{package}-{version}.tar.gz",
                    ],
                )
            ]
        for folder, names in places:
            for name in names:
                found = sorted(folder.glob(name))
                if found:
                    return found[0]
        return None

    def _download_sdist(self, package: str, version: str) -> None:
        """The release's sdist as PyPI's JSON API lists it, checked against its SHA-256."""
        url = f"https://pypi.org/pypi/{package}/{version}/json"
        print(f"bisect_ranges: sdist of {package}=={version} from {url}", file=sys.stderr)
        try:
            with urllib.request.urlopen(url, timeout=60) as answer:
                listed = json.load(answer)
            files = [f for f in listed.get("urls") or [] if f.get("packagetype") == "sdist"]
            if not files:
                raise Refused(f"PyPI lists no source archive (sdist) of {package}=={version}")
            entry = files[0]
            with urllib.request.urlopen(entry["url"], timeout=300) as answer:
                data = answer.read()
        except (OSError, ValueError, KeyError) as err:
            raise Refused(f"could not download the sdist of {package}=={version} from PyPI ({err})") from None
        if hashlib.sha256(data).hexdigest() != (entry.get("digests") or {}).get("sha256"):
            raise Refused(f"the sdist of {package}=={version} does not match the SHA-256 PyPI lists")
        name = Path(entry["filename"]).name
        if not name.endswith(".tar.gz"):
            raise Refused(f"the sdist of {package}=={version} is {name}, not a .tar.gz")
        self.sdists.mkdir(parents=True, exist_ok=True)
        (self.sdists / name).write_bytes(data)

    def release(self, product: str, version: str) -> Release:
        key = (product, version)
        if key not in self.cache:
            package = PACKAGES[product]
            sdist_only = product in SDIST_ONLY
            path = self._local(package, version, sdist_only)
            if path is None and self.fetch:
                if sdist_only:
                    self._download_sdist(package, version)
                else:
                    self.folder.mkdir(parents=True, exist_ok=True)
                    print(f"bisect_ranges: pip download {package}=={version}", file=sys.stderr)
                    subprocess.run(
                        [
                            sys.executable,
                            "-m",
                            "pip",
                            "download",
                            f"{package}=={version}",
                            "--no-deps",
                            "--quiet",
                            "-d",
                            str(self.folder),
                        ],
                        check=False,
                        stdout=subprocess.DEVNULL,
                    )
                path = self._local(package, version, sdist_only)
            if path is None:
                where = self.sdists if sdist_only else self.folder
                how = "PyPI download" if sdist_only else "pip download"
                raise Refused(f"no archive of {package}=={version} in {where} ({how} failed?)")
            self.cache[key] = Release(path, package, whole=sdist_only)
        return self.cache[key]


# --------------------------------------------------------------------------- predicates


@dataclass
class Predicate:
    incident: str
    product: str
    kind: str | None = None
    since: str | None = None
    anchor: str | None = None
    description: str = ""
    file: str = ""
    holds: list = field(default_factory=list)
    reason: str | None = None
    unaffected: bool = False

    def evaluate(self, release: Release) -> bool:
        for test in self.holds:
            names = release.find(test.get("file", self.file))
            if "match" in test:
                rx = re.compile(test["match"], re.M)
                if not any(rx.search(release.text(n)) for n in names):
                    return False
            else:
                rx = re.compile(test["no_match"], re.M)
                if any(rx.search(release.text(n)) for n in names):
                    return False
        return True

    def where(self, release: Release) -> tuple[str, int | None]:
        """The evidence's file and the line of the first ``match`` in it."""
        names = release.find(self.file)
        for test in self.holds:
            if "match" in test and test.get("file", self.file) == self.file:
                rx = re.compile(test["match"], re.M)
                for n in names:
                    m = rx.search(release.text(n))
                    if m:
                        return n, release.text(n).count("\n", 0, m.start()) + 1
        return (names[0] if names else self.file), None


def load_predicates(path: Path = PREDICATES) -> list[Predicate]:
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise Refused(
            f"{shown}:{mark.line + 1 if mark else '?'}: not valid YAML ({getattr(err, 'problem', err)})"
        ) from None
    if not isinstance(entries, list):
        raise Refused(f"{shown}: the file must be a list of predicates")
    out: list[Predicate] = []
    seen: set[tuple[str, str]] = set()
    for k, entry in enumerate(entries):
        where = f"{shown}: entry {k + 1}"
        if not isinstance(entry, dict) or not {"incident", "product"} <= set(entry):
            raise Refused(f"{where}: an entry names incident and product")
        where += f" ({entry['incident']})"
        _check_entry(entry, where, seen)
        fields: dict[str, Any] = {k: (str(v) if k in ("since", "anchor") else v) for k, v in entry.items()}
        out.append(Predicate(**fields))
    return out


def _check_entry(entry: dict, where: str, seen: set[tuple[str, str]]) -> None:
    """Refuse an entry of predicates.yaml that is not one (``where`` names it); ``seen`` holds the
    (incident, product) pairs before it."""
    odd = set(entry) - KEYS
    if odd:
        raise Refused(f"{where}: unknown key(s) {', '.join(sorted(odd))}")
    if entry["product"] not in PACKAGES and not (entry["product"] == "miles" and "reason" in entry):
        raise Refused(
            f"{where}: product must be one of {', '.join(PACKAGES)} (miles only with reason: "
            "it publishes no releases to read)"
        )
    if (entry["incident"], entry["product"]) in seen:
        raise Refused(f"{where}: a second entry for the same incident and product")
    seen.add((entry["incident"], entry["product"]))
    if "unaffected" in entry:
        if "reason" not in entry:
            raise Refused(f"{where}: unaffected needs a reason (where the code at fault was)")
        if entry["unaffected"] is not True:
            raise Refused(f"{where}: unaffected is true or absent, not {entry['unaffected']!r}")
    if "reason" in entry:
        if set(entry) - {"incident", "product", "reason", "unaffected"} or not str(entry["reason"]).strip():
            raise Refused(f"{where}: an entry with reason has only incident, product, reason and unaffected")
        return
    missing = {"kind", "since", "description", "file", "holds"} - set(entry)
    if missing:
        raise Refused(f"{where}: missing {', '.join(sorted(missing))}")
    if entry["kind"] not in KINDS:
        raise Refused(f"{where}: kind must be one of {', '.join(KINDS)}, not {entry['kind']!r}")
    _check_holds(entry["holds"], where)


def _check_holds(holds: Any, where: str) -> None:
    """Refuse a predicate's ``holds`` that is not a list of match / no_match tests, one in ``file``."""
    if not isinstance(holds, list) or not holds:
        raise Refused(f"{where}: holds is a list of tests")
    for t, test in enumerate(holds):
        if (
            not isinstance(test, dict)
            or len({"match", "no_match"} & set(test)) != 1
            or set(test) - {"match", "no_match", "file"}
        ):
            raise Refused(f"{where}: holds[{t}] has one of match or no_match (and optionally file)")
        try:
            re.compile(test["match"] if "match" in test else test["no_match"])  # exactly one is there
        except re.error as err:
            raise Refused(f"{where}: holds[{t}]: not a regular expression ({err})") from None
    if not any("match" in t and "file" not in t for t in holds):
        raise Refused(f"{where}: one test must match in `file`, so the evidence names a line")


# --------------------------------------------------------------------------- the search


def releases_of(product: str) -> list[str]:
    """The product's releases, oldest first, as data/releases.yaml lists them."""
    listed = yaml.safe_load((DATA / "releases.yaml").read_text(encoding="utf-8"))
    versions = [str(v) for v in (listed.get(product) or {}).get("versions") or []]
    return sorted(versions, key=version_key)


def _verify_window(pred: Predicate, order: list[str], holds: Callable[[str], bool]) -> None:
    """Refuse a predicate that does not hold over one window of ``order`` (read at every release)."""
    values = [holds(v) for v in order]
    flips = sum(1 for a, b in itertools.pairwise(values) if a != b)
    if flips > 2 or (flips == 2 and values[0]):
        shown = " ".join(f"{v}:{'Y' if x else '-'}" for v, x in zip(order, values, strict=True))
        raise Refused(f"{pred.incident}: the predicate is not one window of releases: {shown}")


def _flip(order: list[str], lo: int, hi: int, holds: Callable[[str], bool], holds_at_hi: bool) -> int:
    """The first index after ``lo`` up to ``hi`` where ``holds`` turns to ``holds_at_hi``, by halving
    (it differs at ``lo`` and ``hi``)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(order[mid]) == holds_at_hi:
            hi = mid
        else:
            lo = mid
    return hi


def bisect(pred: Predicate, releases: list[str], wheels: Wheels, verify: bool = False) -> dict:
    """The range of ``pred`` over ``releases`` (oldest first) and its evidence."""
    if pred.since not in releases:
        raise Refused(f"{pred.incident}: since {pred.since} is not a {pred.product} release")
    order = releases[releases.index(pred.since) :]
    results: dict[str, bool] = {}

    def holds(v: str) -> bool:
        if v not in results:
            results[v] = pred.evaluate(wheels.release(pred.product, v))
        return results[v]

    if verify:
        _verify_window(pred, order, holds)
    anchor = pred.anchor or order[-1]
    if anchor not in order:
        raise Refused(f"{pred.incident}: anchor {anchor} is not a release from {pred.since} on")
    if not holds(anchor):
        raise Refused(f"{pred.incident}: the predicate does not hold at {anchor}; give an anchor where it does")
    a = order.index(anchor)
    # first release in order[0..a] that holds (false ... true)
    if holds(order[0]):
        if order[0] != releases[0]:
            raise Refused(f"{pred.incident}: the predicate already holds at since {order[0]}; start earlier")
        first = 0
    else:
        first = _flip(order, 0, a, holds, True)  # holds(order[0]) is false, holds(order[a]) is true
    # first release after the anchor that no longer holds (true ... false)
    end = None if holds(order[-1]) else _flip(order, a, len(order) - 1, holds, False)
    # the boundaries, verified
    if (first > 0 and (holds(order[first - 1]) or not holds(order[first]))) or (
        end is not None and (not holds(order[end - 1]) or holds(order[end]))
    ):
        raise Refused(f"{pred.incident}: a boundary did not verify; run with --verify")
    last = order[end - 1] if end is not None else order[-1]
    path, line = pred.where(wheels.release(pred.product, last))
    rng: dict = {"product": pred.product, "kind": pred.kind, "introduced": order[first]}
    if end is not None:
        rng["fixed"] = order[end]
    else:
        rng["last_affected"] = order[-1]
    evidence: dict[str, Any] = {"predicate": " ".join(pred.description.split()), "file": path}
    if line is not None:
        evidence["line"] = line
    evidence.update({"holds_first": order[first], "holds_last": last, "checked": sorted(results, key=version_key)})
    rng["evidence"] = evidence
    return rng


# --------------------------------------------------------------------------- writing the data


def _q(text: str) -> str:
    """A YAML scalar on one line, always double-quoted (versions stay text)."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def range_lines(rng: dict, indent: int) -> list[str]:
    pad = " " * indent
    lines = [f"{pad}- product: {rng['product']}"]
    inner = pad + "  "
    if rng.get("kind"):
        lines.append(f"{inner}kind: {rng['kind']}")
    for key in ("introduced", "fixed", "last_affected"):
        if key in rng:
            lines.append(f"{inner}{key}: {_q(rng[key])}")
    if rng.get("unknown"):
        lines.append(f"{inner}unknown: true")
        if rng.get("seen"):
            lines.append(f"{inner}seen: [{', '.join(_q(v) for v in rng['seen'])}]")
        lines.append(f"{inner}reason: {_q(rng['reason'])}")
    if rng.get("unaffected"):
        lines.append(f"{inner}unaffected: true")
        lines.append(f"{inner}reason: {_q(rng['reason'])}")
    ev = rng.get("evidence")
    if ev:
        lines.append(f"{inner}evidence:")
        for key in ("predicate", "file", "line", "holds_first", "holds_last"):
            if key in ev:
                value = ev[key] if key == "line" else _q(ev[key])
                lines.append(f"{inner}  {key}: {value}")
        lines.append(f"{inner}  checked: [{', '.join(_q(v) for v in ev['checked'])}]")
    return lines


def write_ranges(text: str, found: dict[tuple[str, str], dict]) -> str:
    """``text`` (data/incidents.yaml) with each (incident, product) range replaced by ``found``'s."""
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines) if ln.startswith("- id: ")]
    out_blocks = []
    done: set[tuple[str, str]] = set()
    bounds = [0, *starts, len(lines)]
    for b in range(len(bounds) - 1):
        block = lines[bounds[b] : bounds[b + 1]]
        if block and block[0].startswith("- id: "):
            ident = block[0][len("- id: ") :].strip()
            wanted = {p: r for (i, p), r in found.items() if i == ident}
            if wanted:
                block = _rewrite_versions(block, ident, wanted)
                done.update((ident, p) for p in wanted)
        out_blocks.extend(block)
    missing = set(found) - done
    if missing:
        raise Refused(
            "data/incidents.yaml: no configuration incident " + ", ".join(f"{i} ({p})" for i, p in sorted(missing))
        )
    return "\n".join(out_blocks)


def _rewrite_versions(block: list[str], ident: str, wanted: dict[str, dict]) -> list[str]:
    head = next((k for k, ln in enumerate(block) if ln.strip() == "versions:" and ln.startswith("    versions:")), None)
    if head is None:
        raise Refused(f"data/incidents.yaml: {ident} has no exposure.versions to write into")
    end = head + 1
    while end < len(block) and block[end].startswith("      "):
        end += 1
    items: list[list[str]] = []
    for ln in block[head + 1 : end]:
        if ln.startswith("      - "):
            items.append([ln])
        else:
            items[-1].append(ln)
    new_items = []
    written = set()
    for item in items:
        value = yaml.safe_load("\n".join(x[6:] for x in item))[0]
        product = value.get("product")
        if product in wanted:
            rng = dict(wanted[product])
            if rng.get("unknown") and value.get("seen"):
                rng["seen"] = value["seen"]
            new_items.append(range_lines(rng, 6))
            written.add(product)
        else:
            new_items.append(item)
    for product, rng in wanted.items():
        if product not in written:
            new_items.append(range_lines(rng, 6))
    return block[: head + 1] + [ln for item in new_items for ln in item] + block[end:]


def note(found: dict[tuple[str, str], dict]) -> str:
    """The ranges as a Markdown list, for a release note or a closing comment."""
    known = [(k, r) for k, r in sorted(found.items()) if r.get("evidence")]
    unknown = [(k, r) for k, r in sorted(found.items()) if r.get("unknown")]
    unaffected = [(k, r) for k, r in sorted(found.items()) if r.get("unaffected")]
    out = [
        "# Affected ranges from the release code\n",
        f"{len(known)} ranges found; {len(unknown)} left unknown; {len(unaffected)} in no published release.\n",
        "## Ranges found\n",
    ]
    for (ident, product), r in known:
        ev = r["evidence"]
        end = f"fixed {r['fixed']}" if "fixed" in r else f"last affected {r['last_affected']} (still holds)"
        out.append(
            f"- **{ident}** ({product}, {r['kind']}): introduced {r['introduced']}, {end}. "
            f"Predicate: {ev['predicate']}; "
            f"holds {ev['holds_first']} to {ev['holds_last']} in `{ev['file']}`"
            + (f" (line {ev['line']} at {ev['holds_last']})" if "line" in ev else "")
            + f"; releases checked: {', '.join(ev['checked'])}."
        )
    out.append("\n## Left unknown\n")
    for (ident, product), r in unknown:
        out.append(f"- **{ident}** ({product}): {r['reason']}")
    out.append("\n## In no published release\n")
    for (ident, product), r in unaffected:
        out.append(f"- **{ident}** ({product}): {r['reason']}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.bisect_ranges", description=__doc__.split("\n\n")[0])
    ap.add_argument("incidents", nargs="*", help="only these incident ids (default: every predicate)")
    ap.add_argument(
        "--wheels",
        type=Path,
        default=ROOT / ".wheels",
        help="folder of release archives (pip downloads missing ones into it)",
    )
    ap.add_argument(
        "--router-sdists",
        type=Path,
        help="folder of sglang-router source archives (default: "
        "<wheels>/router-sdists; missing ones are downloaded from PyPI)",
    )
    ap.add_argument("--predicates", type=Path, default=PREDICATES)
    ap.add_argument("--data", type=Path, default=DATA / "incidents.yaml")
    ap.add_argument("--verify", action="store_true", help="evaluate every release, not a bisection")
    ap.add_argument("--offline", action="store_true", help="never call pip; use only the archives in --wheels")
    ap.add_argument("--dry-run", action="store_true", help="print the ranges; write nothing")
    ap.add_argument("--note", type=Path, help="also write the ranges as a Markdown list to this file")
    args = ap.parse_args(argv)
    try:
        preds = load_predicates(args.predicates)
        if args.incidents:
            unknown_ids = set(args.incidents) - {p.incident for p in preds}
            if unknown_ids:
                raise Refused(f"no predicate for {', '.join(sorted(unknown_ids))}")
            preds = [p for p in preds if p.incident in args.incidents]
        wheels = Wheels(args.wheels, fetch=not args.offline, sdists=args.router_sdists)
        found: dict[tuple[str, str], dict] = {}
        failed = 0
        for pred in preds:
            if pred.reason:
                found[(pred.incident, pred.product)] = {
                    "product": pred.product,
                    "unaffected" if pred.unaffected else "unknown": True,
                    "reason": " ".join(str(pred.reason).split()),
                }
                continue
            try:
                rng = bisect(pred, releases_of(pred.product), wheels, verify=args.verify)
            except Refused as err:
                print(f"bisect_ranges: {err}", file=sys.stderr)
                failed += 1
                continue
            found[(pred.incident, pred.product)] = rng
            ev = rng["evidence"]
            end = f"fixed {rng['fixed']}" if "fixed" in rng else f"last_affected {rng['last_affected']}"
            print(
                f"{pred.incident}: introduced {rng['introduced']}, {end} ({len(ev['checked'])} releases checked)",
                file=sys.stderr,
            )
        if args.note:
            args.note.write_text(note(found), encoding="utf-8")
        if args.dry_run:
            for key, rng in found.items():
                print("\n".join([f"# {key[0]}", *range_lines(rng, 0)]))
        else:
            text = args.data.read_text(encoding="utf-8")
            new = write_ranges(text, found)
            if new != text:
                args.data.write_text(new, encoding="utf-8")
        return 1 if failed else 0
    except Refused as err:
        print(f"bisect_ranges: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
