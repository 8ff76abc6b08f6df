"""The checks of an incident's ``exposure`` block against the facts: its version ranges, conditions
that contradict each other, flags each argument list the range covers names (with values it takes)
and the GPUs and model families the facts know."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from opsmanual.data import programs, validate
from opsmanual.data.facts import Facts
from opsmanual.data.incident_checks import LineOf
from opsmanual.data.model import Incident
from opsmanual.data.site import Site

# How the conditions' messages name a flag's program, its argument list and the list's product:
# opsmanual/data/programs.py.
FLAG_LIST = programs.ARGS_PROGRAM  # a flag condition's program -> its list
LIST_PRODUCT = programs.LIST_PRODUCT
LIST_LABEL = {name: entry["label"] for name, entry in programs.ARG_LISTS.items()}
AN_ARGUMENT = {name: entry["argument"] for name, entry in programs.ARG_LISTS.items()}


def _leaves(cond: Any, path: list[str | int]) -> Iterator[tuple[str, Any, list[str | int]]]:
    """Each leaf condition (key, value, path from the incident) of an exposure condition."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return
    ((key, value),) = cond.items()
    if key in ("all", "any") and isinstance(value, list):
        for k, child in enumerate(value):
            yield from _leaves(child, [*path, key, k])
    elif key == "not":
        yield from _leaves(value, [*path, key])
    else:
        yield key, value, [*path, key]


def _covered(ranges: list[dict[str, Any]], program: str, known: Facts, site: Site) -> list[str]:
    """The versions of ``program``'s argument lists that the incident's ranges cover, newest first;
    the manual's release (for SGLang's own lists; else the newest list) where the range is unknown."""
    from opsmanual.text.versions import version_key

    lists = known.options.get(program) or {}
    product = LIST_PRODUCT[program]
    mine = [r for r in ranges if r.get("product") == product]
    covered: set[str | None] = set()
    if not mine or any(r.get("unknown") or r.get("unaffected") for r in mine):
        newest = max(lists, key=version_key) if lists else None
        covered.add(site.version if site.version in lists and product == "sglang" else newest)
    for r in mine:
        if r.get("unknown") or r.get("unaffected"):
            continue
        lo = version_key(r.get("introduced", "0"))
        for v in lists:
            k = version_key(v)
            inside = (
                k >= lo
                and ("fixed" not in r or k < version_key(r["fixed"]))
                and ("last_affected" not in r or k <= version_key(r["last_affected"]))
            )
            if inside:
                covered.add(v)
    return sorted((v for v in covered if v is not None), key=version_key, reverse=True)


def _number(value: Any) -> float:
    """A bound as a number: compute capabilities are written as text ("8.9")."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def _range_problems(ranges: list[Any], line: LineOf, known: Facts) -> list[tuple[int | None, str]]:
    """Every release a range names is a release of its product, and a range never runs backwards."""
    from opsmanual.text.versions import compare

    problems: list[tuple[int | None, str]] = []
    for k, r in enumerate(ranges):
        product = r.get("product")
        released = known.versions(product)
        named: list[tuple[str, Any]] = [
            (key, r[key]) for key in ("introduced", "fixed", "last_affected") if key in r and r[key] != "0"
        ]
        named += [("seen", v) for v in r.get("seen") or ()]
        for key, version in named:
            if not released:
                problems.append(
                    (
                        line("exposure", "versions", k, key),
                        f"exposure.versions[{k}].{key}: data/releases.yaml lists no {product} releases, so "
                        f"{version} cannot be checked; add the product's releases there",
                    )
                )
                break
            if not any(compare(version, v) == 0 for v in released):
                problems.append(
                    (
                        line("exposure", "versions", k, key),
                        f"exposure.versions[{k}].{key}: {product} has no release {version} "
                        f"(data/releases.yaml lists {released[-1]} to {released[0]})",
                    )
                )
        start = r.get("introduced", "0")
        for key in ("fixed", "last_affected"):
            if (
                key in r
                and start != "0"
                and released
                and (compare(start, r[key]) > 0 or (key == "fixed" and compare(start, r[key]) == 0))
            ):
                problems.append(
                    (
                        line("exposure", "versions", k, key),
                        f"exposure.versions[{k}]: introduced {start} is not before {key} {r[key]}, so the "
                        "range holds no release; swap them or correct one",
                    )
                )
    return problems


def _contradictions(cond: Any, path: list[str | int], line: LineOf) -> list[tuple[int | None, str]]:
    """Tests of one ``all`` that no command can meet together: a flag both given and not given, two
    different values, a minimum above a maximum, two programs at once."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return []
    ((key, value),) = cond.items()
    problems: list[tuple[int | None, str]] = []
    if key in ("all", "any") and isinstance(value, list):
        for k, child in enumerate(value):
            problems += _contradictions(child, [*path, key, k], line)
    elif key == "not":
        problems += _contradictions(value, [*path, key], line)
    if key != "all" or not isinstance(value, list):
        return problems
    problems += _program_clash(value, path, line)
    tests: dict[tuple[str, str, str | None], list[tuple[int, dict[str, Any]]]] = {}
    for k, c in enumerate(value):
        if isinstance(c, dict) and len(c) == 1:
            ((kind, test),) = c.items()
            if kind in ("flag", "env") and isinstance(test, dict):
                tests.setdefault((kind, test.get("program", "sglang"), test.get("name")), []).append((k, test))
    for (_kind, _, name), found in tests.items():
        why = _clash(found) if len(found) > 1 else None
        if why:
            k = found[-1][0]
            problems.append(
                (
                    line(*path, "all", k),
                    f"{validate.field_name([*path, 'all', k])}: `{name}` would have to be "
                    f"{why}: no command meets this all:",
                )
            )
    return problems


