"""The real data: it loads, it matches the schema, and its ids and sources hold."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import yaml
from conftest import ROOT
from jsonschema import Draft202012Validator

from opsmanual.data.loader import schema


def test_schema_is_a_valid_json_schema():
    Draft202012Validator.check_schema(schema())


def test_yaml_points_editors_at_the_schema():
    first = (ROOT / "data" / "incidents.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=./incidents.schema.json"


def test_every_incident_in_the_file_loads_once(incidents):
    text = (ROOT / "data" / "incidents.yaml").read_text(encoding="utf-8")
    entries = re.findall(r"^- id: ([a-z0-9-]+)$", text, re.M)
    assert entries and [i.id for i in incidents] == entries  # none dropped, none added, in file order
    assert len({i.name for i in incidents}) == len(incidents)


def test_every_status_and_kind_is_documented():
    props = schema()["$defs"]["incident"]["properties"]
    assert set(props["status"]["enum"]) == set(props["status"]["x-descriptions"])
    kind = schema()["$defs"]["source"]["properties"]["kind"]
    assert set(kind["enum"]) == set(kind["x-descriptions"])


def test_github_incidents_link_their_own_threads(incidents):
    by_name = {i.name: i for i in incidents}
    trio = by_name["#43413, #36174, #31261"]
    assert [s.github for s in trio.sources][:3] == [
        ("sgl-project/sglang", 43413),
        ("sgl-project/sglang", 36174),
        ("sgl-project/sglang", 31261),
    ]
    for inc in incidents:
        for number in re.findall(r"#([0-9]+)", inc.name):
            assert any(s.github and s.github[1] == int(number) for s in inc.sources), inc.id


def test_field_reports_have_a_publisher_and_never_a_guessed_url(incidents):
    reports = [s for i in incidents for s in i.sources if s.kind == "field-report"]
    assert reports
    verified = {
        "https://www.linkedin.com/blog/engineering/ai/scaling-llm-based-ranking-systems-with-sglang-at-linkedin",
        "https://research.aimultiple.com/inference-engines",
        "https://doubleword.ai/resources/70x-faster-cold-ish-starts-for-sglang",
        "https://github.com/dnhkng/dnhkng.github.io/blob/32ab5f0536b5eb3e3fdbdc7ce675ac896f8fee31/_posts/2026-08-04-gh200-benchmarking-part-4-dsv4-released.md",
    }
    for src in reports:
        assert src.publisher and re.fullmatch(r"[0-9]{4}-[0-9]{2}", src.date)
        assert src.url is None or src.url in verified, src.url


def test_ids_follow_the_documented_scheme(incidents):
    pattern = re.compile(
        r"^(sglang-[0-9]+|miles-[0-9]+|vllm-discussion-[0-9]+"
        r"|report-[a-z0-9-]+-[0-9]{4}-[0-9]{2}|capture-[a-z0-9-]+|metric-[a-z0-9-]+)$"
    )
    for inc in incidents:
        assert pattern.match(inc.id), inc.id
        if any(s.kind == "field-report" for s in inc.sources) and inc.name.endswith(("report, 2026-02", "2026-01")):
            assert inc.id.startswith("report-")


def test_captures_name_only_the_index_files(incidents):
    allowed = set(schema()["$defs"]["source"]["properties"]["path"]["enum"])
    used = {s.path for i in incidents for s in i.sources if s.kind == "capture" and s.path}
    assert used == allowed  # every capture file the index lists is paired with an incident


SEED_CHECK = ROOT.parent / "shared" / "checks" / "seed_check.py"


@pytest.mark.skipif(not SEED_CHECK.exists(), reason="the index and its checker live outside the repository")
def test_data_matches_the_index():
    result = subprocess.run(
        [sys.executable, str(SEED_CHECK), "data/incidents.yaml"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout
    assert re.search(r"\b([0-9]+) of \1 index rows match", result.stdout), result.stdout


# A fix cell that opens with one of these verbs, or with a flag or a variable assignment, tells the reader
# what to do, which is a workaround's wording, not the name of what fixed the cause.
WORKAROUND_OPENING = re.compile(
    r"^(?:(?:Use|Set|Raise|Lower|Avoid|Keep|Disable|Enable|Pass|Run|Add|Start|Stop|Send|Switch|Upgrade|"
    r"Downgrade|Turn|Cap|Edit|Serve|Leave|Treat|Restart|Pin|Reduce|Increase|Limit|Try|Remove|Install|"
    r"Replace|Drop|Check|Watch|Measure|Compute)\b|`?--[a-z]|`?[A-Z][A-Z0-9_]+=)"
)


def names_its_fix(cell: str, fixed_in) -> bool:
    """Whether ``cell`` names one of ``fixed_in``: a pull request's number, a commit's hash or a release."""
    for kind, value in fixed_in:
        if kind == "pr":
            number = value.rsplit("/", 1)[1]
            if re.search(rf"(?<![0-9.]){number}(?![0-9])", cell):
                return True
        elif kind == "commit":
            if value.rsplit("/", 1)[1][:7] in cell:
                return True
        elif re.search(rf"(?<![0-9.]){re.escape(value)}(?![0-9]|\.[0-9])", cell):
            return True
    return False


def fix_cell_problem(fix: str, fixed_in, workaround: str | None = None) -> str | None:
    """Why the fix cell of a `fixed` incident reads as a workaround rather than naming its fix, or None."""
    cell = " ".join(fix.split())
    if workaround and cell.startswith(" ".join(workaround.split())[:40]):
        return "the fix cell repeats the workaround"
    if WORKAROUND_OPENING.match(cell) and not names_its_fix(cell, fixed_in):
        return "the fix cell opens like a workaround and names none of fixed_in (a pull request, commit or release)"
    return None


def test_the_fix_cell_rule_tells_a_fix_from_a_workaround():
    assert fix_cell_problem("Set `--mem-fraction-static`", [("version", "0.5.22")])  # sglang-39675 before
    assert fix_cell_problem("`--mem-fraction-static 0.4`", [("version", "0.5.22")])
    assert fix_cell_problem("`SGLANG_X=0` avoids it", [("pr", "https://github.com/a/b/pull/123")])
    assert fix_cell_problem("Keep the chunk small", [("version", "0.5.22")], workaround="Keep the chunk small")
    assert fix_cell_problem("Upgrade to 0.5.220", [("version", "0.5.22")])  # another release
    assert not fix_cell_problem("Upgrade to 0.5.22", [("version", "0.5.22")])
    assert not fix_cell_problem("Set by pull request #123", [("pr", "https://github.com/a/b/pull/123")])
    assert not fix_cell_problem("SGLang made `fa3` the Hopper default", [("pr", "https://github.com/a/b/pull/1")])


def test_a_fixed_incident_names_its_fix_not_a_workaround(incidents):
    fixed = [i for i in incidents if i.status == "fixed"]
    assert fixed
    for inc in fixed:
        problem = fix_cell_problem(inc.fix, inc.fixed_in, inc.workaround)
        assert problem is None, f"{inc.id}: {problem}: {inc.fix!r}"


@pytest.mark.parametrize("field", ["status", "kind"])
def test_every_value_of_the_schema_has_one_label_and_the_renderers_use_it(field):
    """Reader-facing names of statuses and source kinds live once, in the schema's x-labels."""
    from opsmanual.data.loader import labels, schema
    from opsmanual.render import html as render

    defs = schema()["$defs"]
    where = {"status": defs["incident"]["properties"]["status"], "kind": defs["source"]["properties"]["kind"]}[field]
    assert set(where["x-labels"]) == set(where["enum"]), "each value needs exactly one label"
    assert labels(field) == {v: where["x-labels"][v] for v in where["enum"]}
    assert (render.STATUS_LABELS if field == "status" else render.KIND_LABELS) == labels(field)


