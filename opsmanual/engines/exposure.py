"""Am I exposed? The engine that checks a launch command against the incidents' exposure
conditions: an incident applies (every condition holds, the version is in its range), may apply
(nothing is false, but something the command leaves out decides, or a ``runtime`` condition asks
what no command shows), or is left out.

The conditions are the ``exposure`` blocks of data/incidents.yaml; their vocabulary is documented
on the About page. Everything the check needs is one JSON *bundle* (opsmanual/render/bundle.py):
the incidents' exposure blocks, the argument lists, GPUs, model families and releases. The site
ships the same bundle to the browser, whose engine (docs/javascripts/sgm/exposure.js) gives the same
answers with the same words; tests/exposure_conformance.json holds the cases both must pass. No I/O:
the command line (opsmanual/cli/exposure.py) reads the command and the bundle.
"""

from __future__ import annotations

from opsmanual.data import BUNDLE_FORMAT as FORMAT
from opsmanual.data.exposure_words import ADD, LIST_LABEL, LISTED, MESSAGES, WORDS, fill, say  # noqa: F401 -- the words, once
from opsmanual.data.exposure_words import PRODUCTS as PRODUCT_LABEL  # words live once, there
from opsmanual.data.exposure_words import PROGRAMS as PROGRAM_WORDS
from opsmanual.data.exposure_words import TRAITS as TRAIT_WORDS
from opsmanual.data.programs import ARG_LISTS, LIST_PRODUCT  # programs, lists and products: one table
from opsmanual.data.programs import PROGRAM_PRODUCT as PRODUCT
from opsmanual.engines.command import (
    ARGS_PROGRAM,
    ArgList,
    Specs,
    add_environment,
    close_matches,
    digits,
    fmt_value,
    is_float,
    or_list,
    parse,
)

QUANT_TRAITS = ("fp8", "fp4")
T, F, U = True, False, None  # three-valued logic: None is "cannot decide"
# The four verdicts, as the command line, its JSON, the check page and the docs name them.
APPLIES, MAY_APPLY, DOES_NOT_APPLY, NOT_CHECKABLE = "applies", "may apply", "does not apply", "not checkable"
# The verdicts that fail a check on the command line, by the value of its --fail-on.
FAIL_ON = {"applies": (APPLIES,), "may-apply": (APPLIES, MAY_APPLY)}


# --------------------------------------------------------------------------- versions

from opsmanual.text.versions import compare as _cmp  # noqa: E402 -- release numbers are their own small module
from opsmanual.text.versions import in_range, version_key, version_parts, without_local  # noqa: E402 -- re-exported for the engine's users

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the command starts fast
if TYPE_CHECKING:
    from collections.abc import Callable


def describe_range(r: dict) -> str:
    if r.get("unaffected"):
        return say("range_none")
    intro = r.get("introduced", "0")
    if "fixed" in r:
        return (
            say("range_before", fixed=r["fixed"])
            if intro == "0"
            else say("range_from_before", intro=intro, fixed=r["fixed"])
        )
    if "last_affected" in r:
        return (
            say("range_up_to", last=r["last_affected"])
            if intro == "0"
            else say("range_from_to", intro=intro, last=r["last_affected"])
        )
    return say("range_all") if intro == "0" else say("range_from", intro=intro)


def _version_leaf(r: dict, ctx: Context):
    product = r["product"]
    label = PRODUCT_LABEL[product]
    if r.get("unaffected"):  # the code is in no published release: whatever the version, it is not there
        return F, say("version_unaffected", label=label), "version"
    v = ctx.versions.get(product)
    if v is None:
        return U, say("version_none", label=label), "version"
    shown = say("version_shown", label=label, version=v, tag=ctx.version_tags.get(product, ""))
    if r.get("unknown"):
        seen = r.get("seen") or []
        if any(_cmp(v, s) == 0 for s in seen):
            return T, say("version_seen", shown=shown)
        where = say("version_seen_on", versions=MESSAGES["list"].join(seen)) if seen else ""
        return U, say("version_unknown", label=label, seen=where)
    what = describe_range(r) if r.get("introduced", "0") != "0" else say("range_paren", range=describe_range(r))
    if in_range(v, r):
        return T, say("version_in", shown=shown, range=what)
    return F, say("version_out", shown=shown, range=what)


# --------------------------------------------------------------------------- values


def show(v) -> str:
    """A condition's value in a reason: text in backticks, numbers and booleans bare."""
    if isinstance(v, str):
        return say("code", text=v)
    if isinstance(v, list):
        return MESSAGES["list"].join(show(x) for x in v)
    return fmt_value(v)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _as_number(v):
    if _is_number(v):
        return v
    if isinstance(v, str) and is_float(v.strip(), underscores=False):
        return float(v)
    return None


def _equals(val, want, fold: bool = False) -> bool:
    """Whether a value equals a condition's; ``fold``: text in any case, as a program that upper-cases the value
    reads it (the condition's ``ignore_case``)."""
    if isinstance(val, list):
        return any(_equals(x, want, fold) for x in val)
    if _is_number(val) and _is_number(want):
        return float(val) == float(want)
    if fold:
        return fmt_value(val).upper() == fmt_value(want).upper()
    return fmt_value(val) == fmt_value(want)


def _compare(test: dict, val, subject: str):
    """Apply equals / in / min / max to a known value; (truth, reason)."""
    fold = bool(test.get("ignore_case"))
    if "equals" in test:
        ok = _equals(val, test["equals"], fold)
        return ok, say("equals" if ok else "not_equals", subject=subject, value=show(test["equals"]))
    if "in" in test:
        ok = any(_equals(val, w, fold) for w in test["in"])
        return ok, say("one_of" if ok else "not_one_of", subject=subject, value=show(test["in"]))
    key = "min" if "min" in test else "max"
    items = val if isinstance(val, list) else [val]
    nums = [_as_number(x) for x in items]
    if not items or any(x is None for x in nums):
        return U, say("not_number", subject=subject)
    bound = test[key]
    ok = any((x >= bound) if key == "min" else (x <= bound) for x in nums)
    word = ("at_least" if ok else "less_than") if key == "min" else ("at_most" if ok else "more_than")
    return ok, say(word, subject=subject, value=fmt_value(bound))


# --------------------------------------------------------------------------- context


