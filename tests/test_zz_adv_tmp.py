import math
from pathlib import Path
import pytest, yaml
from tests.conftest import ROOT, impl_python, run
from tests.test_ranks_graded import _bundle

SPEC = {"columns": ["alpha_cost"], "alpha": 0.1, "correction": "holm", "seed": 9, "draws": 50}

def _go(tmp, bundle):
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["ranks"] = SPEC
    prereg = tmp / "prereg.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    out = {}
    for impl in ("pandas", "pyarrow"):
        dst = tmp / impl
        res = run([str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(dst), "--no-draws"])
        out[impl] = (res.code, res.stderr.strip()[-300:], (dst / "rank_pairs.csv").read_text() if res.code == 0 else "", (dst / "ranks.csv").read_text() if res.code == 0 else "")
    return out

CASES = {
  "inf": {"demo/m4": {"a1": math.inf, "a2": 1.0}, "demo/m1": {"a1": 1.0, "a2": 0.0}, "demo/m2": {"a1": 0.5}, "demo/m3": {"a2": 0.1}},
  "neginf": {"demo/m4": {"a1": -math.inf, "a2": 1.0}, "demo/m1": {"a1": 1.0, "a2": 0.0}, "demo/m2": {"a1": 0.5}, "demo/m3": {"a2": 0.1}},
  "disjoint": {"demo/m4": {"a1": 2.0}, "demo/m1": {"a2": 1.0}, "demo/m2": {"a3": 0.5}, "demo/m3": {"a4": 0.1}},
  "huge": {"demo/m4": {"a1": 1e308, "a2": 1e308}, "demo/m1": {"a1": -1e308, "a2": 5e-324}, "demo/m2": {"a1": 0.5}, "demo/m3": {"a2": 0.1}},
}

@pytest.mark.parametrize("case", list(CASES))
def test_case(case, impl_envs, demo_bundle, tmp_path):
    _bundle(demo_bundle, tmp_path / "bundle", CASES[case])
    got = _go(tmp_path, tmp_path / "bundle")
    for impl, (code, err, pairs, ranks) in got.items():
        print("\n==", case, impl, code, err); print(pairs); print(ranks)
    assert got["pandas"] == got["pyarrow"]
