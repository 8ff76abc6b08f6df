"""`exposure scan PATH...`: the launch-command check over a deploy folder, as osv-scanner checks a lockfile.

    python -m macros.exposure scan [--gpu NAME] [--version X.Y.Z] [--format text|json|sarif]
                                   [--fail-on applies|may-apply] [--ignore-file FILE] PATH...

Finds the launch commands in Kubernetes manifests and Helm-rendered YAML, docker-compose files,
Dockerfiles, shell and Slurm scripts and SkyPilot task files (opsmanual/engines/scan.py), checks each
with the exposure engine, and reports each command's incidents with its file and line. Exit status:
0 when nothing applies, 1 when an incident applies (or, with --fail-on may-apply, may apply, or a file
or folder of a folder walked was skipped), 2 on bad input (a path that cannot be read, a named file that
is not what its name says, a bad ignore file) or a bug.

A symbolic link in a folder walked is followed to a regular file or a folder inside the folders given,
each once; one that leads elsewhere (outside them, to a FIFO or a device, nowhere) is named in a note.

Without --version, each SGLang command is checked at the release its file pins (an SGLang image tag, a
``pip install sglang==X``; opsmanual/engines/scan.py, release_pins), when data/releases.yaml lists it,
and the report names the file and line the release came from. A requirement that allows several
releases (``sglang>=0.5.8``, an unpinned ``sglang``, two installs in the branches of an ``if``) has the
command checked at each of them and the verdicts merged (engines/scan.py, check_releases).

An ignore file (by default .sglang-exposure-ignore.yaml in the current folder, when there is one;
schema data/exposure-ignore.schema.json) lists incidents not to report, each with a reason and an
expiry date; an entry past its date stops ignoring, and the scan says so.
"""

from __future__ import annotations

import os

from opsmanual.cli import common
from opsmanual.cli.common import UsageError  # bad input: one line, exit status 2
from opsmanual.data.exposure_words import SCAN_MAX_DEPTH as MAX_DEPTH  # folders walked below a path given
from opsmanual.engines.exposure import (
    APPLIES,
    FAIL_ON,
    LISTED,
    MAY_APPLY,
    WORDS,
    actions,
    fails,
    fill,
    result_fields,
    to_decide,
)

MAX_FILE = 1 << 20  # bytes of one file: a manifest or script is kilobytes
MAX_ENTRIES = 20_000  # files and folders walked under all the paths given
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".cache"}
DEFAULT_IGNORE = ".sglang-exposure-ignore.yaml"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


# --------------------------------------------------------------------------- files


def _shown(path: str) -> str:
    """A path as the report names it: relative to the current folder when under it, with / separators."""
    rel = os.path.relpath(path)
    shown = path if rel.startswith("..") else rel
    return shown.replace(os.sep, "/")


def _not_regular(mode: int) -> str:
    """What a path that is not a regular file is, for a message."""
    import stat

    for test, what in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return what
    return "not a file"


def collect(paths: list[str]) -> tuple[list[tuple[str, bool]], list[str]]:
    """(path, named) of each file to read, and the notes of what was left out (each a file or folder
    skipped). A named file is read whatever its name; a folder is walked for the files the scan knows,
    following a symbolic link only to a file or folder inside the folders given, and each once (see
    :class:`_Walk`). A FIFO, a device or a socket is never opened: named, it is refused; in a folder,
    skipped with a note."""
    import stat

    named: list[tuple[str, bool]] = []
    folders: list[str] = []
    for path in paths:
        if path == "-":
            raise UsageError(
                f"{common.STDIN}: scan reads files and folders; write the input to a file and scan that "
                "(helm template CHART > rendered.yaml, then exposure scan rendered.yaml)"
            )
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            raise UsageError(f"{path}: no such file or folder") from None
        except OSError as err:
            raise UsageError(f"{path}: cannot be read: {err.strerror or err}") from None
        if stat.S_ISREG(mode):
            named.append((path, True))
        elif stat.S_ISDIR(mode):
            named.append((path, False))
            folders.append(path)
        else:
            raise UsageError(f"{path}: not a regular file ({_not_regular(mode)}); give a deploy file or folder")
    walk = _Walk(folders)
    for path, is_file in named:
        if is_file:
            walk.take_named(path)
        else:
            walk.folder(path)
    walk.links()
    return walk.files, walk.notes


def _too_many(path: str) -> str:
    return f"{path}: more than {MAX_ENTRIES:,} files and folders; scan the deploy folder, not a whole checkout"


def _is_link(entry) -> bool:
    """Whether a folder's entry is a symbolic link (one whose kind cannot be read is not: reading it
    gives its note)."""
    try:
        return entry.is_symlink()
    except OSError:
        return False