class Context:
    """What one check knows: the parsed command, the GPU, the versions, the model."""

    def __init__(
        self,
        engine: Engine,
        parsed: dict,
        specs: dict | Specs,
        gpu: dict | None,
        versions: dict,
        version_tags: dict,
        model_traits: dict | None,
    ):
        self.engine, self.parsed, self.specs = engine, parsed, specs
        self.program = parsed["program"]
        self.gpu, self.versions, self.version_tags = gpu, versions, version_tags
        self.model_traits = model_traits
        self._models: dict = {}
        self._families: dict = {}
        self.version_cache: dict = {}
        self.leaf_cache: dict = {}
        self.hints: dict = {}  # an undecided reason -> what the reader could add to decide it (a key of ADD)

    # flags -------------------------------------------------------------
    def arg(self, name: str, program: str) -> dict | None:
        """The argument named ``name`` in the selected list of ``program``, else in any other release's."""
        key = ARGS_PROGRAM[program]
        spec = self.specs.get(key)
        if spec is not None and name in spec.by_option:
            return spec.by_option[name]
        for other in self.engine.arglists(key):
            if name in other.by_option:
                return other.by_option[name]
        return None

    def release_list(self, program: str) -> tuple[str | None, bool]:
        """The release whose argument list holds ``program``'s flags (the version checked of the list's product;
        None when no version of it is known) and whether the list the command was read with is that release's
        own (False: the manual has no list of that release, and another release's was used)."""
        key = ARGS_PROGRAM[program]
        spec = self.specs.get(key)
        release = self.versions.get(LIST_PRODUCT[key])
        if spec is None or release is None:
            return None, True
        return release, _cmp(spec.version, release) == 0

    def refused(self, program: str, entry: dict) -> str | None:
        """Why the server would refuse a flag the command gives (the checked release's own list has no such
        argument), else None. An Engine call's keyword that is no ServerArgs field is matched only by a condition
        that names it, whose incident is that refusal."""
        release, own = self.release_list(program)
        if release is None or not own or not entry.get("unknown") or entry.get("kwarg"):
            return None
        label = PRODUCT_LABEL[LIST_PRODUCT[ARGS_PROGRAM[program]]]
        return say("flag_refused", flag=self.flag_shown(entry), product=label, version=release)

    def default(self, arg: dict | None, program: str, shown_name: str) -> tuple[bool, object]:
        """(True, the default) that the checked release gives a flag the command does not give, from that
        release's own argument list; (False, why it is not known) when the manual has no list of that release or
        its list has no such argument: another release's default proves nothing about it."""
        if arg is None:
            return False, say("no_default", flag=shown_name)
        release, own = self.release_list(program)
        if release is None:  # no release to hold it to: the list the command was read with
            return True, arg.get("default")
        key = ARGS_PROGRAM[program]
        label = PRODUCT_LABEL[LIST_PRODUCT[key]]
        if not own:
            return False, say("default_no_list", flag=shown_name, product=label, version=release)
        spec = self.specs.get(key)
        options = spec.by_option if spec is not None else {}  # the release's own list: release_list() found one
        renamed = [r["old"] for r in self.engine.renamed_to.get(key, {}).get(arg["name"], ())]
        renamed += [r["new"] for r in [self.engine.renamed_from.get(key, {}).get(arg["name"])] if r]
        mine = next((options[n] for n in [arg["name"], *renamed] if n in options), None)
        if mine is None:
            return False, say("default_unlisted", flag=shown_name, product=label, version=release)
        return True, mine.get("default")

    def flag_name(self, name: str, arg: dict | None, *, engine_call: bool) -> str:
        if engine_call and arg is not None and arg.get("field"):
            return say("code", text=arg["field"])
        return say("code", text=name)

    @staticmethod
    def flag_shown(entry: dict) -> str:
        if entry.get("kwarg"):
            return say("flag_kwarg", written=entry["written"], raw=entry["raw"])
        name, written = entry["name"], entry["written"]
        if entry["raw"] is None and written.startswith("--no-") and not name.startswith("--no-"):
            return say("code", text=written)
        text = (
            say("code", text=name)
            if entry["raw"] is None or entry["raw"] == ""
            else say("flag_value", name=name, raw=entry["raw"])
        )
        if written != name:
            text += say("flag_written", written=written)
        return text

    def lookup(self, name: str, program: str):
        """(arg, entry or None, display name) of a flag of ``program`` in the command."""
        arg = self.arg(name, program)
        canonical = arg["name"] if arg is not None else name
        entry = self.parsed["flags"].get(canonical)
        if entry is None and self.program == "engine" and canonical.startswith("--"):
            # A keyword that is not a ServerArgs field, named after a command-line option
            # (disable_piecewise_cuda_graph for --disable-piecewise-cuda-graph): the call passes it.
            kwarg = self.parsed["flags"].get(canonical[2:].replace("-", "_"))
            if kwarg is not None and kwarg.get("kwarg") and kwarg.get("unknown"):
                entry = kwarg
        if entry is None:  # written by the name an earlier release gave it: the same condition
            for r in self.engine.renamed_to.get(ARGS_PROGRAM[program], {}).get(canonical, ()):
                old = self.parsed["flags"].get(r["old"])
                if old is not None and not old.get("kwarg"):
                    entry = old
                    break
        return arg, entry, self.flag_name(canonical, arg, engine_call=self.program == "engine")

    def opaque(self) -> str | None:
        return self.parsed["opaque"][0] if self.parsed["opaque"] else None

    def opaque_hint(self) -> str:
        """What the reader could add to decide a test that opaque() leaves open: the whole command when the
        paste is cut off there, else the options a file or variable sets."""
        return "cut" if self.opaque() == self.parsed.get("cut") else "config"

    def runs(self, program: str) -> bool:
        return self.program == program or (program == "sglang" and self.program == "engine")

    # models ------------------------------------------------------------
    def model(self, role: str):
        """(state, name, entries) for the target or draft model; state is given|none|dynamic|config."""
        if role in self._models:
            return self._models[role]
        flag = "--model-path" if role == "target" else "--speculative-draft-model-path"
        _, entry, _ = self.lookup(flag, "sglang")
        if role == "target" and self.model_traits is not None:
            found: tuple = ("config", self.model_traits.get("source") or "config.json", [])
        elif entry is None or entry.get("raw") in (None, ""):
            found = ("none", None, [])
        elif entry["dynamic"]:
            found = ("dynamic", entry["raw"], [])
        else:
            name = str(entry["value"])
            found = ("given", name, self.engine.match_model(name))
        self._models[role] = found
        return found

    def families(self, entries: list) -> list:
        """The family entries among a model's matches (not the weight-format ones)."""
        key = id(entries)
        if key not in self._families:
            self._families[key] = (entries, [e for e in entries if not e["quant"]])
        return self._families[key][1]


# --------------------------------------------------------------------------- leaves


