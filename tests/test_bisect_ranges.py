"""tools/bisect_ranges.py on small wheels it is handed (no download): the bisection finds the window of
releases a predicate holds for and verifies its boundaries, the data file is rewritten in place and
deterministically, and a bad predicates file is one line and exit 2."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

from tools import bisect_ranges as br

RELEASES = ["0.1.0", "0.1.1", "0.2.0", "0.2.0.post1", "0.3.0rc0", "0.3.0", "0.4.0", "0.5.0"]


def wheels(tmp_path: Path, code: dict[str, str]) -> Path:
    """One tiny wheel of `sglang` per release; code[version] is the text of sglang/srt/x.py."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    for v in RELEASES:
        with zipfile.ZipFile(folder / f"sglang-{v}-py3-none-any.whl", "w") as z:
            z.writestr("sglang/srt/x.py", code.get(v, "def other():\n    pass\n"))
            z.writestr(f"sglang-{v}.dist-info/METADATA", f"Name: sglang\nVersion: {v}\n")
    return folder


def pred(**kw) -> br.Predicate:
    base = dict(
        incident="sglang-1",
        product="sglang",
        kind="bug",
        since="0.1.0",
        description="the socket is bound",
        file="sglang/srt/*.py",
        holds=[{"match": r"bind\(ipv6=False\)"}],
    )
    return br.Predicate(**(base | kw))


BUGGY = "def f():\n    sock.bind(ipv6=False)\n"


def test_bisection_finds_the_window_and_checks_both_sides(tmp_path):
    code = {v: BUGGY for v in ["0.2.0", "0.2.0.post1", "0.3.0rc0"]}
    w = br.Wheels(wheels(tmp_path, code), fetch=False)
    rng = br.bisect(pred(anchor="0.2.0.post1"), RELEASES, w)
    assert (rng["introduced"], rng["fixed"]) == ("0.2.0", "0.3.0")
    assert rng["kind"] == "bug"  # the predicate's kind travels with its range
    ev = rng["evidence"]
    assert (ev["holds_first"], ev["holds_last"]) == ("0.2.0", "0.3.0rc0")
    assert {"0.1.1", "0.2.0", "0.3.0rc0", "0.3.0"} <= set(ev["checked"])
    assert ev["checked"] == sorted(ev["checked"], key=br.version_key)
    assert (ev["file"], ev["line"]) == ("sglang/srt/x.py", 2)
    assert len(ev["checked"]) < len(RELEASES)  # a bisection, not a scan


def test_still_present_in_the_newest_release_gives_last_affected(tmp_path):
    code = {v: BUGGY for v in RELEASES[4:]}
    rng = br.bisect(pred(), RELEASES, br.Wheels(wheels(tmp_path, code), fetch=False))
    assert rng["introduced"] == "0.3.0rc0" and rng["last_affected"] == "0.5.0" and "fixed" not in rng


def test_a_predicate_that_holds_at_since_must_start_earlier(tmp_path):
    code = {v: BUGGY for v in RELEASES}
    w = br.Wheels(wheels(tmp_path, code), fetch=False)
    with pytest.raises(br.Refused, match="start earlier"):
        br.bisect(pred(since="0.2.0"), RELEASES, w)
    assert br.bisect(pred(), RELEASES, w)["introduced"] == "0.1.0"  # the first release ever


def test_verify_refuses_a_predicate_that_is_not_one_window(tmp_path):
    code = {"0.1.1": BUGGY, "0.3.0": BUGGY}
    w = br.Wheels(wheels(tmp_path, code), fetch=False)
    with pytest.raises(br.Refused, match="not one window"):
        br.bisect(pred(anchor="0.3.0"), RELEASES, w, verify=True)


def test_no_match_and_a_second_file(tmp_path):
    code = {v: BUGGY + "# IPV6 handled\n" for v in ["0.4.0", "0.5.0"]}
    code.update({v: BUGGY for v in ["0.2.0", "0.2.0.post1", "0.3.0rc0", "0.3.0"]})
    p = pred(
        anchor="0.3.0",
        holds=[
            {"match": r"bind\(ipv6=False\)"},
            {"no_match": "IPV6 handled"},
            {"file": "sglang-*.dist-info/METADATA", "match": "^Name: sglang$"},
        ],
    )
    rng = br.bisect(p, RELEASES, br.Wheels(wheels(tmp_path, code), fetch=False))
    assert (rng["introduced"], rng["fixed"]) == ("0.2.0", "0.4.0")


ROUTER = ["0.1.5", "0.1.6", "0.1.9", "0.2.0"]
ROUTER_BUG = "fn add_prefill_server() {\n    if let Some(ref tree) = self.prefill_tree {\n    }\n}\n"


