"""The search conformance cases (tests/search_conformance.json): the finder's queries
(tests/finder_queries.yaml), questions no finder test was tuned on (HELD_OUT) and hostile ones, with
the incidents the finder's search (docs/javascripts/sgm/search.js) ranks for each, best first, and
their scores, over tests/search_finder.json (the finder's data of this manual, kept still so that
the cases do not change with every new incident). The Python twin (opsmanual/engines/search.py) must
give the same: tests/test_search.py and tests/js/search-conformance.test.mjs check both.

    .venv/bin/python tests/search_cases.py           (rewrites the cases from the JavaScript engine)
    .venv/bin/python tests/search_cases.py --data    (also writes tests/search_finder.json afresh)
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "search_conformance.json"
DATA = ROOT / "tests" / "search_finder.json"
KEPT = 25  # results kept per case, best first (the count is kept whole)

# Questions no test or data file of the finder was tuned on, phrased as an operator asks an assistant.
HELD_OUT = [
    "my server hangs when one GPU rank never finishes",
    "why does qwen3-next only run two requests at once",
    "cuda graph capture fails at startup on an L4",
    "retracted requests and throughput drops under load",
    "weight update from the trainer times out",
]

HOSTILE = [
    "",
    "   ",
    "the of and a",
    "oom ",
    "cud",
    "memroy",
    "nccl timeo",
    "out-of-memory",
    "0.4",
    "--mem-fraction-static 0.4",
    "prefill/decode",
    "hangs hanging hanged",
    "went down",
    "x" * 600,
    "\U0001f600" * 300 + " oom",
    "o" * 511 + "\U0001f600",
    "\ud800 oom \udfff",
    "\x00\x01\x7f nccl\x1f",
    "oom\ufeff",
    "oom\u3000",
    "oom\x85",
    "Café naïve Straße ﬁne Ⅻ",
    "日本語のエラー 123",
    "ΑΣ σίγμα",
    "(.*)+[ ^$ \\d{2,}",
    "__proto__ constructor toString hasOwnProperty",
    "0 1 2 4294967295 4294967294 01",
    "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p",
    " ".join(f"word{k}" for k in range(40)),
    "oom " * 200,
    "<script>alert(1)</script>",
]


def queries() -> list[dict]:
    found = yaml.safe_load((ROOT / "tests" / "finder_queries.yaml").read_text("utf-8"))
    out = [{"name": f"finder: {c['query']}", "query": c["query"]} for c in found]
    out += [{"name": f"held out: {q}", "query": q} for q in HELD_OUT]
    out += [{"name": f"hostile {k}", "query": q} for k, q in enumerate(HOSTILE)]
    return out


def finder_data() -> dict:
    """The finder's data of the manual as it is now, as the build renders it (the parts the search reads)."""
    sys.path.insert(0, str(ROOT))
    from opsmanual.cli.search import build_data

    return build_data(str(ROOT))["finder"]


def javascript(data_path: Path, texts: list[str]) -> list[dict]:
    """The finder's answers (tests/js/search-agree.mjs) to each of ``texts`` over the data at ``data_path``."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8", delete=False) as f:
        json.dump(texts, f)
    try:
        done = subprocess.run(
            ["node", "tests/js/search-agree.mjs", str(data_path), f.name],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
    finally:
        Path(f.name).unlink()
    return json.loads(done.stdout)


def document(answers: list[dict]) -> dict:
    cases = []
    for case, found in zip(queries(), answers, strict=True):
        cases.append(
            {
                **case,
                "total": len(found["results"]),
                "results": [[r[0], r[1]] for r in found["results"][:KEPT]],
                "highlight": found["highlight"],
                "nearest": found["nearest"],
            }
        )
    return {
        "about": [
            "Queries and the incidents the finder's search ranks for them, best first, with their scores",
            f"(the first {KEPT}; total counts them all), over tests/search_finder.json. Written by",
            "tests/search_cases.py from docs/javascripts/sgm/search.js; opsmanual/engines/search.py must",
            "give the same (tests/test_search.py, tests/js/search-conformance.test.mjs).",
        ],
        "cases": cases,
    }


if __name__ == "__main__":
    if "--data" in sys.argv[1:] or not DATA.exists():
        DATA.write_text(json.dumps(finder_data(), ensure_ascii=False, separators=(",", ":")) + "\n", "utf-8")
    texts = [c["query"] for c in queries()]
    doc = document(javascript(DATA, texts))
    cases = ",\n".join(f"  {json.dumps(c, ensure_ascii=True)}" for c in doc["cases"])  # one line per case
    OUT.write_text(f'{{"about": {json.dumps(doc["about"], indent=1)},\n "cases": [\n{cases}\n]}}\n', "utf-8")
