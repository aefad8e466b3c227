"""Command line of the referee: ``python -m audit <command> ...``."""

from __future__ import annotations

import argparse
import sys

from audit.errors import AuditError, report


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m audit", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("lock", help="check the prereg's blake3, hash the bundle, start the ledger")
    p.add_argument("--prereg", required=True)
    p.add_argument("--expected-blake3", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--events", required=True, help="the lock's event file (events/lock.json)")
    p.add_argument("--expect-bundle", default=None, help="a first seat's lock.json to match")

    p = sub.add_parser("same-runs", help="require byte-identical outputs from repeated runs")
    p.add_argument("runs", nargs="+")
    p.add_argument("--out", required=True)

    p = sub.add_parser("agree", help="compare the two implementations cell by cell")
    p.add_argument("--a", required=True, help="first contestant's output folder")
    p.add_argument("--b", required=True, help="second contestant's output folder")
    p.add_argument("--names", nargs=2, default=["pandas", "pyarrow"])
    p.add_argument("--kind", choices=["cells", "trials"], default="cells", help="file set")
    p.add_argument("--out-json", required=True)
    p.add_argument("--out-md", required=True)

    p = sub.add_parser("census", help="totals per class and the per-column table")
    p.add_argument("--agreement", required=True)
    p.add_argument("--cells", required=True, help="an agreed contestant output folder")
    p.add_argument("--prereg", required=True)
    p.add_argument("--lock", required=True)
    p.add_argument("--out-dir", required=True)

    p = sub.add_parser("demo-bundle", help="write the embedded demo bundle")
    p.add_argument("--out", required=True)

    p = sub.add_parser("generate", help="write a synthetic bundle of any size (planted.csv)")
    p.add_argument("--rows", type=int, required=True, help="about this many instance rows")
    p.add_argument("--models", type=int, default=40, help="leaderboard rows")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)

    p = sub.add_parser("record", help="record finished outputs (an event file)")
    p.add_argument("files", nargs="+")
    p.add_argument("--events", required=True, help="the event file to write")

    p = sub.add_parser("stamp", help="stamp predictions before they are tested (an event file)")
    p.add_argument("files", nargs="+")
    p.add_argument("--events", required=True, help="the event file to write")

    p = sub.add_parser("report", help="write the Markdown and HTML report with its plots")
    p.add_argument("--res", required=True, help="results/<arm>")
    p.add_argument("--out", required=True)

    p = sub.add_parser("seal", help="chain the events into the ledger and seal the annex")
    p.add_argument("--res", required=True, help="results/<arm>")
    p.add_argument("--arm", required=True)
    p.add_argument("--events", nargs="+", required=True, help="event files, in the DAG's order")
    p.add_argument("--ledger-out", required=True, help="where the complete ledger is written")
    p.add_argument("--out", required=True)
    p.add_argument("--key", default=None, help="the seat's ed25519 key (PEM); made if absent")
    p.add_argument("--src", default=None, help="the repository, for environment.json")

    p = sub.add_parser("verify", help="verify an annex: head, ledger, files, signature, schemas")
    p.add_argument("annex")
    p.add_argument(
        "--head",
        default=None,
        help="the annex head the seat printed or published; without it the annex is only "
        "checked against itself",
    )
    p.add_argument("--key", default=None, help="the seat's public key file you trust")

    p = sub.add_parser("versus", help="an amendment arm beside its sealed parent, cell by cell")
    p.add_argument("--parent-annex", required=True, help="results/<parent>/annex (verified)")
    p.add_argument("--res", required=True, help="results/<amendment arm>")
    p.add_argument("--out-csv", required=True, help="versus-<parent>.csv")
    p.add_argument("--out-json", required=True, help="versus-<parent>.json (the summary)")

    p = sub.add_parser("amendment-prereg", help="rewrite a prereg's amends head from a sealed run")
    p.add_argument("prereg", help="the amendment's prereg (its amends block is rewritten)")
    p.add_argument("--config", required=True, help="the amendment's config (prereg_blake3)")
    p.add_argument("--results", default="results", help="the results folder holding the parent")

    p = sub.add_parser("compare-annex", help="two seats' annexes, file by file")
    p.add_argument("a")
    p.add_argument("b")

    p = sub.add_parser("adapt-trials", help="jobs directory -> trials.parquet + adapter.json")
    p.add_argument("jobs_dir", nargs="?", default=None, help="the jobs directory (or --jobs)")
    p.add_argument("--jobs", default=None)
    p.add_argument("--format", default="harbor-trial-v1")
    p.add_argument("--out", required=True)
    p.add_argument("--duplicates", default=None, help="tb-run-v1: once | as_shipped")
    p.add_argument("--min-tries", type=int, default=None, help="tb-run-v1: the board's minimum")

    p = sub.add_parser("settings-census", help="what each trial recorded it ran with")
    p.add_argument("trials")
    p.add_argument("--out", required=True)

    p = sub.add_parser("compare-runs", help="paired comparison of two runs over tasks")
    p.add_argument("a", nargs="?", default=None, help="arm A (or --a, repeatable)")
    p.add_argument("b", nargs="?", default=None, help="arm B (or --b, repeatable)")
    p.add_argument("--a", dest="arm_a", action="append", default=None, help="a run pooled into A")
    p.add_argument("--b", dest="arm_b", action="append", default=None, help="a run pooled into B")
    p.add_argument("--denominator", required=True, choices=["attempted", "scored"])
    p.add_argument("--k", nargs="+", default=None, help="K[,K...]; default 1 and the largest k")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--draws", type=int, required=True)
    p.add_argument("--under-study", nargs="*", default=[], help="NAME[,NAME...]")
    p.add_argument("--trials", default=None, help="a trial table; A and B are then run names")
    p.add_argument("--difference", default="A-B", choices=["A-B", "B-A"])
    p.add_argument("--unit", default="reward", choices=["reward", "points"])
    p.add_argument("--reward", default="original", choices=["original", "regraded"])
    p.add_argument(
        "--broken",
        default="as_zero",
        choices=["as_zero", "exclude_task_both_sides", "exclude_trial"],
        help="what a broken verifier's trial does",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="power statement: false-positive rate")
    p.add_argument("--power", type=float, default=0.8, help="power statement: power")
    p.add_argument("--out", default=None)

    p = sub.add_parser("metrics", help="the single-run view: score, solve rate, pass@k, classes")
    p.add_argument("runs", nargs="+", help="run folders (or run names with --trials)")
    p.add_argument("--trials", default=None, help="a trial table; RUN... are then run names")
    p.add_argument("--denominator", default="attempted", choices=["attempted", "scored"])
    p.add_argument("--reward", default="original", choices=["original", "regraded"])
    p.add_argument(
        "--broken",
        default="as_zero",
        choices=["as_zero", "exclude_task_both_sides", "exclude_trial"],
    )
    p.add_argument("--k", nargs="+", default=None, help="K[,K...]; default 1 and the largest k")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--out", default=None)

    p = sub.add_parser("lock-trials", help="the lock of a trials arm (trials contract)")
    p.add_argument("--prereg", required=True)
    p.add_argument("--expected-blake3", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--assembled", default=None, help="folder holding the adapter's trials.parquet")
    p.add_argument("--out-dir", required=True)
    p.add_argument("--events", required=True)
    p.add_argument("--expect-bundle", default=None)

    p = sub.add_parser("trials-census", help="classes, rule recovery, intervals, entries")
    p.add_argument("--agreement", required=True)
    p.add_argument("--cells", required=True, help="an agreed contestant output folder")
    p.add_argument("--prereg", required=True)
    p.add_argument("--lock", required=True)
    p.add_argument("--out-dir", required=True)

    p = sub.add_parser("trials-report", help="the report of a trials arm")
    p.add_argument("--res", required=True, help="results/<arm>")
    p.add_argument("--out", required=True)

    p = sub.add_parser("self-test", help="inject the fault catalogue into the contestants")
    p.add_argument(
        "--bundles",
        nargs="+",
        default=["demo", "demo-edges"],
        help="demo, demo-edges, openhands-index, skillsbench-registry, benchflow-sample",
    )
    p.add_argument("--shared", default="../shared/bundles", help="where the real bundles live")
    p.add_argument("--faults", nargs="*", default=None, help="only these faults")
    p.add_argument(
        "--catalogue", default=None, help="the fault catalogue (audit/selftest/faults.yaml)"
    )
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", required=True, help="folder for self-test.md and self-test.csv")

    p = sub.add_parser("verify-ledger", help="walk a ledger's hash chain and rehash its subjects")
    p.add_argument("ledger")
    p.add_argument("--head", default=None)

    p = sub.add_parser("compare-items", help="first divergent boundary between two runs' items")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--id", default="item_id", help="the column naming an item")
    p.add_argument("--boundaries", default=None, help="NAME=COLUMN,... in order")
    p.add_argument("--out", default=None)

    p = sub.add_parser("draft-prereg", help="a prereg from the bundle's column names and types")
    p.add_argument("bundle", help="a bundle folder (its parquet files) or one parquet file")
    p.add_argument("--out", required=True, help="the prereg to write (never overwritten)")

    p = sub.add_parser("adapt-swebench", help="SWE-bench run reports (v2) -> instances.parquet")
    p.add_argument("reports", nargs="+", help="<model>.<run_id>.json files")
    p.add_argument(
        "--denominators", required=True, help="POLICY[,...]: total, submitted, completed"
    )
    p.add_argument("--benchmark", default="swe-bench", help="the benchmark column's value")
    p.add_argument("--out", required=True)

    p = sub.add_parser("resolve", help="the commit an hf://datasets/<repo>@<branch or tag> names")
    p.add_argument("uri")

    p = sub.add_parser("fetch-hf", help="a dataset's files at a pinned commit, sha256 checked")
    p.add_argument("uri", help="hf://datasets/<owner>/<name>@<40-hex commit>")
    p.add_argument("--files", nargs="+", required=True, help="files the prereg names")
    p.add_argument("--optional", nargs="*", default=[], help="files taken when present")
    p.add_argument("--out", required=True, help="the bundle folder to write")

    p = sub.add_parser("adapt-inspect", help="Inspect eval logs -> trials, items, claim")
    p.add_argument("logs", nargs="+", help=".eval or .json logs")
    p.add_argument("--scorer", default=None, help="the scorer to read (required if several)")
    p.add_argument("--out", required=True)

    p = sub.add_parser("adapt-eee", help="Every Eval Ever records -> trials, items, claim")
    p.add_argument("aggregates", nargs="+", help="aggregate .json records (sidecar beside)")
    p.add_argument("--out", required=True)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except AuditError as err:
        return report(err)


def _run(args: argparse.Namespace) -> int:
    if args.command == "lock":
        from audit.lock import lock

        rec = lock(
            args.prereg,
            args.expected_blake3,
            args.bundle,
            args.out_dir,
            args.events,
            args.expect_bundle,
        )
        print(f"locked prereg {rec['prereg']['name']} blake3 {rec['prereg']['blake3']}")
    elif args.command == "same-runs":
        from audit.runs import same_runs

        res = same_runs(args.runs, args.out)
        print(f"{res['runs']} runs byte-identical: {', '.join(sorted(res['files']))}")
    elif args.command == "agree":
        from audit.agree import TRIAL_KEYS, agree

        keys = TRIAL_KEYS if args.kind == "trials" else None
        rep = agree(args.a, args.b, tuple(args.names), args.out_json, args.out_md, keys)
        print(
            f"agreement: {rep['census_cells_compared']} cells, {rep['disagreements']} disagreement(s)"
        )
    elif args.command == "census":
        from audit.census import summarise

        summarise(args.agreement, args.cells, args.prereg, args.lock, args.out_dir)
    elif args.command == "demo-bundle":
        from audit.demo_bundle import write

        write(args.out)
    elif args.command == "generate":
        from audit.generate import generate

        shape = generate(args.rows, args.models, args.seed, args.out)
        print(
            f"{args.out}: {shape['instance_rows']} instance rows, {shape['models']} models, "
            f"{shape['planted']} planted divergent cells"
        )
    elif args.command == "record":
        from audit.seal.record import record

        entries = record(args.files, args.events)
        print(f"{len(entries)} output(s) recorded in {args.events}")
    elif args.command == "stamp":
        from audit.seal.stamp import stamp

        for e in stamp(args.files, args.events):
            print(f"stamped {e['subject']} (blake3 {e['blake3']}) at {e['time']}")
    elif args.command == "report":
        from audit.report import build

        build(args.res, args.out)
    elif args.command == "seal":
        from audit.seal.annex import seal

        anchored, head, keyid = seal(
            args.res, args.arm, args.events, args.out, args.ledger_out, args.key or None, args.src
        )
        print(f"annex sealed: {args.out} (signed by ed25519 key {keyid})")
        print(f"pre-seal head, anchored in the certificate: {anchored}")
        print(f"annex head: {head}")
    elif args.command == "verify":
        from audit.seal.verify import verify

        problems = verify(args.annex, args.head, args.key)
        for line in problems:
            print(f"FAILED: {line}", file=sys.stderr)
        if problems:
            return 1
        held = "against the head you hold" if args.head else "against itself only (no --head)"
        print(f"{args.annex}: verified {held} (ledger, files, signature, schemas)")
    elif args.command == "versus":
        from audit.versus import build as versus

        s = versus(args.parent_annex, args.res, args.out_csv, args.out_json)
        m = s["moved"]
        print(
            f"versus {s['parent']['arm']}: {m['reconciled']} reconciled, {m['diverged']} diverged,"
            f" {m['tier']} at another tier, {m['no']} unmoved"
        )
    elif args.command == "amendment-prereg":
        from audit.amends import refresh

        for line in refresh(args.prereg, args.config, args.results):
            print(line)
    elif args.command == "compare-annex":
        from audit.seal.compare import compare, render

        result = compare(args.a, args.b)
        print(render(result, args.a, args.b), end="")
        return 0 if result["agree"] else 1
    elif args.command == "adapt-trials":
        from audit.adapter import adapt_to, summary_lines

        jobs = args.jobs or args.jobs_dir
        if jobs is None:
            raise AuditError("bad_args", "adapt-trials", "name the jobs directory")
        table, doc = adapt_to(jobs, args.out, args.format, args.duplicates, args.min_tries)
        print("\n".join(summary_lines(table, doc)))
    elif args.command == "settings-census":
        from audit.settings_census import write as settings_write

        print("\n".join(settings_write(args.trials, args.out)))
    elif args.command == "compare-runs":
        from audit.compare_runs import run as compare_runs

        return compare_runs(args)
    elif args.command == "metrics":
        from audit.metrics import run as metrics_run

        return metrics_run(args)
    elif args.command == "lock-trials":
        from audit.trials_lock import lock as lock_trials

        rec = lock_trials(
            args.prereg,
            args.expected_blake3,
            args.bundle,
            args.out_dir,
            args.events,
            args.assembled,
            args.expect_bundle,
        )
        print(f"locked prereg {rec['prereg']['name']} blake3 {rec['prereg']['blake3']}")
    elif args.command == "trials-census":
        from audit.trials_census import summarise as trials_summarise

        trials_summarise(args.agreement, args.cells, args.prereg, args.lock, args.out_dir)
    elif args.command == "trials-report":
        from audit.trials_report import build as trials_build

        trials_build(args.res, args.out)
    elif args.command == "self-test":
        import time
        from pathlib import Path

        from audit.selftest.catalogue import CATALOGUE
        from audit.selftest.matrix import problems, verdicts, write_csv, write_md
        from audit.selftest.run import self_test

        start = time.monotonic()
        faults, outcomes, names = self_test(
            args.bundles,
            Path(args.shared),
            args.jobs,
            Path(args.catalogue) if args.catalogue else CATALOGUE,
            only=args.faults,
        )
        out = Path(args.out)
        write_csv(outcomes, out / "self-test.csv")
        write_md(faults, outcomes, names, out / "self-test.md", time.monotonic() - start)
        v = verdicts(faults, outcomes)
        print(
            f"self-test: {len(faults)} faults, "
            + ", ".join(f"{sum(x == k for x in v.values())} {k}" for k in sorted(set(v.values())))
            + f"; {out / 'self-test.md'}"
        )
        bad = problems(faults, outcomes)
        for line in bad:
            print(f"FAILED: {line}", file=sys.stderr)
        return 1 if bad else 0
    elif args.command == "verify-ledger":
        from audit.seal.ledger import check

        problems = check(args.ledger, args.head)
        if problems:
            kind, first = problems[0]
            if kind in ("missing_file", "unreadable"):
                raise AuditError(kind, args.ledger, first.removeprefix(f"{args.ledger}: "))
            # Every problem on stdout; one line on stderr: the first, classed.
            for _, line in problems:
                print(line)
            more = f" (and {len(problems) - 1} more, listed on stdout)" if len(problems) > 1 else ""
            print(f"error[{kind}]: {first}{more}", file=sys.stderr)
            return 1
        print(f"{args.ledger}: chain holds")
    elif args.command == "compare-items":
        from audit import compare_items

        res = compare_items.compare(args.a, args.b, args.id, args.boundaries)
        if args.out:
            compare_items.write(res, args.out)
        print("\n".join(compare_items.summary_lines(res)))
    elif args.command == "draft-prereg":
        from audit.draft_prereg import write as draft_write

        doc = draft_write(args.bundle, args.out)
        n = sum(len(cols) for cols in doc["undecided"].values())
        print(f"{args.out}: drafted, {n} column(s) undecided in {len(doc['undecided'])} file(s)")
    elif args.command == "adapt-swebench":
        from audit import swebench_report as swe

        policies = swe.parse_policies(args.denominators)
        _, doc = swe.adapt_to(args.reports, args.out, policies, args.benchmark)
        print("\n".join(swe.summary_lines(doc)))
    elif args.command == "resolve":
        from audit.hf import parse, resolve

        repo, _ = parse(args.uri)
        print(f"hf://datasets/{repo}@{resolve(args.uri)}")
    elif args.command == "fetch-hf":
        from audit.hf import fetch

        rec = fetch(args.uri, args.files, args.out, args.optional)
        for name, f in rec["files"].items():
            print(f"{name}: sha256 {f['sha256']} matches the {rec['checked_against']} record")
    elif args.command == "adapt-inspect":
        from audit import inspect_log

        doc = inspect_log.adapt_to(args.logs, args.out, args.scorer)
        print("\n".join(inspect_log.summary_lines(doc)))
    elif args.command == "adapt-eee":
        from audit.eee import adapt_to as eee_adapt

        doc = eee_adapt(args.aggregates, args.out)
        for rec in doc["records"]:
            print(f"{rec['evaluation_id']}: {rec['rows']} row(s), checksum and row count hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
