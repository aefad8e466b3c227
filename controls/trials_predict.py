"""Trial-level controls (docs/controls.md): choose, predict from the unperturbed trials,
and the row edit the perturbation applies (the same function, so what is predicted
is what is built).

Every kind edits the trial rows of one run: ``flip`` gives k scored copy-0 trials
with reward 1.0 the reward 0.0; ``drop`` removes one trial (every copy of it);
``duplicate`` gives one copy-0 trial one more copy, the trial one whose value is not
its task's mean (so that the copy rule decides whether the score moves);
``reorder_starts`` reverses the start times of one task's trials, the task chosen so
that some earliest/latest policy then selects other trials, with other values. The prediction is every policy's ``tasks``,
``reward_macro`` and ``pass_macro`` of that run, before and after, from
controls/trials_exact.py.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction

from audit.trials.record import BUILT_INS, Control, Prereg
from controls import select, trials_exact
from controls.errors import ControlError
from controls.exact import fmt6
from controls.trials_exact import Row

MEASURES = ("tasks", "reward_macro", "pass_macro")


def _by_task(rows: list[Row], run: str) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for r in rows:
        if r["run"] == run:
            out.setdefault(r["task"], []).append(r)
    return dict(sorted(out.items()))


def _candidates(rec: Prereg, spec: Control, rows: list[Row], run: str) -> list[list[str]]:
    """What the control may touch in a run, in canonical (code point) order."""
    kind = spec.kind
    mine = [r for r in rows if r["run"] == run and r["copy"] == 0]
    if kind == "flip":
        hits = [r for r in mine if r["status"] == "scored" and r["reward"] == 1.0]
        hits = [r for r in hits if not r.get("verifier_broken")]
        return sorted([r["task"], r["trial_id"]] for r in hits)
    if kind == "drop":
        return sorted([r["task"], r["trial_id"]] for r in mine)
    if kind == "duplicate":
        return sorted([r["task"], r["trial_id"]] for r in mine if _copy_moves(rows, r))
    ordered = [p for p in rec.computed_policies().values() if p.select != "all"]
    tasks = []
    for task, task_rows in _by_task(rows, run).items():
        if any(r["started_at"] is None for r in task_rows):
            continue
        after = apply(rows, {"kind": kind, "run": run, "task": task})
        after_rows = [r for r in after if r["run"] == run and r["task"] == task]
        # some earliest/latest policy selects other trials, and they give other values
        if any(
            trials_exact.selected(task_rows, p) != trials_exact.selected(after_rows, p)
            and sorted(trials_exact.task_values(task_rows, p) or [])
            != sorted(trials_exact.task_values(after_rows, p) or [])
            for p in ordered
        ):
            tasks.append([task])
    return tasks


def _copy_moves(rows: list[Row], trial: Row) -> bool:
    """Whether a second copy of this trial moves its task's mean: its value under
    ``attempted`` is not the mean of its task's copy-0 trials there, so ``attempted``
    with ``copies: keep`` would move and with ``copies: drop`` does not. (A trial of a
    task whose trials all have one value makes a control no copy rule tells apart.)"""
    pol = BUILT_INS["attempted"]
    task = [r for r in rows if (r["run"], r["task"]) == (trial["run"], trial["task"])]
    values = trials_exact.task_values(task, pol) or []
    mine = trials_exact.task_values([trial], pol) or []
    return bool(values) and bool(mine) and mine[0] != sum(values, Fraction(0)) / len(values)


def need(spec: Control) -> int:
    """How many things a control touches: a flip's size, one for every other kind."""
    if spec.kind != "flip":
        return 1
    assert spec.size is not None  # a flip declares its size
    return spec.size


