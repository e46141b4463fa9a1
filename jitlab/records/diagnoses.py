"""Diagnoses: what jitlab measured about a function and what to do about it (JAX-free).

A :class:`Diagnosis` is data: a stable id from :data:`IDS`, the function it is about, where
that function is defined, and the figures it was stated from. Its words are rendered here in
English and Chinese (:func:`sentence`, :func:`warning_lines`), from the figures, never parsed
back. Each id has a page, ``docs/diagnoses/ID.md`` (:func:`page`). A recording keeps each
diagnosis as a ``diagnosis`` line (:meth:`Diagnosis.to_json`, read back by
:meth:`Diagnosis.from_json`); readers from before diagnoses skip the line (an unknown type).

``call-site-cost`` is worked out from a recording's call lines when it is read, and
``persistent-key-changed`` by ``jitlab diff`` from two recordings (the persistent ids' words
are in :mod:`jitlab.records.persistent`); the others are written as the program runs. A new
id slots into :data:`IDS` with its words and page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitlab.records import persistent
from jitlab.records.messages import say
from jitlab.records.paths import builtin_dir
from jitlab.records.persistent import PERSISTENT_KEY_CHANGED, PERSISTENT_NOT_WRITTEN
from jitlab.records.strict import is_number
from jitlab.records.text import format_bytes as _bytes

RECOMPILE_LIMIT = "recompile-limit"
IDENTITY_STATIC = "identity-static"
EXECUTABLES_GROWING = "executables-growing"
SLOW_DISPATCH = "slow-dispatch"
# captured-constant (optax#577): figures ``told`` (False: jitlab cannot tell, ``why``: "shape",
# "unread" or "no_jaxpr"), ``constant`` (a closed-over name, or None), ``kind`` ("literal":
# a Python number; "const": an array), ``type``, ``before``, ``after``, ``changed`` (how many
# constants differ), ``equations_before`` / ``equations_after``.
CAPTURED_CONSTANT = "captured-constant"
# call-site-cost (jax#27993): one per costly call site of the user's code (the
# :class:`jitlab.records.site_costs.SiteCost` figures), read from a recording's call lines.
CALL_SITE_COST = "call-site-cost"

# The ids this jitlab states, in the order the summary lists them. An id is stable: a
# recording, a script reading ``--json`` and a page name all use it.
IDS: tuple[str, ...] = (
    RECOMPILE_LIMIT,
    IDENTITY_STATIC,
    EXECUTABLES_GROWING,
    CAPTURED_CONSTANT,
    CALL_SITE_COST,
    PERSISTENT_NOT_WRITTEN,
    PERSISTENT_KEY_CHANGED,
    SLOW_DISPATCH,
)

# slow-dispatch: why JAX ran cache hits through its Python dispatch (figure ``cause``):
# host callbacks (JAX refused the fast path: the executable has effects); JAX offered C++ an
# entry and C++ kept none (``_cache_size()`` 0 after the call: jax#39078); JAX did not say.
DISPATCH_CALLBACK = "callback"
DISPATCH_NOT_KEPT = "not-kept"
DISPATCH_UNKNOWN = "unknown"
DISPATCH_CAUSES = (DISPATCH_CALLBACK, DISPATCH_NOT_KEPT, DISPATCH_UNKNOWN)

# identity-static: a static change's ``detail`` when its two values were two objects of one
# class, equal in content (fields, else repr) yet unequal to jit (``==``/``hash`` by identity):
# ``identity:module.QualName``, decided where both objects are at hand
# (:mod:`jitlab.probe.identity`). Optional parts after it, ``;key=value``: ``function`` (a
# function made anew inside the value: the same code, an equal closure), ``node`` (the
# pytree node whose static data it is), ``graph=nnx`` (that node is a Flax NNX graph) and
# ``kind`` (what the value is, one of STATIC_KINDS: the advice is chosen by it).
IDENTITY_DETAIL = "identity:"
# What an identity-compared static value is: a functools.partial, a jax.jit object, a bound
# method, a function, a network module (Equinox, Flax), another callable object, anything
# else (a config). A method's ``self`` is told by the argument's name.
STATIC_KINDS = ("partial", "jit", "method", "function", "module", "callable", "config")
_IDENTITY_KEYS = ("function", "node", "graph", "kind")


def identity_detail(
    cls: str,
    function: str | None = None,
    node: str | None = None,
    graph: bool = False,
    kind: str | None = None,
) -> str:
    """An identity-static change's ``detail`` (names hold no ``;`` or ``=``)."""
    parts = [f"{IDENTITY_DETAIL}{cls}"]
    parts += [f"function={function}"] if function else []
    parts += [f"node={node}"] if node else []
    parts += ["graph=nnx"] if graph else []
    parts += [f"kind={kind}"] if kind in STATIC_KINDS else []
    return ";".join(parts)


