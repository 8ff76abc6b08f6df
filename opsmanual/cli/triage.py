"""The triage command: find the manual's incidents in log files.

    python -m macros.triage FILE [FILE ...]      (- reads standard input)
    python -m macros.triage --json server.log
    python -m macros.triage --follow server.log  (like tail -F: each matching line as it is written)

Each incident whose log patterns occur is printed once, with how many lines
matched, the first line (file, line number, text) and the incident's URL. A
printed line longer than 500 characters is clipped to the 500 around the match,
and the output says so ("clipped": true in JSON).

The exit status follows grep: 0 when something matched, 1 when nothing did, 2 on
an error: an unreadable file, bytes that are not UTF-8, or binary data. Binary
data is a NUL byte anywhere in a file. The scan of that file stops at the line
that holds it; the matches before it are still printed, with a message naming
the file and line, and the status is 2. (grep would print "binary file
matches"; a log is text, so the command says where the text ends instead.)

When standard output is a terminal, control characters from the log (an escape
sequence, a carriage return, a bidirectional override) are printed escaped, as
``\\x1b`` or ``\\u202e``, so that a log cannot drive the terminal. JSON output
escapes them the JSON way (``\\u001b``), so it still decodes to the exact text.

With ``--follow`` the command watches the files instead of reading them once
(opsmanual/cli/follow.py): it starts at their end (``--from-start`` reads what
they hold first), survives rotation and truncation, and prints each matching line
as it is written, with the incidents it points to, certain or possible, and their
links; ``--json`` prints one JSON object per matching line. It runs until
interrupted, or until standard input closes.

The scanning itself is opsmanual/engines/logscan.py: files are read once, in
constant memory, whatever the line lengths.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opsmanual import ROOT
from opsmanual.cli import common
from opsmanual.data.errors import ManualError
from opsmanual.data.loader import labels, load_manual
from opsmanual.engines.logscan import SHOWN, Hit, Matcher, TriageError
from opsmanual.render.actions import action, terminal_line


def display_name(name: str) -> str:
    """A file name as it can be printed: bytes that are not UTF-8 (which the command line hands over
    as surrogate escapes) written as \\xff."""
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


def triage(incidents, names: list[str], guidance=()) -> tuple[list[Hit], list[str]]:
    """Scan the files; return the hits, best evidence first (incidents whose own lines occur, then
    the errors many incidents share, then the incidents such a line only makes possible), and the
    errors."""
    matcher = Matcher(incidents, guidance)
    hits: dict[str, Hit] = {}
    errors: list[str] = []
    shown = [common.STDIN if name == "-" else display_name(name) for name in names]
    for name, label in zip(names, shown, strict=False):
        try:
            stream = common.open_input(name, "log", TriageError, buffering=0)  # read in chunks as it comes
            try:
                matcher.scan(label, stream, hits)
            finally:
                if name != "-":
                    stream.close()
        except TriageError as err:
            errors.append(str(err) if name == "-" else str(err).replace(name, label))
        except OSError as err:
            errors.append(f"{label}: cannot read: {err.strerror or err}")
    return ranked(hits, shown), errors


def ranked(hits: dict[str, Hit], shown: list[str]) -> list[Hit]:
    """The hits of a scan of the inputs ``shown``, best evidence first: incidents whose own lines
    occur, then the errors many incidents share (cause before consequence, then the earliest), then the
    incidents such a line only makes possible (the MCP server's `triage` tool ranks its log lines with
    it too)."""
    found = sorted((h for h in hits.values() if not h.is_guidance), key=lambda h: h.evidence(shown))
    shared = sorted((h for h in hits.values() if h.is_guidance), key=lambda h: h.shared_order(shown))
    certain = [h for h in found if h.certain]
    return certain + shared + [h for h in found if not h.certain]


from opsmanual.text.terminal import escape_controls  # noqa: E402
from opsmanual.text.terminal import json_text as _json_text  # noqa: E402


def results(hits: list[Hit], site, base: str) -> list[dict]:
    """The hits as the command prints them (and as --json gives them): each incident, or error that
    many incidents share, with its evidence and its address."""
    out = []
    for h in hits:
        first = {"file": h.first_file, "line": h.first_line, "text": h.first_text, "clipped": h.clipped}
        if h.is_guidance:
            g = h.incident
            out.append(
                {
                    "kind": "guidance",
                    "id": g.id,
                    "title": g.title,
                    "certain": False,
                    "count": h.possible,
                    "phase": h.phase,
                    "first": first,
                    "url": f"{base}{site.guidance_url(g.id)}",
                }
            )
            continue
        out.append(
            {
                "kind": "incident",
                "id": h.incident.id,
                "name": h.incident.name,
                "title": h.incident.title,
                "status": h.incident.status,
                "action": action(h.incident),
                "sections": list(h.incident.sections),
                "certain": h.certain,
                "count": h.count if h.certain else h.possible,
                "first": first,
                "url": base + site.incident_url(h.incident.id),
            }
        )
    return out


def _text(results: list[dict], guidance) -> list[str]:
    lines = []
    statuses = labels("status")  # the schemas' x-labels, as the pages name each status and phase
    phases = {phase: label[:1].lower() + label[1:] for phase, label in labels("phase").items()}
    for r in results:
        first = r["first"]
        clipped = f" [clipped to {SHOWN} characters of a longer line]" if first["clipped"] else ""
        many = "line" if r["count"] == 1 else "lines"
        if r["kind"] == "guidance":
            when = f", {phases[r['phase']]}" if r.get("phase") else ""
            lines.append(f"{r['id']}  {r['title']}  [an error many incidents share{when}]")
            lines.append(f"  {r['count']} {many}; first at {first['file']}:{first['line']}: {first['text']}{clipped}")
            advice = next((p.advice for p in guidance[r["id"]].phases if p.phase == r.get("phase")), None)
            if advice:
                lines.append(f"  {advice.replace('`', '')}")
            lines.append(f"  {r['url']}")
            continue
        if not r["certain"]:
            many += " that several incidents print (possible, not certain)"
        where = ("section " if len(r["sections"]) == 1 else "sections ") + ", ".join(r["sections"])
        lines.append(f"{r['id']}  {r['name']}: {r['title']}  [{statuses[r['status']]}, {where}]")
        lines.append(f"  {terminal_line(r['action'])}")
        lines.append(f"  {r['count']} {many}; first at {first['file']}:{first['line']}: {first['text']}{clipped}")
        lines.append(f"  {r['url']}")
    return lines


def line_result(label: str, line: int | None, text: str, clipped: bool, matches, site, base: str) -> dict:
    """One matching line of ``--follow``, as --json prints it."""
    found = []
    for m in matches:
        e = m.entry
        if m.is_guidance:
            found.append(
                {
                    "kind": "guidance",
                    "id": e.id,
                    "title": e.title,
                    "certain": False,
                    "url": f"{base}{site.guidance_url(e.id)}",
                }
            )
        else:
            found.append(
                {
                    "kind": "incident",
                    "id": e.id,
                    "name": e.name,
                    "title": e.title,
                    "certain": m.certain,
                    "url": base + site.incident_url(e.id),
                }
            )
    return {"file": label, "line": line, "text": text, "clipped": clipped, "matches": found}


def line_text(result: dict) -> list[str]:
    """One matching line of ``--follow``, as text: where and what, then one line per incident."""
    where = result["file"] if result["line"] is None else f"{result['file']}:{result['line']}"
    clipped = f" [clipped to {SHOWN} characters of a longer line]" if result["clipped"] else ""
    lines = [f"{where}: {result['text']}{clipped}"]
    for m in result["matches"]:
        how = "certain " if m["certain"] else "shared  " if m["kind"] == "guidance" else "possible"
        name = m["title"] if m["kind"] == "guidance" else f"{m['name']}: {m['title']}"
        lines.append(f"  {how}  {m['id']}  {m['url']}  {name}")
    return lines


def _follow(manual, args, base: str) -> int:
    from opsmanual.cli.follow import FollowError, follow

    matcher = Matcher(manual.ordered, manual.guidance)
    labels = [common.STDIN if name == "-" else display_name(name) for name in args.files]
    shown = escape_controls if sys.stdout.isatty() else str

    def note(message: str) -> None:
        common.fail("triage", message)

    def emit(label, line, text, clipped, matches) -> None:
        result = line_result(label, line, text, clipped, matches, manual.site, base)
        if args.json:
            sys.stdout.write(_json_text(result, indent=None) + "\n")
        else:
            sys.stdout.write("".join(shown(t) + "\n" for t in line_text(result)))
        sys.stdout.flush()

    if args.files.count("-") > 1:
        note("standard input can be followed once")
        return 2
    try:
        follow(args.files, labels, matcher, emit, note, from_start=args.from_start)
    except FollowError as err:
        note(str(err))
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    name = common.prog("triage", "python -m macros.triage")
    parser = argparse.ArgumentParser(
        prog=name,
        description="Find the manual's incidents in log files (- reads standard input): each line of a log\n"
        "that an incident prints, with what to do and the incident's page.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit status:\n"
        "  0  a line of at least one incident was found (with --follow: the watch ended)\n"
        "  1  no line of any incident\n"
        "  2  bad input: a file that cannot be read, a bad option, the manual's data broken\n\n"
        f"examples:\n  {name} /var/log/sglang/server.log\n"
        f"  kubectl logs deploy/sglang | {name} --json -\n"
        f"  {name} --follow /var/log/sglang/server.log",
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--site-url",
        default=common.site_url(),
        help="the manual's address, for the links (default: $SITE_URL or %(default)s)",
    )
    parser.add_argument(
        "--follow",
        "-F",
        action="store_true",
        help="watch the files like tail -F and print each matching line as it is written",
    )
    parser.add_argument(
        "--from-start",
        action="store_true",
        help="with --follow: read what the files already hold first, then follow them",
    )
    args = parser.parse_args(argv)
    if args.from_start and not args.follow:
        parser.error("--from-start goes with --follow")
    try:
        manual = load_manual(Path(ROOT))
    except ManualError as err:
        return common.data_error("triage", err)
    base = common.base_url(args.site_url)
    if args.follow:
        return _follow(manual, args, base)
    hits, errors = triage(manual.ordered, args.files, manual.guidance)
    for message in errors:
        common.fail("triage", message)
    found = results(hits, manual.site, base)
    if args.json:
        sys.stdout.write(_json_text({"matches": found, "errors": errors}) + "\n")
    else:
        shown = escape_controls if sys.stdout.isatty() else str
        guidance = {g.id: g for g in manual.guidance}
        for line in _text(found, guidance):
            print(shown(line) if "\n" not in line else line)
        if not found and not errors:
            print("triage: no incident of the manual matches", file=sys.stderr)
    if errors:
        return 2
    return 0 if found else 1


def run() -> None:
    """The command, as `python -m macros.triage` and the `triage` script run it."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as err:  # a bug: one line and 2, never a traceback and 1
        sys.exit(common.internal_error("triage", err, "command line"))


if __name__ == "__main__":
    run()
