"""The prereg file as plain data (docs/contract.md, "The prereg file").

The whole event stream of pyyaml's safe parser is read first; one walk over
the events, with a stack of open collections, then finds the nesting depth,
anchors and aliases, keys written twice and keys that are not strings. Only
then is the text loaded (yaml.safe_load), and the loaded values are walked
for NaN and infinities.
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.resolver import Resolver

MAX_BYTES = 1 << 18
MAX_NESTING = 32
STRING_TAG = "tag:yaml.org,2002:str"


@dataclass
class _Open:
    """An open collection: a mapping alternates key, value; seen holds its scalar keys."""

    is_mapping: bool
    children: int = 0
    seen: set[tuple[str, str]] = field(default_factory=set)


@dataclass
class _Findings:
    too_deep: str | None = None
    anchor: str | None = None
    twice: str | None = None
    not_string: str | None = None


def _at(event: yaml.Event) -> str:
    return f"line {event.start_mark.line + 1}"


def _scalar_tag(resolver: Resolver, event: yaml.ScalarEvent) -> str:
    """The tag a composer gives this scalar (explicit, or resolved as the safe loader does)."""
    if event.tag is None or event.tag == "!":
        return resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
    return event.tag


def _walk(events: list[yaml.Event]) -> _Findings:
    found = _Findings()
    resolver = Resolver()
    stack: list[_Open] = []
    for ev in events:
        if not isinstance(ev, (yaml.NodeEvent, yaml.CollectionEndEvent)):
            continue
        if isinstance(ev, yaml.CollectionEndEvent):
            stack.pop()
            if stack:
                stack[-1].children += 1
            continue
        if ev.anchor is not None and found.anchor is None:
            kind = "alias" if isinstance(ev, yaml.AliasEvent) else "anchor"
            found.anchor = f"{_at(ev)}: {kind} {ev.anchor!r}"
        parent = stack[-1] if stack else None
        if parent is not None and parent.is_mapping and parent.children % 2 == 0:
            # this node is a key
            tag = _scalar_tag(resolver, ev) if isinstance(ev, yaml.ScalarEvent) else None
            if isinstance(ev, yaml.ScalarEvent):
                if (tag, ev.value) in parent.seen and found.twice is None:
                    found.twice = f"{_at(ev)}: key {ev.value!r} twice in one mapping"
                parent.seen.add((tag, ev.value))
            if tag != STRING_TAG and found.not_string is None:
                found.not_string = f"{_at(ev)}: a mapping key that is not a string"
        if isinstance(ev, yaml.CollectionStartEvent):
            stack.append(_Open(is_mapping=isinstance(ev, yaml.MappingStartEvent)))
            if len(stack) > MAX_NESTING and found.too_deep is None:
                found.too_deep = f"{_at(ev)}: nested more than {MAX_NESTING} levels"
        elif parent is not None:
            parent.children += 1
    return found


def _non_finite(doc: Any) -> float | None:
    todo = [doc]
    while todo:
        x = todo.pop()
        if isinstance(x, float) and not math.isfinite(x):
            return x
        if isinstance(x, dict):
            todo.extend(x.keys())
            todo.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            todo.extend(x)
    return None


_LOADED: dict[str, dict[str, Any]] = {}  # text -> its document, once it passed every rule


def load_plain(path: str, fail: Any) -> dict[str, Any]:
    """The prereg as a dict with string keys; ``fail(class, path, detail)`` builds the error.

    A text that passed once is not parsed again in this process (a command given
    several bundles reads its prereg for each): its document is copied."""
    if not os.path.isfile(path):
        raise fail("missing_file", path, "no such regular file")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise fail("unreadable", path, f"cannot read: {exc}") from None
    if len(raw) > MAX_BYTES:
        raise fail("too_large", path, f"larger than {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail("unreadable", path, f"not UTF-8: {exc}") from None
    if text in _LOADED:
        return copy.deepcopy(_LOADED[text])
    try:
        events = list(yaml.parse(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise fail("unreadable", path, f"cannot parse YAML: {exc}") from None
    starts = sum(1 for ev in events if isinstance(ev, yaml.DocumentStartEvent))
    if starts > 1:
        raise fail("unreadable", path, f"{starts} YAML documents in one file")
    found = _walk(events)
    if found.too_deep:
        raise fail("unreadable", path, found.too_deep)
    if found.anchor:
        raise fail("yaml_alias", path, f"{found.anchor} (anchors and aliases are not allowed)")
    if found.twice:
        raise fail("yaml_duplicate_key", path, found.twice)
    if found.not_string:
        raise fail("bad_prereg", path, found.not_string)
    try:
        doc = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, LookupError, AttributeError, TypeError) as exc:
        # pyyaml's constructors raise more than YAMLError on a bad scalar (!!bool maybe: KeyError)
        raise fail("bad_prereg", path, f"a value that cannot be loaded: {exc!r}") from None
    bad = _non_finite(doc)
    if bad is not None:
        raise fail("bad_prereg", path, f"a number that is not finite ({bad})")
    if not isinstance(doc, dict):
        raise fail("bad_prereg", path, "document is not a mapping")
    _LOADED[text] = copy.deepcopy(doc)
    return doc