def identity_parts(detail: str) -> dict[str, str] | None:
    """``class`` and any of ``function``/``node``/``graph``/``kind`` of an identity-static
    change's ``detail``; None for any other detail."""
    if not detail.startswith(IDENTITY_DETAIL):
        return None
    cls, *rest = detail.removeprefix(IDENTITY_DETAIL).split(";")
    if not cls:
        return None
    found = {"class": cls}
    for part in rest:
        key, _, value = part.partition("=")
        if key in _IDENTITY_KEYS and value:
            found[key] = value
    return found


# recompile-limit: which fix fits what kept changing (a ChangeKind value → a fix id).
FIX_FOR_CHANGE = {
    "shape": "bucket",
    "static_value": "static",
    "new_function_object": "recreate",
    "dtype": "dtype",
    "weak_type": "dtype",
}
FIXES = ("bucket", "static", "static_int", "recreate", "dtype", "other", "unknown")

# recompile-limit: what a recompile's reason says of its signature. A new one: what changed
# is a value of the call (a shape, a dtype, a static value unequal in content). The same
# one compiled again: a new function object, a cleared cache, a static equal in content.
_NEW_SIGNATURE = frozenset(
    {
        "shape",
        "dtype",
        "weak_type",
        "sharding",
        "static_value",
        "tree_structure",
        "keyword_vs_positional",
        "new_argument",
        "argument_gone",
        "tracing_context",
        "mesh_context",
    }
)
_AGAIN = frozenset({"new_function_object", "cache_cleared"})
_FIRST = frozenset({"first_call", "first_seen", "first_persistent_load"})
SETTLED_HITS = 1  # hits per compile, on average, past which the program settled (is_settled)
# A transformation's follow-on programs: grad's backward pass, the function jax.linearize
# returned, jax.checkpoint's eager run. Each comes with the forward program of its call.
FOLLOW_ON = frozenset({"transpose", "linear", "remat"})


def another_function(reason: Any, held: Any = None) -> bool:
    """Was this compile (its :class:`~jitlab.records.calls.Reason` and
    :class:`~jitlab.records.executables.Executables`) the first of a function object made
    anew while other objects of the same code still held programs? Then it is another
    function used beside them (a factory's closures, built once and all in use), not the
    function made again: the earlier objects were not dropped."""
    if reason is None or held is None or not getattr(held, "others", None):
        return False
    return any(str(c.kind) == "new_function_object" for c in reason.items)


def new_signature(reason: Any, held: Any = None) -> bool | None:
    """Did this compile's reason (a :class:`~jitlab.records.calls.Reason`) make a signature
    never compiled before? False: the same one again (a function object made anew, a cache
    cleared, a static equal in content); None: a first compile (of a function object made
    beside others alive: :func:`another_function`, given the compile's ``held``
    executables), or it cannot be told."""
    if reason is None or another_function(reason, held):
        return None
    kinds = [str(c.kind) for c in reason.items]
    if any(kind in _AGAIN for kind in kinds):
        return False
    if any(identity_parts(c.detail) is not None for c in reason.items):
        return False
    if kinds and all(kind in _NEW_SIGNATURE for kind in kinds):
        return True
    return None


