"""Read a prereg's YAML strictly: one small document of plain data, nothing expanded.

docs/contract.md, "The prereg file". The checks run in this order and the first
that fails decides the class:

  too_large           more than MAX_BYTES bytes (no byte beyond them is read)
  unreadable          not UTF-8; not YAML (the whole stream parses first); more
                      than one document; collections nested more than MAX_DEPTH deep
  yaml_alias          an anchor (&a) or an alias (*a), anywhere
  yaml_duplicate_key  one mapping holds the same key twice (same resolved tag and text)
  bad_prereg          a key that is not a string; a value the safe loader cannot
                      build; a top level that is not a mapping; NaN or an infinity

pyyaml's pure-Python SafeLoader reads the text (the contestants read the same
bytes with it); nothing here parses YAML by hand.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import yaml

from audit.errors import AuditError
from audit.files import open_regular

MAX_BYTES = 256 * 1024  # 256 KiB; the largest prereg shipped is under 6 KB
MAX_DEPTH = 32  # nested mappings and sequences; a prereg needs about six
STR_TAG = "tag:yaml.org,2002:str"
# What pyyaml's safe constructors raise on a value they cannot build: `!!bool maybe`
# (KeyError), `!!int ""` (IndexError), `!!timestamp foo` (AttributeError), `!!int 0x`.
_BUILD_ERRORS = (yaml.YAMLError, ValueError, LookupError, AttributeError, TypeError)


class _FiniteLoader(yaml.SafeLoader):
    """The safe loader, refusing a float that is NaN or infinite where it is built."""


class _NotFinite(Exception):
    def __init__(self, line: int, value: float) -> None:
        self.line = line
        self.value = value


def _finite_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    value = loader.construct_yaml_float(node)
    if not math.isfinite(value):
        raise _NotFinite(node.start_mark.line + 1, value)
    return value


_FiniteLoader.add_constructor("tag:yaml.org,2002:float", _finite_float)


_ACCEPTED: dict[str, dict[str, Any]] = {}  # a text that passed every check -> its document


def read_strict(path: str | Path) -> dict[str, Any]:
    """The prereg as a mapping with string keys, or an AuditError (one class, one line).

    A process that reads the same prereg more than once (the seal reads it for the
    certificate and the self-test) parses a text it has accepted only once; every
    caller gets its own copy of the document."""
    where = str(path)
    return parse_strict(_head(Path(path), where), where)


def parse_strict(data: bytes, where: str) -> dict[str, Any]:
    """``read_strict`` of bytes already read (the lock reads its prereg once: the bytes it
    hashes are the bytes it parses and copies). More than MAX_BYTES is too_large."""
    if len(data) > MAX_BYTES:
        raise AuditError("too_large", where, f"more than {MAX_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AuditError("unreadable", where, f"not UTF-8 (byte {e.start})") from None
    if text in _ACCEPTED:
        return copy.deepcopy(_ACCEPTED[text])
    _check_events(text, where)
    loader = _FiniteLoader(text)
    try:
        node = loader.get_single_node()
        _check_keys(node, where)
        try:
            doc = loader.construct_document(node) if node is not None else None
        except _NotFinite as e:
            raise AuditError(
                "bad_prereg", where, f"line {e.line}: {e.value} is not a finite number"
            ) from None
        except _BUILD_ERRORS as e:
            raise AuditError(
                "bad_prereg", where, f"a value the safe loader cannot build ({_first(e)})"
            ) from None
    finally:
        loader.dispose()
    if not isinstance(doc, dict):
        raise AuditError(
            "bad_prereg", where, f"the top level is {_kind(doc)}, not a mapping of keys"
        )
    _ACCEPTED[text] = copy.deepcopy(doc)
    return doc


def _head(p: Path, where: str) -> bytes:
    """The file's first MAX_BYTES + 1 bytes (no byte beyond them is read)."""
    with open_regular(p, where) as f:  # a FIFO, device or folder: refused, never waited on
        return f.read(MAX_BYTES + 1)


def _check_events(text: str, where: str) -> None:
    """unreadable, then yaml_alias, from the whole event stream (parsing needs no recursion)."""
    try:
        events = list(yaml.parse(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as e:
        raise AuditError("unreadable", where, f"not valid YAML ({_first(e)})") from None
    documents = sum(isinstance(e, yaml.DocumentStartEvent) for e in events)
    if documents > 1:
        raise AuditError("unreadable", where, f"{documents} YAML documents, not one")
    depth = 0
    for e in events:
        if isinstance(e, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise AuditError(
                    "unreadable",
                    where,
                    f"line {e.start_mark.line + 1}: nested more than {MAX_DEPTH} deep",
                )
        elif isinstance(e, yaml.CollectionEndEvent):
            depth -= 1
    for e in events:
        if isinstance(e, yaml.NodeEvent) and e.anchor is not None:
            what = "an alias" if isinstance(e, yaml.AliasEvent) else "an anchor"
            raise AuditError(
                "yaml_alias",
                where,
                f"line {e.start_mark.line + 1}: {what} ({e.anchor!r}); "
                "a prereg writes every value out",
            )


def _mappings(node: yaml.Node | None) -> list[yaml.MappingNode]:
    """Every mapping node of the tree (no aliases remain, so it is a tree)."""
    out, todo = [], [node] if node is not None else []
    while todo:
        n = todo.pop()
        if isinstance(n, yaml.MappingNode):
            out.append(n)
            todo.extend(x for pair in n.value for x in pair)
        elif isinstance(n, yaml.SequenceNode):
            todo.extend(n.value)
    return sorted(out, key=lambda n: (n.start_mark.line, n.start_mark.column))


def _check_keys(node: yaml.Node | None, where: str) -> None:
    """yaml_duplicate_key anywhere, then bad_prereg for a key that is not a string."""
    mappings = _mappings(node)
    for m in mappings:
        seen: set[tuple[str, str]] = set()
        for key, _ in m.value:
            if isinstance(key, yaml.ScalarNode):
                if (key.tag, key.value) in seen:
                    raise AuditError(
                        "yaml_duplicate_key",
                        where,
                        f"line {key.start_mark.line + 1}: key {key.value!r} appears twice "
                        "in one mapping",
                    )
                seen.add((key.tag, key.value))
    for m in mappings:
        for key, _ in m.value:
            if not (isinstance(key, yaml.ScalarNode) and key.tag == STR_TAG):
                shown = key.value if isinstance(key, yaml.ScalarNode) else key.tag
                raise AuditError(
                    "bad_prereg",
                    where,
                    f"line {key.start_mark.line + 1}: key {shown!r} is not a string "
                    f"({key.tag.rsplit(':', 1)[-1]})",
                )


def _kind(doc: Any) -> str:
    return "empty" if doc is None else f"a {type(doc).__name__}"


def _first(e: BaseException) -> str:
    """The exception's message on one line, short."""
    text = " ".join(str(e).split())
    return text if len(text) <= 160 else text[:157] + "..."