def _flag_leaf(c: dict, ctx: Context):
    program = c.get("program", "sglang")
    if not ctx.runs(program):
        return F, say("not_program", program=PROGRAM_WORDS[program])
    arg, entry, shown_name = ctx.lookup(c["name"], program)
    opaque = ctx.opaque()
    refused = ctx.refused(program, entry) if entry is not None else None
    if "present" in c or "absent" in c:
        if entry is not None:
            if refused and "present" in c:  # the server stops at startup: the incident cannot be shown to follow
                return U, refused
            given = T
            reason_given = say("flag_given", flag=ctx.flag_shown(entry))
        elif opaque:
            return U, say("flag_opaque", flag=shown_name, opaque=opaque), ctx.opaque_hint()
        else:
            given = F
            reason_given = say("flag_not_given", flag=shown_name)
        return (given if "present" in c else (not given)), reason_given
    if entry is not None:
        subject = ctx.flag_shown(entry)
        if entry["dynamic"]:
            return U, say("not_literal", subject=subject)
        if refused:
            return U, refused
        return _compare(c, entry["value"], subject)
    if opaque:
        return U, say("flag_opaque", flag=shown_name, opaque=opaque), ctx.opaque_hint()
    known, default = ctx.default(arg, program, shown_name)
    if not known:
        return U, default
    if default is None:
        return U, say("default_at_run_time", flag=shown_name)
    return _compare(c, default, say("default_is", flag=shown_name, value=show(default)))


_TRUTHY = {
    "1": True,
    "true": True,
    "yes": True,
    "on": True,
    "0": False,
    "false": False,
    "no": False,
    "off": False,
    "": False,
}


def _unseen_env(entry: dict, name: str) -> tuple[str, str]:
    """How a variable whose value the input does not show is named, and why its value is undecided: passed
    through from the host, or set from elsewhere (``entry["from"]``, such as a Kubernetes ConfigMap key)."""
    if entry.get("from"):
        return say("env_from", name=name, source=entry["from"]), say("env_from_value", name=name, source=entry["from"])
    return say("env_host", name=name), say("env_host_value", name=name)


def _env_leaf(c: dict, ctx: Context):
    name = c["name"]
    entry = ctx.parsed["env"].get(name)
    opaque = ctx.parsed["env_opaque"][0] if ctx.parsed["env_opaque"] else None
    if entry is None:
        if opaque:
            return U, say("env_opaque", name=name, opaque=opaque), "config"
        if "absent" in c:
            return T, say("env_not_set", name=name)
        return F, say("env_not_set", name=name)
    unseen = ""
    if entry.get("host"):
        shown, unseen = _unseen_env(entry, name)
    else:
        shown = say("env_value", name=name, value=entry["value"])
    if "present" in c:
        return T, say("env_set", shown=shown)
    if "absent" in c:
        return F, say("env_set", shown=shown)
    if entry.get("host"):
        return U, unseen
    if entry["dynamic"]:
        return U, say("not_literal", subject=shown)
    value = entry["value"]
    want = c.get("equals", (c.get("in") or [None])[0])
    if isinstance(want, bool) and "equals" in c:
        truth = _TRUTHY.get(value.strip().lower())
        ok = truth is want
        return ok, say("equals" if ok else "not_equals", subject=shown, value=show(want))
    if "equals" in c or "in" in c:
        wanted = [c["equals"]] if "equals" in c else c["in"]
        ok = False
        for w in wanted:
            if _is_number(w):
                num = _as_number(value)
                ok = ok or (num is not None and num == w)
            elif isinstance(w, bool):
                ok = ok or _TRUTHY.get(value.strip().lower()) is w
            else:
                ok = ok or value == w
        if "equals" in c:
            return ok, say("equals" if ok else "not_equals", subject=shown, value=show(c["equals"]))
        return ok, say("one_of" if ok else "not_one_of", subject=shown, value=show(c["in"]))
    return _compare(c, value, shown)


def _range_words(r: dict) -> str:
    if "min" in r and "max" in r:
        return say("span_both", min=r["min"], max=r["max"])
    return say("span_min", min=r["min"]) if "min" in r else say("span_max", max=r["max"])


def _gpu_leaf(c: dict, ctx: Context):
    g = ctx.gpu
    if g is None:
        return U, say("gpu_none"), "gpu"
    name = g["name"]
    if "name" in c:
        ok = g["id"] in c["name"]
        if ok:
            return T, say("gpu_is", name=name)
        names = [ctx.engine.gpus_by_id[i]["name"] if i in ctx.engine.gpus_by_id else i for i in c["name"]]
        return F, say("gpu_is_not", name=name, names=MESSAGES["or"].join(names))
    if "architecture" in c:
        ok = g.get("architecture") in c["architecture"]
        return (
            (T, say("gpu_arch", name=name, value=g.get("architecture")))
            if ok
            else (
                F,
                say(
                    "gpu_arch_not",
                    name=name,
                    value=g.get("architecture"),
                    wanted=MESSAGES["or"].join(c["architecture"]),
                ),
            )
        )
    if "vendor" in c:
        ok = g.get("vendor") in c["vendor"]
        return (
            (T, say("gpu_vendor", name=name, value=g.get("vendor")))
            if ok
            else (F, say("gpu_vendor_not", name=name, value=g.get("vendor"), wanted=MESSAGES["or"].join(c["vendor"])))
        )
    if "compute_capability" in c:
        cc = g.get("compute_capability")
        if not cc:
            return F, say("gpu_no_cc", name=name)
        r = c["compute_capability"]

        def key(x):
            return tuple(int(p) for p in str(x).split("."))

        ok = ("min" not in r or key(cc) >= key(r["min"])) and ("max" not in r or key(cc) <= key(r["max"]))
        return (
            (T, say("gpu_cc", name=name, value=cc))
            if ok
            else (F, say("gpu_cc_not", name=name, value=cc, wanted=_range_words(r)))
        )
    r = c["memory_gb"]
    mem = g.get("memory_gb")
    if mem is None:
        return U, say("gpu_memory_unknown", name=name)
    ok = ("min" not in r or mem >= r["min"]) and ("max" not in r or mem <= r["max"])
    shown = fmt_value(mem)
    return (
        (T, say("gpu_memory", name=name, value=shown))
        if ok
        else (F, say("gpu_memory_not", name=name, value=shown, wanted=_range_words(r)))
    )


