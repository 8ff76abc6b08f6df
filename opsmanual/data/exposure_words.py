"""The words of the launch-command check, once: the verdicts, the headline, what a reader could add
to decide an incident that may apply, and the labels of the check page. The Python engine and the
command line read them here; the browser's engine and page read the same strings from the exposure
bundle (opsmanual/render/bundle.py puts ``WORDS`` in it), so no message is typed twice.

A template names its values in braces (``{n}``, ``{checked}``); :func:`fill` (and ``fill`` in
docs/javascripts/sgm/exposure.js) replaces each with its value, and nothing else.
"""
from __future__ import annotations

# The four verdicts an incident gets from a check, in the order the answer gives them.
VERDICTS = {
    "applies": "applies",              # every condition holds and the version is in the affected range
    "may apply": "may apply",          # nothing is false, but something the command leaves out decides
    "does not apply": "does not apply",  # a condition is false, or the version is outside the range
    "not checkable": "not checkable",  # no launch setting is behind the incident
}

# Whoever reads the answer could add one of these to decide an undecided condition. Each has the
# words of the command line (an option) and of the check page (a field, or the command line).
ADD = {
    "gpu": {"cli": "give --gpu NAME", "page": "name the GPU"},
    "version": {"cli": "give --version X.Y.Z", "page": "give the version"},
    "model-config": {"cli": "give --model-config config.json", "page": "check on the command line with --model-config config.json"},
    "config": {"cli": "write the options the file or variable sets into the command",
               "page": "write the options the file or variable sets into the command"},
}

# How many incidents an answer lists; the others that may apply (those with the least evidence) are
# counted and named, not described.
LISTED = 10

# The product whose argument list names an option, for the rename finding.
LIST_LABEL = {"sglang": "SGLang", "sglang-bench": "SGLang", "sglang-router": "sglang-router", "miles": "Miles"}

WORDS = {
    "headline": {
        "both": "{applies} and {may} may apply, of {checked} checked.",
        "applies": "{applies}, of {checked} checked.",
        "may": "{may_incidents} may apply, though none is certain to, of {checked} checked: "
               "what the command leaves out decides.",
        "none": "No incident applies ({checked} checked).",
        "one_applies": "1 incident applies",
        "many_apply": "{n} incidents apply",
        "one_incident": "1 incident",
        "many_incidents": "{n} incidents",
    },
    "to_decide": "To decide: {what}.",
    # an option written by a name an earlier release gave it (the argument lists of the releases show it)
    "renamed": "`{old}` is the name {product} {last} lists for `{new}`; {first} lists it as `{new}`{tail}",
    "renamed_kept": " and still accepts the old name",
    "renamed_gone": " and no longer accepts the old name, so the server stops at startup",
    "to_decide_item": "{action} ({n})",
    "more": "{n} more may apply, with fewer conditions confirmed: {ids}.",
    "page": {
        "applies": "Incidents that apply ({n})",
        "may": "Incidents that may apply ({n})",
        "may_explain": "Each of these needs something the command does not say: a GPU, a version, a model the manual "
                       "does not list, or a setting decided at run time. Those with more conditions confirmed come first.",
        "findings": "About the command itself",
        "assumed": "Assumed",
        "unchecked": "Not checkable from a command ({n})",
        "unchecked_explain": "These incidents are not triggered by a launch setting: a benchmark method, how the server "
                             "is stopped or probed, the machine around it. Read them by their symptoms.",
        "show_them": "Show them",
        "why": "Why",
        "cannot_decide": "Cannot decide",
        "to_decide": "To decide",
        "nothing_confirmed": "No condition could be confirmed yet.",
        "note": "Note: ",
        "error": "Cannot check this: ",
        "permalink_lead": "This answer has an address of its own: ",
        "permalink": "link to this answer",
        "loading": "Loading the incidents…",
        "failed": "The incident data ({url}) could not be loaded: {error}. The command-line check below works without it.",
        "crashed": "the checker failed on this input ({name}); please report the command",
    },
}


def fill(template: str, **values) -> str:
    """``template`` with each ``{name}`` replaced by its value (as the browser's ``fill`` does)."""
    out, i = [], 0
    while i < len(template):
        j = template.find("{", i)
        k = template.find("}", j + 1) if j >= 0 else -1
        if j < 0 or k < 0:
            out.append(template[i:])
            break
        name = template[j + 1:k]
        out.append(template[i:j])
        out.append(str(values[name]) if name in values else template[j:k + 1])
        i = k + 1
    return "".join(out)


def bundle_words() -> dict:
    """What the browser needs of these words, as plain JSON."""
    return {"verdicts": dict(VERDICTS), "add": {k: dict(v) for k, v in ADD.items()}, "listed": LISTED,
            "list_label": dict(LIST_LABEL), **WORDS}
