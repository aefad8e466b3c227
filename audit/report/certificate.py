"""A leaderboard arm's certificate.md: what reproduces, at which tolerance, under which
policies; nothing else. The kind hands it to the seal (audit/kinds/arm_kind.py)."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from pathlib import Path

from audit.cells.record import Prereg as LeaderboardPrereg
from audit.cells.record import Tolerance
from audit.cells.summary import NO_INSTANCE_ROWS, CensusSummary, constructed_words
from audit.core import disclosure
from audit.feasible import record as feasibility
from audit.kinds.arm_kind import LEADERBOARD, Kind
from audit.kinds.record import Prereg
from audit.ranks import record as ranks
from audit.report import answer, limits
from audit.seal import timestamp, versus, vulns
from audit.seal.contract import ANCHOR_PREFIX, WRITER_PREFIX
from audit.seal.lock_record import File, read_files, read_lock


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _tolerance_text(tol: Tolerance) -> str:
    if tol.exact_decimals == "published":
        parts = ["tier 0: equal at the decimals each published value prints"]
    else:
        parts = [f"tier 0: equal at {tol.exact_decimals} decimal(s)"]
    unit = " unit(s) of the cell's last digit" if tol.tier_unit == "last_digit" else ""
    parts += [f"tier {k}: abs diff <= {t}{unit}" for k, t in enumerate(tol.tiers, start=1)]
    return "; ".join(parts)


def writer_lines(shipped: Mapping[str, File]) -> list[str]:
    """The bundle's files as bytes: another parquet writer gives other bytes, same content."""
    return [
        f"{WRITER_PREFIX}{role} `{t.file}` blake3 `{t.blake3}` sha256 `{t.sha256}`"
        for role, t in sorted(shipped.items())
    ]


def closing_lines(res: Path, rec: Prereg, head: str, kind: Kind) -> list[str]:
    """How every certificate ends, either kind: an amendment beside its parent, what the
    certificate does not show, and the anchor."""
    return [
        *versus.certificate_lines(res),
        "",
        *limits.markdown(limits.lines(res, rec, kind)),
        "",
        "## Anchor",
        "",
        *anchor_lines(head),
        "",
    ]


def anchor_lines(head: str) -> list[str]:
    return [
        f"{ANCHOR_PREFIX}`{head}`",
        "(the hash of the ledger line before `annex_sealed`, the pre-seal head. The seal line "
        "that follows records the manifest, which lists this certificate; its hash is the annex "
        "head the run printed last: `python -m audit verify ANNEX --head <annex head>` checks "
        "every byte of the annex against it.)",
    ]


def _on_disclosed(control: dict[str, str], rec: LeaderboardPrereg) -> str:
    """Where a control's target is a row the disclosure names: which, and who chose it."""
    if not control.get("disclosed"):
        return ""
    seeded = rec.controls[control["control"]].seeded
    who = "the seed chose this target" if seeded else "the prereg named this target"
    return f"; on a disclosed row, {control['disclosed']} ({who})"


def render(res: Path, rec: LeaderboardPrereg, head: str) -> str:
    """The certificate of the leaderboard arm in ``res``, its locked prereg's record
    ``rec``, anchored at ``head``."""
    summary = CensusSummary.read(res / "census.json")
    lock = read_lock(res / "lock" / "lock.json")
    shipped = read_files(res / "lock" / "files.json")
    columns = {c["column"]: c for c in _csv(res / "census_columns.csv")}
    measured = rec.measured
    c = summary.classes
    out = [
        f"# Certificate: {rec.name}",
        "",
        *disclosure.markdown(rec.disclosure),
        "",
        # the answer first, as the report's first screen and the terminal show it
        *answer.markdown(answer.build(res, rec, LEADERBOARD)),
        "",
        # feasible: the feasibility and rank sections go here
        "## Provenance",
        "",
        f"Preregistration blake3 `{lock.prereg_blake3}`, locked before any comparison.",
        *[
            f"Bundle {role} `{t.file}`: content digest "
            f"`{t.content_digest}` ({t.rows} rows x {t.columns} columns)."
            for role, t in sorted(lock.bundle.items())
        ],
        *writer_lines(shipped),
        vulns.line_of(res),
        timestamp.line_of(res),
        "",
        f"Of {summary.cells:,} cells, {summary.with_antecedent} have an antecedent; "
        f"{c['reproduced']} reproduce, {c['divergent']} do not, {c['no_data']} have no data. "
        "Two independent implementations computed every cell, each twice, with identical bytes, "
        "and agreed on every cell.",
        *(["", NO_INSTANCE_ROWS] if lock.bundle["instances"].rows == 0 else []),
        "",
        "## Columns that reproduce",
        "",
        "| column | cells reproduced | of | best tiers | policies | tolerance |",
        "|---|---|---|---|---|---|",
    ]
    flagged = [name for name in measured if columns[name].get("constructed") == "yes"]
    for name in measured:
        col = columns[name]
        n_rep = int(col["reproduced"])
        if n_rep == 0 or name in flagged:
            continue
        total = n_rep + int(col["divergent"]) + int(col["no_data"])
        tiers = ", ".join(
            f"{k.replace('tier_', 'tier ')}: {v}"
            for k, v in col.items()
            if k.startswith("tier_") and v not in ("0", "")
        )
        pols = ", ".join(
            f"{k.replace('reproduced_', '')}: {v}"
            for k, v in col.items()
            if k.startswith("reproduced_") and v not in ("0", "")
        )
        tolerance = rec.tolerance_of(name)
        tol = "exact text" if tolerance is None else _tolerance_text(tolerance)
        out.append(f"| {name} | {n_rep} | {total} | {tiers} | {pols or '-'} | {tol} |")
    if out[-1] == "|---|---|---|---|---|---|":
        out[-2:] = ["(none: no cell reproduces)"]
    if flagged:
        eps = float(rec.chance.epsilon)
        out += [
            "",
            "## Columns not certified: agreement too exact to be evidence",
            "",
            "These columns' reproduced cells are not certified, whatever their tiers: "
            "the recomputed values agree with the published ones more exactly than the published "
            "precision and the recipe's arithmetic can explain, so the agreement cannot serve as "
            "an independent check (docs/contract.md, Agreement beyond chance).",
            "",
            *[
                f"- {name}: {constructed_words(columns[name], eps, rec.chance.threshold)}."
                for name in flagged
            ],
        ]
    out += feasibility.certificate_lines(res, rec)
    out += ranks.certificate_lines(res, rec, LEADERBOARD)
    if (res / "controls.csv").exists():
        rows = _csv(res / "controls.csv")
        passed = sum(r["verdict"] == "pass" for r in rows)
        skipped = sum(r["verdict"] == "skipped" for r in rows)
        out += [
            "",
            "## Controls",
            "",
            f"{passed} of {len(rows)} injected perturbations were measured exactly as predicted "
            "(predictions stamped in the ledger before the perturbed bundles existed)"
            + (
                f"; {skipped} were skipped, with nothing to perturb: a skipped control was "
                "neither passed nor failed, and shows nothing"
                if skipped
                else ""
            )
            + ":",
            "",
        ]
        out += [
            f"- {r['control']} ({r['kind']}, {r['target']}): {r['verdict']}"
            + (f" ({r['reasons']})" if r["verdict"] != "pass" and r.get("reasons") else "")
            + _on_disclosed(r, rec)
            for r in rows
        ]
    return "\n".join(out + closing_lines(res, rec, head, LEADERBOARD))
