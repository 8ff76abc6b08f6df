"""Am I exposed? The command line of the launch-command check.

    python -m macros.exposure [--gpu NAME] [--version X.Y.Z] [--model-config PATH] [--json]
                              [--fail-on applies|may-apply] -- COMMAND...
    python -m macros.exposure [options] -          (the command on standard input)
    python -m macros.exposure scan [options] PATH...   (the launch commands in a deploy folder)

Each incident gets a verdict: it applies (every condition holds and the version
is in its range), may apply (nothing is false, but something the command leaves
out decides: the GPU, the version, a runtime fact), does not apply, or is not
checkable from a command. Prints those that apply and then, by evidence, those
that may apply, with the reasons, what would decide them and a link. Exit status:
0 when nothing applies, 1 when at least one incident applies (or, with
--fail-on may-apply, may apply), 2 on an error (a command that cannot be read,
an unknown GPU, a version SGLang never had).

The engine is opsmanual/engines/exposure.py. The command reads its bundle from
.cache/exposure-bundle.bin, rebuilt through the schema-validated loader whenever a
data file or the code that makes the bundle changes, so that a check does not pay
for YAML, Jinja or JSON Schema.
"""

from __future__ import annotations

import os
import sys

from opsmanual import ROOT
from opsmanual.cli import common
from opsmanual.cli.common import UsageError
from opsmanual.data import BUNDLE_FORMAT as FORMAT
from opsmanual.data import MAX_DATA_FILE
from opsmanual.engines.command import MAX_CHARS
from opsmanual.engines.exposure import (
    APPLIES,
    DOES_NOT_APPLY,
    FAIL_ON,
    LISTED,
    MAY_APPLY,
    NOT_CHECKABLE,
    WORDS,
    Engine,
    actions,
    fails,
    fill,
    headline,
    result_fields,
    to_decide,
    traits_from_config,
)
from opsmanual.render.actions import terminal_line

# The code the cached bundle depends on: a change to any of them makes the cache stale.
_BUNDLE_CODE = (
    os.path.join(ROOT, "opsmanual", "render", "bundle.py"),
    os.path.join(ROOT, "opsmanual", "render", "actions.py"),
    os.path.join(ROOT, "opsmanual", "data", "exposure_words.py"),
    os.path.abspath(__file__),
)


def _is_args_file(name: str) -> bool:
    """<program>-args-<version>.json, the program in lower-case letters and hyphens."""
    program, sep, rest = name.partition("-args-")
    return (
        bool(sep)
        and bool(program)
        and all(c in "abcdefghijklmnopqrstuvwxyz-" for c in program)
        and len(rest) > len(".json")
        and rest.endswith(".json")
    )


def _input_files(project: str) -> list[str]:
    data = os.path.join(project, "data")
    names = ["incidents.yaml", "manual.yaml", "releases.yaml", "gpus.yaml", "models.yaml"]
    try:
        names += sorted(n for n in os.listdir(data) if _is_args_file(n))
    except OSError:
        pass
    return [os.path.join(data, n) for n in names]


def _cache_key(project: str) -> str:
    """A digest of everything the bundle is built from: this file and the data files.

    CRC-32 of each file's bytes, with its size: a cache key, not a defence, and
    cheap enough (zlib is built in; hashlib would cost more to import than the
    whole check) to compute on every run. Each file is read as the data loader
    reads it (a regular file, of at most its bound): a FIFO or a device in a data
    file's place makes the key say so, and the loader then names the file.
    """
    import marshal

    parts = [f"exposure-bundle {FORMAT} python {sys.version_info[0]}.{sys.version_info[1]} marshal {marshal.version}"]
    parts += [common.file_digest(path, MAX_DATA_FILE) for path in [*_BUNDLE_CODE, *_input_files(project)]]
    return "|".join(parts)


class _Blob:
    """An argument list kept apart in the cache file, unmarshalled when a check first needs it."""

    def __init__(self, data: bytes, start: int, end: int):
        self.data, self.start, self.end = data, start, end

    def load(self) -> dict:
        import marshal

        return marshal.loads(self.data[self.start : self.end])  # noqa: S302 -- the cache this command wrote