def _model_leaf(c: dict, ctx: Context):
    role = c.get("role", "target")
    state, name, entries = ctx.model(role)
    who = say("who_draft") if role == "draft" else say("who_model")
    if state == "none":
        if role == "draft":
            return F, say("draft_none")
        opaque = ctx.opaque()
        return (
            (U, say("model_none_opaque", opaque=opaque), ctx.opaque_hint()) if opaque else (U, say("model_none"), None)
        )
    if state == "dynamic":
        return U, say("model_dynamic", who=who, name=name)
    if state == "config":
        if "trait" in c:
            words = TRAIT_WORDS[c["trait"]]
            traits = (ctx.model_traits or {}).get("traits") or []  # a config was read: model_traits is set
            return (
                (T, say("config_trait", name=name, trait=words))
                if c["trait"] in traits
                else (F, say("config_no_trait", name=name, trait=words))
            )
        path = ctx.lookup("--model-path", "sglang")[1]  # a config.json does not name the family; the path may
        if path is None or path["dynamic"] or path["raw"] in (None, ""):
            return U, say("config_no_family", name=name)
        name = str(path["value"])
        entries = ctx.engine.match_model(name)
    families = ctx.families(entries)
    if "trait" in c:
        trait = c["trait"]
        words = TRAIT_WORDS[trait]
        carriers = [e for e in entries if trait in e["traits"]]
        if carriers:
            return T, say("model_trait", who=who, name=name, trait=words, family=carriers[0]["family"])
        if trait in QUANT_TRAITS and not entries:  # a weight format needs a signal: no name shows none
            return F, say("model_no_quant", who=who, name=name, trait=words)
        deciding = entries if trait in QUANT_TRAITS else families
        if deciding:
            return F, say(
                "model_no_trait",
                who=who,
                name=name,
                trait=words,
                families=MESSAGES["list"].join(e["family"] for e in families or entries),
            )
        return U, say("model_unlisted", who=who, name=name), "model-config"
    wanted = c["family"]
    hit = [e for e in entries if e["family"] in wanted]
    if hit:
        return T, say("model_family", who=who, name=name, family=hit[0]["family"])
    if families:
        return F, say(
            "model_family_not",
            who=who,
            name=name,
            families=MESSAGES["list"].join(e["family"] for e in families),
            wanted=MESSAGES["or"].join(wanted),
        )
    return U, say("model_unlisted", who=who, name=name), "model-config"


def _ipv6(text: str) -> bool:
    """True when ``text`` is an IPv6 literal (hex groups, at most one ::, optional dotted IPv4 tail)."""
    text = text.split("%", 1)[0]
    if text.count("::") > 1 or ":" not in text:
        return False
    head, sep, tail = text.partition("::")
    parts = []
    for side in (head, tail) if sep else (head,):
        parts.append([] if side == "" else side.split(":"))
    groups = [g for side in parts for g in side]
    need = 8
    if groups and "." in groups[-1]:
        quad = groups[-1].split(".")
        if len(quad) != 4 or not all(digits(q) and len(q) <= 3 and int(q) <= 255 for q in quad):
            return False
        groups, need = groups[:-1], 6
    if not all(1 <= len(g) <= 4 and all(ch in "0123456789abcdefABCDEF" for ch in g) for g in groups):
        return False
    return len(groups) < need if sep else len(groups) == need


def _ipv4(text: str) -> bool:
    """True when ``text`` is a dotted IPv4 address (four numbers up to 255)."""
    quad = text.split(".")
    return len(quad) == 4 and all(digits(q) and len(q) <= 3 and int(q) <= 255 for q in quad)


def _host_of(part: str) -> str:
    """The host an address, ``host:port`` or URL names (an IPv6 literal without its brackets)."""
    scheme, sep, rest = part.partition("://")  # drop a URL scheme such as http://
    v = (
        rest
        if sep
        and scheme[:1].isascii()
        and scheme[:1].isalpha()
        and all(c.isascii() and (c.isalnum() or c in "+.-") for c in scheme)
        else part
    )
    v = v.split("/", 1)[0].rsplit("@", 1)[-1]
    if v.startswith("["):
        end = v.find("]")
        return v[1:end] if end > 0 else v
    if _ipv6(v) or ":" not in v:
        return v
    return v.rsplit(":", 1)[0]


def _address(value) -> tuple[str, str]:
    """What the addresses a flag's value holds say about IPv6: ("ipv6", the literal) for an IPv6 address; else
    ("name", the host) for a host name, which may resolve to one; else ("none", "") (IPv4 addresses only)."""
    text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
    name = None
    for part in text.replace(",", " ").split():
        host = _host_of(part)
        if _ipv6(host):
            return "ipv6", host
        if name is None and host and not _ipv4(host) and all(c.isascii() and (c.isalnum() or c in "._-") for c in host):
            name = host
    return ("name", name) if name is not None else ("none", "")


def _ipv6_leaf(ctx: Context, arg: dict | None, entry: dict | None, shown_name: str):
    """``deployment: {ipv6: FLAG}``: the address the flag holds (given, or its default) is an IPv6 address. A
    host name may resolve to one, which no command shows; a flag not given and without a default holds none."""
    if entry is not None:
        subject = ctx.flag_shown(entry)
        if entry["dynamic"]:
            return U, say("not_literal", subject=subject)
        value = entry["value"]
    elif ctx.opaque():
        return U, say("flag_opaque", flag=shown_name, opaque=ctx.opaque()), ctx.opaque_hint()
    elif arg is None:  # the program the command runs has no such flag: it holds no address
        return F, say("flag_not_given", flag=shown_name)
    else:
        known, value = ctx.default(arg, ctx.program, shown_name)
        if not known:
            return U, value
        if value in (None, "", []):
            return F, say("flag_not_given", flag=shown_name)
        subject = say("default_is", flag=shown_name, value=show(value))
    kind, host = _address(value)
    if kind == "ipv6":
        return T, say("ipv6", subject=subject)
    if kind == "name":
        return U, say("runtime", question=say("ipv6_question", host=host, subject=subject)), "runtime"
    return F, say("ipv6_not", subject=subject)


def _deployment_leaf(c: dict, ctx: Context):
    """A fact of the deployment the command shows: the router's policy, an IPv6 address in the address flag
    the test names, the prefill/decode role, or more than one node."""
    if "router_policy" in c:
        return _router_policy_leaf(c, ctx)
    if "ipv6" in c:  # the flag of the program the command runs (`--dist-init-addr`, a router's `--worker-urls`)
        return _ipv6_leaf(ctx, *ctx.lookup(c["ipv6"], ctx.program))
    if not ctx.runs("sglang"):
        return F, say("not_program", program=PROGRAM_WORDS["sglang"])
    if "pd_role" in c:
        return _pd_role_leaf(c, ctx)
    return _multi_node_leaf(ctx)


# In PD mode the router routes each side by its own policy, `--prefill-policy` and `--decode-policy`, and by
# `--policy` where that side's is not given (sglang-router's RoutingMode get_prefill_policy/get_decode_policy).
PD_POLICIES = ("--prefill-policy", "--decode-policy")