# --- affected ranges and their evidence (tools/bisect_ranges.py writes them) ---------------------


def _configuration_ranges(incidents):
    for inc in incidents:
        exposure = inc.exposure or {}
        if "when" in exposure:
            for r in exposure.get("versions") or []:
                yield inc, r


def test_every_range_carries_evidence_or_a_reason(incidents):
    ranges = list(_configuration_ranges(incidents))
    assert ranges
    for inc, r in ranges:
        if r.get("unknown") or r.get("unaffected"):
            assert r.get("reason", "").strip(), f"{inc.id}: an unknown or unaffected range says why in reason"
            assert "evidence" not in r, inc.id
        else:
            assert "evidence" in r, f"{inc.id}: a known range carries the evidence tools/bisect_ranges.py found"


def test_ranges_agree_with_their_evidence_and_the_releases():
    """introduced is the first release the predicate holds for, fixed the next release after the last
    (or last_affected the last), every release named is one data/releases.yaml lists, and the
    releases on both sides of each boundary were checked."""
    from opsmanual.text.versions import compare, version_key

    data = yaml.safe_load((ROOT / "data" / "incidents.yaml").read_text(encoding="utf-8"))
    listed = yaml.safe_load((ROOT / "data" / "releases.yaml").read_text(encoding="utf-8"))
    found = 0
    for inc in data:
        for r in (inc.get("exposure") or {}).get("versions") or []:
            ev = r.get("evidence")
            if not ev:
                continue
            found += 1
            order = sorted(listed[r["product"]]["versions"], key=version_key)
            where = f"{inc['id']} ({r['product']})"
            for v in [r["introduced"], *(r[k] for k in ("fixed", "last_affected") if k in r), *ev["checked"]]:
                assert v in order, f"{where}: {v} is not a release in data/releases.yaml"
            checked = ev["checked"]
            assert checked == sorted(checked, key=version_key) and len(set(checked)) == len(checked), where
            assert r["introduced"] == ev["holds_first"] and ev["holds_first"] in checked, where
            assert ev["holds_last"] in checked and compare(ev["holds_first"], ev["holds_last"]) <= 0, where
            first = order.index(ev["holds_first"])
            assert first == 0 or order[first - 1] in checked, f"{where}: the release before introduced was not checked"
            if "fixed" in r:
                assert compare(r["introduced"], r["fixed"]) < 0, where
                assert order.index(r["fixed"]) == order.index(ev["holds_last"]) + 1, (
                    f"{where}: fixed must be the release right after the last one the predicate holds for"
                )
                assert r["fixed"] in checked, where
            else:
                assert r["last_affected"] == ev["holds_last"], where
            package = r["product"].replace("-", "_")
            if r["product"] == "sglang-router":  # read from its source archive: a path below the top folder
                assert ev["file"].startswith(("src/", "py_src/", "bindings/")), where
            else:
                assert ev["file"].startswith((package + "/", package + "-")), where
    assert found


def test_the_predicates_file_names_each_configuration_range(incidents):
    """tools/range_predicates.yaml holds one entry per configuration incident and product: what
    the tool writes is what the data says (the tool itself needs the wheels; this reads both files)."""
    from tools.bisect_ranges import load_predicates

    preds = {(p.incident, p.product): p for p in load_predicates()}
    for inc, r in _configuration_ranges(incidents):
        p = preds.get((inc.id, r["product"]))
        assert p is not None, f"{inc.id} ({r['product']}) has no entry in tools/range_predicates.yaml"
        if r.get("unknown") or r.get("unaffected"):
            assert p.reason and " ".join(p.reason.split()) == r["reason"], inc.id
            assert p.unaffected == bool(r.get("unaffected")), inc.id
        else:
            assert not p.reason and " ".join(p.description.split()) == r["evidence"]["predicate"], inc.id
