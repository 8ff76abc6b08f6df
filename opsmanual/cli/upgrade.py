"""Before you upgrade: what moving from SGLang release A to release B ends, begins and breaks.

Lists the incidents that end (A is affected, B has the fix), begin (B is affected, A was not) and
continue, each with its affected range, the fix's pull request and its page; with a launch command
after --, only those that apply or may apply to that command at the release in question, and the
options of the command that a release between A and B removed, renamed, deprecated or gave another
default, with the release and what to write instead (without a command: every option of A that
changed).
"""

from __future__ import annotations

import os
import sys

from opsmanual import ROOT
from opsmanual.cli import common
from opsmanual.cli.common import UsageError

EXIT_CODES = """exit status:
  0  nothing begins and no option of the command breaks
  1  an incident begins between the two releases, or an option the command uses is removed or
     renamed without its old name
  2  bad input: a release SGLang never had, --from not older than --to, a command that cannot be
     read, an unknown GPU (one line on standard error); or an internal error (a bug to report)"""


def _prog() -> str:
    return common.prog("upgrade", "python -m opsmanual upgrade")


def _usage() -> str:
    p = _prog()
    return (
        f"usage: {p} --from A --to B [--gpu NAME] [--model-config PATH] [--json] [--site-url URL] "
        "[-- COMMAND...]\n\n"
        "options:\n"
        "  --from A             the SGLang release you run (as data/releases.yaml lists it)\n"
        "  --to B               the release you move to (newer than A)\n"
        "  --gpu NAME           the GPU the command runs on (decides GPU conditions)\n"
        "  --model-config PATH  the model's config.json (decides model conditions)\n"
        "  --json               a JSON list of items {kind, change, id or flag, release, why, url}\n"
        "  --site-url URL       the manual's address for the links ($SITE_URL)\n"
        "  --project DIR        another checkout of the manual to read the data from (for tests and benchmarks)\n"
        "  -- COMMAND...        the launch command; - reads it from standard input\n\n"
        f"{EXIT_CODES}\n\n"
        f"example:\n  {p} --from 0.5.9 --to 0.5.22 -- python -m sglang.launch_server "
        "--model-path Qwen/Qwen3-8B --tp 2 --enable-dp-attention"
    )


def _cache_key(project: str) -> str:
    import zlib

    from opsmanual.cli.exposure import _cache_key as exposure_key

    parts = [exposure_key(project), "upgrade-data 1", _file_part(os.path.abspath(__file__))]
    parts.append(_file_part(os.path.join(ROOT, "opsmanual", "engines", "upgrade.py")))
    folder = os.path.join(project, "data", "args-history")
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        names = []
    parts += [_file_part(os.path.join(folder, n)) for n in names]
    return f"{len(parts)} {zlib.crc32('|'.join(parts).encode('utf-8')):08x} " + "|".join(parts)


def _file_part(path: str) -> str:
    """A file's part of the key, read as the data loader reads it: never a FIFO or a device."""
    from opsmanual.data import MAX_DATA_FILE

    return common.file_digest(path, MAX_DATA_FILE)


def _from_cache(cache: str, key: str) -> dict | None:
    """The upgrade data kept in ``cache`` when its key is ``key`` and the file is whole (its key line
    holds the length and CRC-32 of the rest); None for anything else, which the caller rebuilds."""
    import marshal

    body = common.unseal(cache, key)
    if body is None:
        return None
    try:
        data = marshal.loads(body)  # noqa: S302 -- the cache this command wrote
        return data if isinstance(data, dict) and isinstance(data.get("args"), dict) else None
    except Exception:  # whole but not the upgrade data: rebuilt, never a failure
        return None


def load_data(project: str = ROOT) -> tuple[dict, dict]:
    """(the exposure bundle, the upgrade engine's data) for ``project``: from .cache/upgrade-data.bin
    when no data file has changed, else through the schema-validated loader (and cached). The exposure
    bundle gets every release's argument list, so each release's check parses the command by its own
    list. Raises ManualError on bad data. A cache that is not whole, or not a file, is ignored and
    written again."""
    import marshal

    from opsmanual.cli.exposure import load_bundle

    key = _cache_key(project)
    cache = os.path.join(project, ".cache", "upgrade-data.bin")
    data = _from_cache(cache, key)
    if data is None:
        from pathlib import Path

        from opsmanual.data.loader import facts, load_manual
        from opsmanual.engines.upgrade import upgrade_data

        manual = load_manual(Path(project))
        data = upgrade_data(manual, manual.facts or facts(Path(project) / "data"))
        common.write_cache(cache, key, marshal.dumps(data))
    bundle = load_bundle(project)
    return {**bundle, "args": data["args"]}, data