class _Walk:
    """The walk of the folders given, in the order os.walk gives (each folder's files by name, then its
    folders by name), on a stack of its own, never the call stack, so no nesting can exhaust it.

    Bounds: MAX_ENTRIES entries in all (more is refused: UsageError), MAX_DEPTH folders below a path
    given (deeper ones are named in a note and not walked). A symbolic link is followed, after the
    folders it lies in are walked, only to a regular file or a folder inside the folders given (a
    stow-managed tree, a ConfigMap mount's ``..data``), and only to one not walked or read already, so a
    loop ends; any other (to a file or folder outside, to a FIFO or a device, to nothing) is named in a
    note and skipped, unless it is a file whose name the scan does not read."""

    def __init__(self, folders: list[str]):
        self.files: list[tuple[str, bool]] = []
        self.notes: list[str] = []
        self.seen = 0  # entries walked
        self.walked: set[tuple[int, int]] = set()  # folders walked, by device and inode
        self.read: set[tuple[int, int]] = set()  # files taken, by device and inode
        self.roots = [os.path.realpath(f) for f in folders]
        self.met: list[tuple[str, int, str]] = []  # symbolic links to follow: (link, its folder's depth, path given)

    def take_named(self, path: str) -> None:
        """A file named on the command line: read whatever its name (a link to it is not read again)."""
        try:
            info = os.stat(path)
            self.read.add((info.st_dev, info.st_ino))
        except OSError:
            pass  # it is read, and refused, as a named file
        self.files.append((path, True))

    def folder(self, path: str, depth: int = 0, given: str | None = None) -> None:
        """Walk the folder ``path``, ``depth`` folders below the path given (``given``, else ``path``
        itself), keeping the symbolic links met for :meth:`links`."""
        given = given or path
        todo = [(path, depth)]  # a stack: the last folder pushed is walked next
        while todo:
            top, depth = todo.pop()
            entries = self._list(given, top)
            if entries is None:
                continue
            folders = []
            for entry in entries:
                full = os.path.join(top, entry.name)
                if _is_link(entry):
                    if entry.name not in SKIP_DIRS:
                        self.met.append((full, depth, given))
                elif self._take(entry, full):
                    folders.append(full)
            if folders and depth >= MAX_DEPTH:
                self.notes.append(
                    f"{_shown(top)}: the folders in it lie more than {MAX_DEPTH} levels below {_shown(given)}; "
                    "not walked (skipped)"
                )
                continue
            todo += [(f, depth + 1) for f in reversed(folders)]

    def links(self) -> None:
        """Follow the symbolic links met, once every folder given is walked, and those met in the folders
        they lead to: the links to folders first, then those to files, so that a file is read under its
        own path, or its folder's, whenever the walk reaches it."""
        to_files: list[tuple[str, int, str]] = []
        while self.met or to_files:
            if not self.met:
                link, depth, _ = to_files.pop(0)
                self._follow(link, depth)
                continue
            link, depth, given = self.met.pop(0)
            if not os.path.isdir(link):  # a file, or nothing: once no link to a folder is left
                to_files.append((link, depth, given))
                continue
            target = self._follow(link, depth)
            if target is not None:
                self.folder(target, depth + 1, given)

    def _list(self, path: str, top: str) -> list | None:
        """The entries of the folder ``top`` by name; None, with a note, when it cannot be listed, and
        None for a folder walked already."""
        try:
            info = os.stat(top)
            if (info.st_dev, info.st_ino) in self.walked:
                return None  # given twice, or reached again through a link
            self.walked.add((info.st_dev, info.st_ino))
            entries = []
            with os.scandir(top) as listing:
                for entry in listing:  # one folder of millions is refused before it is all in memory
                    entries.append(entry)
                    if self.seen + len(entries) > MAX_ENTRIES + len(SKIP_DIRS):
                        raise UsageError(_too_many(path))
        except OSError as err:
            self.notes.append(f"{_shown(top)}: cannot be read: {err.strerror or err}; skipped")
            return None
        self.seen += sum(1 for e in entries if e.name not in SKIP_DIRS)
        if self.seen > MAX_ENTRIES:
            raise UsageError(_too_many(path))
        return sorted(entries, key=lambda e: e.name)

    def _take(self, entry, full: str) -> bool:
        """An entry that is no symbolic link: a file the scan knows goes to ``files``, one that is not a
        regular file gets a note; True for a folder to walk (not one of SKIP_DIRS)."""
        import stat

        from opsmanual.engines.scan import kind_of

        try:
            if entry.is_dir(follow_symlinks=False):
                return entry.name not in SKIP_DIRS
            if kind_of(entry.name) is None:
                return False
            info = entry.stat(follow_symlinks=False)
        except OSError as err:
            self.notes.append(f"{_shown(full)}: cannot be read: {err.strerror or err}; skipped")
            return False
        if not stat.S_ISREG(info.st_mode):
            self.notes.append(f"{_shown(full)}: not a regular file ({_not_regular(info.st_mode)}); skipped")
            return False
        self.read.add((info.st_dev, info.st_ino))
        self.files.append((full, False))
        return False

    def _follow(self, link: str, depth: int) -> str | None:
        """A symbolic link met in a folder at ``depth``: its file taken, or its folder returned to walk,
        when inside the folders given and not walked or read already; otherwise a note, or nothing for a
        file whose name the scan does not read."""
        import stat

        from opsmanual.engines.scan import kind_of

        shown, deploy_file = _shown(link), kind_of(os.path.basename(link)) is not None
        try:
            info = os.stat(link)
        except OSError as err:  # a link to nothing, or a loop of links
            if deploy_file:
                self.notes.append(f"{shown}: a symbolic link that leads to no file ({err.strerror or err}); skipped")
            return None
        if not stat.S_ISDIR(info.st_mode) and not deploy_file:
            return None
        if not stat.S_ISDIR(info.st_mode) and not stat.S_ISREG(info.st_mode):
            self.notes.append(f"{shown}: a symbolic link to {_not_regular(info.st_mode)}, not a regular file; skipped")
            return None
        target = os.path.realpath(link)
        if not any(target == root or target.startswith(root.rstrip(os.sep) + os.sep) for root in self.roots):
            self.notes.append(
                f"{shown}: a symbolic link to {_shown(target)}, outside the folders scanned; skipped "
                "(to check it, scan its target too)"
            )
            return None
        me = (info.st_dev, info.st_ino)
        if stat.S_ISDIR(info.st_mode):
            if me in self.walked:
                return None  # walked already: its files are read under their own path
            if depth >= MAX_DEPTH:
                self.notes.append(f"{shown}: a folder more than {MAX_DEPTH} levels below; not walked (skipped)")
                return None
            return link
        if me not in self.read:
            self.read.add(me)
            self.files.append((link, False))
        return None


