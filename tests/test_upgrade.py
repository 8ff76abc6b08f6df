"""`sglang-manual upgrade`: what a move between two SGLang releases ends, begins and breaks, run as
the real command line (python -m opsmanual upgrade) on the manual's data."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from opsmanual.data.loader import facts
from opsmanual.text.versions import version_key

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
SERVER = ["python", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]


def upgrade(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "opsmanual", "upgrade", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "SITE_URL": "https://manual.example/"},
    )


def items(*args: str) -> tuple[list[dict], int]:
    r = upgrade(*args, "--json") if "--" not in args else upgrade("--json", *args)
    assert r.returncode in (0, 1), r.stderr
    assert r.stderr == ""
    return json.loads(r.stdout), r.returncode


@pytest.fixture(scope="module")
def lists() -> dict[str, dict]:
    return facts(DATA).arglists["sglang"]


def test_an_incident_fixed_in_0_5_10_ends_between_0_5_9_and_0_5_10():
    got, _ = items("--from", "0.5.9", "--to", "0.5.10")
    (item,) = [i for i in got if i.get("id") == "sglang-19953"]
    assert item["kind"] == "incident" and item["change"] == "ends" and item["release"] == "0.5.10"
    assert "pull request #21917" in item["why"] and "0.5.3.post2" in item["why"]
    assert item["url"] == "https://manual.example/incidents/sglang-19953/"
    # moving within the fixed releases, it neither ends nor continues
    later, _ = items("--from", "0.5.10", "--to", "0.5.22")
    assert "sglang-19953" not in {i.get("id") for i in later}


def test_a_build_with_a_local_label_is_its_release():
    # pip installs 0.5.9+cu128 as a build of 0.5.9: the move is the same as from 0.5.9
    plain, code = items("--from", "0.5.9", "--to", "0.5.22")
    local, local_code = items("--from", "0.5.9+cu128", "--to", "v0.5.22+cu129")
    assert local == plain and local_code == code
    assert "sglang-19953" in {i.get("id") for i in local}


def test_each_item_has_the_fields_the_json_promises():
    got, code = items("--from", "0.5.9", "--to", "0.5.22")
    assert got
    for i in got:
        assert i["kind"] in ("incident", "flag")
        assert i["change"] in ("ends", "begins", "continues", "removed", "renamed", "deprecated", "default-changed")
        assert ("id" in i) == (i["kind"] == "incident") and ("flag" in i) == (i["kind"] == "flag")
        assert {"release", "why", "url"} <= set(i) and i["url"].startswith("https://manual.example/")
        assert version_key("0.5.9") < version_key(i["release"]) <= version_key("0.5.22")
    assert code == (1 if any(i["change"] == "begins" for i in got) else 0)


def test_a_command_keeps_only_the_incidents_it_meets():
    # #19953 needs attention data parallelism across nodes over IPv6
    without, _ = items("--from", "0.5.9", "--to", "0.5.10", "--", *SERVER)
    assert "sglang-19953" not in {i.get("id") for i in without}
    multi = ["--enable-dp-attention", "--nnodes", "2", "--dist-init-addr", "[2001:db8::1]:5000"]
    with_dp, _ = items("--from", "0.5.9", "--to", "0.5.10", "--", *SERVER, *multi)
    (item,) = [i for i in with_dp if i.get("id") == "sglang-19953"]
    assert item["change"] == "ends" and "0.5.9" in item["why"]


def _removed_pairs(lists: dict[str, dict]) -> list[tuple[str, str, list[str]]]:
    """Each pair of consecutive releases with lists, and the main names the first has and the second
    lacks: an independent diff of the two lists."""
    versions = sorted(lists, key=version_key)
    out = []
    for older, newer in itertools.pairwise(versions):
        before = {a["name"] for a in lists[older]["arguments"]}
        after = {a["name"] for a in lists[newer]["arguments"]}
        out.append((older, newer, sorted(before - after)))
    return out


def test_a_flag_the_next_release_removed_is_named_as_removed_with_that_release(lists):
    gone = [
        (older, newer, name)
        for older, newer, names in _removed_pairs(lists)
        for name in names
        if not any(name in (a["aliases"] or ()) for a in lists[newer]["arguments"])
        and not any(
            a["field"] and a["field"] == next(x["field"] for x in lists[older]["arguments"] if x["name"] == name)
            for a in lists[newer]["arguments"]
        )
    ]
    older, newer, name = gone[-1]
    takes = next(a for a in lists[older]["arguments"] if a["name"] == name)
    value = [] if takes["nargs"] == 0 else ["1"]
    got, code = items("--from", older, "--to", newer, "--", *SERVER, name, *value)
    flags = [i for i in got if i["kind"] == "flag"]
    assert {"kind": "flag", "change": "removed", "flag": name, "release": newer} in [
        {k: i[k] for k in ("kind", "change", "flag", "release")} for i in flags
    ]
    assert code == 1  # the command breaks
    text = upgrade("--from", older, "--to", newer, "--", *SERVER, name, *value)
    assert f"REMOVED         {name}  ({newer})" in text.stdout and text.returncode == 1


def test_the_last_five_release_pairs_report_every_flag_the_next_list_lacks(lists):
    for older, newer, names in _removed_pairs(lists)[-5:]:
        got, _ = items("--from", older, "--to", newer)
        reported = {i["flag"] for i in got if i["kind"] == "flag" and i["change"] in ("removed", "renamed")}
        assert set(names) <= reported, (older, newer, sorted(set(names) - reported))
        assert all(i["release"] == newer for i in got if i["kind"] == "flag")


def test_a_renamed_flag_names_what_to_write_instead(lists):
    older, newer = "0.5.13.post1", "0.5.14"
    assert "--tensor-parallel-size" in {a["name"] for a in lists[older]["arguments"]}
    got, _ = items("--from", "0.5.13", "--to", "0.5.14", "--", *SERVER, "--tensor-parallel-size", "2")
    (item,) = [i for i in got if i["kind"] == "flag" and i["flag"] == "--tensor-parallel-size"]
    assert item["change"] == "renamed" and item["release"] == newer and "`--tp-size`" in item["why"]
    assert item["url"] == f"https://manual.example/releases/{newer}/"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--from", "0.5.99", "--to", "0.5.22"], "--from 0.5.99: SGLang has no release 0.5.99"),
        (["--from", "0.5.9", "--to", "banana"], "--to banana: not a release number"),
        (["--from", "0.5.9+", "--to", "0.5.22"], "--from 0.5.9+: not a release number"),
        (["--from", "0.5.22", "--to", "0.5.9"], "--from 0.5.22 is not older than --to 0.5.9"),
        (["--from", "0.5.9", "--to", "0.4.99"], "--to 0.4.99: SGLang has no release 0.4.99"),
        (["--from", "0.5.9"], "give both --from and --to"),
        (["--to", "0.5.9", "--bogus"], "unknown option --bogus"),
        (["--from", "0.5.9", "--to", "0.5.22", "--gpu", "H100"], "--gpu and --model-config describe a command"),
        (["--from", "0.5.9", "--to", "0.5.22", "--gpu", "no-such-gpu", "--", *SERVER], "no-such-gpu"),
        (["--from", "0.5.9", "--to", "0.5.22", "--model-config", "/nonexistent.json", "--", *SERVER], "nonexistent"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, says):
    r = upgrade(*args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("python -m opsmanual upgrade: ") and says in r.stderr


def test_help_lists_every_option_the_exit_codes_and_an_example():
    r = upgrade("--help")
    assert r.returncode == 0
    for word in ("--from", "--to", "--gpu", "--model-config", "--json", "exit status", "example:"):
        assert word in r.stdout
    assert "python -m opsmanual upgrade --from" in r.stdout
    listing = subprocess.run(
        [sys.executable, "-m", "opsmanual", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert "upgrade" in listing.stdout


def test_a_new_default_is_named_for_an_option_the_command_leaves_out_not_for_one_it_sets(lists):
    before = {a["name"]: a for a in lists["0.5.9"]["arguments"]}
    after = {a["name"]: a for a in lists["0.5.10rc0"]["arguments"]}
    changed = sorted(
        n
        for n, a in before.items()
        if n in after and after[n]["default"] != a["default"] and a["type"] == after[n]["type"] and a["nargs"] != 0
    )
    assert changed
    name = changed[0]
    left_out, _ = items("--from", "0.5.9", "--to", "0.5.10rc0", "--", *SERVER)
    (item,) = [i for i in left_out if i["kind"] == "flag" and i["flag"] == name]
    assert item["change"] == "default-changed" and item["release"] == "0.5.10rc0"
    assert str(before[name]["default"]) in item["why"]
    given, _ = items("--from", "0.5.9", "--to", "0.5.10rc0", "--", *SERVER, name, str(after[name]["default"]))
    assert name not in {i.get("flag") for i in given}
