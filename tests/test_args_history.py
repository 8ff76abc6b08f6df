"""Every release's argument list, stored as changes (data/args-history/): the loader rebuilds each
release's list equal to what tools/gen_args.py reads from the release's wheel, and a broken history
file is one line naming it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from opsmanual.data.errors import ManualError
from opsmanual.data.loader import facts
from tools.args_history import fold
from tools.gen_args import ZipTree, generate

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"


def _wheel_dirs() -> list[Path]:
    """Where release wheels are: $SGLANG_WHEELS, /tmp/wheels, and this checkout's .cache/wheels
    (tests/test_gen_args.py downloads 0.5.22's there)."""
    found = [Path(os.environ["SGLANG_WHEELS"])] if os.environ.get("SGLANG_WHEELS") else []
    return [*found, Path("/tmp/wheels"), ROOT / ".cache" / "wheels"]


def _wheel(version: str) -> Path:
    for folder in _wheel_dirs():
        hits = sorted(folder.glob(f"sglang-{version}-*.whl")) if folder.is_dir() else []
        if hits:
            return hits[0]
    pytest.skip(f"no sglang {version} wheel in $SGLANG_WHEELS, /tmp/wheels or .cache/wheels")


@pytest.mark.parametrize("version", ["0.5.3rc0", "0.5.14"])  # one py3 wheel, one built wheel
def test_release_lists_rebuild_equal_to_the_wheel(version):
    wheel = _wheel(version)
    text = generate("sglang", ZipTree(wheel), version, f"sglang=={version} wheel from PyPI", warn=lambda *a: None)
    assert facts(DATA).arglists["sglang"][version] == json.loads(text)


def test_every_listed_release_from_0_5_0_has_lists():
    known = facts(DATA)
    from opsmanual.text.versions import version_key

    wanted = [v for v in known.versions("sglang") if version_key(v) >= version_key("0.5.0rc0")]
    assert wanted
    for program in ("sglang", "sglang-bench"):
        missing = [v for v in wanted if v not in known.arglists[program]]
        assert not missing, (program, missing)


def test_fold_then_load_gives_back_each_list(tmp_path):
    lists = [json.loads((DATA / f"sglang-args-{v}.json").read_text(encoding="utf-8")) for v in ("0.5.8", "0.5.9")]
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("*-args-*.json", "args-history"))
    (data / "args-history").mkdir()
    (data / "args-history" / "sglang.json").write_text(json.dumps(fold(lists)), encoding="utf-8")
    got = facts(data)
    assert got.arglists["sglang"] == {d["version"]: d for d in lists}
    assert got.bundled == {}  # no list of its own: the exposure bundle ships none of them


def test_a_history_that_removes_an_unknown_flag_is_one_line(tmp_path):
    lists = [json.loads((DATA / f"sglang-args-{v}.json").read_text(encoding="utf-8")) for v in ("0.5.8", "0.5.9")]
    doc = fold(lists)
    doc["releases"][1]["removed"].append("--never-was-a-flag")
    data = tmp_path / "data"
    shutil.copytree(DATA, data, ignore=shutil.ignore_patterns("*-args-*.json", "args-history"))
    (data / "args-history").mkdir()
    (data / "args-history" / "sglang.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ManualError) as err:
        facts(data)
    (line,) = str(err.value).splitlines()
    assert "data/args-history/sglang.json" in line and "--never-was-a-flag" in line


def test_a_list_of_its_own_that_differs_from_the_history_is_named(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    path = data / "sglang-args-0.5.9.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["arguments"] = doc["arguments"][1:]
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ManualError) as err:
        facts(data)
    assert "data/sglang-args-0.5.9.json" in str(err.value) and "args-history/sglang.json" in str(err.value)


def test_the_exposure_bundle_ships_only_the_lists_with_a_file_of_their_own():
    # page weight: exposure.json must not grow by every release's list
    from opsmanual.data.loader import load_manual
    from opsmanual.render.bundle import bundle

    manual = load_manual(ROOT)
    shipped = bundle(manual)["args"]
    own = {p.name.split("-args-")[0]: set() for p in DATA.glob("*-args-*.json")}
    for p in DATA.glob("*-args-*.json"):
        own[p.name.split("-args-")[0]].add(p.name.split("-args-")[1].removesuffix(".json"))
    assert {program: set(lists) for program, lists in shipped.items()} == own
    assert len(manual.facts.arglists["sglang"]) > len(shipped["sglang"])
