"""The kill matrix: fault x bundle x stage, as CSV and Markdown, and the self-test's verdict."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from audit.files import write_atomic
from audit.selftest.catalogue import Fault
from audit.selftest.run import STAGES, YES, Outcome

VERDICTS = ("killed", "equivalent", "survived", "not_run")


def verdicts(faults: list[Fault], outcomes: list[Outcome]) -> dict[str, str]:
    """Per fault: killed (some stage flags it on some bundle), equivalent (declared, and
    nothing flags it), survived (a blind spot) or not_run (no bundle of its program)."""
    out = {}
    for f in faults:
        mine = [o for o in outcomes if o.fault == f.name]
        killed = any(v == YES for o in mine for v in o.flags.values())
        if not mine:
            out[f.name] = "not_run"
        elif killed:
            out[f.name] = "killed"
        else:
            out[f.name] = "equivalent" if f.equivalent else "survived"
    return out


def problems(faults: list[Fault], outcomes: list[Outcome]) -> list[str]:
    """Why the self-test fails (empty: it passes)."""
    v = verdicts(faults, outcomes)
    out = [
        f"{n}: survived every stage on every bundle (a blind spot)"
        for n, x in v.items()
        if x == "survived"
    ]
    out += [
        f"{f.name}: declared equivalent but flagged"
        for f in faults
        if f.equivalent and v[f.name] == "killed"
    ]
    out += [
        f"unmutated {o.contestant} flagged on {o.bundle} by {s}: {o.details.get(s, '')}"
        for o in outcomes
        if o.fault == "none"
        for s, flag in o.flags.items()
        if flag == YES
    ]
    return out


def write_csv(outcomes: list[Outcome], path: Path) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["fault", "contestant", "bundle", "stage", "flagged", "detail"])
    for o in sorted(outcomes, key=lambda o: (o.fault != "none", o.fault, o.bundle, o.contestant)):
        for s in STAGES:
            w.writerow([o.fault, o.contestant, o.bundle, s, o.flags[s], o.details.get(s, "")])
    write_atomic(path, buf.getvalue())


def write_md(
    faults: list[Fault],
    outcomes: list[Outcome],
    bundles: list[str],
    path: Path,
    seconds: float | None = None,
) -> None:
    v = verdicts(faults, outcomes)
    counts = {x: sum(1 for y in v.values() if y == x) for x in VERDICTS}
    short = {
        "recompute_fails": "fails",
        "runs_differ": "runs",
        "contestants_disagree": "agree",
        "control_fails": "ctrl",
        "census_incomplete": "census",
    }
    lines = [
        "# Self-test: the kill matrix",
        "",
        (
            f"{len(faults)} faults injected into the contestants, one at a time, on "
            f"{', '.join(bundles)}: {counts['killed']} killed, {counts['equivalent']} equivalent, "
            f"{counts['survived']} survived, {counts['not_run']} not run (no bundle of their kind)."
        ),
        "",
        "Stages: fails = the mutant's recompute exits non-zero; runs = its two runs differ; "
        "agree = it disagrees with the other contestant; ctrl = a control's prediction is not "
        "what it measures; census = its census is incomplete. `yes` flags, `no` does not, "
        "`-` not reached (the recompute failed) or not applicable.",
        "",
    ]
    head = ["fault", "contestant", "verdict"] + [
        f"{b}: {short[s]}" for b in bundles for s in STAGES
    ]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by = {(o.fault, o.contestant, o.bundle): o for o in outcomes}
    rows = [("none", i, "must flag nothing") for i in ("pandas", "pyarrow")]
    rows += [(f.name, f.contestant, v[f.name]) for f in faults]
    for name, impl, verdict in rows:
        cells = []
        for b in bundles:
            o = by.get((name, impl, b))
            cells += [o.flags[s] if o else " " for s in STAGES]
        lines.append(f"| {name} | {impl} | {verdict} | " + " | ".join(cells) + " |")
    lines += ["", "## The faults", ""]
    for f in faults:
        eq = f" Equivalent: {f.equivalent}" if f.equivalent else ""
        lines.append(f"- `{f.name}` ({f.contestant}, {f.program}): {f.description}.{eq}")
    bad = problems(faults, outcomes)
    lines += ["", "## Verdict", "", "pass" if not bad else "FAIL"]
    lines += [f"- {p}" for p in bad]
    if seconds is not None:
        lines += ["", f"Wall time of the self-test's stages: {seconds:.1f} s."]
    write_atomic(path, "\n".join(lines) + "\n")