def read_text(path: str) -> str:
    """A file's text, read with a bound. Raises UsageError with the reason. The file is opened without
    blocking and read only when it is a regular file: a FIFO put in its place never hangs the scan."""
    from opsmanual.text.files import NotRegular, TooLarge, read_regular

    try:
        data = read_regular(path, MAX_FILE)
    except NotRegular as err:
        raise UsageError(f"{_shown(path)}: not a regular file ({_not_regular(err.mode)})") from None
    except TooLarge:
        raise UsageError(
            f"{_shown(path)}: longer than {MAX_FILE:,} bytes; a manifest or script is a few kilobytes"
        ) from None
    except OSError as err:
        raise UsageError(f"{_shown(path)}: cannot be read: {err.strerror}") from None
    if b"\0" in data:
        raise UsageError(f"{_shown(path)}: not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{_shown(path)}: not UTF-8 text") from None


# --------------------------------------------------------------------------- the ignore file


def _match_path(pattern: str, path: str) -> bool:
    """A path pattern: `**` any folders, `*` and `?` within one name (the exposure engine's glob per name).
    Matched as an automaton over the path's names: the set of pattern positions reached so far, so the
    work is at most (pattern names) x (path names) steps, however many `**` the pattern holds."""
    from opsmanual.engines.exposure import glob_match

    p = [x for x in pattern.split("/") if x]
    s = [x for x in path.split("/") if x and x != "."]

    def closed(states: set[int]) -> set[int]:  # a `**` may stand for no folder at all
        out = set()
        for i in states:
            j = i
            out.add(j)
            while j < len(p) and p[j] == "**":
                j += 1
                out.add(j)
        return out

    states = closed({0})
    for name in s:
        low = name.lower()
        states = closed(
            {i if p[i] == "**" else i + 1 for i in states if i < len(p) and (p[i] == "**" or glob_match(p[i], low))}
        )
        if not states:
            return False
    return len(p) in states


