"""The diagnosis bundle: everything both diagnosis engines need besides the exposure bundle
(opsmanual/engines/diagnose.py and docs/javascripts/sgm/diagnose.js), as plain JSON made from the
validated model: the incidents' log patterns, the errors many incidents share (data/guidance.yaml)
with the lines that tell their phase, each incident's words with their weights, and the rules that
read a report (opsmanual/data/diagnosis.py)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from opsmanual.data import diagnosis as rules
from opsmanual.data.loader import labels
from opsmanual.data.model import GITHUB, Guidance, Incident, LogPattern
from opsmanual.data.site import Site
from opsmanual.render.actions import action
from opsmanual.render.search_index import BOOSTS as SEARCH_BOOSTS
from opsmanual.text.words import STOP_WORDS, stems, tokenize

if TYPE_CHECKING:
    from opsmanual.data.loader import Manual

# The fields whose words tell an incident, and how much a word in each counts: the finder's boosts
# (opsmanual/render/search_index.py), the log lines lower (they count apart, as lines). The story is the
# section pages' text of the incident: the words a report uses that the one-line fields leave out.
FIELDS = {**SEARCH_BOOSTS, "logs": 1.0}
# Words that say nothing of a failure: units, and short rank or device labels (tp0, dp1, h100); the
# GPU and the log lines count apart.
UNITS = frozenset("mib gib gb mb kb ms us ns tok req reqs".split())
_LABEL = re.compile(r"^[a-z]{1,2}\d+$")
# A GPU architecture as kernels name it (sm120, sm_90a): a label in form, but the one word that tells
# an incident about one architecture's kernels; both spellings tell it.
_ARCH = re.compile(r"^sm_?(\d{2,3}[a-z]?)$")
# A model's size (30b, a3b, qwen3-30b-a3b): it tells the model, a launch condition, not the failure.
_SIZE = re.compile(r"(?:^|-)a?\d+(?:\.\d+)?[bm](?:-|$)")
COMMON = 0.34  # a word in more than this share of the incidents tells none of them apart
COMPONENT_TERM = 3  # a synonym shorter than this (TP, PD) names no component on its own
_SPECIAL = re.compile(r"[.^$*+?()\[\]{}|\\]")  # what a pattern must escape (both engines' syntax)


def _pattern(p: LogPattern) -> dict[str, Any]:
    """A log pattern as the engines read it; generic (only "possible") when several incidents print its
    line, or a common error does (opsmanual.data.guidance.with_common_lines)."""
    out: dict[str, Any] = {"literal": p.literal} if p.literal is not None else {"regex": p.regex, "fixed": p.prefilter}
    if getattr(p, "generic", False):
        out["generic"] = True
    return out


def _field_texts(inc: Incident, story: str = "") -> dict[str, str]:
    logs = [p.literal if p.literal is not None else (p.regex or "") for p in inc.log_patterns] + list(inc.log_examples)
    return {
        "title": inc.title,
        "symptom": inc.symptom,
        "logs": "\n".join(logs),
        "name": inc.name,
        "tags": " ".join([*inc.components, *inc.hardware]),
        "cause": inc.cause,
        "fix": inc.fix,
        "story": story,
    }


def _kinds(inc: Incident) -> list[str]:
    """The kinds of failure (opsmanual/data/diagnosis.py KINDS) the incident's own text tells."""
    texts = _field_texts(inc)
    text = "\n".join([texts["title"], texts["symptom"], texts["name"], texts["logs"]])
    flags = re.ASCII | re.IGNORECASE
    return [k["kind"] for k in rules.KINDS if re.search(k["re"], text, flags)]


def components(incidents: Iterable[Incident], synonyms: Iterable[Mapping[str, Any]] = ()) -> list[dict[str, Any]]:
    """The words that name each component the incidents list (data/incidents.yaml ``components``): its name,
    and the terms of the synonym group (data/synonyms.yaml) that holds the name (flags left out, which count
    as launch conditions), as a pattern on lower-cased text, like the kinds of failure."""
    groups = [[str(t) for t in g["terms"]] for g in synonyms]
    out = []
    for name in sorted({c for inc in incidents for c in inc.components}):
        said = {name.lower()}
        for terms in groups:
            if name.lower() in (t.lower() for t in terms):
                said.update(t.lower() for t in terms if len(t) >= COMPONENT_TERM and not t.startswith("-"))
        alternatives = "|".join(_SPECIAL.sub(r"\\\g<0>", t) for t in sorted(said, key=lambda t: (-len(t), t)))
        out.append({"component": name, "flags": "i", "re": rf"(?:^|[^a-z0-9_-])(?:{alternatives})(?:[^a-z0-9_-]|$)"})
    return out


