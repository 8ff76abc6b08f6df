"""The programs whose launch lines the manual reads, the argument lists that describe them and the
products whose releases those lists follow: one table, read by the loader, the engines, the
renderers and the commands, and carried to the browser in the exposure bundle (``bundle_programs``),
so that no reader keeps a copy.

``sglang-bench`` is the argument list of ``python -m sglang.bench_serving``: a program SGLang ships
in its own package, so the list follows SGLang's releases (its product is ``sglang``, and a version
of it is an SGLang version), while a reader told which list lacks an option reads its own name,
"SGLang's bench_serving".

The products' labels are the ones ``data/incidents.schema.json`` gives a version range's
``product`` in its ``x-labels`` (tests/test_data.py holds them equal); they are written here too
because the exposure command reads this module at start-up and never the schema.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the exposure command starts fast
if TYPE_CHECKING:
    from typing import Any

# Each program a launch line may run, by the command parser's name for it: the argument list that
# describes it (data/<list>-args-<version>.json) and how the check's reasons name a launch of it.
PROGRAMS: dict[str, dict[str, str]] = {
    "sglang": {"list": "sglang", "launch": "an SGLang server launch"},
    "engine": {"list": "sglang", "launch": "a Python `Engine(...)` call"},
    "router": {"list": "sglang-router", "launch": "an SGLang router launch"},
    "bench": {"list": "sglang-bench", "launch": "an SGLang bench_serving run"},
    "miles": {"list": "miles", "launch": "a Miles run"},
}

# The modules `python -m MODULE` runs, by the program each is.
MODULES: dict[str, str] = {
    "sglang.launch_server": "sglang",
    "sglang.bench_serving": "bench",
    "sglang.benchmark.serving": "bench",
    "sglang_router.launch_router": "router",
}

# Each argument list: the product whose releases it follows, how a reader names the list (``label``;
# ``article`` and ``name`` in the command check's findings) and what one of its options is.
ARG_LISTS: dict[str, dict[str, str]] = {
    "sglang": {
        "product": "sglang",
        "label": "SGLang",
        "article": "an",
        "name": "SGLang",
        "argument": "an SGLang argument",
    },
    "sglang-router": {
        "product": "sglang-router",
        "label": "sglang-router",
        "article": "an",
        "name": "sglang-router",
        "argument": "an sglang-router argument",
    },
    "sglang-bench": {
        "product": "sglang",
        "label": "SGLang's bench_serving",
        "article": "an",
        "name": "SGLang bench_serving",
        "argument": "a bench_serving argument",
    },
    "miles": {
        "product": "miles",
        "label": "Miles",
        "article": "a",
        "name": "Miles",
        "argument": "a Miles argument",
    },
}

# The products an incident's version ranges name: how readers name each, and the package PyPI
# publishes it as (None: it is not published there).
PRODUCTS: dict[str, dict[str, str | None]] = {
    "sglang": {"label": "SGLang", "pypi": "sglang"},
    "sglang-router": {"label": "sglang-router", "pypi": "sglang-router"},
    "miles": {"label": "Miles", "pypi": None},
}

# The tables readers look values up in, made once from the ones above.
ARGS_PROGRAM = {program: entry["list"] for program, entry in PROGRAMS.items()}  # program -> its list
PROGRAM_PRODUCT = {program: ARG_LISTS[entry["list"]]["product"] for program, entry in PROGRAMS.items()}
LIST_PROGRAM: dict[str, str] = {}  # list -> the program its files name (the first of PROGRAMS with that list)
for _program, _entry in PROGRAMS.items():
    LIST_PROGRAM.setdefault(_entry["list"], _program)
LIST_PRODUCT = {name: entry["product"] for name, entry in ARG_LISTS.items()}  # list -> its product
PRODUCT_LABELS = {product: str(entry["label"]) for product, entry in PRODUCTS.items()}
PYPI = {product: str(entry["pypi"]) for product, entry in PRODUCTS.items() if entry["pypi"]}  # product -> package


def list_product_label(name: str) -> str:
    """The label of the product whose releases the list ``name`` follows (``name`` if unknown)."""
    product = LIST_PRODUCT.get(name)
    return PRODUCT_LABELS.get(product, name) if product else name


def bundle_programs() -> dict[str, Any]:
    """The table as plain JSON, for the browser (the exposure bundle's ``programs``)."""
    return {
        "programs": {k: dict(v) for k, v in PROGRAMS.items()},
        "modules": dict(MODULES),
        "lists": {k: dict(v) for k, v in ARG_LISTS.items()},
        "products": {k: dict(v) for k, v in PRODUCTS.items()},
    }