def read_ignore(path: str, known: set[str], today: str) -> tuple[list[dict], list[str]]:
    """The entries of an ignore file that still ignore, and a note for each one past its date.
    Raises UsageError (one line: file, line, what is wrong) on a file that breaks its schema."""
    from pathlib import Path

    from opsmanual import ROOT
    from opsmanual.data import validate
    from opsmanual.data.errors import ManualError
    from opsmanual.data.yamlfile import line_of, read

    shown = _shown(path)
    try:
        data = read(Path(path), shown)
        validate.check(data, Path(ROOT) / "data" / "exposure-ignore.schema.json", shown)
    except ManualError as err:
        raise UsageError(
            str(err.problems[0]) + (f" (and {len(err.problems) - 1} more)" if len(err.problems) > 1 else "")
        ) from None
    active, notes = [], []
    for k, entry in enumerate(data["ignore"]):
        line = line_of(data, ["ignore", k]) or 1
        if entry["id"] not in known:
            raise UsageError(
                f"{shown}:{line}: incident {entry['id']} is not in the manual; write the id its page address gives"
            )
        try:
            import datetime

            datetime.date.fromisoformat(entry["expires"])
        except ValueError:
            raise UsageError(
                f"{shown}:{line}: incident {entry['id']}: expires {entry['expires']!r} is not a date (YYYY-MM-DD)"
            ) from None
        if entry["expires"] < today:
            notes.append(
                f"{shown}:{line}: the entry for {entry['id']} expired on {entry['expires']}; "
                "the incident is reported again"
            )
            continue
        active.append(dict(entry, where=f"{shown}:{line}"))
    return active, notes


def ignoring(entries: list[dict], incident: str, path: str) -> dict | None:
    for e in entries:
        if e["id"] == incident and (not e.get("paths") or any(_match_path(p, path) for p in e["paths"])):
            return e
    return None


# --------------------------------------------------------------------------- the scan


HELM_RENDER = "; to check what it runs: helm template CHART > rendered.yaml, then exposure scan rendered.yaml"


def helm_template(path: str, text: str) -> int | None:
    """The line of a YAML file's first Go template action (``{{ .Values.cmd }}``), or 1 for a YAML
    file under a chart's templates/ folder (a Chart.yaml beside it); None for any other file."""
    from opsmanual.engines.scan import helm_action_line, kind_of

    if kind_of(path) != "yaml":
        return None
    line = helm_action_line(text)
    if line is not None:
        return line
    parts = os.path.abspath(path).split(os.sep)
    for k in range(len(parts) - 2, 0, -1):
        if parts[k] == "templates" and os.path.isfile(os.sep.join([*parts[:k], "Chart.yaml"])):
            return 1
    return None


def scan(engine, files: list[tuple[str, bool]], *, gpu, version, ignore: list[dict]) -> dict:
    """Every launch command of every file, checked; what was skipped and why."""
    from opsmanual.engines.scan import ScanError, find_launches, release_pins

    # "unread": the files skipped (not the Helm templates' notes, whose commands are checked as written)
    report: dict = {"commands": [], "skipped": [], "unread": 0, "files": 0, "release_notes": []}
    for path, named in files:
        shown = _shown(path)
        template = None
        try:
            text = read_text(path)
            template = helm_template(path, text)
            found = find_launches(path, text)
        except UsageError as err:
            if named:
                raise
            report["skipped"].append(str(err))
            report["unread"] += 1
            continue
        except ScanError as err:
            if template is not None and err.message.startswith("not YAML"):
                message = f"{shown}:{template}: a Helm template, not YAML until it is rendered{HELM_RENDER}"
            else:
                message = f"{shown}:{err.line}: {err.message}" if err.line else f"{shown}: {err.message}"
            if named:
                raise UsageError(message) from None
            report["skipped"].append(message + " (skipped)")
            report["unread"] += 1
            continue
        if template is not None:
            report["skipped"].append(
                f"{shown}:{template}: a Helm template: its commands are checked as written, what its values "
                f"fill in left undecided{HELM_RENDER}"
            )
        report["files"] += 1
        pins = release_pins(path, text) if found and not version else []
        for launch in found:
            line, command = launch["line"], launch["command"]
            # --version names the SGLang release: a router's or Miles' command is checked without it
            sglang = engine.parse(command)["program"] in ("sglang", "engine", "bench")
            release = _release_of(engine, version, pins, line, shown, report["release_notes"]) if sglang else None
            out = _check(engine, launch, release, gpu)
            results: list[dict] = []
            ignored: list[dict] = []
            for r in out["results"]:
                e = ignoring(ignore, r["id"], shown)
                (ignored if e else results).append(dict(r, ignored=e) if e else r)
            report["commands"].append(
                {
                    "file": shown,
                    "line": line,
                    "command": command,
                    "out": out,
                    "results": results,
                    "ignored": ignored,
                    "release": release,
                }
            )
    return report