def _threads(inc: Incident) -> list[str]:
    """``owner/name#N`` for each GitHub issue of SGLang or Miles among the incident's own sources (not those
    marked related) and the pull request that fixed it. Other pull requests among its sources are no thread
    of its failure: the change that brought it (a refactor many other reports cite) or a feature."""
    fixes = [v for k, v in inc.fixed_in if k == "pr"]
    threads = []
    for url in [s.url for s in inc.sources if not s.related] + fixes:
        match = GITHUB.match(url or "")
        if (
            match
            and match.group(1) in rules.CITED_REPOSITORIES.values()
            and (match.group(2) == "issues" or url in fixes)
        ):
            threads.append(f"{match.group(1)}#{match.group(3)}")
    return list(dict.fromkeys(threads))


def _titles(inc: Incident) -> list[list[str]]:
    """``[owner/name#N, title]`` for each of the incident's threads (:func:`_threads`) whose source gives its
    title: a report pasted from that thread, title first, is that thread."""
    threads = set(_threads(inc))
    out = []
    for src in inc.sources:
        match = GITHUB.match(src.url or "")
        if match and src.title and not src.related:
            thread = f"{match.group(1)}#{match.group(3)}"
            if thread in threads:
                out.append([thread, src.title])
    return out


def _action(inc: Incident) -> dict[str, Any]:
    """What to do about an incident, as every answer says it (opsmanual/render/actions.py), with the
    releases that fix it for the diagnosis' "What to do first"."""
    return {**action(inc), "fixedIn": [value for kind, value in inc.fixed_in if kind == "version"]}


def _term(token: str) -> bool:
    return (
        token not in STOP_WORDS
        and token not in UNITS
        and len(token) >= 2
        and any(c.isalpha() for c in token)
        and (not _LABEL.match(token) or _ARCH.match(token) is not None)
        and not _SIZE.search(token)
    )


def terms(
    incidents: list[Incident], background: frozenset[str] = frozenset(), stories: Mapping[str, str] | None = None
) -> dict[str, list[list[int]]]:
    """For each word of the incidents' text (with its story, ``stories[id]``, when given), the incidents (by
    position) it tells and its weight in each: the boost of the best field it is in times how rare it is
    among the incidents, in tenths. A background word (one that real environment dumps, tracebacks and
    healthy logs hold whatever went wrong: data/diagnose-background.yaml) tells none."""
    best: list[dict[str, float]] = []
    for inc in incidents:
        here: dict[str, float] = {}
        for field, text in _field_texts(inc, (stories or {}).get(inc.id, "")).items():
            for token in tokenize(text):
                if _term(token) and token not in background and not background.intersection(stems(token)):
                    arch = _ARCH.match(token)
                    for form in (f"sm{arch.group(1)}", f"sm_{arch.group(1)}") if arch else (token,):
                        here[form] = max(here.get(form, 0.0), FIELDS[field])
        best.append(here)
    count = len(incidents)
    df: dict[str, int] = {}
    for here in best:
        for token in here:
            df[token] = df.get(token, 0) + 1
    out: dict[str, list[list[int]]] = {}
    for n, here in enumerate(best):
        for token, boost in here.items():
            if df[token] > max(1, COMMON * count):
                continue
            weight = round(10 * boost * math.log((count + 1) / df[token]))
            if weight > 0:
                out.setdefault(token, []).append([n, weight])
    return {t: out[t] for t in sorted(out)}