def _policy(ctx: Context, flag: str, fallback: tuple | None = None) -> tuple:
    """The router policy ``flag`` sets: (True, policy, how it is set), or (None, reason, hint) when the command
    does not decide it. A flag not given takes ``fallback`` (the main policy, for a PD side), else its default."""
    arg, entry, shown_name = ctx.lookup(flag, "router")
    if entry is not None:
        if entry["dynamic"]:
            return U, say("not_literal", subject=ctx.flag_shown(entry)), None
        return T, str(entry["value"]), ctx.flag_shown(entry)
    if ctx.opaque():
        return U, say("flag_opaque", flag=shown_name, opaque=ctx.opaque()), ctx.opaque_hint()
    if fallback is not None:
        return fallback
    known, default = ctx.default(arg, "router", shown_name)
    if not known:
        return U, default, None
    if default is not None:
        return T, str(default), say("policy_default", flag=shown_name)
    return U, say("policy_no_default", flag=shown_name), None


def _router_policy_leaf(c: dict, ctx: Context):
    """The policy the router routes by is one of ``router_policy``: `--policy` (or its default), and in PD mode
    each side's: true when both sides' are, false when neither's is, undecided when one side's is."""
    if ctx.program != "router":
        return F, say("not_program", program=PROGRAM_WORDS["router"])
    wanted = c["router_policy"]
    main = _policy(ctx, "--policy")
    _, pd, pd_name = ctx.lookup("--pd-disaggregation", "router")
    sides = [ctx.lookup(flag, "router")[1] for flag in PD_POLICIES]
    if pd is None and ctx.opaque() and any(sides):  # whether the side policies count is not shown
        return U, say("flag_opaque", flag=pd_name, opaque=ctx.opaque()), ctx.opaque_hint()
    if pd is None or not any(sides):  # one policy routes everything
        if main[0] is U:
            return main
        ok = main[1] in wanted
        return (
            (T, say("policy", policy=main[1], how=main[2]))
            if ok
            else (F, say("policy_not", policy=main[1], how=main[2], wanted=MESSAGES["or"].join(wanted)))
        )
    each = [_policy(ctx, flag, main) for flag in PD_POLICIES]
    undecided = next((p for p in each if p[0] is U), None)
    if undecided is not None:
        return undecided
    shown = MESSAGES["list"].join(
        say("policy_side", side=flag[2:].split("-", 1)[0], policy=p[1], how=p[2])
        for flag, p in zip(PD_POLICIES, each, strict=True)
    )
    held = [p[1] in wanted for p in each]
    if all(held):
        return T, say("policy_sides", sides=shown)
    if not any(held):
        return F, say("policy_sides_not", sides=shown, wanted=MESSAGES["or"].join(wanted))
    return U, say("policy_sides_one", sides=shown, wanted=MESSAGES["or"].join(wanted)), None


def _pd_role_leaf(c: dict, ctx: Context):
    _, entry, shown_name = ctx.lookup("--disaggregation-mode", "sglang")
    if entry is not None:
        if entry["dynamic"]:
            return U, say("not_literal", subject=ctx.flag_shown(entry))
        role = str(entry["value"])
        ok = role in c["pd_role"]
        if ok:
            return T, say("pd_role", role=role, flag=ctx.flag_shown(entry))
        return F, (
            say("pd_role_not", role=role, flag=ctx.flag_shown(entry), wanted=MESSAGES["or"].join(c["pd_role"]))
            if role in ("prefill", "decode")
            else say("pd_none_written", flag=ctx.flag_shown(entry))
        )
    if ctx.opaque():
        return U, say("flag_opaque", flag=shown_name, opaque=ctx.opaque()), ctx.opaque_hint()
    return F, say("pd_none", flag=shown_name)


# A deployment on more than one node: `--nnodes` above 1, given or by its default (every node of a multi-node
# deployment is started with it; `--dist-init-addr` alone names an address, as one node with attention data
# parallelism does, and is no second node).
MULTI_NODE = {"name": "--nnodes", "min": 2}


def _multi_node_leaf(ctx: Context):
    v, reason, *hint = _flag_leaf(MULTI_NODE, ctx)
    if v is T:
        return T, say("multi_node", reason=reason)
    if v is F:
        return F, say("single_node", reason=reason)
    return (U, reason, *hint)


def _runtime_leaf(c: dict, ctx: Context):
    """A fact of the running server that no command shows (another process on the GPU, the transport
    in use, the load, the prompts): never true from the command, so the incident can at most "may apply",
    with the question whose answer decides it."""
    return U, say("runtime", question=c["question"]), "runtime"


def _program_leaf(want: str, ctx: Context):
    return (
        (T, say("is_program", program=PROGRAM_WORDS[want]))
        if ctx.program == want
        else (F, say("not_program", program=PROGRAM_WORDS[want]))
    )


LEAVES: dict[str, Callable[..., tuple]] = {
    "program": _program_leaf,
    "flag": _flag_leaf,
    "env": _env_leaf,
    "gpu": _gpu_leaf,
    "model": _model_leaf,
    "deployment": _deployment_leaf,
    "runtime": _runtime_leaf,
}  # each takes the condition's value


def _all(children):
    """Kleene AND over evaluated children [(value, reasons, undecided)]: false wins, else unknown."""
    values = [c[0] for c in children]
    if F in values:
        return F, [r for v, rs, _ in children if v is F for r in rs], []
    if U in values:
        # what held, also inside an undecided part (the evidence "may apply" is ordered by), and what is open
        return (
            U,
            [r for v, rs, _ in children if v is not F for r in rs],
            [u for v, _, us in children if v is U for u in us],
        )
    return T, [r for _, rs, _ in children for r in rs], []


def _any(children):
    """Kleene OR: true wins, else unknown."""
    values = [c[0] for c in children]
    if T in values:
        return T, [r for v, rs, _ in children if v is T for r in rs], []
    if U in values:
        return U, [], [u for v, _, us in children if v is U for u in us]
    return F, [r for _, rs, _ in children for r in rs], []


def evaluate(cond: dict, ctx: Context):
    """(value, reasons for it, what could not be decided) of one condition."""
    ((key, value),) = cond.items()
    if key == "all":
        return _all([evaluate(c, ctx) for c in value])
    if key == "any":
        return _any([evaluate(c, ctx) for c in value])
    if key == "not":
        v, rs, us = evaluate(value, ctx)
        return (None, (), us) if v is None else (not v, rs, us)  # what held inside an undecided `not` is no evidence
    memo = (key, value if isinstance(value, str) else repr(value))
    leaf = ctx.leaf_cache.get(memo)
    if leaf is None:  # incidents share conditions (a GPU vendor, a flag): each is decided once per check
        v, reason, *hint = LEAVES[key](value, ctx)
        if v is None and hint and hint[0]:
            ctx.hints[reason] = hint[0]
        leaf = ctx.leaf_cache[memo] = (v, (reason,), ()) if v is not None else (v, (), (reason,))  # shared: read-only
    return leaf