def _check(engine, launch: dict, release: dict | None, gpu: str | None) -> dict:
    """The check of one launch command of a file: at its release (none for a router's or Miles' command),
    or at each release of a range, merged; in the environment its file sets without showing it."""
    from opsmanual.engines.scan import check_releases

    around = {"gpu": gpu, "env": launch["env"], "env_opaque": launch["env_opaque"]}
    if release is not None and release.get("versions"):
        return check_releases(engine, launch["command"], release["versions"], _question(release), **around)
    given = release["version"] if release is not None and release["source"] != "assumed" else None
    return engine.check(launch["command"], version=given, **around)


def _release_of(engine, version: str | None, pins: list[dict], line: int, shown: str, notes: list[str]) -> dict | None:
    """The SGLang release an SGLang command of a deploy file is checked at, and where it comes from:
    --version when given; else what the file pins for that command (an image tag; the pip installs, each
    requirement allowing the releases of data/releases.yaml it matches), one release or, when the pins
    allow several, all of them (``versions``, oldest first); the manual's release, assumed, when they
    allow none. A pin that allows no release the manual lists gives one note."""
    from opsmanual.data.exposure_words import SCAN, fill
    from opsmanual.engines.scan import allowed_releases, covering_pins
    from opsmanual.text.versions import version_key

    if version:
        return {"version": version[1:] if version[0] == "v" else version, "source": "--version", "pin": None}
    known = (engine.releases.get("sglang") or {}).get("versions") or []
    cover = [
        (dict(pin, where=f"{shown}:{pin['line']}"), allowed_releases(pin, known)) for pin in covering_pins(pins, line)
    ]
    used = [pin for pin, releases in cover if releases]
    allowed = {v for _, releases in cover for v in releases or ()}
    for pin, releases in cover:
        if releases:
            continue
        spec = pin.get("spec", "")
        exact = pin.get("release") or (spec[2:] if spec.startswith("==") and "*" not in spec else None)
        key = "unreadable" if releases is None else "not_listed" if exact else "allows_none"
        note = fill(SCAN[key], where=pin["where"], written=pin["written"], release=exact)
        note += "" if used else fill(SCAN["assumed"], version=engine.version)
        if note not in notes:
            notes.append(note)
    if not allowed:
        return {"version": engine.version, "source": "assumed", "pin": None}
    order = sorted(allowed, key=version_key)
    release: dict = {
        "version": order[0] if len(order) == 1 else None,
        "source": ", ".join(dict.fromkeys(p["where"] for p in used)),
        "pin": "; ".join(p["written"] for p in used),
        "pins": [{"written": p["written"], "where": p["where"]} for p in used],
    }
    if len(order) > 1:
        release["versions"] = order
    return release


def _pins_words(release: dict) -> str:
    """The pins a release came from, as the report names them: "`sglang==0.5.8` at run.sh:3 and ..."."""
    from opsmanual.data.exposure_words import SCAN, fill

    return SCAN["and"].join(fill(SCAN["pin_at"], **p) for p in release["pins"])


def _releases_words(versions: list[str]) -> str:
    """A range of releases in words: each of three or fewer, else the first and the last and how many."""
    from opsmanual.data.exposure_words import SCAN, fill

    if len(versions) <= 3:
        return SCAN["and"].join([", ".join(versions[:-1]), versions[-1]]) if len(versions) > 1 else versions[0]
    return fill(SCAN["span"], first=versions[0], last=versions[-1], n=len(versions))


def _question(release: dict) -> str:
    """What an incident the range's releases disagree on leaves undecided: which release is installed."""
    from opsmanual.data.exposure_words import SCAN, fill

    allow = SCAN["allows"] if len(release["pins"]) == 1 else SCAN["allow"]
    return fill(SCAN["question"], pins=_pins_words(release), allow=allow, releases=_releases_words(release["versions"]))


def release_words(release: dict | None) -> str | None:
    """Where the release a command is checked at comes from, in a sentence; None when it is assumed."""
    from opsmanual.data.exposure_words import SCAN, fill

    if release is None or release["source"] == "assumed":
        return None
    if release["source"] == "--version":
        return fill(SCAN["from_version"], version=release["version"])
    if release.get("versions"):
        allow = SCAN["allows"] if len(release["pins"]) == 1 else SCAN["allow"]
        return fill(
            SCAN["range"], releases=_releases_words(release["versions"]), pins=_pins_words(release), allow=allow
        )
    return fill(SCAN["pinned"], version=release["version"], pins=_pins_words(release))


def _counts(report: dict) -> tuple[int, int]:
    applies = sum(1 for c in report["commands"] for r in c["results"] if r["result"] == APPLIES)
    may = sum(1 for c in report["commands"] for r in c["results"] if r["result"] == MAY_APPLY)
    return applies, may


