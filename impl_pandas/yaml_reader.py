"""Reading the prereg file as the contract says (docs/contract.md, "The prereg file").

The text is parsed once to the end (a syntax error anywhere is `unreadable`),
then composed by a SafeLoader subclass that watches the composer: it counts how
deep collections nest, notes the first anchor or alias, the first key written
twice in one mapping and the first key that is not a string. Then the document
is built, with a float constructor that refuses NaN and the infinities.
"""

from __future__ import annotations

import copy
import math
import os
from typing import Any

import yaml

from .errors import (
    BAD_PREREG,
    MISSING_FILE,
    TOO_LARGE,
    UNREADABLE,
    YAML_ALIAS,
    YAML_DUPLICATE_KEY,
    InputError,
)

BYTE_LIMIT = 262_144
NESTING_LIMIT = 32
_STR = "tag:yaml.org,2002:str"
_FLOAT = "tag:yaml.org,2002:float"


class _TooDeep(Exception):
    """Raised from inside the composer: nesting beyond the limit stops at once."""


class _NotFinite(Exception):
    """Raised from inside the constructor by a float that is NaN or infinite."""


class _WatchingLoader(yaml.SafeLoader):
    """A SafeLoader whose composer records what a prereg may not use."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.nesting = 0
        self.anchor_note: str | None = None
        self.twice_note: str | None = None
        self.key_note: str | None = None

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            self.get_event()
            if self.anchor_note is None:
                self.anchor_note = f"line {line}: alias *{event.anchor}"
            # stands in for the alias; the document is refused before it is built
            return yaml.ScalarNode("tag:yaml.org,2002:null", "", event.start_mark, event.end_mark)
        if event.anchor is not None:
            if self.anchor_note is None:
                self.anchor_note = f"line {line}: anchor &{event.anchor}"
            event.anchor = None  # noted; the composer need not keep it
        opens = isinstance(event, yaml.CollectionStartEvent)
        if opens:
            self.nesting += 1
            if self.nesting > NESTING_LIMIT:
                raise _TooDeep(f"line {line}: collections nested more than {NESTING_LIMIT} deep")
        try:
            return super().compose_node(parent, index)
        finally:
            if opens:
                self.nesting -= 1

    def compose_mapping_node(self, anchor: Any) -> Any:
        node = super().compose_mapping_node(anchor)
        seen = set()
        for key, _value in node.value:
            line = key.start_mark.line + 1
            if isinstance(key, yaml.ScalarNode):
                if (key.tag, key.value) in seen and self.twice_note is None:
                    self.twice_note = f"line {line}: key '{key.value}' is written twice"
                seen.add((key.tag, key.value))
            if self.key_note is None and not (isinstance(key, yaml.ScalarNode) and key.tag == _STR):
                self.key_note = f"line {line}: a key that is not a string ({key.tag})"
        return node


def _finite_float(loader: yaml.SafeLoader, node: Any) -> float:
    value = loader.construct_yaml_float(node)
    if math.isnan(value) or math.isinf(value):
        raise _NotFinite(f"line {node.start_mark.line + 1}: {node.value} is not a finite number")
    return value


_WatchingLoader.add_constructor(_FLOAT, _finite_float)


def _read_text(path: str) -> str:
    if not os.path.isfile(path):
        raise InputError(MISSING_FILE, path, "no such regular file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(BYTE_LIMIT + 1)
    except OSError as exc:
        raise InputError(UNREADABLE, path, f"cannot read: {exc}") from None
    if len(data) > BYTE_LIMIT:
        raise InputError(TOO_LARGE, path, f"the prereg is over {BYTE_LIMIT} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(UNREADABLE, path, f"not UTF-8: {exc}") from None


def _parse_to_the_end(text: str, path: str) -> None:
    parser = yaml.SafeLoader(text)
    try:
        while parser.check_event():
            parser.get_event()
    except yaml.YAMLError as exc:
        raise InputError(UNREADABLE, path, f"cannot parse YAML: {exc}") from None
    finally:
        parser.dispose()


_ACCEPTED: dict[str, dict[str, Any]] = {}  # a text read without fault -> its document


def read_prereg(path: str) -> dict[str, Any]:
    """The prereg as a mapping with string keys; InputError in the contract's order.

    A command given several bundles reads its prereg for each: a text this process
    has already accepted is not parsed again, its document is copied."""
    text = _read_text(path)  # missing_file, too_large, unreadable
    if text in _ACCEPTED:
        return copy.deepcopy(_ACCEPTED[text])
    _parse_to_the_end(text, path)  # unreadable: a syntax error anywhere
    loader = _WatchingLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except _TooDeep as exc:
            raise InputError(UNREADABLE, path, str(exc)) from None
        except yaml.YAMLError as exc:  # more than one document
            raise InputError(UNREADABLE, path, f"cannot parse YAML: {exc}") from None
        if loader.anchor_note is not None:
            raise InputError(YAML_ALIAS, path, f"{loader.anchor_note}: no anchors or aliases")
        if loader.twice_note is not None:
            raise InputError(YAML_DUPLICATE_KEY, path, loader.twice_note)
        if loader.key_note is not None:
            raise InputError(BAD_PREREG, path, loader.key_note)
        try:
            doc = None if node is None else loader.construct_document(node)
        except _NotFinite as exc:
            raise InputError(BAD_PREREG, path, str(exc)) from None
        except (yaml.YAMLError, ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
            # e.g. `!!bool maybe` is a KeyError, `!!int ""` an IndexError inside pyyaml
            raise InputError(BAD_PREREG, path, f"a value YAML cannot build: {exc!r}") from None
    finally:
        loader.dispose()
    if not isinstance(doc, dict):
        raise InputError(BAD_PREREG, path, "the document must be a mapping")
    _ACCEPTED[text] = copy.deepcopy(doc)
    return doc