def diagnose_bundle(
    incidents: Iterable[Incident],
    guidance: Iterable[Guidance],
    site: Site,
    phase_labels: dict[str, str],
    guidance_url: Callable[[str], str] | None = None,
    background: frozenset[str] = frozenset(),
    common_flags: frozenset[str] = frozenset(),
    stories: Mapping[str, str] | None = None,
    synonyms: Iterable[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The bundle for ``incidents`` in the manual's order (the last tie-break) and ``guidance``;
    ``background``, the words that tell no incident, and ``common_flags``, the flags about every other
    real launch command gives (data/diagnose-background.yaml); ``stories``, each incident's story as text
    (the section pages tell it), whose words count as the finder's do; ``synonyms``, the groups whose terms
    name a component (:func:`components`)."""
    ordered = list(incidents)
    guidance = list(guidance)
    return {
        "format": rules.FORMAT,
        "version": site.version,
        "report": f"{site.repo_url.rstrip('/')}/issues/new?template=incident.yml" if site.repo_url else None,
        "incidents": [
            {
                "id": i.id,
                "name": i.name,
                "title": i.title,
                "status": i.status,
                "path": site.incident_url(i.id),
                "action": _action(i),  # what to do, which the diagnosis leads each incident with
                "hardware": list(i.hardware),
                "kinds": _kinds(i),
                "components": list(i.components),
                "threads": _threads(i),  # the GitHub threads of its failure, which a report may cite
                "titles": _titles(i),  # [thread, its title] for those threads whose title the data gives
            }
            for i in ordered
        ],
        "patterns": [{"i": n, **_pattern(p)} for n, i in enumerate(ordered) for p in i.log_patterns],
        "guidance": [
            {
                "id": g.id,
                "title": g.title,
                "summary": g.summary,
                "path": guidance_url(g.id) if guidance_url else None,
                "lines": [{**_pattern(p), **({"consequence": True} if p.consequence else {})} for p in g.lines],
                "phases": [
                    {
                        "phase": p.phase,
                        "label": phase_labels.get(p.phase, p.phase),
                        "advice": p.advice,
                        **{"when": _pattern(p.when)},
                    }
                    for p in g.phases
                ],
                "related": list(g.related),
                # what to do first for an entry whose advice is not by phase: its first check
                "check": g.checks[0][0] if g.checks and not g.phases else None,
                # a check that is the first thing to do when the report shows one of its lines
                # (alone: it stands instead of the phase's advice, whose cause its line rules out)
                "leads": [{"check": g.checks[k][0], "when": _pattern(p), "alone": k in g.alone} for k, p in g.leads],
            }
            for g in guidance
        ],
        "terms": terms(ordered, background, stories),
        "rules": {
            "versions": rules.VERSIONS,
            "products": rules.PRODUCTS,
            "productLabels": rules.PRODUCT_LABELS,
            "gpuLines": rules.GPU_LINES,
            "gpuNumberNot": rules.GPU_NUMBER_NOT,
            "gpuNameNot": rules.GPU_NAME_NOT,
            "gpuNumberReach": rules.GPU_NUMBER_REACH,
            "gpuNameMax": rules.GPU_NAME_MAX,
            "gpuMemory": rules.GPU_MEMORY,
            "allocation": rules.ALLOCATION,
            "negatedBy": rules.NEGATED_BY,
            "negatedArticles": rules.NEGATED_ARTICLES,
            "arch": rules.ARCH,
            "archListLine": rules.ARCH_LIST_LINE,
            "commandStart": rules.COMMAND_START,
            "commandPrompt": rules.COMMAND_PROMPT,
            "maxCommands": rules.MAX_COMMANDS,
            "maxCommandLines": rules.MAX_COMMAND_LINES,
            "modelLines": rules.MODEL_LINES,
            "phases": rules.PHASES,
            "framePhases": rules.FRAME_PHASES,
            "phaseLabels": labels("phase"),  # data/guidance.schema.json's x-labels
            "errorish": rules.ERRORISH,
            "traceback": rules.TRACEBACK,
            "frameLine": rules.FRAME_LINE,
            "processPrefix": rules.PROCESS_PREFIX,
            "codeLine": rules.CODE_LINE,
            "raisedLine": rules.RAISED_LINE,
            "routineLine": rules.ROUTINE_LINE,
            "exceptionLine": rules.EXCEPTION_LINE,
            "linePrefix": rules.LINE_PREFIX,
            "maxErrorLines": rules.MAX_ERROR_LINES,
            "errorAdvice": rules.ERROR_ADVICE,
            "errorAdviceLines": rules.ERROR_ADVICE_LINES,
            "maxChars": rules.MAX_CHARS,
            "maxLine": rules.MAX_LINE,
            "stopWords": sorted(STOP_WORDS),
            "weights": rules.WEIGHTS,
            "exposureGeneric": rules.EXPOSURE_GENERIC,
            "envLine": rules.ENV_LINE,
            "url": rules.URL,
            "hint": rules.HINT,
            "citation": rules.CITATION,
            "citedRepositories": rules.CITED_REPOSITORIES,
            "citedDefault": rules.CITED_DEFAULT,
            "citedNot": rules.CITED_NOT,
            "citedNotReach": rules.CITED_NOT_REACH,
            "titleTags": rules.TITLE_TAGS,
            "titleWords": rules.TITLE_WORDS,
            "firstKinds": rules.FIRST_KINDS,
            "firstOther": rules.FIRST_OTHER,
            "citedMiles": rules.CITED_MILES,
            "citedMilesRepository": rules.CITED_MILES_REPOSITORY,
            "hex": rules.HEX,
            "absentReason": rules.ABSENT_REASON,
            "conditionOpen": rules.CONDITION_OPEN,
            "modelReason": rules.MODEL_REASON,
            "commonFlags": sorted(common_flags),
            "cutCommand": rules.CUT_COMMAND,
            "kinds": rules.KINDS,
            "components": components(ordered, synonyms),
            "kindLines": rules.KIND_LINES,
            "proseFlag": rules.PROSE_FLAG,
            "proseCommand": rules.PROSE_COMMAND,
            "proseName": rules.PROSE_NAME,
            "proseValue": rules.PROSE_VALUE,
            "proseValueEnd": rules.PROSE_VALUE_END,
            "proseNumber": rules.PROSE_NUMBER,
            "proseSwitch": rules.PROSE_SWITCH,
            "proseSwitchWords": rules.PROSE_SWITCH_WORDS,
            "proseSwitchOff": rules.PROSE_SWITCH_OFF_BEFORE_RX,
            "proseSwitchOffAfter": rules.PROSE_SWITCH_OFF_AFTER_RX,
            "proseSwitchReach": rules.PROSE_SWITCH_REACH,
            "proseEnv": rules.PROSE_ENV,
            "maxProseEnv": rules.MAX_PROSE_ENV,
            "argsDump": rules.ARGS_DUMP,
            "argsValue": rules.ARGS_VALUE,
            "argsEnd": rules.ARGS_END,
            "argsGiven": rules.ARGS_GIVEN,
            "argsNotGiven": rules.ARGS_NOT_GIVEN,
            "modelWord": rules.MODEL_WORD,
            "maxProseFlags": rules.MAX_PROSE_FLAGS,
            "finderRanks": rules.FINDER_RANKS,
            "finderErrors": rules.FINDER_ERRORS,
            "finderChars": rules.FINDER_CHARS,
            "headlineWords": rules.HEADLINE_WORDS,
            "logPrefix": rules.LOG_PREFIX,
            "gpuNeeds": rules.GPU_NEEDS,
        },
        "messages": rules.MESSAGES,
        "labels": rules.LABELS,
        "draft": {"head": rules.DRAFT, "logged": rules.DRAFT_LOGGED, "tail": rules.DRAFT_TAIL},
    }


def from_manual(manual: Manual, site: Site | None = None, stories: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The bundle of a loaded manual, its incidents in the finder's order (by part, then as listed);
    ``stories``: each incident's story as text (:func:`story_texts`)."""
    from opsmanual.render.html import by_part

    site = site or manual.site
    ordered = [i for _, rows in by_part(list(manual.incidents), site) for i in rows]
    return diagnose_bundle(
        ordered,
        manual.guidance,
        site,
        labels("phase"),
        site.guidance_url,
        manual.background,
        manual.common_flags,
        stories,
        manual.synonyms,
    )


def story_texts(stories: Mapping[str, Iterable[Any]]) -> dict[str, str]:
    """Each incident's stories (opsmanual/render/stories.py's Story, by incident id) as one text, as the
    finder's index reads them."""
    from opsmanual.render.stories import story_text

    return {ident: story_text(told) for ident, told in stories.items()}
