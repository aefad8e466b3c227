# Injected-perturbation controls. The order is structural: a control's
# prediction is stamped in the ledger (rule control_stamp) before the rule that
# builds its perturbed bundle may run, and both refuse a prediction whose bytes
# changed after the stamp.


rule control_predict:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        files=f"{RES}/lock/files.json",
        leaderboard=bundle_file("leaderboard"),
        instances=bundle_file("instances"),
    output:
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
    params:
        src=src,
        bundle=bundle_dir,
    log:
        f"{RES}/logs/control_predict_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls predict --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --lock {input.files:q} --control {wildcards.control:q}"
        " --out-prediction {output.prediction:q} --out-selection {output.selection:q} 2>&1 | tee {log:q}"


rule control_stamp:
    input:
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
    output:
        f"{RES}/controls/{{control}}/stamp.json",
    params:
        src=src,
    log:
        f"{RES}/logs/control_stamp_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit stamp {input.prediction:q} {input.selection:q}"
        " --events {output:q} 2>&1 | tee {log:q}"


rule control_perturb:
    input:
        stamp=f"{RES}/controls/{{control}}/stamp.json",
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
        prereg=f"{RES}/lock/prereg.yaml",
        files=f"{RES}/lock/files.json",
        leaderboard=bundle_file("leaderboard"),
        instances=bundle_file("instances"),
    output:
        leaderboard=f"{RES}/controls/{{control}}/bundle/{BUNDLE_FILES['leaderboard']}",
        instances=f"{RES}/controls/{{control}}/bundle/{BUNDLE_FILES['instances']}",
        events=f"{RES}/events/perturb-{{control}}.json",
    params:
        src=src,
        bundle=bundle_dir,
        out=lambda w, output: str(Path(output.instances).parent),
    log:
        f"{RES}/logs/control_perturb_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls perturb --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --lock {input.files:q} --selection {input.selection:q} --prediction {input.prediction:q}"
        " --stamp {input.stamp:q} --events {output.events:q} --out {params.out:q} 2>&1 | tee {log:q}"


rule control_recompute_pandas:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        leaderboard=f"{RES}/controls/{{control}}/bundle/{BUNDLE_FILES['leaderboard']}",
        instances=f"{RES}/controls/{{control}}/bundle/{BUNDLE_FILES['instances']}",
        env="results/envs/impl-pandas.synced",
    output:
        cells=f"{RES}/controls/{{control}}/pandas/cells.csv",
        census=f"{RES}/controls/{{control}}/pandas/census.csv",
        table=f"{RES}/controls/{{control}}/pandas/reproduce.csv",
    params:
        src=src,
        python=impl_python("pandas"),
        bundle=bundle_dir,
        out=lambda w, output: str(Path(output.cells).parent),
    log:
        f"{RES}/logs/control_recompute_pandas_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} {params.python:q} -m impl_pandas --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --out {params.out:q} --no-draws 2>&1 | tee {log:q}"


rule control_recompute_pyarrow:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        leaderboard=f"{RES}/controls/{{control}}/bundle/{BUNDLE_FILES['leaderboard']}",
        instances=f"{RES}/controls/{{control}}/bundle/{BUNDLE_FILES['instances']}",
        env="results/envs/impl-pyarrow.synced",
    output:
        cells=f"{RES}/controls/{{control}}/pyarrow/cells.csv",
        census=f"{RES}/controls/{{control}}/pyarrow/census.csv",
        table=f"{RES}/controls/{{control}}/pyarrow/reproduce.csv",
    params:
        src=src,
        python=impl_python("pyarrow"),
        bundle=bundle_dir,
        out=lambda w, output: str(Path(output.cells).parent),
    log:
        f"{RES}/logs/control_recompute_pyarrow_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} {params.python:q} -m impl_pyarrow --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --out {params.out:q} --no-draws 2>&1 | tee {log:q}"


rule control_check:
    input:
        stamp=f"{RES}/controls/{{control}}/stamp.json",
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
        before=expand(f"{RES}/recompute/{{impl}}/run1/cells.csv", impl=IMPLS),
        after=expand(f"{RES}/controls/{{{{control}}}}/{{impl}}/cells.csv", impl=IMPLS),
    output:
        csv=f"{RES}/controls/{{control}}/check.csv",
        json=f"{RES}/controls/{{control}}/verdict.json",
    params:
        src=src,
        # argument lists: `:q` quotes each element on its own
        before=lambda w, input: [
            a for i, f in zip(IMPLS, input.before) for a in ("--before", i, str(Path(f).parent))
        ],
        after=lambda w, input: [
            a for i, f in zip(IMPLS, input.after) for a in ("--after", i, str(Path(f).parent))
        ],
    log:
        f"{RES}/logs/control_check_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls check --selection {input.selection:q}"
        " --prediction {input.prediction:q} --stamp {input.stamp:q} {params.before:q} {params.after:q}"
        " --out-csv {output.csv:q} --out-json {output.json:q} 2>&1 | tee {log:q}"


rule controls_summary:
    input:
        verdicts=expand(f"{RES}/controls/{{control}}/verdict.json", control=CONTROLS),
        checks=expand(f"{RES}/controls/{{control}}/check.csv", control=CONTROLS),
        prereg=f"{RES}/lock/prereg.yaml",
    output:
        csv=f"{RES}/controls.csv",
        md=f"{RES}/controls.md",
    params:
        src=src,
    log:
        f"{RES}/logs/controls_summary.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls summary --verdicts {input.verdicts:q}"
        " --checks {input.checks:q} --prereg {input.prereg:q} --out-csv {output.csv:q} --out-md {output.md:q} 2>&1 | tee {log:q}"
