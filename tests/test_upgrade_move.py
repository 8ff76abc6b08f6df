"""The check page's "I am moving from A to B": the plan file the site publishes for it (upgrade.json),
and its browser twin of the upgrade engine (docs/javascripts/sgm/upgrade.js), which must give the
items the Python engine gives for every case of tests/upgrade_conformance.json."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from opsmanual.data.loader import load_manual
from opsmanual.engines.exposure import Engine
from opsmanual.engines.upgrade import upgrade, upgrade_data
from opsmanual.render.bundle import bundle
from opsmanual.render.upgrade_plan import upgrade_plan

ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "tests" / "upgrade_conformance.json").read_text("utf-8"))["cases"]
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


@pytest.fixture(scope="module")
def files(manual, tmp_path_factory):
    """exposure.json and upgrade.json as the site publishes them."""
    folder = tmp_path_factory.mktemp("move")
    (folder / "exposure.json").write_text(json.dumps(bundle(manual)), "utf-8")
    (folder / "upgrade.json").write_text(json.dumps(upgrade_plan(manual)), "utf-8")
    return folder


def view(result: dict) -> dict:
    return {
        "error": result["error"],
        "items": [
            {
                "kind": i["kind"],
                "change": i["change"],
                ("id" if i["kind"] == "incident" else "flag"): i["id" if i["kind"] == "incident" else "flag"],
                "release": i["release"],
                "why": i["why"],
                "path": i["path"],
            }
            for i in result["items"]
        ],
    }


@pytest.fixture(scope="module")
def python_answers(manual):
    data = upgrade_data(manual, manual.facts)
    engine = Engine({**bundle(manual), "args": data["args"]})
    out = []
    for c in CASES:
        command = c.get("command")
        result = upgrade(
            data, c["from"], c["to"], exposure=engine if command else None, command=command, gpu=c.get("gpu")
        )
        out.append(view(result))
    return out


@pytest.fixture(scope="module")
def browser_answers(files):
    if NODE is None:
        pytest.skip("node is not installed")
    cases = ROOT / "tests" / "upgrade_conformance.json"
    r = subprocess.run(
        [
            NODE,
            str(ROOT / "tests" / "js" / "upgrade-agree.mjs"),
            str(files / "exposure.json"),
            str(files / "upgrade.json"),
            str(cases),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("k", range(len(CASES)), ids=[c["name"] for c in CASES])
def test_the_browser_twin_gives_the_python_engines_items(k, python_answers, browser_answers):
    case, want, got = CASES[k], python_answers[k], browser_answers[k]
    assert "exception" not in got, got.get("exception")
    assert got == want
    if "expect_error" in case:
        assert want["error"] and case["expect_error"] in want["error"]
        assert want["items"] == []
    else:
        assert want["error"] is None
        short = [{k: v for k, v in i.items() if k not in ("why", "path")} for i in want["items"]]
        for item in case["expect"]:
            assert item in short, (case["name"], item)


def test_the_plan_is_its_own_file_and_not_in_the_exposure_bundle(manual):
    plan, shipped = upgrade_plan(manual), bundle(manual)
    assert "histories" not in shipped and "prs" not in shipped
    # every SGLang release with a list is in the plan's history, so the twin sees each release's list
    versions = {r["version"] for r in plan["histories"]["sglang"]}
    assert versions == set(manual.facts.arglists["sglang"])
    # the exposure bundle keeps only the lists with a file of their own
    assert set(shipped["args"]["sglang"]) < versions
