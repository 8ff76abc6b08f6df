"""The engine the manual's log patterns run on: RE2, whose time is linear in the length of the text
whatever the pattern, so no log line can make a check slow.

The patterns keep to a subset (opsmanual/data/patterns.py regex_subset_problem) in which RE2, Python's re and the
browser's RegExp (flag u) read the same: literal characters, ., classes, \\d (ASCII digits in RE2 and
the browser; Python's re is told ASCII), quantifiers, groups, alternation, ^ and $. Whether a line
holds a match does not depend on how an engine searches, so the three agree on every line; the
loader and tests/js check them on the incidents' own examples. Where the RE2 wheel is missing,
Python's re takes over; the loader's refusal of nested and ambiguous repeats
(opsmanual/data/patterns.py regex_safety_problem) keeps it from exponential backtracking.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

try:
    import re2
except ImportError:  # no wheel for this platform
    re2 = None


def compile(pattern: str) -> Any:
    """``pattern`` compiled; the object has ``search(text, pos=0)``."""
    if re2 is not None:
        return re2.compile(pattern)
    return re.compile(pattern, re.ASCII)


def sre_modules() -> tuple[Any, Any]:
    """The stdlib's regex constants and parser (re._constants, re._parser), which typeshed does not
    describe: the loader reads each log pattern's syntax tree with them."""
    from re import _constants, _parser  # type: ignore[attr-defined]  # private modules without stubs

    return _constants, _parser