def _versions(ranges: list, ctx: Context):
    children = []
    for r in ranges:
        key = (
            r["product"],
            r.get("introduced"),
            r.get("fixed"),
            r.get("last_affected"),
            r.get("unknown"),
            r.get("unaffected"),
            tuple(r.get("seen") or ()),
        )
        leaf = ctx.version_cache.get(key)
        if leaf is None:  # incidents share ranges: each is decided once per check
            v, reason, *hint = _version_leaf(r, ctx)
            if v is None and hint:
                ctx.hints[reason] = hint[0]
            leaf = ctx.version_cache[key] = (v, [reason], []) if v is not None else (v, [], [reason])
        children.append(leaf)
    return _any(children)


def _dedupe(items):
    return list(dict.fromkeys(items))


# --------------------------------------------------------------------------- the engine

_GLOBS: dict = {}


def _glob_tokens(pattern: str) -> list:
    """A glob as tokens: "*", "?", ("set", negated, text) for [...] and one character otherwise."""
    tokens: list[str | tuple] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        end = pattern.find("]", i + 2) if c == "[" else -1
        if c in "*?":
            tokens.append(c)
        elif c == "[" and end >= 0:
            body = pattern[i + 1 : end]
            negated = body.startswith("!")
            tokens.append(("set", negated, body[1:] if negated else body))
            i = end
        else:
            tokens.append(("char", c))
        i += 1
    return tokens


def _in_set(token: tuple, ch: str) -> bool:
    _, negated, body = token
    hit, k = False, 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            hit = hit or body[k] <= ch <= body[k + 2]
            k += 3
        else:
            hit = hit or body[k] == ch
            k += 1
    return hit != negated


def glob_match(pattern: str, text: str) -> bool:
    """Whether ``text`` matches the shell glob ``pattern`` as a whole, ignoring case (``*``, ``?``, ``[...]``).
    The lowered text is expected; the pattern is lowered here."""
    tokens = _GLOBS.get(pattern)
    if tokens is None:
        tokens = _GLOBS[pattern] = _glob_tokens(pattern.lower())
    t = p = 0
    star, mark = -1, 0
    while t < len(text):
        tok = tokens[p] if p < len(tokens) else None
        if tok == "*":
            star, mark = p, t
            p += 1
        elif tok is not None and (
            tok == "?" or (tok[0] == "char" and tok[1] == text[t]) or (tok[0] == "set" and _in_set(tok, text[t]))
        ):
            p += 1
            t += 1
        elif star >= 0:
            p, mark = star + 1, mark + 1
            t = mark
        else:
            return False
    while p < len(tokens) and tokens[p] == "*":
        p += 1
    return p == len(tokens)


def _norm(name: str) -> str:
    """A GPU name as data/gpus.yaml matches it: lower case, runs of spaces, hyphens and underscores as one space."""
    return " ".join(str(name).lower().replace("_", " ").replace("-", " ").split())


