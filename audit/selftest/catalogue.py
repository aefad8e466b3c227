"""The fault catalogue: loading it, and applying one fault to a copy of its contestant."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import yaml

from audit.errors import AuditError

CATALOGUE = Path(__file__).with_name("faults.yaml")
CONTESTANTS = ("pandas", "pyarrow")
PROGRAMS = ("cells", "trials")


@dataclass(frozen=True)
class Edit:
    file: str  # relative to the repository root, inside the contestant's package
    find: str
    replace: str


@dataclass(frozen=True)
class Fault:
    name: str
    contestant: str
    program: str
    description: str
    edits: tuple[Edit, ...]
    equivalent: str | None  # why it cannot change any output, if it cannot


def load(path: str | Path = CATALOGUE) -> list[Fault]:
    """Every fault of the catalogue, by name; bad_catalogue on any malformed entry."""
    path = Path(path)
    if not path.is_file():
        raise AuditError("missing_file", str(path), "no fault catalogue here")
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise AuditError("unreadable", str(path), f"not YAML ({err.__class__.__name__})") from err
    if (
        not isinstance(doc, dict)
        or doc.get("version") != 1
        or not isinstance(doc.get("faults"), dict)
    ):
        raise AuditError("bad_catalogue", str(path), "expected version: 1 and a faults mapping")
    faults = []
    for name, spec in sorted(doc["faults"].items()):
        where = f"fault {name!r}"
        if not isinstance(spec, dict) or set(spec) - {
            "contestant",
            "program",
            "description",
            "edits",
            "equivalent",
        }:
            raise AuditError("bad_catalogue", str(path), f"{where}: unknown or missing keys")
        if spec.get("contestant") not in CONTESTANTS or spec.get("program") not in PROGRAMS:
            raise AuditError("bad_catalogue", str(path), f"{where}: contestant or program unknown")
        edits = spec.get("edits")
        if not isinstance(edits, list) or not edits:
            raise AuditError("bad_catalogue", str(path), f"{where}: no edits")
        out = []
        for e in edits:
            if not isinstance(e, dict) or set(e) != {"file", "find", "replace"}:
                raise AuditError(
                    "bad_catalogue", str(path), f"{where}: an edit needs file, find, replace"
                )
            if not str(e["file"]).startswith(f"impl_{spec['contestant']}/"):
                raise AuditError(
                    "bad_catalogue",
                    str(path),
                    f"{where}: {e['file']} is not in impl_{spec['contestant']}",
                )
            out.append(Edit(str(e["file"]), str(e["find"]), str(e["replace"])))
        faults.append(
            Fault(
                name,
                spec["contestant"],
                spec["program"],
                str(spec.get("description", "")),
                tuple(out),
                spec.get("equivalent"),
            )
        )
    return faults


def stale(fault: Fault, root: Path) -> list[str]:
    """Why the fault's patch does not apply to the contestant as it is now (empty: it applies)."""
    problems = []
    texts: dict[str, str] = {}
    for e in fault.edits:
        f = root / e.file
        if not f.is_file():
            problems.append(f"{e.file} does not exist")
            continue
        text = texts.setdefault(e.file, f.read_text(encoding="utf-8"))
        found = text.count(e.find)
        if found != 1:
            problems.append(f"{e.file}: the text to replace occurs {found} times, not once")
        else:
            texts[e.file] = text.replace(e.find, e.replace)
    return problems


def check_all(faults: list[Fault], root: Path, catalogue: str | Path = CATALOGUE) -> None:
    """Refuse the whole self-test, naming every fault whose patch no longer applies."""
    bad = {f.name: stale(f, root) for f in faults}
    bad = {n: p for n, p in bad.items() if p}
    if bad:
        detail = "; ".join(f"{n}: {', '.join(p)}" for n, p in sorted(bad.items()))
        raise AuditError(
            "stale_patch", str(catalogue), f"{len(bad)} patch(es) no longer apply: {detail}"
        )


def build(fault: Fault, root: Path, dest: Path) -> Path:
    """Copy the fault's contestant package under dest, apply its edits; return dest.

    Only the one package is copied, with the prereg's JSON Schemas beside it where
    a contestant reads them (workflow/schemas/, as in a clone): run with
    PYTHONPATH=dest (and a working folder outside the repository), the mutated copy
    is the one imported."""
    package = f"impl_{fault.contestant}"
    shutil.copytree(
        root / package, dest / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    shutil.copytree(root / "workflow" / "schemas", dest / "workflow" / "schemas")
    for e in fault.edits:
        f = dest / e.file
        text = f.read_text(encoding="utf-8")
        if text.count(e.find) != 1:
            raise AuditError("stale_patch", str(f), f"fault {fault.name!r} no longer applies")
        f.write_text(text.replace(e.find, e.replace, 1), encoding="utf-8")
    return dest