def is_settled(compiles: Sequence[tuple[int, int]]) -> bool:
    """A function's latest compiles, in order, as (its call number, how many compiles not
    counted had come before: a transformation's follow-on, another function object), each a
    signature never compiled before: did the program settle on them? Between the first and
    the last, more calls reused a program (hits) than compiled one: buckets or
    configurations, each compiled once and then used (an architecture sweep, ten sequence
    buckets met in any order). A batch that wobbles, compiling on almost every call (or on
    every other call: a new size, used twice), is not. A call number below 0: not known (a
    function seen only through JAX's events): never settled."""
    if len(compiles) < 2 or compiles[0][0] < 0:
        return False
    (first, skipped_first), (last, skipped_last) = compiles[0], compiles[-1]
    gaps = len(compiles) - 1
    hits = (last - first) - gaps - (skipped_last - skipped_first)
    return hits > SETTLED_HITS * gaps


def is_int_text(text: str | None) -> bool:
    """A static value recorded as an int's repr (``12``, ``-3``): a number of layers, a
    size, a count — something a traced argument cannot replace when it sets a shape."""
    return text is not None and re.fullmatch(r"-?[0-9]{1,30}", text) is not None


DEFAULT_WARN_AFTER = 8  # compiles of one function before recompile-limit is said (PyTorch's)
# slow-dispatch is a problem where its calls took at least this share of the program's time
# (a validation step with a debug print, called four times, is not).
SLOW_DISPATCH_SHARE = 0.01
# persistent-not-written is a problem where the compile not stored took at least this long:
# JAX's own default threshold (jax_persistent_cache_min_compile_time_secs) is 1 s.
CHEAP_COMPILE_S = 1.0
WARN_AFTER_VARIABLE = "JITLAB_WARN_AFTER"

_ID = re.compile(r"[a-z][a-z0-9-]{0,39}")
_SCALARS = (str, int, float, bool, type(None))


def warn_after_value(text: object) -> int:
    """A ``--warn-after`` / ``JITLAB_WARN_AFTER`` / ``warn_after=`` value: a whole number
    >= 0 (0: never warn). Raises ValueError for anything else (a bool, -1, ``"8.5"``)."""
    if isinstance(text, bool):
        raise ValueError(text)
    if isinstance(text, int):
        value = text
    elif isinstance(text, str) and text.strip().isdigit() and text.strip().isascii():
        value = int(text.strip())
    else:
        raise ValueError(text)
    if value < 0 or value > 10**9:
        raise ValueError(text)
    return value


def resolve_warn_after(
    value: object, environ: Mapping[str, str], lang: str = "en", option: str = "--warn-after"
) -> int:
    """``warn_after`` as given, else ``JITLAB_WARN_AFTER`` in ``environ``, else 8. ValueError
    (its text one line in ``lang``, naming where the value came from) for a value that is
    not a whole number >= 0."""
    name, raw = option, value
    if value is None:
        raw = environ.get(WARN_AFTER_VARIABLE)
        if raw is None:
            return DEFAULT_WARN_AFTER
        name = WARN_AFTER_VARIABLE
    try:
        return warn_after_value(raw)
    except ValueError:
        shown = repr(raw)[:40] if not isinstance(raw, str) else repr(raw[:40])
        raise ValueError(say("diagnosis.bad_warn_after", lang, name=name, value=shown)) from None