class Engine:
    """A bundle, indexed once for many checks."""

    def __init__(self, bundle: dict):
        if bundle.get("format") != FORMAT:
            raise ValueError(f"bundle format {bundle.get('format')!r}, expected {FORMAT}")
        self.bundle = bundle
        self.version = bundle["version"]
        self.incidents = bundle["incidents"]
        self.gpus = bundle.get("gpus") or []
        self.gpus_by_id = {g["id"]: g for g in self.gpus}
        self.gpu_names: dict[str, dict] = {}
        for g in self.gpus:
            for n in [g["id"], g["name"], *(g.get("aliases") or [])]:
                self.gpu_names.setdefault(_norm(n), g)
        self.models = [
            dict(
                m,
                traits=list(m.get("traits") or []),
                quant=bool(m.get("traits")) and set(m["traits"]) <= set(QUANT_TRAITS),
            )
            for m in bundle.get("models") or []
        ]
        self.releases = bundle.get("releases") or {}
        self._args: dict = {}
        self.renamed_from: dict = {}  # list name -> old option name -> rename
        self.renamed_to: dict = {}  # list name -> new option name -> [renames]
        for program, items in (bundle.get("renames") or {}).items():
            for r in items:
                self.renamed_from.setdefault(program, {})[r["old"]] = r
                self.renamed_to.setdefault(program, {}).setdefault(r["new"], []).append(r)

    def _list(self, program: str, version: str) -> ArgList:
        """One release's argument list, indexed on first use (a check needs one or two of them)."""
        key = (program, version)
        if key not in self._args:
            data = self.bundle["args"][program][version]
            if callable(getattr(data, "load", None)):  # kept apart in the command line's cache: read when needed
                data = data.load()
            self._args[key] = ArgList(program, data)
        return self._args[key]

    def _versions_of(self, program: str) -> list[str]:
        return sorted((self.bundle.get("args") or {}).get(program) or {}, key=version_key, reverse=True)

    def arglists(self, program: str):
        """Every release's argument list of ``program``, newest first, each indexed when reached."""
        for v in self._versions_of(program):
            yield self._list(program, v)

    def arglist(self, program: str, version: str | None) -> ArgList | None:
        versions = self._versions_of(program)
        if not versions:
            return None
        for want in (version, self.version if program in ("sglang", "sglang-bench") else None):
            same = next((v for v in versions if want is not None and _cmp(v, want) == 0), None)  # 0.5.8.0 is 0.5.8
            if same is not None:
                return self._list(program, same)
        return self._list(program, versions[0])

    def specs(self, version: str | None) -> Specs:
        """The argument list of each program for ``version`` (else the manual's, else the newest),
        each indexed only when the command needs it."""
        return Specs({p: (lambda p=p: self.arglist(p, version)) for p in ARG_LISTS})

    def parse(self, command: str, version: str | None = None) -> dict:
        return parse(command, self.specs(version))

    def find_gpu(self, name: str) -> dict | None:
        return self.gpu_names.get(_norm(name))

    def gpu_meets(self, test: dict, gpu: dict) -> bool | None:
        """Whether ``gpu`` (a GPU record) meets one ``gpu`` condition (its name, vendor, architecture, compute
        capability or memory), as a check reads it; None when the record does not tell (as exposure.js
        gpuMeets())."""
        ctx = Context(self, {"program": None}, {}, gpu, {}, {}, None)
        return _gpu_leaf(test, ctx)[0]

    def match_model(self, path: str) -> list[dict]:
        """The entries of data/models.yaml that describe ``path``: the first family entry whose pattern
        matches the whole value, and every weight-format entry (traits only fp8/fp4) that matches."""
        value = path.strip().rstrip("/").lower()
        found, family = [], False
        for m in self.models:
            quant = m["quant"]
            if (quant or not family) and any(glob_match(p, value) for p in m["patterns"]):
                found.append(m)
                family = family or not quant
        return found

    def _rename_findings(self, parsed: dict, spec) -> list:
        """The parser's findings, and one for each option written by the name an earlier release gave it
        (when the release checked lists the new name); it replaces the parser's unknown-flag finding."""
        key = ARGS_PROGRAM[parsed["program"]]
        table = self.renamed_from.get(key)
        if not table or spec is None:
            return parsed["findings"]
        extra, old_names = [], []
        for entry in parsed["flags"].values():
            r = None if entry.get("kwarg") else table.get(entry["written"])
            if r is None or _cmp(spec.version, r["first"]) < 0:
                continue
            kept = r["old"] in spec.by_option
            old_names.append(r["old"])
            extra.append(
                {
                    "code": "renamed-flag",
                    "message": fill(
                        WORDS["renamed"],
                        old=r["old"],
                        new=r["new"],
                        product=LIST_LABEL.get(key, key),
                        last=r["last"],
                        first=spec.version,
                        tail=WORDS["renamed_kept"] if kept else WORDS["renamed_gone"],
                    ),
                }
            )
        if not extra:
            return parsed["findings"]
        kept_findings = [
            f
            for f in parsed["findings"]
            if not (f["code"] == "unknown-flag" and any(f["message"].startswith(f"`{o}` ") for o in old_names))
        ]
        return kept_findings + extra

    def check(
        self,
        command: str,
        *,
        gpu: str | None = None,
        version: str | None = None,
        model_traits: dict | None = None,
        env: dict | None = None,
        env_opaque: list[str] | None = None,
    ) -> dict:
        """Check ``command``; ``env`` and ``env_opaque`` are the environment it runs in that its text does not
        show (a container's variables set from elsewhere, its files of variables), as
        command.add_environment takes them."""
        out: dict = {
            "error": None,
            "program": None,
            "results": [],
            "findings": [],
            "notes": [],
            "not_checkable": [],
            "unconditioned": [],
            "does_not_apply": [],
            "ruled_out": {},
            "checked": 0,
        }
        given = without_local(version.strip()) if isinstance(version, str) and version.strip() else None
        if given is not None and version_parts(given) is None:
            out["error"] = say("not_a_version", given=given, version=self.version)
            return out
        given = given[1:] if given and given[0] == "v" else given
        specs = self.specs(given)
        parsed = parse(command, specs)
        if parsed["error"]:
            out["error"] = parsed["error"]
            return out
        if env or env_opaque:
            add_environment(parsed, env or {}, env_opaque or [])
        program = parsed["program"]
        out["program"] = program
        product = PRODUCT[program]
        versions: dict = {}
        tags: dict = {}
        if given is not None:
            out["error"] = self._unknown_release(product, given)
            if out["error"]:
                return out
            versions[product] = given
        elif (
            parsed["image"]
            and product == "sglang"
            and any(
                _cmp(parsed["image"]["version"], k) == 0
                for k in (self.releases.get("sglang") or {}).get("versions", [])
            )
        ):
            versions["sglang"] = parsed["image"]["version"]
            tags["sglang"] = say("tag_image")
            out["notes"].append(say("from_image", version=versions["sglang"], image=parsed["image"]["name"]))
            own = self.specs(versions["sglang"])
            if own.get(ARGS_PROGRAM[program]) is not specs.get(ARGS_PROGRAM[program]):  # read with that release's list
                specs, parsed = own, parse(command, own)
        if "sglang" not in versions:
            versions["sglang"] = self.version
            tags["sglang"] = say("tag_assumed")
            out["notes"].append(say("assumed", version=self.version))
        g = None
        if isinstance(gpu, str) and gpu.strip():
            g = self.find_gpu(gpu)
            if g is None:
                out["error"] = self._unknown_gpu(gpu)
                return out
        key = ARGS_PROGRAM[program]
        spec = specs.get(key)
        if (
            spec is not None
            and product in versions
            and _cmp(spec.version, versions[product]) != 0
            and (given is not None or tags.get(product) == say("tag_image"))
        ):
            out["notes"].append(
                say("no_arglist", product=PRODUCT_LABEL[product], version=versions[product], checked=spec.version)
            )
        out["findings"] = self._rename_findings(parsed, specs.get(key))
        ctx = Context(self, parsed, specs, g, versions, tags, model_traits)
        applies, may_apply = self._judge(ctx, out)
        # "may apply" by evidence: more conditions held first, then fewer left undecided (a stable sort)
        may_apply.sort(key=lambda r: (-len(r["why"]), len(r["undecided"])))
        out["results"] = applies + may_apply
        if out["not_checkable"]:
            n = len(out["not_checkable"])
            out["notes"].append(say("not_checkable_one") if n == 1 else say("not_checkable_many", n=n))
        if out["unconditioned"]:
            n = len(out["unconditioned"])
            out["notes"].append(say("unconditioned_one") if n == 1 else say("unconditioned_many", n=n))
        return out

    def release_class(self, version: str) -> tuple:
        """What a check at SGLang ``version`` reads of the release: the argument list of each program it
        checks flags against, and whether each incident's version ranges hold ``version``. Two releases of
        one class get the same verdicts for any command, so a range of releases is checked once per class."""
        ctx = Context(self, {"program": None}, {}, None, {"sglang": version}, {}, None)
        lists = tuple(getattr(self.arglist(p, version), "version", None) for p in ARG_LISTS)
        held = tuple(
            _versions(inc["exposure"]["versions"], ctx)[0]
            for inc in self.incidents
            if inc.get("exposure") and "versions" in inc["exposure"]
        )
        return lists, held

    def _unknown_release(self, product: str, given: str) -> str | None:
        """Why ``given`` is not a release of ``product`` the manual lists, or None."""
        known = (self.releases.get(product) or {}).get("versions")
        if known and not any(_cmp(given, k) == 0 for k in known):
            order = sorted(known, key=version_key)
            return say("no_release", product=PRODUCT_LABEL[product], given=given, first=order[0], last=order[-1])
        return None

    def _unknown_gpu(self, gpu: str) -> str:
        """The error for a GPU name the manual does not know, with the names nearest to it."""
        names = sorted({x["name"] for x in self.gpus})
        lowered: dict[str, str] = {}
        for x in self.gpus:
            lowered.setdefault(_norm(x["name"]), x["name"])
        for x in self.gpus:
            for a in x.get("aliases") or []:
                lowered.setdefault(_norm(a), x["name"])
        near = _dedupe(lowered[m] for m in close_matches(_norm(gpu), sorted(lowered)))
        hint = (
            say("gpu_did_you_mean", names=or_list(near))
            if near
            else (say("gpu_knows", n=len(names), first=names[0]) if names else say("gpu_no_list"))
        )
        return say("unknown_gpu", gpu=gpu.strip()[:100], hint=hint)

    def _judge(self, ctx: Context, out: dict) -> tuple[list[dict], list[dict]]:
        """Each incident against the command: those that apply and those that may, in the manual's
        order; the rest counted into ``out`` (checked, does not apply, not checkable, unconditioned)."""
        applies: list[dict] = []
        may_apply: list[dict] = []
        for inc in self.incidents:
            exp = inc.get("exposure")
            if not exp:
                out["unconditioned"].append(inc["id"])
                continue
            if "not_configuration" in exp:
                out["not_checkable"].append(inc["id"])
                continue
            out["checked"] += 1
            when = evaluate(exp["when"], ctx)
            value, reasons, undecided = _all([_versions(exp["versions"], ctx), when])
            if value is F:
                out["does_not_apply"].append(inc["id"])
                if when[0] is F:
                    # what of the command rules it out (a flag it needs not given), apart from the release
                    out["ruled_out"][inc["id"]] = _dedupe(when[1])
                continue
            item = {
                "id": inc["id"],
                "name": inc["name"],
                "title": inc["title"],
                "path": inc["path"],
                "action": inc.get("action"),
                "result": APPLIES if value is T else MAY_APPLY,
                "why": _dedupe(reasons),
                "undecided": _dedupe(undecided),
            }
            item["add"] = _dedupe(ctx.hints[u] for u in item["undecided"] if u in ctx.hints)
            if exp.get("note"):
                item["note"] = exp["note"]
            (applies if value is T else may_apply).append(item)
        return applies, may_apply