def _from_cache(cache: str, key: str) -> dict | None:
    """The bundle kept in ``cache`` when its key is ``key`` and the whole file is as this command wrote it
    (its key line holds the length and CRC-32 of all that follows, the argument lists that load later
    included); None for anything else, which the caller rebuilds."""
    import marshal

    body = common.unseal(cache, key)
    if body is None:
        return None
    try:
        size = int.from_bytes(body[:8], "little")
        core = marshal.loads(body[8 : 8 + size])  # noqa: S302 -- the cache this command wrote
        base = 8 + size
        args: dict[str, dict[str, _Blob]] = {}
        for program, lists in core["args"].items():
            args[program] = {}
            for version, (a, b) in lists.items():
                if not 0 <= a <= b <= len(body) - base:
                    return None
                args[program][version] = _Blob(body, base + a, base + b)
        core["args"] = args
        return core
    except Exception:  # a cache that is whole but not a bundle: rebuilt, never a failure
        return None


def load_bundle(project: str = ROOT) -> dict:
    """The bundle for ``project``: from .cache/exposure-bundle.bin when the data has not changed,
    else built through the schema-validated loader (and cached). Raises ManualError on bad data.

    The cache holds the key on its first line and the bundle in :mod:`marshal` form, which
    loads several times faster than JSON; the key names the Python version that wrote it.
    A cache that is not whole, or not a file, is ignored and written again.
    """
    import marshal

    key = _cache_key(project)
    cache = os.path.join(project, ".cache", "exposure-bundle.bin")
    core = _from_cache(cache, key)
    if core is not None:
        return core
    from pathlib import Path

    from opsmanual.data.loader import load_manual
    from opsmanual.render.bundle import bundle

    result = bundle(load_manual(Path(project)), Path(project) / "data")
    # the bundle without its argument lists (8-byte length first), then each list
    blobs: list[bytes] = []
    offsets: dict[str, dict[str, tuple[int, int]]] = {}
    at = 0
    for program, lists in result["args"].items():
        for version, content in lists.items():
            blob = marshal.dumps(content)
            offsets.setdefault(program, {})[version] = (at, at + len(blob))
            blobs.append(blob)
            at += len(blob)
    core_bytes = marshal.dumps(dict(result, args=offsets))
    common.write_cache(cache, key, len(core_bytes).to_bytes(8, "little") + core_bytes + b"".join(blobs))
    return result


def prog() -> str:
    """The command as it was run, for its usage line: `sglang-manual exposure`, or the shim's name."""
    return common.prog("exposure", "python -m macros.exposure")


def usage() -> str:
    return (
        f"usage: {prog()} [--gpu NAME] [--version X.Y.Z] [--model-config PATH] [--json] "
        "[--fail-on applies|may-apply] [--site-url URL] -- COMMAND...\n"
        f"       {prog()} [options] -     (the command on standard input)\n"
        f"       {prog()} scan [options] PATH...     (every launch command in deploy files; scan --help)"
    )


def short_usage() -> str:
    """The usage a one-line error ends with."""
    return (
        f"usage: {prog()} [--gpu NAME] [--version X.Y.Z] [--model-config PATH] [--json] "
        "-- COMMAND..., or - to read it from standard input"
    )


OPTIONS = [
    (
        "--gpu NAME",
        "the GPU the command runs on (H100, H200, L4, GB200, ...; data/gpus.yaml); unset, GPU conditions stay undecided",
    ),
    ("--version X.Y.Z", "the SGLang release it runs (default: the release the manual describes)"),
    ("--model-config PATH", "the model's config.json, for the traits its name does not show (FP8, FP4, layer types)"),
    ("--json", "print every incident's verdict as JSON"),
    ("--fail-on applies|may-apply", "what makes the exit status 1 (default: applies)"),
    ("--site-url URL", "the manual's address in the links (default: $SITE_URL, else http://127.0.0.1:8000/)"),
    ("--project DIR", "another checkout of the manual to read the data from (for tests)"),
    (
        "--bundle FILE",
        "an exposure bundle (exposure.json) to check against instead of the data (for tests and benchmarks)",
    ),
    ("-h, --help", "this help"),
]
EXITS = [
    ("0", "no incident applies"),
    ("1", "at least one incident applies (with --fail-on may-apply: applies or may apply)"),
    (
        "2",
        "bad input: a command that cannot be read, an unknown GPU, a release SGLang never had; or an "
        "internal error (a bug to report)",
    ),
]


def help_page() -> str:
    return common.help_page(
        usage(),
        "Checks a launch command against every incident's exposure conditions: an incident applies\n"
        "(every condition holds and the release is in its range), may apply (something the command\n"
        "cannot show decides, and the answer says what), or does not apply. Those that apply come\n"
        "first, each with what to do, why, and its page.",
        OPTIONS,
        EXITS,
        [
            f"{prog()} --gpu H100 -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2",
            f"echo 'python -m sglang.launch_server --model-path Qwen/Qwen3-8B' | {prog()} --json -",
            f"{prog()} scan --format sarif deploy/ > exposure.sarif",
        ],
    )


