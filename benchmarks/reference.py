"""The single-process reference of benchmarks/dag.py: the arm's work once, in one process.

One contestant (``--impl``) and the controls, all in this one Python process,
each stage by the same public functions the DAG's jobs call, in the DAG's order:

1. the census and the null: the contestant's recompute of the bundle with its
   draws (``impl_<x>.__main__.main``, as the ``recompute`` job);
2. the controls' predictions and perturbed bundles (``controls.predict.predict``
   and ``controls.perturb.perturb``, the unperturbed bundle read once for all,
   as ``controls_predict_perturb``);
3. the contestant's rerun of every perturbed bundle without draws (as
   ``controls_recompute``);
4. each control's check against the recompute of step 1, and the table over
   all (``controls.check.check``, ``controls.summary.summarise``, as
   ``controls_check``).

Left out, because they are the DAG's safeguards rather than the arm's answer:
the second contestant, each contestant's second run and the same-runs proof,
the agreement and the referee's census over the two contestants, the lock and
its locked copies, the stamps and the ledger's events, the environments'
check, the report, the vulnerability audit and the seal.

The process is the referee's interpreter with the contestant's own environment
(.venvs/impl-<x>, synced from the one uv.lock) put first on its path, so the
contestant computes with exactly its own libraries; the two environments share
only packages the lock pins to one version, and neither contestant's
environment holds the other's dataframe library. Writes under ``--out``::

    uv run python benchmarks/reference.py --impl pyarrow --prereg P --bundle B --out DIR
"""

from __future__ import annotations

import argparse
import importlib
import json
import site
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def contestant_first(impl: str) -> None:
    """The contestant's environment ahead of the referee's on this process's path."""
    venv = ROOT / ".venvs" / f"impl-{impl}"
    found = sorted(venv.glob("lib/python*/site-packages"))
    if not found:
        sys.exit(f"no environment at {venv}: run the DAG once (its impl_env job syncs it)")
    before = list(sys.path)
    site.addsitedir(str(found[0]))
    added = [p for p in sys.path if p not in before]
    sys.path[:] = [str(ROOT), *added, *[p for p in before if p != str(ROOT)]]


def reference(impl: str, prereg: str, bundle: str, out: Path) -> None:
    recompute = importlib.import_module(f"impl_{impl}.__main__").main
    base = out / "run"
    if recompute(["--prereg", prereg, "--bundle", bundle, "--out", str(base)]) != 0:
        sys.exit("the recompute refused the bundle")

    from audit.files import write_atomic
    from audit.kinds.arm_kind import LEADERBOARD
    from controls.exact import bundle_reader
    from controls.perturb import perturb, reader
    from controls.predict import predict, selection_json

    doc = LEADERBOARD.entry("record")(prereg)  # as the controls' jobs read it (--kind)
    names = sorted(doc.controls)
    folder = out / "controls"
    read, table = bundle_reader(bundle, doc), reader(doc, bundle)
    for name in names:
        prediction, selection = predict(doc, bundle, name, read)
        write_atomic(folder / name / "selection.json", selection_json(selection))
        write_atomic(folder / name / "prediction.csv", prediction)
        perturb(doc, bundle, str(folder / name / "selection.json"), str(folder / name / "bundle"),
                table)  # fmt: skip

    pairs = [a for n in names for a in ("--bundle", str(folder / n / "bundle"),
                                        "--out", str(folder / n / impl))]  # fmt: skip
    if names and recompute(["--prereg", prereg, *pairs, "--no-draws"]) != 0:
        sys.exit("the recompute refused a perturbed bundle")

    from controls.check import check
    from controls.summary import summarise

    verdicts, checks = [], []
    for name in names:
        c = folder / name
        sel = json.loads((c / "selection.json").read_text(encoding="utf-8"))
        check(sel["control"], sel["kind"], sel, str(c / "prediction.csv"), {impl: str(base)},
              {impl: str(c / impl)}, str(c / "check.csv"), str(c / "verdict.json"))  # fmt: skip
        verdicts.append(str(c / "verdict.json"))
        checks.append(str(c / "check.csv"))
    if names:
        summarise(verdicts, checks, doc, str(out / "controls.csv"), str(out / "controls.md"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--impl", choices=("pandas", "pyarrow"), required=True)
    ap.add_argument("--prereg", required=True)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    contestant_first(args.impl)
    reference(args.impl, args.prereg, args.bundle, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