def fails_gate(report: dict, fail_on: str) -> bool:
    """Whether the scan fails the gate (exit status 1): an incident with a verdict ``--fail-on`` fails on
    applies to a command; with may-apply, also any deploy file or folder skipped, since what it runs is
    undecided (an incident may apply to it)."""
    if fails((r for c in report["commands"] for r in c["results"]), fail_on):
        return True
    return MAY_APPLY in FAIL_ON[fail_on] and report["unread"] > 0


def skipped_line(report: dict) -> str:
    n = report["unread"]
    return (
        f"{n} deploy file{'s' if n != 1 else ''} or folder{'s' if n != 1 else ''} skipped (named in the notes): "
        "with --fail-on may-apply, the check fails, as what they run is undecided."
    )


def text_report(report: dict, base: str, notes: list[str], fail_on: str = "applies") -> str:
    lines = []
    for c in report["commands"]:
        out = c["out"]
        head = c["command"] if len(c["command"]) <= 160 else c["command"][:157] + "..."
        lines.append(f"{c['file']}:{c['line']}: {head}")
        if release_words(c.get("release")) and c["release"]["source"] != "--version":
            lines.append(f"  release: {release_words(c['release'])}")
        if out["error"]:
            lines.append(f"  cannot check: {out['error']}")
            continue
        applies = sum(1 for r in c["results"] if r["result"] == APPLIES)
        listed = c["results"][: max(LISTED, applies)]
        for r in listed:
            word = "APPLIES  " if r["result"] == APPLIES else "MAY APPLY"
            lines.append(f"  {word} {r['id']}  {r['name']}: {r['title']}")
            if c.get("release") and c["release"].get("versions") and _question(c["release"]) in r["undecided"]:
                lines.append(f"            {_question(c['release'])}")
            if r["result"] != APPLIES and r.get("add"):
                lines.append(f"            to decide: {'; '.join(actions(r))}")
            lines.append(f"            {base}{r['path']}")
        folded = c["results"][len(listed) :]
        if folded:
            lines.append("  " + fill(WORDS["more"], n=len(folded), ids=", ".join(r["id"] for r in folded)))
        for r in c["ignored"]:
            e = r["ignored"]
            lines.append(f"  ignored   {r['id']} ({r['result']}) until {e['expires']}: {e['reason']} [{e['where']}]")
        for f in out["findings"]:
            lines.append(f"  finding: {f['message']}")
        if not c["results"] and not c["ignored"]:
            lines.append("  " + fill(WORDS["headline"]["none"], checked=out["checked"]))
    applies, may = _counts(report)
    n = len(report["commands"])
    lines.append(
        f"{n} launch command{'s' if n != 1 else ''} in {report['files']} file"
        f"{'s' if report['files'] != 1 else ''}; counted per command, {applies} incident"
        f"{' applies' if applies == 1 else 's apply'} and {may} may apply."
    )
    decide = to_decide({"results": [r for c in report["commands"] for r in c["results"]]}, "cli")
    if decide:
        lines.append(decide)
    if report["unread"] and MAY_APPLY in FAIL_ON[fail_on]:
        lines.append(skipped_line(report))
    lines += [f"Note: {x}" for x in notes + report["skipped"]]
    return "\n".join(lines)


def json_report(report: dict, base: str, notes: list[str]) -> dict:
    commands = []
    for c in report["commands"]:
        out = c["out"]
        item = {
            "file": c["file"],
            "line": c["line"],
            "command": c["command"],
            "program": out["program"],
            "error": out["error"],
            "findings": [{"id": f["code"], "message": f["message"]} for f in out["findings"]],
            "incidents": [{**result_fields(r), "url": base + r["path"]} for r in c["results"]],
            "ignored": [
                {
                    "id": r["id"],
                    "result": r["result"],
                    "reason": r["ignored"]["reason"],
                    "expires": r["ignored"]["expires"],
                    "entry": r["ignored"]["where"],
                }
                for r in c["ignored"]
            ],
            "notes": out["notes"],
            "release": _release_json(c.get("release")),
        }
        commands.append(item)
    applies, may = _counts(report)
    return {
        "commands": commands,
        "summary": {
            "commands": len(commands),
            "files": report["files"],
            "applies": applies,
            "may apply": may,
            "skipped": report["unread"],
        },
        "notes": notes + report["skipped"],
    }


def _uri(shown: str) -> str:
    """A file as SARIF's artifactLocation.uri: a relative URI reference (RFC 3986), its characters
    percent-encoded but the folder separators (`a b#c%20?x.sh` is `a%20b%23c%2520%3Fx.sh`)."""
    from urllib.parse import quote

    return quote(shown, safe="/")


