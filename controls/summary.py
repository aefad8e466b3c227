"""One table over every control: what was predicted, what each contestant measured."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from audit.core import disclosure
from audit.files import write_atomic
from audit.kinds.record import Prereg


def summarise(
    verdicts: list[str], checks: list[str], rec: Prereg, out_csv: str, out_md: str
) -> list[dict]:
    """controls.csv and controls.md; a control on a row the prereg's disclosure names says
    which row and the declared relation (column ``disclosed``), seeded targets named apart
    (``rec``: the locked prereg's record, either kind's)."""
    rel = disclosure.relations(rec.disclosure)
    rows = [json.loads(Path(v).read_text()) for v in verdicts]
    for r in rows:
        r["disclosed"] = disclosure.on_disclosed(disclosure.control_rows(r["selection"]), rel)
        r["seeded"] = rec.controls[r["control"]].seeded
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "control",
            "kind",
            "target",
            "cells_predicted",
            "cells_ok",
            "unpredicted_changes",
            "class_changes",
            "contestants_identical",
            "verdict",
            "reasons",
            "disclosed",
        ]
    )
    for r in sorted(rows, key=lambda r: r["control"]):
        w.writerow(
            [
                r["control"],
                r["kind"],
                _target(r["selection"]),
                r["cells_predicted"],
                r["cells_ok"],
                sum(r["unpredicted"].values()),
                max(len(c) for c in r["class_changes"].values()),
                str(r["contestants_identical"]).lower(),
                r["verdict"],
                "; ".join(r["reasons"]),
                r["disclosed"],
            ]
        )
    write_atomic(out_csv, buf.getvalue())
    write_atomic(out_md, _markdown(rows, checks))
    return rows


VERDICTS = ("pass", "fail", "skipped")


def tally(rows: list[dict]) -> str:
    """How many controls pass, fail and were skipped, in words: a skip is neither."""
    n = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    text = f"{n['pass']} of {len(rows)} pass"
    if n["fail"]:
        text += f", {n['fail']} fail"
    if n["skipped"]:
        text += f", {n['skipped']} skipped (neither passed nor failed)"
    return text


def _target(sel: dict) -> str:
    if "skipped" in sel:
        return "none: nothing to perturb"
    if "entry" in sel:  # a registry control (controls/registry_predict.py)
        return f"{sel['entry']} ({len(sel['tasks'])} task(s))"
    if "run" in sel:  # a trial control (controls/trials_predict.py)
        if "task" in sel:
            return f"{sel['run']} / {sel['task']} (start times)"
        return f"{sel['run']} ({len(sel['trials'])} trial(s))"
    if "row_ids" in sel:
        return " <-> ".join(sel["row_ids"])
    if "row_id" in sel:
        return f"{sel['row_id']} / {sel['group']} ({len(sel['instances'])} instance(s))"
    return "every instance row"


def disclosed_lines(rows: list[dict]) -> list[str]:
    """Controls whose targets are rows the disclosure names, seeded ones first: a
    coincidence visible in the prereg is better named than found."""
    out = []
    for seeded, how in ((True, "the seed chose"), (False, "the prereg named")):
        hits = [r for r in rows if r["disclosed"] and r["seeded"] == seeded]
        if hits:
            out += [
                "",
                f"On a disclosed row ({how} the target): "
                + "; ".join(f"{r['control']} on {r['disclosed']}" for r in hits)
                + ".",
            ]
    return out


def _cell(text: str) -> str:
    """A Markdown table cell: a registry entry's ``|`` (model|condition) escaped."""
    return text.replace("|", "\\|")


def _markdown(rows: list[dict], checks: list[str]) -> str:
    skipped = sorted({"; ".join(r["reasons"]) for r in rows if r["verdict"] == "skipped"})
    out = [
        "# Injected-perturbation controls",
        "",
        (
            f"Controls: {tally(rows)}. Each prediction was stamped in the ledger "
            "before its perturbed bundle was built."
        ),
        *[
            line
            for reason in skipped
            for line in (
                "",
                f"Skipped ({reason}): no perturbation was applied, so these controls tested "
                "nothing; a skip is neither a pass nor a fail.",
            )
        ],
        *disclosed_lines(rows),
        "",
        (
            "| control | kind | target | predicted cells | measured as predicted | unpredicted changes"
            " | verdict |"
        ),
        "|---|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: r["control"]):
        out.append(
            f"| {r['control']} | {r['kind']} | {_cell(_target(r['selection']))} | "
            f"{r['cells_predicted']} | {r['cells_ok']} | {sum(r['unpredicted'].values())} | "
            f"**{r['verdict']}**{': ' + '; '.join(r['reasons']) if r['reasons'] else ''} |"
        )
    out += ["", "## Predicted against measured", ""]
    for path in sorted(checks):
        with Path(path).open(newline="", encoding="utf-8") as f:
            lines = list(csv.reader(f))
        if len(lines) <= 1:
            continue
        out += [
            f"### {lines[1][0]}",
            "",
            "| " + " | ".join(lines[0][1:]) + " |",
            "|" + "---|" * (len(lines[0]) - 1),
        ]
        out += ["| " + " | ".join(_cell(x) for x in ln[1:]) + " |" for ln in lines[1:41]]
        if len(lines) > 41:
            out.append(f"\n({len(lines) - 41} more lines in {Path(path).name})")
        out.append("")
    return "\n".join(out) + "\n"
