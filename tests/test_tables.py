"""One table per fact: the programs and products every reader names come from
opsmanual/data/programs.py (and reach the browser in the exposure bundle), the labels from the
schemas, and each incident the site publishes builds the same incident back."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from opsmanual.data import model, programs
from opsmanual.data.loader import labels, load_manual, schema

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def manual():
    return load_manual(ROOT)


def test_the_products_are_the_schemas_and_their_labels_its_x_labels():
    where = schema()["$defs"]["version_range"]["properties"]["product"]
    assert list(programs.PRODUCTS) == where["enum"]
    assert programs.PRODUCT_LABELS == labels("product") == where["x-labels"]


def test_every_argument_list_and_history_file_is_a_list_of_the_table():
    for path in sorted((ROOT / "data").glob("*-args-*.json")):
        listed = json.loads(path.read_text("utf-8"))
        name = path.name.split("-args-")[0]
        assert name in programs.ARG_LISTS, path.name
        assert listed["program"] == programs.LIST_PROGRAM[name], path.name
        assert programs.PROGRAMS[listed["program"]]["list"] == name
    for path in sorted((ROOT / "data" / "args-history").glob("*.json")):
        assert json.loads(path.read_text("utf-8"))["program"] in programs.ARG_LISTS, path.name
    for entry in programs.ARG_LISTS.values():
        assert entry["product"] in programs.PRODUCTS
    for module, program in programs.MODULES.items():
        assert program in programs.PROGRAMS, module


def test_a_flag_condition_names_a_program_of_the_table():
    flag = schema()["$defs"]["condition"]["properties"]["flag"]
    named = json.dumps(flag)
    for program in re.findall(r'"program": \{[^}]*"enum": \[([^\]]*)\]', named):
        for value in json.loads(f"[{program}]"):
            assert value in programs.PROGRAMS


def test_the_bench_list_names_itself_and_its_product_apart():
    """bench_serving ships in the sglang package: a finding names the list as its own program, and
    a release it cites as SGLang's."""
    from opsmanual.data import conditions, exposure_words

    assert conditions.LIST_LABEL["sglang-bench"] == "SGLang's bench_serving"
    assert exposure_words.LIST_LABEL["sglang-bench"] == "SGLang"
    assert exposure_words.ARG_LABELS["sglang-bench"] == ["an", "SGLang bench_serving"]
    assert programs.LIST_PRODUCT["sglang-bench"] == "sglang"


# Literal tables of programs or products written outside the one table: a key or value pair
# such as "sglang-bench": "sglang", bench: "sglang-bench", "sglang-router": "sglang-router".
_TABLE_ROW = re.compile(
    r"""["']?(?:sglang-bench|sglang-router|router|bench|engine)["']?\s*:\s*["'](?:sglang|sglang-router|sglang-bench|SGLang|sglang_router|miles|Miles)["']"""
)


def _sources():
    for path in sorted((ROOT / "opsmanual").rglob("*.py")):
        if path.name != "programs.py":
            yield path
    for path in sorted((ROOT / "docs" / "javascripts").rglob("*.js")):
        yield path


def test_no_reader_keeps_its_own_copy_of_the_programs_table():
    copies = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in _sources()
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if _TABLE_ROW.search(line) and not line.lstrip().startswith(("#", "//", "*"))
    ]
    assert not copies, "\n".join(copies)


def test_the_bundle_carries_the_programs_table(manual):
    from opsmanual.render.bundle import bundle

    carried = json.loads(json.dumps(bundle(manual)))["words"]["program_table"]
    assert carried == json.loads(json.dumps(programs.bundle_programs()))


def test_each_published_incident_builds_the_same_incident_back(manual):
    """incidents.json holds every field of each incident in the schema's shape: building the model
    from a record (without the published urls and affected releases) gives the incident back, and
    the record is valid against the published schema."""
    from jsonschema import Draft202012Validator

    from opsmanual.render import exports

    releases = {product: manual.facts.versions(product) for product in manual.facts.releases}
    published = json.loads(exports.to_json(manual.incidents, manual.site, releases))["incidents"]
    assert [r["id"] for r in published] == [i.id for i in manual.incidents]
    entry = schema()["$defs"]["incident"]
    validator = Draft202012Validator({**schema(), **entry})
    for record, incident in zip(published, manual.incidents, strict=True):
        raw = {k: v for k, v in record.items() if k not in ("urls", "affected")}
        assert not list(validator.iter_errors(raw)), incident.id
        again = model.build(raw, incident.line)
        assert again == incident, incident.id
        assert again.exposure == incident.exposure, incident.id  # not part of ==


def test_the_round_trip_covers_every_field(manual):
    """Each field of an incident is set (not left at its default) by some incident of the data, so
    the round trip above reads every field back; a new field needs an incident that uses it."""
    optional = [
        f
        for f in dataclasses.fields(model.Incident)
        if f.name not in ("line", "lines") and f.default is not dataclasses.MISSING
    ]
    unused = [f.name for f in optional if all(getattr(i, f.name) == f.default for i in manual.incidents)]
    assert not unused