def sdist_bytes(version: str, code: str) -> bytes:
    """A tiny sglang-router source archive: sglang_router-<v>/src/routers/pd_router.rs and a Python file."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in [
            ("src/routers/pd_router.rs", code),
            ("py_src/sglang_router/launch_router.py", "x = 1\n"),
            ("PKG-INFO", f"Name: sglang-router\nVersion: {version}\n"),
        ]:
            data = text.encode()
            info = tarfile.TarInfo(f"sglang_router-{version}/{name}")
            info.size, info.mtime = len(data), 0
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def router_pred(**kw) -> br.Predicate:
    base = dict(
        incident="sglang-10608",
        product="sglang-router",
        kind="bug",
        since="0.1.5",
        anchor="0.1.9",
        description="the PD router keeps its own tree",
        file="src/**pd_router.rs",
        holds=[{"match": r"self\.prefill_tree"}, {"file": "py_src/sglang_router/*.py", "match": "x = 1"}],
    )
    return br.Predicate(**(base | kw))


def test_router_predicates_read_the_source_archive_from_its_top_folder(tmp_path):
    sdists = tmp_path / "sdists"
    sdists.mkdir()
    for v in ROUTER:
        code = ROUTER_BUG if v in ("0.1.6", "0.1.9") else "fn add_prefill_server() {}\n"
        (sdists / f"sglang_router-{v}.tar.gz").write_bytes(sdist_bytes(v, code))
    # a wheel of the same release is never read: it holds compiled code
    with zipfile.ZipFile(tmp_path / "sglang_router-0.1.9-cp38-abi3-manylinux.whl", "w") as z:
        z.writestr("sglang_router/router.py", "x = 2\n")
    w = br.Wheels(tmp_path, fetch=False, sdists=sdists)
    assert w.release("sglang-router", "0.1.9").find("src/**.rs") == ["src/routers/pd_router.rs"]
    rng = br.bisect(router_pred(), ROUTER, w, verify=True)
    assert (rng["introduced"], rng["fixed"]) == ("0.1.6", "0.2.0")
    assert (rng["evidence"]["file"], rng["evidence"]["line"]) == ("src/routers/pd_router.rs", 2)
    with pytest.raises(br.Refused, match=r"no archive of sglang-router==0\.3\.0 in .*sdists \(PyPI download"):
        w.release("sglang-router", "0.3.0")


def test_a_missing_router_sdist_comes_from_pypi_json_and_its_hash_is_checked(tmp_path, monkeypatch):
    body = sdist_bytes("0.1.9", ROUTER_BUG)
    digest = {"sha256": hashlib.sha256(body).hexdigest()}
    asked = []

    def urlopen(url, timeout):
        asked.append(url)
        if url.endswith("/json"):
            listed = {
                "urls": [
                    {"packagetype": "bdist_wheel", "url": "https://files.example/x.whl"},
                    {
                        "packagetype": "sdist",
                        "filename": "sglang_router-0.1.9.tar.gz",
                        "url": "https://files.example/sglang_router-0.1.9.tar.gz",
                        "digests": digest,
                    },
                ]
            }
            return io.BytesIO(json.dumps(listed).encode())
        return io.BytesIO(body)

    monkeypatch.setattr(br.urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(br.subprocess, "run", lambda *a, **k: pytest.fail("pip must not build an sdist"))
    w = br.Wheels(tmp_path, sdists=tmp_path / "sdists")
    assert w.release("sglang-router", "0.1.9").find("src/routers/*.rs") == ["src/routers/pd_router.rs"]
    assert asked == [
        "https://pypi.org/pypi/sglang-router/0.1.9/json",
        "https://files.example/sglang_router-0.1.9.tar.gz",
    ]
    assert (tmp_path / "sdists" / "sglang_router-0.1.9.tar.gz").read_bytes() == body
    digest["sha256"] = "0" * 64
    with pytest.raises(br.Refused, match="does not match the SHA-256"):
        br.Wheels(tmp_path, sdists=tmp_path / "other").release("sglang-router", "0.1.9")


DATA = """\
- id: sglang-1
  name: x
  exposure:
    versions:
      - {product: sglang, unknown: true, seen: ["0.2.0"]}
      - {product: sglang-router, unknown: true}
    when:
      all:
        - program: sglang
  sources: []

- id: sglang-2
  exposure:
    versions:
      - {product: sglang, unknown: true, seen: ["0.5.0"]}
    when: {program: sglang}