def _release_json(release: dict | None) -> dict | None:
    """The SGLang release a command was checked at and where it came from: "--version", the file:line of
    each pin that decides it (with the pins as written, and ``pins``, each with its ``where``), or
    "assumed" (the manual's release); when the pins allow several releases, ``version`` is None and
    ``versions`` lists them, oldest first. None for a router's or Miles' command."""
    return dict(release) if release is not None else None


def sarif_report(report: dict, base: str, notes: list[str], version: str) -> dict:
    """SARIF 2.1.0: one rule per incident reported (its page as helpUri), one result per command and
    incident, at the command's file and line; an ignored incident is a result with a suppression."""
    rules: list[dict] = []
    index: dict[str, int] = {}
    results = []
    for c in report["commands"]:
        for r in c["results"] + c["ignored"]:
            if r["id"] not in index:
                index[r["id"]] = len(rules)
                rules.append(
                    {
                        "id": r["id"],
                        "name": r["name"],
                        "shortDescription": {"text": r["title"]},
                        "helpUri": base + r["path"],
                        "defaultConfiguration": {"level": "error"},
                    }
                )
            why = "; ".join(r["why"]) if r["why"] else "no condition could be confirmed"
            text = f"{r['name']}: {r['title']} ({r['result']}). Why: {why}."
            if r["undecided"]:
                text += f" Cannot decide: {'; '.join(r['undecided'])}."
            if r.get("add"):
                text += f" To decide: {'; '.join(actions(r))}."
            if release_words(c.get("release")):
                text += f" Checked at {release_words(c['release'])}."
            result = {
                "ruleId": r["id"],
                "ruleIndex": index[r["id"]],
                "level": "error" if r["result"] == APPLIES else "warning",
                "message": {"text": text},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": _uri(c["file"])},
                            "region": {"startLine": c["line"]},
                        }
                    }
                ],
            }
            release = c.get("release")
            if release and release["source"] != "assumed":  # a range: every release it allows was checked
                key, value = (
                    ("sglangReleases", release["versions"])
                    if release.get("versions")
                    else (
                        "sglangRelease",
                        release["version"],
                    )
                )
                result["properties"] = {key: value, "releaseSource": release["source"]}
            if r.get("ignored"):
                result["suppressions"] = [{"kind": "external", "justification": r["ignored"]["reason"]}]
            results.append(result)
    run = {
        "tool": {
            "driver": {
                "name": "sglang-opsmanual exposure scan",
                "version": version,
                "informationUri": base + "check/",
                "rules": rules,
            }
        },
        "results": results,
    }
    if notes or report["skipped"]:
        run["invocations"] = [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {"level": "note", "message": {"text": n}} for n in notes + report["skipped"]
                ],
            }
        ]
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


# --------------------------------------------------------------------------- the command


def prog() -> str:
    """The command as it was run, for its usage line: `sglang-manual scan`, or the shim's name."""
    return common.prog("scan", "python -m macros.exposure scan")


def usage() -> str:
    return (
        f"usage: {prog()} [--gpu NAME] [--version X.Y.Z] [--format text|json|sarif] "
        "[--fail-on applies|may-apply] [--ignore-file FILE] PATH..."
    )


OPTIONS = [
    ("--gpu NAME", "the GPU the commands run on (data/gpus.yaml); unset, GPU conditions stay undecided"),
    ("--version X.Y.Z", "the SGLang release for every file, over what the files pin (image tags, pip pins)"),
    ("--format text|json|sarif", "the report's form: text (default), JSON, or SARIF 2.1.0 for code scanning"),
    ("--json", "the same as --format json"),
    (
        "--fail-on applies|may-apply",
        "what makes the exit status 1 (default: applies); may-apply also fails when a deploy file or folder "
        "was skipped",
    ),
    (
        "--ignore-file FILE",
        "incidents not to report, each with a reason and an expiry (default: "
        ".sglang-exposure-ignore.yaml here, when there is one)",
    ),
    ("--today YYYY-MM-DD", "the date the ignore entries' expiry is judged on (default: today)"),
    ("--site-url URL", "the manual's address in the links (default: $SITE_URL, else http://127.0.0.1:8000/)"),
    ("--project DIR", "another checkout of the manual to read the data from (for tests)"),
    ("--bundle FILE", "an exposure bundle (exposure.json) to check against (for tests and benchmarks)"),
    ("-h, --help", "this help"),
]
EXITS = [
    ("0", "no incident applies to any command found"),
    (
        "1",
        "an incident applies to a command (with --fail-on may-apply: applies or may apply, or a deploy file "
        "or folder was skipped, so what it runs is undecided)",
    ),
    (
        "2",
        "bad input: a path that cannot be read, a named file that is not what its name says, a bad "
        "ignore file or option; or an internal error (a bug to report)",
    ),
]