class _Json:
    """The json module, imported on first use: a plain check never needs it."""

    def __getattr__(self, name):
        import json

        return getattr(json, name)


def _options(argv: list[str]) -> tuple[dict, list[str]]:
    opts = {
        "gpu": None,
        "version": None,
        "model_config": None,
        "json": False,
        "fail_on": "applies",
        "site_url": common.site_url(),
        "project": ROOT,
        "bundle": None,
    }
    # --project (another checkout) and --bundle (a bundle file, no cache) serve the tests and `make bench`.
    valued = {
        "--gpu": "gpu",
        "--version": "version",
        "--model-config": "model_config",
        "--fail-on": "fail_on",
        "--site-url": "site_url",
        "--project": "project",
        "--bundle": "bundle",
    }
    words = common.parse_options(
        argv,
        opts,
        valued,
        {"--json": ("json", True)},
        doc=__doc__,
        usage=usage(),
        help=help_page(),
        stop_at_word=True,  # the command's own options follow its first word
        unknown_hint="; put the command after --",
        choices={"--fail-on": FAIL_ON},
    )
    return opts, words


def _read_command(words: list[str]) -> str:
    if words == ["-"]:
        limit = 4 * MAX_CHARS  # bytes: MAX_CHARS characters of UTF-8 at most
        data = common.read_input("-", limit, "command", instead="put the command after --")
        if len(data) > limit:  # stop reading: standard input may never end (/dev/zero, a stuck pipe)
            raise UsageError(
                f"the command on standard input is longer than {MAX_CHARS:,} characters; "
                "a launch command is a few hundred"
            )
        return data.decode("utf-8")
    if len(words) == 1:
        return words[0]
    return " ".join(_quote(w) for w in words)


MAX_CONFIG = 4 << 20  # bytes of a model's config.json: real ones are a few kilobytes


def read_model_config(path: str, json) -> dict:
    """A model's config.json, read with bounds: a regular file of at most MAX_CONFIG bytes, nested no
    deeper than JSON's parser can go. Raises UsageError with the reason."""
    from opsmanual.text.files import NotRegular, TooLarge, read_regular

    try:
        data = read_regular(path, MAX_CONFIG)
    except NotRegular:
        raise UsageError(f"the model config {path} is not a regular file (a config.json is)") from None
    except TooLarge as err:
        raise UsageError(
            f"the model config {path} is {err.size:,} bytes; a config.json is a few "
            f"kilobytes (the limit is {MAX_CONFIG:,})"
        ) from None
    except OSError as err:
        raise UsageError(f"cannot read the model config {path}: {err.strerror}") from None
    try:
        cfg = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"the model config {path} is not UTF-8 text") from None
    except RecursionError:
        raise UsageError(f"the model config {path} nests too deep to be a config.json") from None
    except ValueError as err:
        raise UsageError(f"the model config {path} is not JSON: {err}") from None
    if not isinstance(cfg, dict):
        raise UsageError(f"the model config {path} is not a JSON object")
    return cfg


_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")


