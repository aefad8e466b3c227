"""Load a preregistration and check it against its schema and its own logic."""

from __future__ import annotations

from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from audit.cells.record import Prereg, parse
from audit.core import disclosure
from audit.core.bundle_paths import check_inside
from audit.core.strict_yaml import read_strict
from audit.errors import AuditError

if TYPE_CHECKING:
    import jsonschema

NONBLANK = "\\S"  # the schemas' pattern of a string that says something (disclosure)
_TOP = Path(__file__).resolve().parents[2]
# Beside the packages in a clone (and in the folder `secondseat audit` runs from);
# an installed wheel ships them as the secondseat package's data (pyproject.toml).
SCHEMAS = next(
    (
        d
        for d in (
            _TOP / "workflow" / "schemas",
            _TOP / "secondseat" / "shipped" / "workflow" / "schemas",
        )
        if d.is_dir()
    ),
    _TOP / "workflow" / "schemas",
)


def load_yaml(path: str | Path) -> dict[str, Any]:
    """The prereg file read strictly (audit/core/strict_yaml.py): a mapping with string keys."""
    return read_strict(path)


def schema(name: str) -> dict[str, Any]:
    """One of the project's own schema files (workflow/schemas/), read by libyaml's safe
    loader where PyYAML has it: the same document, about 10x faster than the pure-Python
    loader (70 ms for the prereg schema), read while every run's workflow is parsed.
    A prereg itself is read by the strict reader (audit/core/strict_yaml.py), never this."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load((SCHEMAS / f"{name}.schema.yaml").read_text(encoding="utf-8"), Loader=loader)


def _is_integer(checker: object, instance: object) -> bool:
    """JSON Schema counts 7.0 as an integer; a prereg's integer is written as one."""
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _validator_class() -> Any:
    """Draft 2020-12 with only an int an integer; jsonschema imported where a document is
    checked, not by a process that only reads a prereg's kind (the agreement)."""
    import jsonschema

    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
    )


def validator(name: str) -> jsonschema.protocols.Validator:
    """A validator of the named schema in which only an int is an integer."""
    return _validator_class()(schema(name))