"""


def test_the_data_is_rewritten_in_place_and_deterministically(tmp_path):
    found = {
        ("sglang-1", "sglang"): {
            "product": "sglang",
            "kind": "feature",
            "introduced": "0.2.0",
            "fixed": "0.3.0",
            "evidence": {
                "predicate": 'the "socket" is bound',
                "file": "sglang/srt/x.py",
                "line": 2,
                "holds_first": "0.2.0",
                "holds_last": "0.3.0rc0",
                "checked": ["0.1.1", "0.2.0", "0.3.0rc0", "0.3.0"],
            },
        },
        ("sglang-2", "sglang"): {"product": "sglang", "unknown": True, "reason": "No cause recorded"},
    }
    once = br.write_ranges(DATA, found)
    assert br.write_ranges(once, found) == once
    data = yaml.safe_load(once)
    first, second = data[0]["exposure"]["versions"], data[1]["exposure"]["versions"]
    assert first[0] == found[("sglang-1", "sglang")] and first[1] == {"product": "sglang-router", "unknown": True}
    assert second == [{"product": "sglang", "unknown": True, "seen": ["0.5.0"], "reason": "No cause recorded"}]
    assert data[0]["exposure"]["when"] == {"all": [{"program": "sglang"}]}  # the rest is untouched
    assert once.count("\n- id: ") == DATA.count("\n- id: ")
    with pytest.raises(br.Refused, match="sglang-9"):
        br.write_ranges(DATA, {("sglang-9", "sglang"): found[("sglang-2", "sglang")]})


@pytest.mark.parametrize(
    "text, message",
    [
        ("- {incident: a}\n", "entry 1: an entry names incident and product"),
        ("- {incident: a, product: sglang, reason: x, since: '0.1'}\n", "entry 1 (a): an entry with reason has only"),
        (
            "- {incident: a, product: miles, kind: bug, since: '0.1', description: d, file: f, holds: [{match: x}]}\n",
            "product must be one of sglang, sglang-router",
        ),
        (
            "- {incident: a, product: sglang, kind: bug, since: '0.1', description: d, file: f, holds: [{match: '('}]}\n",
            "holds[0]: not a regular expression",
        ),
        (
            "- {incident: a, product: sglang, kind: bug, since: '0.1', description: d, file: f, holds: [{no_match: x}]}\n",
            "one test must match in `file`",
        ),
        ("- {incident: a, product: sglang, since: '0.1', colour: red}\n", "unknown key(s) colour"),
        (
            "- {incident: a, product: sglang, since: '0.1', description: d, file: f, holds: [{match: x}]}\n",
            "entry 1 (a): missing kind",
        ),
        (
            "- {incident: a, product: sglang, kind: maybe, since: '0.1', description: d, file: f, holds: [{match: x}]}\n",
            "kind must be one of bug, feature, not 'maybe'",
        ),
        ("- [\n", "not valid YAML"),
    ],
)
def test_a_bad_predicates_file_is_one_line_and_exit_2(tmp_path, capsys, text, message):
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    assert br.main(["--predicates", str(path), "--offline", "--dry-run", "--wheels", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err and "Traceback" not in err


def test_the_committed_predicates_load_and_name_each_incident_once():
    preds = br.load_predicates()
    assert len({(p.incident, p.product) for p in preds}) == len(preds)
    assert all(p.reason or p.since for p in preds)
    assert all(p.reason or p.kind in br.KINDS for p in preds)


def test_a_range_in_no_published_release_is_written_with_its_reason(tmp_path, capsys):
    """`unaffected: true` with a reason: the code at fault is in no published release. The tool writes it
    as such (not as unknown), and refuses it without a reason or with a value other than true."""
    path = tmp_path / "p.yaml"
    path.write_text(
        "- {incident: sglang-2, product: sglang, unaffected: true, reason: Only between 0.4.0 and 0.5.0}\n",
        encoding="utf-8",
    )
    data = tmp_path / "incidents.yaml"
    data.write_text(DATA, encoding="utf-8")
    argv = ["--predicates", str(path), "--offline", "--wheels", str(tmp_path), "--data", str(data)]
    assert br.main(argv) == 0
    (second,) = yaml.safe_load(data.read_text(encoding="utf-8"))[1]["exposure"]["versions"]
    assert second == {"product": "sglang", "unaffected": True, "reason": "Only between 0.4.0 and 0.5.0"}
    assert br.main([*argv, "--note", str(tmp_path / "note.md")]) == 0
    assert "Only between 0.4.0 and 0.5.0" in (tmp_path / "note.md").read_text(encoding="utf-8")
    for bad, message in [
        ("- {incident: a, product: sglang, unaffected: true}\n", "entry 1 (a): unaffected needs a reason"),
        ("- {incident: a, product: sglang, unaffected: yes please, reason: r}\n", "unaffected is true"),
    ]:
        path.write_text(bad, encoding="utf-8")
        assert br.main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "Traceback" not in err and message in err