def _quote(word: str) -> str:
    """shlex.quote without importing shlex (and re): the word as the shell would need it written."""
    if word and all(c in _SAFE for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _text_report(out: dict, base: str, opts: dict) -> str:
    """The answer as text: the incidents that apply, then (by evidence) those that may apply, each with
    why and what is undecided; at most LISTED of them described, the rest named in one line."""
    lines = []
    applies = sum(1 for r in out["results"] if r["result"] == APPLIES)
    listed = out["results"][: max(LISTED, applies)]
    for r in listed:
        head = "APPLIES " if r["result"] == APPLIES else "MAY APPLY"
        lines.append(f"{head} {r['id']}  {r['name']}: {r['title']}")
        if r.get("action"):
            lines.append(f"  {terminal_line(r['action'])}")
        lines.append(f"  why: {'; '.join(r['why'])}" if r["why"] else "  why: (no condition could be confirmed)")
        if r["undecided"]:
            lines.append(f"  cannot decide: {'; '.join(r['undecided'])}")
        if r.get("add"):
            lines.append(f"  to decide: {'; '.join(actions(r))}")
        if r.get("note"):
            lines.append(f"  note: {r['note']}")
        lines.append(f"  {base}{r['path']}")
    folded = out["results"][len(listed) :]
    if folded:
        lines.append(fill(WORDS["more"], n=len(folded), ids=", ".join(r["id"] for r in folded)))
    lines.append(headline(out))
    decide = to_decide(out, "cli")
    if decide:
        lines.append(decide)
    if out["findings"]:
        lines.append("Findings:")
        lines += [f"  {f['message']}" for f in out["findings"]]
    lines += [f"Note: {n}" for n in out["notes"]]
    return "\n".join(lines)


def _json_report(out: dict, base: str) -> list:
    """One object per incident that applies or may apply (all of them, by evidence), finding and note,
    then a summary with the verdicts' counts and ids."""
    items = []
    for rank, r in enumerate(out["results"], 1):
        item = {"kind": "incident", **result_fields(r), "to_decide": actions(r), "rank": rank, "url": base + r["path"]}
        if r.get("note"):
            item["note"] = r["note"]
        items.append(item)
    for f in out["findings"]:
        items.append({"kind": "finding", "id": f["code"], "result": "finding", "why": [f["message"]], "url": None})
    counts = [("not-checkable", out["not_checkable"]), ("unconditioned", out["unconditioned"])]
    counts = [(name, ids) for name, ids in counts if ids]  # their notes come last, in this order
    first = len(out["notes"]) - len(counts)
    for k, n in enumerate(out["notes"]):
        item = {"kind": "note", "id": "note", "result": "note", "why": [n], "url": None}
        if k >= first:
            name, ids = counts[k - first]
            item.update(id=name, ids=ids)
        items.append(item)
    verdicts = {
        APPLIES: [r["id"] for r in out["results"] if r["result"] == APPLIES],
        MAY_APPLY: [r["id"] for r in out["results"] if r["result"] == MAY_APPLY],
        DOES_NOT_APPLY: list(out.get("does_not_apply") or ()),
        NOT_CHECKABLE: list(out["not_checkable"]) + list(out["unconditioned"]),
    }
    decide = to_decide(out, "cli")
    items.append(
        {
            "kind": "summary",
            "id": "summary",
            "result": _verdict(out),
            "why": [headline(out)] + ([decide] if decide else []),
            "url": None,
            "counts": {k: len(v) for k, v in verdicts.items()},
            "ids": verdicts,
        }
    )
    return items


def _verdict(out: dict) -> str:
    """The answer's verdict as a whole: the strongest of its incidents'."""
    results = {r["result"] for r in out["results"]}
    return APPLIES if APPLIES in results else MAY_APPLY if results else DOES_NOT_APPLY


def main(argv: list[str] | None = None) -> int:
    import gc

    gc.disable()  # a short run allocates the whole bundle at once; collecting it early only costs time
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["scan"]:  # a deploy folder: opsmanual/cli/scan.py
        from opsmanual.cli import scan

        return scan.main(argv[1:], load_bundle, ROOT)
    json = _Json()  # imported only when the run reads or prints JSON
    try:
        opts, words = _options(argv)
        if not words:
            raise UsageError("no command given")
    except UsageError as err:
        return common.fail("exposure", f"{err} ({short_usage()})")
    model_traits = None
    try:
        if opts["model_config"]:
            cfg = read_model_config(opts["model_config"], json)
            model_traits = {"source": os.path.basename(opts["model_config"]), "traits": traits_from_config(cfg)}
        command = _read_command(words)
    except UsageError as err:
        return common.fail("exposure", str(err))
    except UnicodeDecodeError:
        return common.fail("exposure", "the command on standard input is not UTF-8 text")
    try:
        b = common.read_json(opts["bundle"]) if opts["bundle"] else load_bundle(opts["project"])
    except Exception as err:
        return common.data_error("exposure", err)
    try:
        out = Engine(b).check(command, gpu=opts["gpu"], version=opts["version"], model_traits=model_traits)
    except Exception as err:
        return common.internal_error("exposure", err, "command")
    from opsmanual.text.terminal import json_text

    base = common.base_url(opts["site_url"])
    if out["error"]:
        common.fail("exposure", out["error"])
        if opts["json"]:
            print(json_text([{"kind": "error", "id": "error", "result": "error", "why": [out["error"]], "url": None}]))
        return 2
    if opts["json"]:
        print(json_text(_json_report(out, base)))
    else:
        common.print_text(_text_report(out, base, opts))
    return 1 if fails(out["results"], opts["fail_on"]) else 0


def run() -> None:
    """The command, as `python -m macros.exposure` and the `exposure` script run it."""
    common.run(main, "exposure")


if __name__ == "__main__":
    run()
