"""Registry controls (docs/controls.md): choose, predict from the unperturbed registry
table, and the row edit the perturbation applies (the same function, so what is
predicted is what is built).

A registry has one row per (entry, task) and no trials: ``flip`` turns k cells of one
entry whose every trial passed (pass = perfect = trials, score = the score scale) into
cells whose every trial failed (pass = perfect = 0, score 0.0); ``drop`` removes one
task row of one entry. The prediction is every policy's ``tasks``, ``reward_macro``
and ``pass_macro`` of that entry, before and after, from controls/registry_exact.py.
A duplicate or a reorder of start times has nothing to act on here (section 3: an
(entry, task) is one row, and there are no trial rows or times); the prereg refuses them.
"""

from __future__ import annotations

from audit.trials.record import Control, Prereg, Source
from controls import registry_exact, select
from controls.errors import ControlError
from controls.registry_exact import Row, entry_id
from controls.trials_predict import need, table


def _candidates(src: Source, kind: str, mine: list[Row]) -> list[list[str]]:
    """What the control may touch in an entry (``mine``, its rows): its tasks, in code
    point order."""
    if kind == "flip":
        return sorted([r[src.task]] for r in mine if registry_exact.all_passed(src, r))
    # drop: an entry keeps at least one task (with none it would leave the tables)
    return sorted([r[src.task]] for r in mine) if len(mine) > 1 else []


def _by_entry(src: Source, rows: list[Row]) -> dict[str, list[Row]]:
    """Each entry's rows, found in one pass (not one pass per entry)."""
    out: dict[str, list[Row]] = {}
    for r in rows:
        out.setdefault(entry_id(src, r), []).append(r)
    return out


def _target_entry(rec: Prereg, name: str, spec: Control, rows: list[Row], by) -> str:
    src, k = rec.source, need(spec)
    known = registry_exact.entries(rows, src)
    if spec.seeded:
        pool = [e for e in known if len(_candidates(src, spec.kind, by.get(e, []))) >= k]
        if not pool:
            raise ControlError(f"control {name}: no entry can take this perturbation")
        return select.choose(rec.seed, name, select.ROWS, pool, 1)[0]
    (target,) = spec.names  # the entry it names
    if target not in known:
        raise ControlError(f"control {name}: entry {target!r} is not in the registry table")
    if len(_candidates(src, spec.kind, by.get(target, []))) < k:
        raise ControlError(f"control {name}: entry {target!r} cannot take this perturbation")
    return target


def choose(rec: Prereg, name: str, rows: list[Row]) -> dict:
    """The selection: the entry and the tasks of it the control touches (seeded, d = 1)."""
    spec, src = rec.controls[name], rec.source
    by = _by_entry(src, rows)
    target = _target_entry(rec, name, spec, rows, by)
    pool = _candidates(src, spec.kind, by.get(target, []))
    chosen = select.choose(rec.seed, name, select.INSTANCES, pool, need(spec))
    return {
        "control": name,
        "kind": spec.kind,
        "size": spec.size,
        "entry": target,
        "tasks": chosen,
    }


def apply(src: Source, rows: list[Row], sel: dict) -> list[Row]:
    """The perturbed rows (new dicts, every column kept; the input is left as it was)."""
    hit = {t for (t,) in sel["tasks"]}

    def touched(r: Row) -> bool:
        return entry_id(src, r) == sel["entry"] and r[src.task] in hit

    if sel["kind"] == "drop":
        return [dict(r) for r in rows if not touched(r)]
    out = [dict(r) for r in rows]
    for r in out:
        if touched(r):
            r[src.pass_count] = 0
            r[src.perfect_count] = 0
            r[src.score] = 0.0
    return out


def predict(rec: Prereg, rows: list[Row], name: str) -> tuple[str, dict]:
    """The prediction table (CSV text) and the selection it rests on."""
    src = rec.source
    sel = choose(rec, name, rows)
    after_rows = apply(src, rows, sel)
    out = [
        (
            pname,
            registry_exact.entry(rows, src, sel["entry"], pol, rec.scale),
            registry_exact.entry(after_rows, src, sel["entry"], pol, rec.scale),
        )
        for pname, pol in sorted(rec.policies.items())
    ]
    return table(sel["entry"], out), sel