def check_schema(doc: Any, name: str, path: str) -> None:
    """Raise on the first schema violation, naming the key path."""
    errors = sorted(validator(name).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        err = braced(errors[0]) or errors[0]
        where = "/".join(str(x) for x in err.absolute_path) or "(top level)"
        kind = "bad_prereg" if name == "prereg" else "bad_config"
        raise AuditError(kind, path, f"at {where}: {_short(err)}")


# A file name the prereg gives (a bundle table, a universe table, a jobs folder) holds
# no { or }: Snakemake reads {name} in a rule's input or output as a wildcard, in a
# string and in what an input function returns alike, with no escape for it there
# ({{ is one only in a shell command and in expand); the schemas' patterns say so.
BRACED = (
    "holds { or }, which the workflow would read as a Snakemake wildcard: a file name"
    " the prereg gives has neither (docs/contract.md)"
)


def braced(err: jsonschema.ValidationError) -> jsonschema.ValidationError | None:
    """The error, or one under a oneOf (a recipe's, a source's shapes), that is a file
    name's pattern refusing a { or }, so that the line names that key; else None."""
    instance = err.instance if isinstance(err.instance, str) else ""
    pattern = str(err.validator_value) if err.validator == "pattern" else ""
    if "{}" in pattern and ("{" in instance or "}" in instance):
        return err
    for sub in err.context or ():
        found = braced(sub)
        if found is not None:
            return found
    return None


def _short(err: jsonschema.ValidationError) -> str:
    if braced(err) is err:
        return BRACED
    if err.validator == "pattern" and err.validator_value == NONBLANK:
        return "must be a non-empty string (not blank)"
    if err.validator == "oneOf" and "controls" in map(str, err.absolute_path):
        return "matches no control's shape (flip, shift, nullify, swap, reorder)"
    if err.validator == "oneOf":
        return "matches no recipe's shape (rate, mean, sum, mean_of_columns, single_value)"
    return err.message if len(err.message) < 200 else err.message[:197] + "..."


def check_logic(doc: dict[str, Any], path: str) -> None:
    """What a schema cannot say: names resolve, tiers ascend, classes do not overlap."""

    def bad(detail: str) -> AuditError:
        return AuditError("bad_prereg", path, detail)

    check_inside(bundle_paths(doc), bad)
    cols = doc["columns"]
    seen: dict[str, str] = {}
    for cls in ("structural", "no_antecedent"):
        for name in cols[cls]:
            if name in seen:
                raise bad(f"column {name!r} is declared {seen[name]} and {cls}")
            seen[name] = cls
    for name in cols["measured"]:
        if name in seen:
            raise bad(f"column {name!r} is declared {seen[name]} and measured")
    if doc["bundle"]["row_id"] not in cols["structural"]:
        raise bad(f"row_id {doc['bundle']['row_id']!r} must be a structural column")
    for name, tol in sorted(doc["tolerances"].items()):
        tiers = tol["tiers"]
        if any(b <= a for a, b in pairwise(tiers)):
            raise bad(f"tolerance {name!r}: tiers must strictly increase, got {tiers}")
    policies = doc["policies"]
    measured = cols["measured"]
    for name, spec in sorted(measured.items()):
        recipe = spec["recipe"]
        if recipe != "single_value" and spec["tolerance"] not in doc["tolerances"]:
            raise bad(f"column {name!r}: unknown tolerance {spec['tolerance']!r}")
        for pol in spec.get("policies", []):
            if pol not in policies:
                raise bad(f"column {name!r}: unknown policy {pol!r}")
            # a sum takes mean policies: the same rows and nulls, no division
            wanted = "mean" if recipe == "sum" else recipe
            if recipe in ("rate", "mean", "sum") and policies[pol]["recipe"] != wanted:
                raise bad(
                    f"column {name!r}: policy {pol!r} is for {policies[pol]['recipe']}, not {recipe}"
                )
        if recipe == "mean_of_columns":
            for part in spec["columns"]:
                if part not in measured or measured[part]["recipe"] == "single_value":
                    raise bad(f"column {name!r}: {part!r} is not a numeric measured column")
                missing = set(spec["policies"]) - set(measured[part]["policies"])
                if missing:
                    raise bad(f"column {name!r}: {part!r} is not measured under {sorted(missing)}")
    _check_no_cycle(measured, bad)
    _check_feasibility(doc, bad)
    _check_ranks(doc, bad)
    for name, spec in sorted(doc["controls"].items()):
        need = {"flip": ("rate",), "shift": ("mean",), "nullify": ("rate", "mean")}.get(
            spec["kind"]
        )
        if need and measured.get(spec["column"], {}).get("recipe") not in need:
            raise bad(
                f"control {name!r}: {spec['kind']} needs a {' or '.join(need)} column,"
                f" not {spec['column']!r}"
            )
    disclosure.check_visible(doc, path)
    disclosure.check_unique(doc, path)
    for pol, spec in sorted(policies.items()):
        allowed = {"rate": {"failure", "exclude"}, "mean": {"zero", "exclude"}}[spec["recipe"]]
        if spec["nulls"] not in allowed:
            raise bad(f"policy {pol!r}: nulls {spec['nulls']!r} does not apply to {spec['recipe']}")
        if "population" in spec and spec["recipe"] != "mean":
            raise bad(f"policy {pol!r}: only a mean policy restricts its population")


def bundle_paths(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, path) of every file the prereg names in the bundle folder, in file order."""
    named = [(f"bundle.{k}", doc["bundle"][k]) for k in ("leaderboard", "instances")]
    for name, spec in doc["columns"]["measured"].items():
        den = spec.get("denominator")  # rows, {fixed: N} or {universe: {..., ids}}
        ids = den.get("universe", {}).get("ids") if isinstance(den, dict) else None
        if isinstance(ids, dict):
            named.append((f"columns.measured.{name}.denominator.universe.ids.file", ids["file"]))
    if doc.get("publisher_hash") is not None:
        named.append(("publisher_hash.file", doc["publisher_hash"]["file"]))
    return named


def _check_no_cycle(measured: dict[str, Any], bad: Any) -> None:
    """A mean_of_columns column that lists itself, directly or through another
    mean_of_columns column: its value would be its own mean (both contestants refuse it)."""
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise bad(
                f"column {name!r}: mean_of_columns refers to itself ({' -> '.join((*path, name))})"
            )
        if name in done or measured[name]["recipe"] != "mean_of_columns":
            return
        for part in measured[name]["columns"]:
            visit(part, (*path, name))
        done.add(name)

    for name in sorted(measured):
        visit(name, ())


def _check_feasibility(doc: dict[str, Any], bad: Any) -> None:
    """What the schema cannot say of a ``feasibility`` declaration (docs/contract.md,
    Feasibility): a declared column that is not a no_antecedent column or a measured one
    of any recipe but single_value; an ``over.column`` that is not a structural or
    no_antecedent column; ``scores`` whose least is not below its greatest."""
    cols = doc["columns"]
    labels = {*cols["structural"], *cols["no_antecedent"]}
    for name, spec in sorted((doc.get("feasibility") or {}).items()):
        m = cols["measured"].get(name)
        if name not in cols["no_antecedent"] and (m is None or m["recipe"] == "single_value"):
            raise bad(
                f"feasibility {name!r}: not a no_antecedent column or a measured column of any"
                " recipe but single_value"
            )
        over = spec["over"]
        if isinstance(over, dict) and "column" in over and over["column"] not in labels:
            raise bad(
                f"feasibility {name!r}: over.column {over['column']!r} is not a structural or"
                " no_antecedent column"
            )
        least, greatest = spec["scores"]
        if least >= greatest:
            raise bad(
                f"feasibility {name!r}: scores {spec['scores']}: the least must be below the"
                " greatest"
            )


RANKED = ("rate", "mean")


def _check_ranks(doc: dict[str, Any], bad: Any) -> None:
    """A ``ranks`` column that is not a measured column the contestants rank (rate or
    mean): a sum, mean_of_columns or single_value column, or no measured column
    (docs/contract.md, Ranks)."""
    measured = doc["columns"]["measured"]
    for name in (doc.get("ranks") or {}).get("columns", []):
        if measured.get(name, {}).get("recipe") not in RANKED:
            raise bad(f"ranks: {name!r} is not a measured rate or mean column of the prereg")


def load(path: str | Path) -> dict[str, Any]:
    """A checked prereg, or an AuditError naming the file and the first problem; a draft
    with anything undecided is refused naming each undecided item (``undecided``)."""
    doc = load_yaml(path)
    refuse_undecided(doc, str(path), "prereg", missing_alone=False)
    check(doc, str(path))
    return doc


def check(doc: Any, path: str) -> None:
    """The schema, then the logic: the first problem, as an AuditError."""
    check_schema(doc, "prereg", path)
    check_logic(doc, path)


def leaderboard_columns(doc: dict[str, Any]) -> list[str]:
    cols = doc["columns"]
    return [*cols["structural"], *cols["no_antecedent"], *cols["measured"]]


PLACEHOLDER = "UNDECIDED"  # a decision a drafted prereg leaves open (audit/cells/draft_prereg.py)


def refuse_undecided(doc: Any, path: str, schema_name: str, missing_alone: bool = True) -> None:
    """Refuse a prereg with anything undecided, naming each item (one line).

    Undecided: each column still listed under ``undecided:`` (``undecided/<file>/<column>``)
    and each key whose value, or an item of whose list, is the placeholder. Every key the
    schema ``schema_name`` (the arm kind's) requires and the file lacks is named in the
    same line (``<key> (missing)``); with nothing undecided, missing keys alone are one ``bad_prereg`` line naming them all
    (unless ``missing_alone`` is False: the schema's check then says the first).
    """
    items: list[str] = []

    def walk(node: Any, where: str) -> None:
        if node == PLACEHOLDER:
            items.append(where)
        elif isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{where}/{k}" if where else str(k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{where}/{i}")

    if not isinstance(doc, dict):
        return
    for key, value in doc.items():
        if key == "undecided":
            tables = value if isinstance(value, dict) else {}
            for table, cols in tables.items():
                for col, dtype in (cols or {}).items():
                    items.append(f"undecided/{table}/{col} ({dtype})")
            if not tables:
                items.append("undecided")
        else:
            walk(value, str(key))
    missing = missing_required(doc, schema(schema_name))
    if items:
        said = items + [f"{m} (missing)" for m in missing]
        raise AuditError("undecided", path, f"{len(said)} item(s) undecided: {', '.join(said)}")
    if missing and missing_alone:
        raise AuditError(
            "bad_prereg", path, f"{len(missing)} required key(s) missing: {', '.join(missing)}"
        )


def missing_required(doc: Any, spec: dict[str, Any], where: str = "") -> list[str]:
    """Every key the schema requires that ``doc`` lacks, as a key path, at every level the
    schema spells out inline (a list item's or a ``$ref``'s keys are the schema check's)."""
    if not isinstance(doc, dict):
        return []
    out: list[str] = []
    props = spec.get("properties", {})
    for key in spec.get("required", []):
        path = f"{where}/{key}" if where else key
        if key not in doc:
            out.append(path)
        elif doc[key] != PLACEHOLDER:
            out.extend(missing_required(doc[key], props.get(key, {}), path))
    return out


def load_record(path: str | Path) -> Prereg:
    """The checked prereg (``load``) parsed once into its frozen record
    (audit/cells/record.py): what the referee reads of a leaderboard prereg."""
    return parse(load(path), str(path))