def _program_clash(value: list[Any], path: list[str | int], line: LineOf) -> list[tuple[int | None, str]]:
    """The tests of one ``all`` name one program at most."""
    named = [(k, c["program"]) for k, c in enumerate(value) if isinstance(c, dict) and "program" in c]
    if len({p for _, p in named}) <= 1:
        return []
    k = named[1][0]
    return [
        (
            line(*path, "all", k),
            f"{validate.field_name([*path, 'all', k])}: a command is one program, "
            f"not both {named[0][1]} and {named[1][1]}; use any: for either",
        )
    ]


def _clash(found: list[tuple[int, dict[str, Any]]]) -> str | None:
    """What a flag or variable would have to be to meet every test of one ``all`` on it, when no
    value can; None when one can."""
    merged: dict[str, list[Any]] = {}
    for _, test in found:
        for op in ("present", "absent", "equals", "min", "max"):
            if op in test:
                merged.setdefault(op, []).append(test[op])
        if "in" in test:
            merged.setdefault("in", []).append([str(v) for v in test["in"]])
    equals = {str(v) for v in merged.get("equals", [])}
    lo = max((_number(v) for v in merged.get("min", [])), default=None)
    hi = min((_number(v) for v in merged.get("max", [])), default=None)
    if "present" in merged and "absent" in merged:
        return "both given and not given"
    if len(equals) > 1:
        return f"equal to {' and to '.join(sorted(equals))} at once"
    if lo is not None and hi is not None and lo > hi:
        return f"at least {lo:g} and at most {hi:g}"
    if equals and any(next(iter(equals)) not in allowed for allowed in merged.get("in", [])):
        return f"equal to {next(iter(equals))} and one of values that leave it out"
    return None


_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_TYPE_WORDS = {"int": "an integer", "float": "a number", "bool": "true or false (it is given or not)"}


def _can_equal(want: Any, kind: str) -> bool:
    """Whether a condition's ``equals``/``in`` value can ever equal a value the command parser reads for
    a flag of type ``kind`` (opsmanual/engines/exposure.py's _equals: numbers as numbers, else the
    text fmt_value writes): `1:20` (YAML 1.1's 80) is text that no integer flag's value ever is."""
    if kind == "int":
        if isinstance(want, bool):
            return False
        if isinstance(want, (int, float)):
            return float(want).is_integer()
        return (
            isinstance(want, str)
            and want.lstrip("-").isascii()
            and want.lstrip("-").isdigit()
            and str(int(want)) == want
        )
    if kind == "float":
        if isinstance(want, bool):
            return False
        return isinstance(want, (int, float)) or (isinstance(want, str) and _FLOAT_TEXT.fullmatch(want) is not None)
    if kind == "bool":
        return isinstance(want, bool) or want in ("true", "false")
    return True  # text, JSON: any value the YAML holds can be written on the command line


