"""The words of the incident finder, once: the count above the rows, the note when nothing matched and
the nearer query it offers, the button that switches the view, what a ranked row says about the pasted
log, the sentence about that log, and the link to what to check for an error many incidents share.
The incidents page's form (opsmanual/render/templates/finder.html) writes the first count and view
label from here; the browser reads the same strings from finder.json (``words``, put there by
opsmanual/render/table.py's finder_data), so no sentence is typed in the finder's JavaScript.

A template names its values in braces (``{n}``, ``{query}``); :func:`fill` (``fill`` in
docs/javascripts/sgm/words.js) replaces each with its value, and nothing else. A word that depends on
a count comes in two forms, ``<key>_one`` for one and ``<key>_many`` (with ``{n}``) for any other
count, as in opsmanual/data/exposure_words.py; sgm/words.js ``counted`` picks one.
"""

from __future__ import annotations

from opsmanual.data.exposure_words import fill

WORDS: dict[str, str] = {
    # the count beside the number of rows shown
    "count_all": " of {total} incidents",
    "count_match": " of {total} incidents match",
    # nothing matched: what was searched, and the way on
    "quoted": "“{query}”",
    "your_log": "your log",
    "none": "No incident matches {what}.",
    "none_faceted": "No incident matches {what} with the facets you checked.",
    "nearest_one": "Try “{query}” instead (1 incident, without “{dropped}”)",
    "nearest_many": "Try “{query}” instead ({n} incidents, without “{dropped}”)",
    # the button that switches between ranked rows and rows grouped by part
    "view_parts": "Group by part",
    "view_ranked": "Best matches first",
    # what a ranked row says about the pasted log
    "evidence_one": "your log: 1 line it prints",
    "evidence_many": "your log: {n} lines it prints",
    "evidence_possible_one": "your log: 1 line that other incidents print too",
    "evidence_possible_many": "your log: {n} lines that other incidents print too",
    # the sentence about a pasted log, one clause after another
    "kept_one": "1 line of your log was kept.",
    "kept_many": "{n} lines of your log were kept.",
    "certain_one": "1 incident prints lines found in it, and comes first.",
    "certain_many": "{n} incidents print lines found in it, and come first.",
    "possible_more_one": "1 more incident prints a line that others print too.",
    "possible_more_many": "{n} more incidents print a line that others print too.",
    "shared": "It holds only lines that many incidents print ({names}), so no incident is certain: "
    "what to check for that error comes first, then the incidents that print such a line.",
    "shared_names": "; ",
    "possible_only_one": "It holds only lines that several incidents print, so no incident is certain; "
    "1 incident prints them.",
    "possible_only_many": "It holds only lines that several incidents print, so no incident is certain; "
    "{n} incidents print them.",
    "no_line": "No line of it is one that an incident of the manual prints.",
    "error_lines_one": "1 line that reads like an error was also searched as text.",
    "error_lines_many": "{n} lines that read like errors were also searched as text.",
    # the error many incidents share, first when the log holds only its lines
    "guidance_phase": " ({phase})",
    "guidance_link": "What to check for this error, with its sources",
}


def browser_words() -> dict[str, str]:
    """What finder.json carries of these words, as plain JSON."""
    return dict(WORDS)


def say(key: str, **values: object) -> str:
    """The word ``key`` of WORDS, filled in."""
    return fill(WORDS[key], **values)