def help_page() -> str:
    return common.help_page(
        usage(),
        "Finds the launch commands in Kubernetes manifests, docker-compose files, Dockerfiles, shell and\n"
        "Slurm scripts and SkyPilot task files, checks each at the SGLang release its file pins, and\n"
        "reports each command's incidents at its file and line: a gate for CI.",
        OPTIONS,
        EXITS,
        [f"{prog()} --gpu H100 deploy/", f"{prog()} --format sarif --fail-on may-apply k8s/ > exposure.sarif"],
    )


def options(argv: list[str]) -> tuple[dict, list[str]]:
    opts = {
        "gpu": None,
        "version": None,
        "format": "text",
        "fail_on": "applies",
        "ignore_file": None,
        "site_url": common.site_url(),
        "project": None,
        "bundle": None,
        "today": None,
    }
    valued = {
        "--gpu": "gpu",
        "--version": "version",
        "--format": "format",
        "--fail-on": "fail_on",
        "--ignore-file": "ignore_file",
        "--site-url": "site_url",
        "--project": "project",
        "--bundle": "bundle",
        "--today": "today",
    }
    flags = {"--json": ("format", "json")}
    paths = common.parse_options(argv, opts, valued, flags, doc=__doc__, usage=usage(), help=help_page())
    common.check_choice("--format", opts["format"], ("text", "json", "sarif"))  # the last one given counts
    common.check_choice("--fail-on", opts["fail_on"], FAIL_ON)
    if not paths:
        raise UsageError("no path given")
    return opts, paths


def _today(value: str) -> str:
    """--today's value: a real date written YYYY-MM-DD (it decides which ignore entries have expired)."""
    import datetime

    if (
        len(value) == 10
        and value[4] == "-"
        and value[7] == "-"
        and value.replace("-", "").isascii()
        and value.replace("-", "").isdigit()
    ):
        try:
            datetime.date.fromisoformat(value)
            return value
        except ValueError:
            pass
    raise UsageError(f"--today takes a date written YYYY-MM-DD, such as 2026-12-31, not {value!r}")


def main(argv: list[str], load_bundle, root: str) -> int:
    """The scan; ``load_bundle(project)`` is the command line's cached bundle loader."""
    import datetime

    from opsmanual.engines.exposure import Engine
    from opsmanual.text.terminal import json_text

    try:
        opts, paths = options(argv)
        today = _today(opts["today"]) if opts["today"] is not None else datetime.date.today().isoformat()
        files, skipped = collect(paths)
        notes = list(skipped)  # the files and folders the walk skipped, then what the ignore file and pins say
    except UsageError as err:
        return common.fail("exposure scan", f"{err} ({usage()[7:]})")
    try:
        bundle = common.read_json(opts["bundle"]) if opts["bundle"] else load_bundle(opts["project"] or root)
        engine = Engine(bundle)
    except Exception as err:
        return common.data_error("exposure scan", err, one_line=True)
    try:
        ignore_path = opts["ignore_file"] or (DEFAULT_IGNORE if os.path.isfile(DEFAULT_IGNORE) else None)
        ignore, expired = (
            read_ignore(ignore_path, {i["id"] for i in engine.incidents}, today) if ignore_path else ([], [])
        )
        notes += expired
        if opts["gpu"] and engine.find_gpu(opts["gpu"]) is None:
            probe = engine.check("python -m sglang.launch_server", gpu=opts["gpu"])
            raise UsageError(probe["error"] or f"unknown GPU {opts['gpu']}")
        if opts["version"]:
            probe = engine.check("python -m sglang.launch_server", version=opts["version"])
            if probe["error"]:
                raise UsageError(probe["error"])
        report = scan(engine, files, gpu=opts["gpu"], version=opts["version"], ignore=ignore)
        report["unread"] += len(skipped)
        notes += report["release_notes"]
    except UsageError as err:
        return common.fail("exposure scan", str(err))
    base = common.base_url(opts["site_url"])
    if opts["format"] == "json":
        print(json_text(json_report(report, base, notes)))
    elif opts["format"] == "sarif":
        print(json_text(sarif_report(report, base, notes, engine.version)))
    else:
        common.print_text(text_report(report, base, notes, opts["fail_on"]))
    return 1 if fails_gate(report, opts["fail_on"]) else 0
