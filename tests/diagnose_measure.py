"""The diagnosis engine's numbers on the labelled reports, per file and split: the expected incident
in the first three, the expected incident named as the match, and "not a known incident" for the
unrelated reports; and, for the real GPU-machine texts under ../shared/fixtures/h200 when present,
the first guidance and the incidents related by words alone.

    .venv/bin/python tests/diagnose_measure.py [FILE ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "tests" / "diagnose_reports.yaml", ROOT / "tests" / "diagnose_heldout.yaml"]


def measure(engine, cases: list[dict], finder=None) -> dict:
    """``finder(words)``: the finder's ids for a report's own words, best first (as the CLI asks it)."""
    related = [c for c in cases if c["expect"]]
    unrelated = [c for c in cases if not c["expect"]]
    top3 = named = unknown = 0
    for c in related:
        out = engine.diagnose(c["text"], finder)
        ids = [r["id"] for r in out["results"][:3]]
        top3 += any(i in ids for i in c["expect"])
        named += any(r["verdict"] == "matches" and r["id"] in c["expect"] for r in out["results"][:1])
    for c in unrelated:
        unknown += engine.diagnose(c["text"], finder)["answer"] == "not a known incident"
    return {"related": len(related), "top3": top3, "named": named, "unrelated": len(unrelated), "unknown": unknown}


def line(name: str, m: dict) -> str:
    return (
        f"{name}: top-3 {m['top3']}/{m['related']}, named as the match {m['named']}/{m['related']}, "
        f"not a known incident {m['unknown']}/{m['unrelated']}"
    )


def main(argv: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    from opsmanual.cli.diagnose import finder_of, ids_of, load_bundles
    from opsmanual.engines.diagnose import Diagnoser

    engine = Diagnoser(*load_bundles(str(ROOT), None))
    finder = ids_of(finder_of(str(ROOT)))

    for path in [Path(a) for a in argv] or FILES:
        if not path.exists():
            continue
        cases = yaml.safe_load(path.read_text("utf-8")) or []
        splits = sorted({c.get("split", "") for c in cases})
        for s in splits:
            print(
                line(
                    f"{path.name} [{s or 'all'}]",
                    measure(engine, [c for c in cases if c.get("split", "") == s], finder),
                )
            )
        if len(splits) > 1:
            print(line(f"{path.name} [all]", measure(engine, cases, finder)))
    fixtures = ROOT.parent / "shared" / "fixtures" / "h200"
    for f in sorted(fixtures.glob("*.txt")) if fixtures.is_dir() else []:
        out = engine.diagnose(f.read_text("utf-8"), finder)
        words_only = [
            r["id"] for r in out["results"] if all(w.startswith(("your words", "the finder")) for w in r["why"])
        ]
        first = out["guidance"][0]["id"] if out["guidance"] else None
        print(
            f"{f.name}: {out['answer']}; first guidance {first}; {len(out['results'])} incidents, "
            f"{len(words_only)} by words alone"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
