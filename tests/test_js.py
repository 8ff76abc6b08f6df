"""The browser's pure modules under `node --test`, against cases written from the Python side:
the finder's word rules and index (tests/js/search.test.mjs)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
import yaml
from conftest import ROOT

from opsmanual.render import search_index as search
from opsmanual.text import words as text

NODE = shutil.which("node")
SAMPLES = [
    "--mem-fraction-static 0.4",
    "KV cache pool is full. Retract requests.",
    "Hanging servers crashed twice",
    "sglang:utilization",
    "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "Café Straße ﬁne Ⅻ ½",
    "#36889, #36174",
    "torch.OutOfMemoryError: CUDA out of memory",
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
    "caches matched flies stopped running used uses buses analysis",
    "ΑΣ σίγμα Ελληνικά",
    "日本語のテキスト 123",
    "a_b-c.d+e/f:g",
    "The server hangs after a while",
    "p99 TTFT 2.5s at 32 requests",
    "x" * 40,
]
STEM_WORDS = [
    "hangs",
    "hanging",
    "hanged",
    "caches",
    "caching",
    "crashes",
    "flies",
    "passes",
    "buses",
    "status",
    "analysis",
    "running",
    "stopped",
    "used",
    "failed",
    "fails",
    "cuda",
    "gpus",
    "tokens",
    "graph",
]


def query_variants(token: str):
    """What text.js's variants() must give: the token, its stems, and their inflections."""
    if token in text.STOP_WORDS:
        return None
    out = [token]
    for base in [token, *text.stems(token)]:
        for form in [base, *inflections(base)]:
            if len(form) >= 2 and form not in out:
                out.append(form)
    return out


def inflections(word: str) -> list[str]:
    """The regular inflections text.js adds at query time, as opsmanual/text/words.py writes them."""
    return text.inflections(word)


@pytest.fixture(scope="module")
def cases(tmp_path_factory, incidents):
    docs = search.documents(incidents, {}, {"open": "Open"})
    for k, doc in enumerate(docs[:25]):  # some story text too, with stop words and repeats
        doc["story"] = f"The server {SAMPLES[k % len(SAMPLES)]} and then it hung again; hung twice. {doc['symptom']}"
    log_lines = yaml.safe_load((ROOT / "tests" / "log_lines.yaml").read_text("utf-8"))
    matched = []
    for item in log_lines:
        ids = sorted({i.id for i in incidents for p in i.log_patterns if p.matches(item["line"])})
        matched.append({"line": item["line"], "python": ids})
    patterns = []
    for inc in incidents:
        for p in inc.log_patterns:
            examples = [[e, p.matches(e)] for e in inc.log_examples]
            patterns.append(
                {
                    **({"literal": p.literal} if p.literal is not None else {"regex": p.regex, "fixed": p.prefilter}),
                    "id": inc.id,
                    "examples": examples,
                }
            )
    data = {
        "stopWords": sorted(text.STOP_WORDS),
        "text": [
            {
                "text": s,
                "fold": text.fold(s),
                "tokenize": text.tokenize(s),
                "words": text.words(s),
                "process": [text.process_term(t) for t in text.tokenize(s)],
                "variants": [query_variants(t) for t in text.tokenize(s)],
            }
            for s in SAMPLES
        ],
        "stems": [{"word": w, "stems": text.stems(w)} for w in STEM_WORDS],
        "fields": list(search.FIELDS),
        "docs": docs,
        "index": search.compact_index(docs),
        "logLines": matched,
        "patterns": patterns,
    }
    path = tmp_path_factory.mktemp("js") / "cases.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_finder_modules_pass_under_node(cases, built):
    env = dict(os.environ, FINDER_CASES=str(cases), FINDER_DATA=str(built / "incidents" / "finder.json"))
    result = subprocess.run(
        [NODE, "--test", "tests/js/search.test.mjs"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert not re.search(r"^# skipped [1-9]", result.stdout, re.M), result.stdout[-2000:]


def test_the_vendored_search_library_is_the_pinned_package_byte_for_byte():
    lock = json.loads((ROOT / "package-lock.json").read_text("utf-8"))
    pinned = lock["packages"]["node_modules/minisearch"]["version"]
    assert json.loads((ROOT / "package.json").read_text("utf-8"))["devDependencies"]["minisearch"] == pinned
    package = ROOT / "node_modules" / "minisearch"
    assert json.loads((package / "package.json").read_text("utf-8"))["version"] == pinned
    vendored = ROOT / "docs" / "javascripts" / "vendor" / "minisearch"
    for name, source in (
        ("index.js", "dist/es/index.js"),
        ("index.js.map", "dist/es/index.js.map"),
        ("LICENSE.txt", "LICENSE.txt"),
    ):
        assert (vendored / name).read_bytes() == (package / source).read_bytes(), name


def test_the_finder_reads_its_words_from_finder_json_as_python_renders_them(built):
    """The finder's sentences reach the browser in finder.json (opsmanual/data/finder_words.py), and the
    node tests read the same words from tests/js/finder-words.json. After a change to the words, write
    that file again:
    .venv/bin/python -c 'import json; from opsmanual.data.finder_words import browser_words;
    print(json.dumps(browser_words(), ensure_ascii=False, indent=1))' > tests/js/finder-words.json"""
    from opsmanual.data.finder_words import browser_words

    fixture = json.loads((ROOT / "tests" / "js" / "finder-words.json").read_text("utf-8"))
    assert fixture == browser_words()
    data = json.loads((built / "incidents" / "finder.json").read_text("utf-8"))
    assert data["words"] == browser_words()
