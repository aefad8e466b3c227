"""Amendment arms (docs/seal.md, "Amendment arms"): a prereg declaring
``amends: {arm, head}`` runs as an arm of its own beside a sealed parent.

A parent arm (the demo) is sealed in a temporary working folder; an amendment
that changes one policy then runs beside it. Without the change the prereg key
``amends`` is refused (bad_prereg, unknown key), no ``amendment`` event exists
and no versus file is written, so every test here fails.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import blake3
import polars as pl
import pytest

from audit.errors import AuditError
from audit.lock import amends
from audit.seal import versus
from audit.seal.lock_record import parse_lock
from tests.conftest import ROOT, annex_head, read_csv_rows, run_audit, run_dag

DEMO = ROOT / "prereg" / "demo.yaml"
B_EXCLUDE = (
    '  B: {recipe: rate, nulls: exclude, description: "null resolved leaves the denominator"}'
)
B_FAILURE = '  B: {recipe: rate, nulls: failure, description: "null resolved counts as a failure"}'


def _tree(folder: Path) -> dict[str, str]:
    """Every file under folder and its sha256 (the parent's bytes, before and after)."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _amendment(path: Path, head: str, parent: str = "demo", text: str | None = None) -> str:
    """The demo prereg with policy B changed to nulls: failure, amending ``parent``."""
    body = DEMO.read_text(encoding="utf-8") if text is None else text
    assert B_EXCLUDE in body
    body = body.replace(B_EXCLUDE, B_FAILURE)
    path.write_text(body + f"amends: {{arm: {parent}, head: {head}}}\n", encoding="utf-8")
    return blake3.blake3(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory, impl_envs) -> dict:
    """The demo arm sealed, then the amendment run beside it (both whole DAGs)."""
    work = tmp_path_factory.mktemp("amend")
    p = run_dag(work, "--config", f"prereg={DEMO}")
    assert p.returncode == 0, p.stderr[-3000:]
    parent = work / "results" / "demo"
    head = annex_head(parent / "annex")
    before = _tree(parent)
    prereg = work / "demo-b-failure.yaml"
    digest = _amendment(prereg, head)
    q = run_dag(
        work, "--config", f"prereg={prereg}", f"prereg_blake3={digest}", "arm=demo-b-failure"
    )
    assert q.returncode == 0, q.stderr[-3000:]
    return {"work": work, "head": head, "before": before, "stdout": q.stdout + q.stderr}


@pytest.mark.slow
def test_amendment_runs_beside_its_parent(sealed) -> None:
    work = sealed["work"]
    res = work / "results" / "demo-b-failure"
    parent = work / "results" / "demo"
    # the parent's files are never touched, and still verify byte for byte
    assert _tree(parent) == sealed["before"]
    assert run_audit("verify", parent / "annex", "--head", sealed["head"]).code == 0
    amended_head = annex_head(res / "annex")
    assert run_audit("verify", res / "annex", "--head", amended_head).code == 0

    # the ledger begins with the amendment event naming the parent arm and head
    first = json.loads((res / "ledger.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["event"] == "amendment"
    assert (first["parent_arm"], first["parent_head"]) == ("demo", sealed["head"])
    assert first["subject"] == "results/demo/annex/manifest.json"
    second = json.loads((res / "ledger.jsonl").read_text(encoding="utf-8").splitlines()[1])
    assert second["event"] == "prereg_locked"
    assert json.loads((res / "lock" / "lock.json").read_text())["amends"] == {
        "arm": "demo",
        "head": sealed["head"],
    }

    # versus-demo.csv, by hand: with B = nulls: failure, B computes A's value in every
    # rate cell (and so in average_score, the mean of two rates under one policy). A cell
    # reproduced by A alone is then reproduced by A;B at the same tier (the demo's
    # census: m1 and m3 alpha_score and average_score, tier 0); a cell reproduced by
    # A;B stays A;B; the divergent m4 alpha_score and average_score stay divergent
    # (A's value is B's). Costs, models and no_data cells do not change.
    rows = read_csv_rows(res / "versus-demo.csv")
    assert len(rows) == 28  # 4 rows x 7 measured columns
    moved = {(r["row_id"], r["column"]): r["moved"] for r in rows if r["moved"] != "no"}
    assert moved == {
        ("demo/m1", "alpha_score"): "policies",
        ("demo/m1", "average_score"): "policies",
        ("demo/m3", "alpha_score"): "policies",
        ("demo/m3", "average_score"): "policies",
    }
    m1 = next(r for r in rows if (r["row_id"], r["column"]) == ("demo/m1", "alpha_score"))
    assert (m1["parent_policies"], m1["amendment_policies"]) == ("A", "A;B")
    assert (m1["parent_best_tier"], m1["amendment_best_tier"]) == ("0", "0")
    m4 = next(r for r in rows if (r["row_id"], r["column"]) == ("demo/m4", "alpha_score"))
    assert (m4["parent_class"], m4["amendment_class"], m4["moved"]) == (
        "divergent",
        "divergent",
        "no",
    )
    summary = json.loads((res / "versus-demo.json").read_text())
    assert summary["moved"]["reconciled"] == summary["moved"]["diverged"] == 0
    assert summary["parent"]["totals"] == summary["amendment"]["totals"]
    assert {(d["kind"], d["key"]) for d in summary["declared"]} == {
        ("policy changed", "policies/B/nulls"),
        ("policy changed", "policies/B/description"),
    }

    # the comparison is in the amendment's annex, its report and certificate; never the parent's
    cert = (res / "annex" / "certificate.md").read_text(encoding="utf-8")
    assert "## Amendment of arm demo" in cert and "policies/B/nulls" in cert
    assert (res / "annex" / "versus-demo.csv").read_bytes() == (
        res / "versus-demo.csv"
    ).read_bytes()
    assert "Amendment: beside its parent" in (res / "report" / "report.md").read_text()
    assert "Amendment" not in (parent / "annex" / "certificate.md").read_text(encoding="utf-8")


def _refused(work: Path, prereg: Path, digest: str, arm: str, *extra: str) -> str:
    """snakemake -n of an amendment arm that must be refused: the one line, nothing written."""
    before = _tree(work / "results")
    p = run_dag(
        work, "-n", "--config", f"prereg={prereg}", f"prereg_blake3={digest}", f"arm={arm}", *extra
    )
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
    assert not (work / "results" / arm).exists()
    assert _tree(work / "results") == before
    return lines[0]


@pytest.mark.slow
def test_bad_amends_are_refused_before_any_job(sealed, tmp_path: Path) -> None:
    work, head = sealed["work"], sealed["head"]
    p = tmp_path / "x.yaml"

    # an arm that does not exist
    line = _refused(work, p, _amendment(p, head, parent="no-such-arm"), "x1")
    assert line.startswith(f"error[amends_unknown_arm]: {p}: amends arm 'no-such-arm'"), line

    # a head that does not verify (one digit changed)
    wrong = ("1" if head[0] != "1" else "2") + head[1:]
    line = _refused(work, p, _amendment(p, wrong), "x2")
    assert line.startswith("error[amends_not_verified]: results/demo/annex: "), line
    assert wrong in line

    # an arm amending itself
    line = _refused(work, p, _amendment(p, head, parent="x3"), "x3")
    assert line.startswith(f"error[amends_cycle]: {p}: arm 'x3' amends itself"), line

    # a parent sealed under another bundle content: one cost changed in a copy
    bundle = tmp_path / "bundle"
    shutil.copytree(work / "results" / "demo-bundle", bundle)
    inst = pl.read_parquet(bundle / "instances.parquet")
    inst = inst.with_columns(
        pl.col("cost") + pl.when(pl.int_range(pl.len()) == 0).then(1.0).otherwise(0.0)
    )
    inst.write_parquet(bundle / "instances.parquet")
    line = _refused(work, p, _amendment(p, head), "x4", f"bundle={bundle}")
    assert line.startswith(f"error[amends_other_bundle]: {bundle}/instances.parquet: "), line
    assert "sealed under" in line


def test_a_cycle_up_the_chain_is_refused(tmp_path: Path) -> None:
    """arm c amends b, whose locked prereg amends a, whose locked prereg amends c."""
    for arm, parent in (("a", "c"), ("b", "a")):
        locked = tmp_path / arm / "annex" / "lock" / "prereg.yaml"
        locked.parent.mkdir(parents=True)
        locked.write_text(f"amends: {{arm: {parent}, head: {'0' * 64}}}\n", encoding="utf-8")
    with pytest.raises(AuditError) as e:
        amends._check_chain("c.yaml", "c", "b", tmp_path)
    assert e.value.kind == "amends_cycle" and "c -> b -> a -> c" in e.value.detail
    # the same chain ending at an arm that amends nothing holds
    (tmp_path / "a" / "annex" / "lock" / "prereg.yaml").write_text("seed: 1\n", encoding="utf-8")
    amends._check_chain("c.yaml", "c", "b", tmp_path)


def _census(path: Path, rows: list[tuple[str, str, str, str, str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["row_id", "column", "class", "best_tier", "policies", "min_abs_diff"])
        w.writerows(rows)
    return path


def test_versus_moves_each_way(tmp_path: Path) -> None:
    """Hand-written census pairs, one cell per kind of move (the rule in audit/seal/versus.py)."""
    a = _census(
        tmp_path / "a.csv",
        [
            ("r1", "id", "structural", "", "", ""),
            ("r1", "c1", "divergent", "", "", "0.100000"),  # -> reproduced: reconciled
            ("r1", "c2", "reproduced", "1", "C", "0.004000"),  # -> divergent: diverged
            ("r1", "c3", "reproduced", "0", "C", "0.000000"),  # -> tier 1: tier
            ("r1", "c4", "reproduced", "0", "C", "0.000000"),  # -> C;D: policies
            ("r1", "c5", "divergent", "", "", "1.000000"),  # -> no_data: class
            ("r1", "c6", "reproduced", "0", "C;D", "0.000000"),  # unchanged: no
        ],
    )
    b = _census(
        tmp_path / "b.csv",
        [
            ("r1", "id", "structural", "", "", ""),
            ("r1", "c1", "reproduced", "0", "C", "0.000000"),
            ("r1", "c2", "divergent", "", "", "0.060000"),
            ("r1", "c3", "reproduced", "1", "C", "0.004000"),
            ("r1", "c4", "reproduced", "0", "C;D", "0.000000"),
            ("r1", "c5", "no_data", "", "", ""),
            ("r1", "c6", "reproduced", "0", "C;D", "0.000000"),
        ],
    )
    got = {r["column"]: r["moved"] for r in versus.rows(a, b)}
    assert got == {
        "c1": "reconciled",
        "c2": "diverged",
        "c3": "tier",
        "c4": "policies",
        "c5": "class",
        "c6": "no",
    }  # the structural id column is not a measured cell: no line


def test_declared_difference_names_policy_population_and_tier(tmp_path: Path) -> None:
    parent, child = tmp_path / "p.yaml", tmp_path / "c.yaml"
    parent.write_text(
        "name: p\npolicies:\n  C: {recipe: mean, nulls: exclude}\n  D: {recipe: mean, nulls: zero}\n"
        "tolerances:\n  cost: {exact_decimals: 4, tiers: [0.005, 0.05]}\n",
        encoding="utf-8",
    )
    child.write_text(
        "name: c\npolicies:\n  C: {recipe: mean, nulls: exclude, population: {not_null: resolved}}\n"
        "  E: {recipe: mean, nulls: zero}\ntolerances:\n  cost: {exact_decimals: 4, tiers: [0.005, 0.03]}\n"
        f"amends: {{arm: p, head: {'0' * 64}}}\n",
        encoding="utf-8",
    )
    got = {(d["kind"], d["key"]) for d in versus.declared(parent, child)}
    assert got == {
        ("policy added", "policies/E"),
        ("policy removed", "policies/D"),
        ("population changed", "policies/C/population/not_null"),
        ("tier changed", "tolerances/cost/tiers"),
    }  # name and amends are not differences of method


def test_verify_holds_the_amendment_line_to_the_locked_prereg(tmp_path: Path) -> None:
    """audit/seal/verify.py: an amendment line first, naming what the locked prereg
    declares, exactly when it declares amends (entries as the ledger parses them)."""
    from audit.seal.verify import _amendment

    locked = tmp_path / "lock" / "prereg.yaml"
    locked.parent.mkdir()
    head = "ab" * 32
    line = {"event": "amendment", "parent_arm": "demo", "parent_head": head}
    lock = {"event": "prereg_locked"}
    locked.write_text(f"amends: {{arm: demo, head: {head}}}\n", encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    assert _amendment(tmp_path, ledger, [line, lock]) == []
    assert _amendment(tmp_path, ledger, [lock])  # the line is missing
    assert _amendment(tmp_path, ledger, [{**line, "parent_head": "cd" * 32}, lock])
    assert _amendment(tmp_path, ledger, [{**line, "parent_arm": "other"}, lock])
    assert _amendment(tmp_path, ledger, [lock, line])  # not first
    locked.write_text("seed: 1\n", encoding="utf-8")
    assert _amendment(tmp_path, ledger, [lock]) == []
    assert _amendment(tmp_path, ledger, [line, lock])  # a line the prereg does not declare


BENCHFLOW = (ROOT / ".." / "shared" / "bundles" / "benchflow-trials-sample").resolve()
FIRST3 = "  first3: {select: earliest, k: 3,"
FIRST2 = (
    "  first2: {select: earliest, k: 2, copies: drop, errored: zero, unscored: zero,"
    ' empty_slots: ignore, slots: null, description: "the 2 earliest-started trials per task"}\n'
)


@pytest.mark.slow
@pytest.mark.realbundle
def test_trials_amendment_declares_a_second_selection_rule(impl_envs, tmp_path: Path) -> None:
    """A trials arm (BenchFlow sample) sealed, then an amendment adding a trial-selection
    rule (the 2 earliest-started trials per task) declared after the seal."""
    if not BENCHFLOW.is_dir():
        pytest.skip("real bundle not present at ../shared/bundles/benchflow-trials-sample")
    config = ROOT / "config" / "benchflow-sample.yaml"
    original = ROOT / "prereg" / "benchflow-sample.yaml"
    p = run_dag(
        tmp_path,
        "--configfile",
        str(config),
        "--config",
        f"prereg={original}",
        f"bundle={BENCHFLOW}",
    )
    assert p.returncode == 0, p.stderr[-3000:]
    parent = tmp_path / "results" / "benchflow-sample"
    head = annex_head(parent / "annex")
    before = _tree(parent)
    text = original.read_text(encoding="utf-8")
    assert FIRST3 in text
    amended = tmp_path / "benchflow-first2.yaml"
    amended.write_text(
        text.replace(FIRST3, FIRST2 + FIRST3, 1)
        + f"amends: {{arm: benchflow-sample, head: {head}}}\n",
        encoding="utf-8",
    )
    digest = blake3.blake3(amended.read_bytes()).hexdigest()
    q = run_dag(
        tmp_path,
        "--configfile",
        str(config),
        "--config",
        f"prereg={amended}",
        f"prereg_blake3={digest}",
        f"bundle={BENCHFLOW}",
        "arm=benchflow-first2",
    )
    assert q.returncode == 0, q.stderr[-3000:]
    res = tmp_path / "results" / "benchflow-first2"
    assert _tree(parent) == before
    assert run_audit("verify", parent / "annex", "--head", head).code == 0
    assert run_audit("verify", res / "annex", "--head", annex_head(res / "annex")).code == 0
    first = json.loads((res / "ledger.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert (first["event"], first["parent_arm"], first["parent_head"]) == (
        "amendment",
        "benchflow-sample",
        head,
    )
    summary = json.loads((res / "versus-benchflow-sample.json").read_text())
    # the sample publishes no leaderboard (leaderboard: null): no cell to move, and
    # the one declared difference is the policy added
    assert read_csv_rows(res / "versus-benchflow-sample.csv") == []
    assert [(d["kind"], d["key"]) for d in summary["declared"]] == [
        ("policy added", "policies/first2")
    ]
    assert "## Amendment of arm benchflow-sample" in (res / "annex" / "certificate.md").read_text()
    # the new rule was computed: first2 rows in the amendment's entries, none in the parent's
    entries = read_csv_rows(res / "recompute" / "pandas" / "run1" / "entries.csv")
    assert any(r["policy"] == "first2" for r in entries)
    parent_entries = read_csv_rows(parent / "recompute" / "pandas" / "run1" / "entries.csv")
    assert not any(r["policy"] == "first2" for r in parent_entries)


@pytest.mark.slow
def test_amendment_prereg_refreshes_the_head_and_the_blake3(sealed, tmp_path: Path) -> None:
    """python -m audit amendment-prereg: the head read from the parent's verified annex
    replaces a stale one in place (comments kept), and the config's blake3 follows."""
    work, head = sealed["work"], sealed["head"]
    prereg = tmp_path / "amend.yaml"
    _amendment(prereg, "0" * 64)
    prereg.write_text("# a comment kept\n" + prereg.read_text(), encoding="utf-8")
    config = tmp_path / "amend-config.yaml"
    config.write_text(f"arm: demo-x\nprereg_blake3: {'0' * 64}  # pinned\n", encoding="utf-8")
    r = run_audit("amendment-prereg", prereg, "--config", config, "--results", work / "results")
    assert r.code == 0, r.stderr
    text = prereg.read_text(encoding="utf-8")
    assert text.startswith("# a comment kept\n") and f"head: {head}}}" in text
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    assert config.read_text() == f"arm: demo-x\nprereg_blake3: {digest}  # pinned\n"


def test_the_lock_refuses_other_bundle_content() -> None:
    """audit.lock.amends.check_content, as the lock calls it with the tables it hashed."""
    table = {"rows": 1, "columns": 1}
    parent = parse_lock(
        {
            "format": "secondseat-lock-v1",
            "prereg": {"name": "demo", "blake3": "0" * 64},
            "bundle": {
                "leaderboard": {"file": "lb.parquet", "content_digest": "a" * 64, **table},
                "instances": {"file": "in.parquet", "content_digest": "b" * 64, **table},
            },
        },
        "lock.json",
    )
    same = {
        "leaderboard": {"file": "lb.parquet", "content_digest": "a" * 64},
        "instances": {"file": "in.parquet", "content_digest": "b" * 64},
    }
    amends.check_content("demo", parent, same)
    other = {**same, "instances": {"file": "in.parquet", "content_digest": "c" * 64}}
    with pytest.raises(AuditError) as e:
        amends.check_content("demo", parent, other)
    assert (e.value.kind, e.value.path) == ("amends_other_bundle", "in.parquet")
    with pytest.raises(AuditError):  # a table the parent did not lock
        amends.check_content(
            "demo", parent, {**same, "registry": {"file": "r.csv", "content_digest": "d" * 64}}
        )


@pytest.mark.slow
@pytest.mark.realbundle
def test_the_shipped_amendment_on_the_real_bundle(impl_envs, real_bundle: Path, tmp_path: Path):
    # The blind OpenHands arm sealed, the shipped amendment's head refreshed from it
    # (audit amendment-prereg, on copies of the prereg and config), then the
    # amendment run beside it. Expected figures from the third method in the
    # repository (tests/reference/amendment_costs.py: both preregs through
    # tests/reference/cells_v1.py, exact fractions, no code of the contestants), run
    # here: of the 170 cost cells (5 categories x 34 rows), 138 reproduce over every
    # record and 137 over the publisher's population; 0 move from divergent to
    # reproduced, 1 the other way (OpenHands/Nemotron-3-Nano, testing_cost).
    from tests.reference import amendment_costs

    expected = amendment_costs.moves(real_bundle)
    assert expected == amendment_costs.Moves(
        170, 138, 137, [], [("OpenHands/Nemotron-3-Nano", "testing_cost")]
    )
    blind = run_dag(
        tmp_path,
        "--configfile",
        str(ROOT / "config" / "openhands-index.yaml"),
        "--config",
        f"prereg={ROOT / 'prereg' / 'openhands-index.yaml'}",
        f"bundle={real_bundle}",
    )
    assert blind.returncode == 0, blind.stderr[-3000:]
    before = _tree(tmp_path / "results" / "openhands-index")
    prereg = tmp_path / "amendment.yaml"
    config = tmp_path / "amendment-config.yaml"
    shutil.copyfile(ROOT / "prereg" / "openhands-index-publisher-population.yaml", prereg)
    shutil.copyfile(ROOT / "config" / "openhands-index-publisher-population.yaml", config)
    r = run_audit("amendment-prereg", prereg, "--config", config, "--results", tmp_path / "results")
    assert r.code == 0, r.stdout + r.stderr
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    assert f"prereg_blake3: {digest}" in config.read_text()
    q = run_dag(
        tmp_path,
        "--configfile",
        str(config),
        "--config",
        f"prereg={prereg}",
        f"bundle={real_bundle}",
    )
    assert q.returncode == 0, q.stderr[-3000:]
    assert _tree(tmp_path / "results" / "openhands-index") == before  # never touched
    res = tmp_path / "results" / "openhands-index-publisher-population"
    rows = read_csv_rows(res / "versus-openhands-index.csv")
    costs = {"frontend_cost", "issue_resolution_cost", "testing_cost",
             "information_gathering_cost", "greenfield_cost"}  # fmt: skip
    cost_rows = [r for r in rows if r["column"] in costs]
    assert len(cost_rows) == expected.cells
    assert sum(r["parent_class"] == "reproduced" for r in cost_rows) == expected.blind_reproduced
    assert (
        sum(r["amendment_class"] == "reproduced" for r in cost_rows)
        == expected.amendment_reproduced
    )
    moved = {(r["row_id"], r["column"]): r["moved"] for r in rows}
    assert [k for k, v in moved.items() if v == "reconciled"] == expected.reconciled
    assert [k for k, v in moved.items() if v == "diverged"] == expected.diverged


def test_the_versus_summary_reads_back_and_words_its_moves(tmp_path: Path) -> None:
    """versus-<parent>.json through its record (versus.VersusSummary): the bytes read back
    unchanged, and the paragraphs word the counts written here by hand."""
    summary = versus.VersusSummary(
        parent=versus.Parent(arm="demo", head="a" * 64, totals={"divergent": 1, "reproduced": 2}),
        amendment=versus.Amendment(arm="demo-b", totals={"reproduced": 3}),
        moved={"reconciled": 1, "diverged": 0, "tier": 0, "policies": 2, "class": 0, "no": 0},
        by_column={"alpha_score": {"reconciled": 1, "diverged": 0}},
        reconciled=["demo/m4 / alpha_score"],
        diverged=[],
        declared=[{"kind": "policy added", "key": "policies/B", "parent": "", "amendment": "{}"}],
    )
    path = tmp_path / "versus-demo.json"
    path.write_text(summary.to_json(), encoding="utf-8")
    # the layout as build wrote it before the record: parent {arm, head, totals}, amendment
    # {arm, totals}, keys sorted
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert list(doc) == sorted(doc) and list(doc["parent"]) == ["arm", "head", "totals"]
    assert list(doc["amendment"]) == ["arm", "totals"]
    assert versus.VersusSummary.read(path) == summary
    words = versus.paragraphs(tmp_path)
    assert words is not None
    assert "`demo`: divergent 1, reproduced 2; `demo-b`: reproduced 3." in words[1]
    assert words[2].startswith("Cells that moved: 1 from not reproduced to reproduced, 0 from")
    assert "- alpha_score: 1 reconciled, 0 diverged." in words
    assert "- policy added: `policies/B`  -> {}" in words
    assert versus.certificate_lines(tmp_path)[1] == "## Amendment of arm demo"
