"""The diagnosis engine's numbers on the labelled reports, per file and split: the expected incident
in the first three, the expected incident named as the match, and "not a known incident" for the
unrelated reports; for the real GPU-machine texts under ../shared/fixtures/h200 when present, the
first guidance and the incidents related by words alone; and, on the real bug reports of
tests/diagnose_background/reports.jsonl (each read and labelled "none" when it is clearly none of the
incidents' failures, "unsure" when its text cannot tell), how many of the unrelated get "not a known
incident". Each report that gets an incident named is listed with its label, for a person to judge.

    .venv/bin/python tests/diagnose_measure.py [FILE ...]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "tests" / "diagnose_reports.yaml", ROOT / "tests" / "diagnose_heldout.yaml"]
REPORTS = ROOT / "tests" / "diagnose_background" / "reports.jsonl"


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


def by_words(out: dict) -> list[str]:
    """The incidents a diagnosis relates by words alone (its words, a component they name, the finder's rank)."""
    said = ("your words", "the finder", "your report names its component")
    return [r["id"] for r in out["results"] if all(w.startswith(said) for w in r["why"])]


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
        words_only = by_words(out)
        first = out["guidance"][0]["id"] if out["guidance"] else None
        print(
            f"{f.name}: {out['answer']}; first guidance {first}; {len(out['results'])} incidents, "
            f"{len(words_only)} by words alone"
        )
    if argv:
        return
    # real error text held out from the guidance: the expected entry comes first, and few incidents by words
    heldout = ROOT / "tests" / "guidance_heldout"
    table = re.findall(r"^\| `([^`]+\.txt)` \| `([a-z0-9-]+)` \|", (heldout / "README.md").read_text("utf-8"), re.M)
    right = quiet = 0
    for name, expected in table:
        out = engine.diagnose((heldout / name).read_text("utf-8"), finder)
        first = out["guidance"][0]["id"] if out["guidance"] else None
        words_only = by_words(out)
        right += first == expected
        quiet += len(words_only) <= 2
        print(f"  guidance_heldout/{name}: first {first} (expected {expected}), {len(words_only)} by words alone")
    print(
        f"guidance_heldout: the expected entry first {right}/{len(table)}, at most two by words alone {quiet}/{len(table)}"
    )
    reports = [json.loads(x) for x in REPORTS.read_text("utf-8").splitlines() if x.strip()]
    named = []
    for r in reports:
        out = engine.diagnose(f"{r['title']}\n{r['text']}", finder)
        if out["answer"] != "not a known incident":
            why = "; ".join(out["results"][0]["why"])[:160]
            named.append((r["label"], f"  [{r['label']}] {r['url']} -> {out['results'][0]['id']}: {why}"))
    unrelated = [r for r in reports if r["label"] == "none"]
    wolf = [x for label, x in named if label == "none"]
    print(
        f"{REPORTS.name}: not a known incident for {len(unrelated) - len(wolf)}/{len(unrelated)} read as "
        f"unrelated; an incident named for {len(named)}/{len(reports)} in all"
    )
    print("\n".join(x for _, x in named))


if __name__ == "__main__":
    main(sys.argv[1:])