def _target_run(rec: Prereg, name: str, spec: Control, rows: list[Row]) -> str:
    runs = trials_exact.runs(rows)
    k = need(spec)
    if spec.seeded:
        pool = [r for r in runs if len(_candidates(rec, spec, rows, r)) >= k]
        if not pool:
            raise ControlError(f"control {name}: no run can take this perturbation")
        return select.choose(rec.seed, name, select.ROWS, pool, 1)[0]
    (run,) = spec.names  # the run it names
    if run not in runs:
        raise ControlError(f"control {name}: run {run!r} is not in the trial table")
    if len(_candidates(rec, spec, rows, run)) < k:
        raise ControlError(f"control {name}: run {run!r} cannot take this perturbation")
    return run


def choose(rec: Prereg, name: str, rows: list[Row]) -> dict:
    """The selection: the run and what in it the control touches (seeded, d = 1)."""
    spec = rec.controls[name]
    run = _target_run(rec, name, spec, rows)
    pool = _candidates(rec, spec, rows, run)
    chosen = select.choose(rec.seed, name, select.INSTANCES, pool, need(spec))
    sel = {"control": name, "kind": spec.kind, "size": spec.size, "run": run}
    if spec.kind == "reorder_starts":
        sel["task"] = chosen[0][0]
    else:
        sel["trials"] = chosen
    return sel


def apply(rows: list[Row], sel: dict) -> list[Row]:
    """The perturbed rows (new dicts; the input is left as it was)."""
    kind, run = sel["kind"], sel["run"]
    rows = [dict(r) for r in rows]
    if kind == "flip":
        hit = {tuple(t) for t in sel["trials"]}
        for r in rows:
            if r["run"] == run and r["copy"] == 0 and (r["task"], r["trial_id"]) in hit:
                r["reward"] = 0.0
        return rows
    if kind == "drop":
        ((task, trial),) = sel["trials"]
        return [r for r in rows if (r["run"], r["task"], r["trial_id"]) != (run, task, trial)]
    if kind == "duplicate":
        ((task, trial),) = sel["trials"]
        same = [r for r in rows if (r["run"], r["task"], r["trial_id"]) == (run, task, trial)]
        copy = dict(next(r for r in same if r["copy"] == 0))
        copy["copy"] = len(same)
        copy["folder"] = f"{copy['folder']}.copy{len(same)}"
        return rows + [copy]
    # reorder_starts: the task's rows in time order take the start times in reverse
    task_rows = [r for r in rows if r["run"] == run and r["task"] == sel["task"]]
    order = sorted(task_rows, key=lambda r: (r["started_at"], r["trial_id"], r["copy"]))
    times = [(r["started_at"], r.get("started_at_raw")) for r in order]
    for r, (at, raw) in zip(order, reversed(times), strict=True):
        r["started_at"] = at
        if "started_at_raw" in r:
            r["started_at_raw"] = raw
    return rows


def table(name: str, entries: list[tuple[str, trials_exact.Entry, trials_exact.Entry]]) -> str:
    """The prediction table (CSV text) of one entry: (policy, before, after) per policy."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["entry", "policy", "measure", "before", "after", "change"])
    for pname, b, a in entries:
        for m in MEASURES:
            vb, va = getattr(b, m), getattr(a, m)
            text = (lambda v: "" if v is None else str(v)) if m == "tasks" else fmt6
            change = (
                ""
                if None in (vb, va)
                else (f"{va - vb:+d}" if m == "tasks" else fmt6(va - vb, signed=True))
            )
            w.writerow([name, pname, m, text(vb), text(va), change])
    return buf.getvalue()


def predict(rec: Prereg, rows: list[Row], name: str) -> tuple[str, dict]:
    """The prediction table (CSV text) and the selection it rests on."""
    sel = choose(rec, name, rows)
    after_rows = apply(rows, sel)
    out = []
    for pname, pol in sorted(rec.computed_policies().items()):
        try:
            b = trials_exact.entry(rows, sel["run"], pol, rec.scale)
            a = trials_exact.entry(after_rows, sel["run"], pol, rec.scale)
        except trials_exact.Unpredictable as err:
            raise ControlError(f"control {name}: policy {pname}: {err}") from err
        out.append((pname, b, a))
    return table(sel["run"], out), sel