@dataclass(frozen=True)
class Diagnosis:
    """One diagnosis of one function (``site``: where it is defined, ``file:line``)."""

    id: str
    function: str
    site: str | None
    figures: Mapping[str, Any] = field(default_factory=dict)  # JSON scalars only
    t: float | None = None  # seconds since the recording started

    @property
    def known(self) -> bool:
        """False for an id from a newer jitlab: shown by its id and page only."""
        return self.id in IDS

    @property
    def problem(self) -> bool:
        """Stated as a problem: following its page would remove compiles or time without
        changing what the program computes. False for a figure shown for information: a
        ``call-site-cost`` where nothing compiled twice and no other diagnosis names its
        functions (a ranking), a ``slow-dispatch`` whose calls took under
        :data:`SLOW_DISPATCH_SHARE` of the program's time, a ``persistent-not-written``
        whose compile took under :data:`CHEAP_COMPILE_S` (a new process loses little). The
        faces list problems first and say the others are for information; only problems are
        said live."""
        f = self.figures
        if self.id == CALL_SITE_COST:
            return bool(f.get("wasted")) or bool(f.get("diagnosed"))
        if self.id == PERSISTENT_NOT_WRITTEN:
            seconds = f.get("compile_s")  # what a new process pays to compile it again
            return not (is_number(seconds) and seconds is not None and seconds < CHEAP_COMPILE_S)
        if self.id == SLOW_DISPATCH:
            share = f.get("share")
            if share is None or not is_number(share):
                return True  # not timed (a Probe, an older recording): as before
            return bool(share >= SLOW_DISPATCH_SHARE)
        return True

    def to_json(self) -> dict[str, Any]:
        """The ``diagnosis`` line of a recording (and ``--json``'s entry)."""
        return {
            "type": "diagnosis",
            "id": self.id,
            "function": self.function,
            "site": self.site,
            "figures": dict(self.figures),
            "t": self.t,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Diagnosis | None:
        """None when the line is not a diagnosis this reader can trust."""
        ident, function, site = data.get("id"), data.get("function"), data.get("site")
        figures, t = data.get("figures"), data.get("t")
        if not (isinstance(ident, str) and _ID.fullmatch(ident)):
            return None
        if not isinstance(function, str) or not (site is None or isinstance(site, str)):
            return None
        if not isinstance(figures, dict) or len(figures) > 64:
            return None
        for key, value in figures.items():
            if not isinstance(key, str) or not isinstance(value, _SCALARS):
                return None
            if isinstance(value, int | float) and not -1e18 < value < 1e18:
                return None  # a bool is an int within range
        if t is not None and (isinstance(t, bool) or not isinstance(t, int | float)):
            return None
        return cls(ident, function, site, dict(figures), float(t) if t is not None else None)


PAGES = "docs/diagnoses"  # the pages' folder in jitlab's repository
# Each page holds one section per language, under these headings, after its title line.
_SECTIONS = {"en": "## English", "zh": "## 中文"}


def _pages_dir() -> Path:
    """The pages: inside the installed package (``jitlab/_builtin/docs``), else the
    checkout's ``docs`` beside the package."""
    return builtin_dir("docs") / "diagnoses"


def page(ident: str) -> str:
    """The page of ``ident``: its absolute path where it is on this machine (installed with
    jitlab, or in a checkout), else ``docs/diagnoses/ID.md`` of jitlab's repository."""
    if _ID.fullmatch(ident):
        found = _pages_dir() / f"{ident}.md"
        if found.is_file():
            return str(found.resolve())
    return f"{PAGES}/{ident}.md"


def page_url(ident: str) -> str | None:
    """The page of ``ident`` as a ``file:`` URL where it is on this machine, else None (an
    id from a newer jitlab): a face then shows :func:`page` as text and says it is not
    here."""
    found = Path(page(ident))
    return found.as_uri() if found.is_absolute() and found.is_file() else None


def page_text(ident: str, lang: str = "en") -> str | None:
    """The page of ``ident`` in ``lang``: its title and that language's section (the whole
    page where it has no such section); None where jitlab has no page of that id."""
    found = Path(page(ident))
    if not (found.is_absolute() and found.is_file()):
        return None
    return page_section(found.read_text(encoding="utf-8"), lang)


def page_section(text: str, lang: str) -> str:
    """A page's title and its section in ``lang`` (English for a language it lacks), each
    section's own heading dropped; the whole text where the page has no sections."""
    lines = text.splitlines()
    heading = _SECTIONS.get(lang, _SECTIONS["en"])
    starts = [i for i, line in enumerate(lines) if line.strip() in _SECTIONS.values()]
    mine = [i for i in starts if lines[i].strip() == heading]
    if not mine:
        return text
    begin = mine[0]
    end = next((i for i in starts if i > begin), len(lines))
    title = [line for line in lines[: starts[0]] if line.startswith("# ")]
    body = lines[begin + 1 : end]
    return "\n".join([*title, *body]).strip() + "\n"


def explain_command(ident: str) -> str:
    """The command that prints ``ident``'s page, as every face names it."""
    return f"jitlab explain {ident}"


def listed_line(d: Diagnosis, lang: str = "en") -> str:
    """One diagnosis as the faces list it: its id, one sentence and the command that prints
    its page; one shown for information says so."""
    key = "diagnosis.line" if d.problem else "diagnosis.line_information"
    return say(key, lang, id=d.id, text=sentence(d, lang), command=explain_command(d.id))


def in_order(found: Sequence[Diagnosis]) -> list[Diagnosis]:
    """The problems first, then what is shown for information, each in the order stated."""
    return [d for d in found if d.problem] + [d for d in found if not d.problem]


def of_function(found: Sequence[Diagnosis], function: str, site: str | None) -> list[Diagnosis]:
    """The diagnoses of one function (its name and ``file:line``), in the order stated."""
    return [d for d in found if d.function == function and d.site == site]


def _where(d: Diagnosis) -> str:
    return f"{d.function} ({d.site})" if d.site else d.function


def _names(names: Sequence[str], lang: str) -> str:
    """``x``, ``x and y``, ``x, y, and z`` (``x、y 和 z``)."""
    if len(names) < 2:
        return "".join(names)
    if len(names) == 2:
        return say("diagnosis.names.two", lang, a=names[0], b=names[1])
    rest = say("diagnosis.names.separator", lang).join(names[:-1])
    return say("diagnosis.names.more", lang, rest=rest, last=names[-1])


def _arguments(d: Diagnosis) -> list[str]:
    """recompile-limit's argument, then those that changed as often the same way (figure
    ``tied``, comma-separated; a recording from before it names one)."""
    argument, tied = d.figures.get("argument"), d.figures.get("tied")
    names = [str(argument)] if argument else []
    return names + ([t for t in tied.split(", ") if t] if isinstance(tied, str) else [])


def _fix(d: Diagnosis, lang: str) -> str:
    fix = d.figures.get("fix")
    fix = fix if fix in FIXES else "unknown"
    names = _arguments(d)
    many = "_many" if len(names) > 1 and fix in ("static", "static_int") else ""
    return say(f"diagnosis.fix.{fix}{many}", lang, argument=_names(names, lang) or "?")


def _changing(d: Diagnosis, lang: str) -> str:
    change = d.figures.get("change")
    names = _arguments(d)
    if not names:
        return say("diagnosis.changing.unknown", lang)
    what = change if isinstance(change, str) else "?"
    known = what in ("shape", "static_value", "new_function_object")
    key = what if known else "other"
    if len(names) > 1 and key != "new_function_object":
        key += "_many"
    return say(
        f"diagnosis.changing.{key}",
        lang,
        argument=_names(names, lang),
        change=what,
        n=d.figures.get("changed", 0),
        of=d.figures.get("recompiles", 0),
    )


def _growing(d: Diagnosis, lang: str) -> str:
    """executables-growing: how many are alive, how many for one signature, what they hold."""
    f = d.figures
    held = say(
        "diagnosis.executables_growing.held",
        lang,
        code=_bytes(f.get("code_bytes")),
        temp=_bytes(f.get("temp_bytes")),
        arguments=_bytes(f.get("argument_bytes")),
        outputs=_bytes(f.get("output_bytes")),
    )
    same = f.get("same_signature")
    key = "same" if isinstance(same, int) else "unseen"
    return say(
        f"diagnosis.executables_growing.{key}",
        lang,
        function=_where(d),
        live=f.get("live", 0),
        compiles=f.get("compiles", 0),
        same=same,
        held=held,
    )


def sentence(d: Diagnosis, lang: str = "en") -> str:
    """The diagnosis in one sentence (the summary's line)."""
    if not d.known:
        return say("diagnosis.newer", lang, id=d.id, function=_where(d))
    if d.id == EXECUTABLES_GROWING:
        return _growing(d, lang)
    if d.id == CAPTURED_CONSTANT:
        return _captured_constant(d, lang)
    if d.id == CALL_SITE_COST:
        return _call_site_cost(d, lang)
    if d.id == PERSISTENT_NOT_WRITTEN:
        text = persistent.not_written_sentence(_where(d), d.figures, lang)
        if d.problem:
            return text
        return text + say("diagnosis.persistent_not_written.cheap", lang)
    if d.id == PERSISTENT_KEY_CHANGED:
        return persistent.key_changed_sentence(_where(d), d.figures, lang)
    if d.id == SLOW_DISPATCH:
        return _slow_dispatch(d, lang)
    if d.id == IDENTITY_STATIC:
        return _identity_static(d, lang)
    return say(
        "diagnosis.recompile_limit",
        lang,
        function=_where(d),
        n=d.figures.get("compiles", 0),
        limit=d.figures.get("limit", 0),
        changing=_changing(d, lang),
    )


def _identity_words(d: Diagnosis) -> dict[str, str]:
    f = d.figures
    argument = str(f.get("argument") or "?")
    node = str(f.get("node") or "")
    return {
        "function": _where(d),
        "argument": argument,
        "root": re.split(r"[.\[]", argument, maxsplit=1)[0],
        "node": node.rsplit(".", 1)[-1] or "?",
        "cls": str(f.get("class") or "?"),
        "value": str(f.get("value") or "?"),
        "made": str(f.get("function") or ""),
    }


def _identity_static(d: Diagnosis, lang: str) -> str:
    """identity-static's sentence: where the value sits (a static argument, a pytree's
    static data, a Flax NNX graph's attribute) and what compares by identity in it."""
    words = _identity_words(d)
    kind = d.figures.get("kind")
    if d.figures.get("graph"):
        where = "graph"
    elif d.figures.get("node"):
        where = "pytree"
    elif words["made"] or kind in _WHY_KINDS:
        where = "static"
    else:  # a static argument of a class compared by identity: the first words, kept
        return say("diagnosis.identity_static", lang, **words)
    if words["made"]:
        why = "why_itself" if words["made"] == words["cls"] else "why_function"
    else:
        why = f"why_{kind}" if kind in _WHY_KINDS else "why_class"
    words["why"] = say(f"diagnosis.identity_static.{why}", lang, **words)
    return say(f"diagnosis.identity_static.{where}", lang, **words)


# Kinds of static value whose own words say why jit tells two equal ones apart.
_WHY_KINDS = ("jit", "partial")
# The advice by what the static value is (a method's ``self`` is told by its name).
_FIX_KINDS = ("jit", "partial", "method", "module", "callable")


def _identity_fix(d: Diagnosis, lang: str) -> str:
    """The fix that fits what the static value is: a method's ``self``, a Flax NNX graph's
    attribute, a ``jax.jit`` object, a ``functools.partial``, a function made anew, a
    bound method, a module, another callable, or a config."""
    words = _identity_words(d)
    kind = d.figures.get("kind")
    if words["root"] == "self" and not d.figures.get("graph"):
        return say("diagnosis.fix.identity.self", lang, **words)
    if d.figures.get("graph"):
        return say("diagnosis.fix.identity_graph", lang, **words)
    if kind in ("jit", "partial"):
        return say(f"diagnosis.fix.identity.{kind}", lang, **words)
    if words["made"]:
        return say("diagnosis.fix.identity_function", lang, **words)
    if kind in _FIX_KINDS:
        return say(f"diagnosis.fix.identity.{kind}", lang, **words)
    return say("diagnosis.fix.identity", lang, **words)


def _slow_dispatch_cause(d: Diagnosis) -> str:
    cause = d.figures.get("cause")  # as a message key's part: not_kept
    return (cause if cause in DISPATCH_CAUSES else DISPATCH_UNKNOWN).replace("-", "_")


def _slow_dispatch(d: Diagnosis, lang: str) -> str:
    f = d.figures
    hits = f.get("hits")
    cause = say(f"diagnosis.slow_dispatch.{_slow_dispatch_cause(d)}", lang)
    words = {"function": _where(d), "n": f.get("calls", 0), "hits": hits, "cause": cause}
    timed = is_number(f.get("ms")) and is_number(f.get("share")) and f.get("share") is not None
    if timed:
        words |= {"ms": f"{float(f['ms']):,.1f}", "share": _share(float(f["share"]))}
    if timed and not d.problem:
        return say("diagnosis.slow_dispatch.information", lang, **words)
    key = "diagnosis.slow_dispatch" if isinstance(hits, int) else "diagnosis.slow_dispatch_live"
    text = say(key, lang, **words)
    return text + say("diagnosis.slow_dispatch.timed", lang, **words) if timed else text


def _share(share: float) -> str:
    """A share as a percentage that never reads 0% for something that happened."""
    if 0 < share < 0.001:
        return "<0.1%"
    return f"{share:.1%}" if share < 0.1 else f"{share:.0%}"


def warning_lines(d: Diagnosis, lang: str = "en") -> list[str]:
    """The live warning on stderr: what happened, what keeps changing, the fix, the page."""
    if d.id == SLOW_DISPATCH:
        fix = say(f"diagnosis.fix.dispatch_{_slow_dispatch_cause(d)}", lang)
    elif d.id == IDENTITY_STATIC:
        fix = _identity_fix(d, lang)
    elif d.id == EXECUTABLES_GROWING:
        fix = say("diagnosis.fix.executables_growing", lang)
    elif d.id in (CAPTURED_CONSTANT, CALL_SITE_COST):
        fix = say(f"diagnosis.fix.{d.id}", lang)
    elif d.id == PERSISTENT_NOT_WRITTEN:
        fix = say("diagnosis.fix.persistent_not_written", lang)
    else:
        fix = _fix(d, lang)
    return [
        say("diagnosis.warning", lang, id=d.id, text=sentence(d, lang)),
        say("diagnosis.fix", lang, fix=fix),
        say("diagnosis.page", lang, command=explain_command(d.id)),
    ]


def _captured_constant(d: Diagnosis, lang: str) -> str:
    f = d.figures
    if not f.get("told"):
        why = f.get("why") if f.get("why") in ("shape", "unread") else "no_jaxpr"
        return say(
            f"diagnosis.captured_constant.{why}",
            lang,
            function=_where(d),
            before=f.get("equations_before", "?"),
            after=f.get("equations_after", "?"),
        )
    constant = f.get("constant")
    changed = f.get("changed")
    more = changed - 1 if isinstance(changed, int) and not isinstance(changed, bool) else 0
    kind = "literal" if f.get("kind") == "literal" else "const"
    return say(
        "diagnosis.captured_constant" + ("" if constant else ".unnamed"),
        lang,
        function=_where(d),
        constant=constant or "",
        type=f.get("type") or "?",
        kind=say(f"diagnosis.captured_constant.{kind}", lang),
        before=f.get("before") or "?",
        after=f.get("after") or "?",
        more=say("diagnosis.captured_constant.more", lang, n=more) if more > 0 else "",
    )


def _call_site_cost(d: Diagnosis, lang: str) -> str:
    """A costly call site: a fault where something there is wrong (``wasted`` compiles of a
    signature compiled before, or another diagnosis names its functions), else a ranking."""
    f = d.figures
    words = {
        "site": f.get("called_from") or "?",
        "n": f.get("compiles", 0),
        "ms": f"{float(f.get('ms') or 0):,.1f}",
        "trace": f"{float(f.get('trace_ms') or 0):,.1f}",
        "lower": f"{float(f.get('lower_ms') or 0):,.1f}",
        "compile": f"{float(f.get('compile_ms') or 0):,.1f}",
        "rank": f.get("rank", "?"),
        "sites": f.get("sites", "?"),
        "share": f"{float(f.get('share') or 0):.0%}",
        "function": _where(d),
    }
    if not d.problem:
        return say("diagnosis.call_site_cost.ranking", lang, **words)
    text = say("diagnosis.call_site_cost", lang, **words).rstrip(".。")
    if f.get("wasted"):
        text += say("diagnosis.call_site_cost.wasted", lang, wasted=f["wasted"])
    if f.get("diagnosed"):
        text += say("diagnosis.call_site_cost.diagnosed", lang, diagnosed=f["diagnosed"])
    return text + ("。" if lang == "zh" else ".")