def check(bundle: dict, command: str, **kw) -> dict:
    return Engine(bundle).check(command, **kw)


# --------------------------------------------------------------------------- model config

HYBRID_ARCHITECTURES = (
    "Qwen3NextForCausalLM",
    "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration",
    "KimiLinearForCausalLM",
)
MAMBA_ARCHITECTURES = (
    "NemotronHForCausalLM",
    "FalconH1ForCausalLM",
    "JambaForCausalLM",
    "MambaForCausalLM",
    "Mamba2ForCausalLM",
    "FalconMambaForCausalLM",
)
SLIDING_ARCHITECTURES = (
    "GptOssForCausalLM",
    "DeepseekV4ForCausalLM",
    "MiMoV2ForCausalLM",
    "MiMoV2FlashForCausalLM",
    "Llama4ForConditionalGeneration",
    "Gemma4ForCausalLM",
)


def traits_from_config(cfg: dict) -> list[str]:
    """The traits a model's config.json states, by the rules data/models.schema.json describes:
    the config itself and, if present, its ``text_config``."""
    if not isinstance(cfg, dict):
        return []
    traits = set()
    for c in [cfg] + ([cfg["text_config"]] if isinstance(cfg.get("text_config"), dict) else []):
        kinds = (
            [str(x) for x in c.get("layer_types") or [] if x is not None]
            if isinstance(c.get("layer_types"), list)
            else []
        )
        archs = [str(a) for a in c.get("architectures") or []] if isinstance(c.get("architectures"), list) else []
        linear = c.get("linear_attn_config") if isinstance(c.get("linear_attn_config"), dict) else {}
        if "linear_attention" in kinds or linear.get("kda_layers") or any(a in HYBRID_ARCHITECTURES for a in archs):
            traits.add("hybrid-linear-attention")
        if (
            "mamba" in kinds
            or "M" in str(c.get("hybrid_override_pattern") or "")
            or c.get("mamba2_cache_params") is not None
            or c.get("ssm_cfg") is not None
            or any(a in MAMBA_ARCHITECTURES for a in archs)
        ):
            traits.add("mamba")
        window = c.get("sliding_window")
        if (
            (
                isinstance(window, (int, float))
                and not isinstance(window, bool)
                and window > 0
                and c.get("use_sliding_window") is not False
            )
            or "sliding_attention" in kinds
            or any(a in SLIDING_ARCHITECTURES for a in archs)
        ):
            traits.add("sliding-window")
        if any(
            isinstance(c.get(k), int) and not isinstance(c.get(k), bool) and c[k] > 0
            for k in ("num_experts", "num_local_experts", "n_routed_experts")
        ):
            traits.add("moe")
        if c.get("kv_lora_rank") is not None:
            traits.add("mla")
        q = c.get("quantization_config")
        if isinstance(q, dict):
            method = str(q.get("quant_method") or "").lower()
            algo = str(q.get("quant_algo") or "").upper()
            if method == "fp8" or algo == "FP8":
                traits.add("fp8")
            if method == "mxfp4" or algo == "NVFP4":
                traits.add("fp4")
    return sorted(traits)


def headline(out: dict) -> str:
    """One sentence for the answer. It never reads as an all-clear while something may apply."""
    h = WORDS["headline"]
    a = sum(1 for r in out["results"] if r["result"] == APPLIES)
    m = len(out["results"]) - a
    applies = h["one_applies"] if a == 1 else fill(h["many_apply"], n=a)
    may = h["one_incident"] if m == 1 else fill(h["many_incidents"], n=m)
    key = "both" if a and m else "applies" if a else "may" if m else "none"
    return fill(h[key], applies=applies, may=m, may_incidents=may, checked=out["checked"])


def to_decide(out: dict, surface: str) -> str | None:
    """What the reader could add to decide the incidents that may apply, with how many each would decide;
    ``surface`` is "cli" or "page". None when nothing they could add would decide one."""
    counts: dict[str, int] = {}
    for r in out["results"]:
        for code in r.get("add") or ():
            counts[code] = counts.get(code, 0) + 1
    if not counts:
        return None
    items = [fill(WORDS["to_decide_item"], action=ADD[c][surface], n=counts[c]) for c in ADD if c in counts]
    return fill(WORDS["to_decide"], what="; ".join(items))


def actions(r: dict, surface: str = "cli") -> list[str]:
    """What the reader could add to decide incident result ``r``, in ``surface``'s words ("cli" or "page")."""
    return [ADD[code][surface] for code in r.get("add") or ()]


def result_fields(r: dict) -> dict:
    """An incident's result as the command line's JSON gives it, before its address."""
    return {
        "id": r["id"],
        "result": r["result"],
        "name": r["name"],
        "title": r["title"],
        "action": r.get("action"),
        "why": r["why"],
        "undecided": r["undecided"],
        "add": r.get("add") or [],
    }


def fails(results, fail_on: str) -> bool:
    """Whether a result's verdict is one that ``--fail-on fail_on`` fails on (see FAIL_ON)."""
    return any(r["result"] in FAIL_ON[fail_on] for r in results)