def _type_problems(
    wanted: list[Any], args: dict[str, Any], name: str, where: int | None, lead: str
) -> list[tuple[int | None, str]]:
    """A value no release the range covers could ever read for the flag, given the flag's type there."""
    kinds = {v: a.get("type") for v, a in args.items()}
    if not kinds or not all(k in _TYPE_WORDS for k in kinds.values()):
        return []
    for want in wanted:
        if not any(_can_equal(want, k) for k in kinds.values()):
            kind = next(iter(kinds.values()))
            shown = f"`{want}` ({'text' if isinstance(want, str) else type(want).__name__})"
            return [
                (
                    where,
                    f"{lead}{shown} can never equal `{name}`, which takes {_TYPE_WORDS[kind]} at "
                    f"{', '.join(kinds)}: no command meets this condition",
                )
            ]
    return []


def _policy_problems(
    policies: Any, ranges: list[Any], known: Facts, site: Site, line: LineOf, path: list[str | int], lead: str
) -> list[tuple[int | None, str]]:
    """Every router policy a ``deployment: {router_policy: [...]}`` test names is one the router's
    `--policy` takes at a release the range covers (exact names: never `__proto__` or `toString`)."""
    if not isinstance(policies, list):
        return []
    versions = _covered(ranges, "sglang-router", known, site)
    choices: dict[str, list[str]] = {}
    for v in versions:
        arg = known.argument("sglang-router", v, "--policy")
        if arg is not None and arg.get("choices"):
            choices[v] = [str(c) for c in arg["choices"]]
    if not choices:
        return []
    for k, policy in enumerate(policies):
        if not any(str(policy) == c for listed in choices.values() for c in listed):
            v = next(iter(choices))
            return [
                (
                    line(*path, "router_policy", k),
                    f"{lead}router_policy: `{policy}` is not a policy the router's `--policy` takes at "
                    f"{', '.join(choices)}; at {v} it takes {', '.join(f'`{c}`' for c in choices[v])}",
                )
            ]
    return []


def _address_flag_problems(
    name: str, ranges: list[Any], known: Facts, site: Site, line: LineOf, path: list[str | int], lead: str
) -> list[tuple[int | None, str]]:
    """The address flag a ``deployment: {ipv6: FLAG}`` test names is an option of some program's argument list
    at a release the incident's range covers (the program the command runs decides whose flag is read); the
    problem named is SGLang's when no program has it."""
    first: list[tuple[int | None, str]] = []
    for program in FLAG_LIST:
        problems = _flag_problems({"name": name, "program": program}, ranges, known, site, line, path, lead)
        if not problems:
            return []
        first = first or problems
    return first


def _exposure_problems(inc: Incident, line: LineOf, known: Facts, site: Site) -> list[tuple[int | None, str]]:
    """Every flag a condition names exists at a version the incident's range covers, and every GPU,
    architecture and model family it names is in data/gpus.yaml or data/models.yaml."""
    exposure = inc.exposure or {}
    if "when" not in exposure:
        return []
    problems = _range_problems(exposure.get("versions") or [], line, known)
    if problems:  # the releases the range covers are what the flags are checked at
        return problems
    problems += _contradictions(exposure["when"], ["exposure", "when"], line)
    ranges = exposure.get("versions") or []
    for key, value, path in _leaves(exposure["when"], ["exposure", "when"]):
        lead = validate.field_name(path) + ": "
        if key == "flag":
            problems += _flag_problems(value, ranges, known, site, line, path, lead)
        elif key == "deployment" and isinstance(value, dict) and "router_policy" in value:
            problems += _policy_problems(value["router_policy"], ranges, known, site, line, path, lead)
        elif key == "deployment" and isinstance(value, dict) and isinstance(value.get("ipv6"), str):
            problems += _address_flag_problems(
                value["ipv6"], ranges, known, site, line, [*path, "ipv6"], lead + "ipv6: "
            )
        elif key == "gpu" and isinstance(value, dict):
            problems += _gpu_problems(value, known, line, path, lead)
        elif key == "model" and isinstance(value, dict):
            for k, item in enumerate(value.get("family") or []):
                if item not in known.families:
                    problems.append(
                        (line(*path, "family", k), f"{lead}`{item}` is not a model family in data/models.yaml")
                    )
    return problems