def _text(result: dict, base: str, a: str, b: str, with_command: bool) -> str:
    from opsmanual.engines.upgrade import BEGINS, CONTINUES, ENDS, breaks

    lines: list[str] = []
    heads = {
        ENDS: f"Incidents that end (affected at {a}, fixed by {b}):",
        BEGINS: f"Incidents that begin (not at {a}, affected at {b}):",
        CONTINUES: f"Incidents that continue (affected at both {a} and {b}):",
    }
    items = result["items"]
    for change, head in heads.items():
        mine = [i for i in items if i["kind"] == "incident" and i["change"] == change]
        if not mine:
            continue
        lines.append(head)
        for i in mine:
            lines.append(f"  {i['change'].upper():<9} {i['id']}  {i['name']}: {i['title']}")
            lines.append(f"    {i['why']}")
            lines.append(f"    {base}{i['path']}")
    changed = [i for i in items if i["kind"] == "flag"]
    if changed:
        lines.append("Options that change for the command:" if with_command else f"Options of {a} that changed by {b}:")
        for i in changed:
            lines.append(f"  {i['change'].upper():<15} {i['flag']}  ({i['release']}): {i['why']}")
    ends = sum(1 for i in items if i["kind"] == "incident" and i["change"] == ENDS)
    begins = sum(1 for i in items if i["kind"] == "incident" and i["change"] == BEGINS)
    cont = sum(1 for i in items if i["kind"] == "incident" and i["change"] == CONTINUES)
    broken = sum(1 for i in items if i["kind"] == "flag" and breaks(i))
    summary = f"From {a} to {b}: {ends} incident(s) end, {begins} begin, {cont} continue"
    if with_command:
        summary += f"; {broken} option(s) of the command break"
    lines.append(summary + ".")
    return "\n".join(lines)


def _command_and_traits(opts: dict, words: list[str]) -> tuple[str | None, dict | None]:
    """The command after ``--`` (or on standard input) and the traits of ``--model-config``; raises
    UsageError or UnicodeDecodeError on what cannot be read."""
    from opsmanual.cli.exposure import _Json, _read_command, read_model_config

    model_traits = None
    if opts["model_config"]:
        from opsmanual.engines.exposure import traits_from_config

        cfg = read_model_config(opts["model_config"], _Json())
        model_traits = {"source": os.path.basename(opts["model_config"]), "traits": traits_from_config(cfg)}
    return (_read_command(words) if words else None), model_traits


def _json_items(items: list[dict], base: str) -> list[dict]:
    """The items as ``--json`` prints them: an incident's id or a flag's name, with the page's address."""
    out = []
    for i in items:
        item = {"kind": i["kind"], "change": i["change"]}
        item["id" if i["kind"] == "incident" else "flag"] = i["id" if i["kind"] == "incident" else "flag"]
        item.update(release=i["release"], why=i["why"], url=base + i["path"])
        if i["kind"] == "flag":
            item["instead"] = i.get("instead")
        out.append(item)
    return out


def main(argv: list[str] | None = None) -> int:
    import gc

    gc.disable()  # a short run: collecting early only costs time
    argv = sys.argv[1:] if argv is None else argv
    prog = _prog()
    opts: dict = {
        "from": None,
        "to": None,
        "gpu": None,
        "model_config": None,
        "json": False,
        "site_url": common.site_url(),
        "project": ROOT,
    }
    valued = {
        "--from": "from",
        "--to": "to",
        "--gpu": "gpu",
        "--model-config": "model_config",
        "--site-url": "site_url",
        "--project": "project",  # another checkout: the tests and `make bench`
    }
    short = f"usage: {prog} --from A --to B [--gpu NAME] [--model-config PATH] [--json] [-- COMMAND...]"
    try:
        words = common.parse_options(
            argv, opts, valued, {"--json": ("json", True)}, doc=__doc__, usage=_usage(), stop_at_word=True
        )
        if opts["from"] is None or opts["to"] is None:
            raise UsageError("give both --from and --to")
    except UsageError as err:
        return common.fail(prog, f"{err} ({short})")
    try:
        command, model_traits = _command_and_traits(opts, words)
    except UsageError as err:
        return common.fail(prog, str(err))
    except UnicodeDecodeError:
        return common.fail(prog, "the command on standard input is not UTF-8 text")
    if command is None and (opts["gpu"] or opts["model_config"]):
        return common.fail(prog, f"--gpu and --model-config describe a command; give it after -- ({short})")
    try:
        bundle, data = load_data(opts["project"])
    except Exception as err:
        return common.data_error(prog, err)
    from opsmanual.engines.upgrade import breaks, upgrade

    try:
        engine = None
        if command is not None:
            from opsmanual.engines.exposure import Engine

            engine = Engine(bundle)
        result = upgrade(
            data, opts["from"], opts["to"], exposure=engine, command=command, gpu=opts["gpu"], model_traits=model_traits
        )
    except Exception as err:
        return common.internal_error(prog, err, "releases and command")
    if result["error"]:
        return common.fail(prog, result["error"])
    base = common.base_url(opts["site_url"])
    a, b = opts["from"].strip().removeprefix("v"), opts["to"].strip().removeprefix("v")
    if opts["json"]:
        from opsmanual.text.terminal import json_text

        print(json_text(_json_items(result["items"], base)))
    else:
        common.print_text(_text(result, base, a, b, command is not None))
    if any(i["kind"] == "incident" and breaks(i) for i in result["items"]):
        return 1
    return 1 if command is not None and any(i["kind"] == "flag" and breaks(i) for i in result["items"]) else 0


def run() -> None:
    common.run(main, "upgrade")


if __name__ == "__main__":
    run()