def _gpu_problems(
    value: dict[str, Any], known: Facts, line: LineOf, path: list[str | int], lead: str
) -> list[tuple[int | None, str]]:
    """A GPU condition's bounds leave some GPU in, and the GPUs and architectures it names are in
    data/gpus.yaml."""
    problems: list[tuple[int | None, str]] = []
    for test, bound in value.items():
        if (
            isinstance(bound, dict)
            and "min" in bound
            and "max" in bound
            and _number(bound["min"]) > _number(bound["max"])
        ):
            problems.append(
                (
                    line(*path, test),
                    f"{lead}{test}: min {bound['min']} is above max {bound['max']}, so no GPU can meet it",
                )
            )
    for field_name, have, what in (
        ("name", known.gpus, "GPU id"),
        ("architecture", known.architectures, "architecture"),
    ):
        for k, item in enumerate(value.get(field_name) or []):
            if item not in have:
                problems.append((line(*path, field_name, k), f"{lead}`{item}` is not a {what} in data/gpus.yaml"))
    return problems


def _flag_problems(
    value: dict[str, Any],
    ranges: list[dict[str, Any]],
    known: Facts,
    site: Site,
    line: LineOf,
    path: list[str | int],
    lead: str,
) -> list[tuple[int | None, str]]:
    """A flag condition's values are ones the flag takes, and the flag is an option of its program at
    a release the incident's range covers."""
    program = FLAG_LIST[value.get("program", "sglang")]
    versions = _covered(ranges, program, known, site)
    problems = _flag_value_problems(value, program, versions, known, line, path, lead)
    if value.get("ignore_case") and "equals" not in value and "in" not in value:
        problems.append(
            (line(*path, "ignore_case"), f"{lead}ignore_case compares text: it goes with equals or in, not alone")
        )
    if not versions:
        problems.append(
            (
                line(*path),
                f"{lead}no argument list of {LIST_LABEL[program]} falls in the incident's version range; "
                "generate one with tools/gen_args.py, or correct the range",
            )
        )
        return problems
    name = value["name"]
    lists = known.options[program]
    if any(name in lists[v] for v in versions):
        return problems
    from opsmanual.text.versions import version_key

    elsewhere = sorted((v for v in lists if name in lists[v]), key=version_key)
    import difflib

    near = difflib.get_close_matches(name, sorted(set().union(*(lists[v] for v in versions))), n=3)
    message = (
        f"{lead}`{name}` is not {AN_ARGUMENT[program]} at {', '.join(versions)}, the release(s) "
        "the incident's version range covers"
    )
    if elsewhere:
        message += f" (it is one at {', '.join(elsewhere)})"
    elif near:
        message += f"; did you mean {', '.join(f'`{n}`' for n in near)}?"
    problems.append((line(*path), message))
    return problems


def _flag_value_problems(
    value: dict[str, Any],
    program: str,
    versions: list[str],
    known: Facts,
    line: LineOf,
    path: list[str | int],
    lead: str,
) -> list[tuple[int | None, str]]:
    """The values a flag condition tests (equals, in) are ones the flag takes at some release the
    range covers (a later release may add choices, such as lower-case spellings, or drop the fixed
    list); without a fixed list of values, the flag's type decides."""
    problems: list[tuple[int | None, str]] = []
    for test in ("equals", "in"):
        if test not in value:
            continue
        wanted = [value[test]] if test == "equals" else value[test]
        args: dict[str, Any] = {v: known.argument(program, v, value["name"]) for v in versions}
        args = {v: a for v, a in args.items() if a is not None}
        lists: Mapping[str, Collection[str]] = {v: [str(c) for c in a.get("choices") or ()] for v, a in args.items()}
        if args and all(lists.values()):
            if value.get("ignore_case"):  # the program reads the value in any case: so do its choices
                lists = {v: [c.upper() for c in listed] for v, listed in lists.items()}
                wanted = [str(w).upper() for w in wanted]
            odd = next((w for w in wanted if not any(str(w) in c for c in lists.values())), None)
            if odd is not None:
                v = next(iter(lists))
                problems.append(
                    (
                        line(*path, test),
                        f"{lead}`{odd}` is not a value `{value['name']}` takes "
                        f"at {', '.join(lists)}; at {v} it takes "
                        f"{', '.join(f'`{c}`' for c in lists[v])}",
                    )
                )
        else:  # no fixed list of values: the flag's type decides
            problems += _type_problems(wanted, args, value["name"], line(*path, test), lead)
    return problems
