# Both kinds: each contestant's own environment (.venvs/impl-<name>, from uv.lock),
# and the proof that a contestant's two runs wrote the same bytes (RUN_FILES: the
# files of one run folder, named by the kind's own rule set).


rule impl_env:
    priority: FIRST_RUNS_FIRST
    input:
        lock=f"{SRC}/uv.lock",
        project=f"{SRC}/pyproject.toml",
    output:
        "results/envs/impl-{impl}.synced",
    params:
        src=src,
        venv=lambda w: f"{SRC}/.venvs/impl-{w.impl}",
    log:
        "results/logs/impl_env_{impl}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit.core.envs sync --project {params.src:q}"
        " --venv {params.venv:q} --group impl-{wildcards.impl:q} --marker {output:q} > {log:q} 2>&1"


rule same_runs:
    input:
        expand(f"{RES}/recompute/{{{{impl}}}}/run{{run}}/{{f}}.csv", run=RUNS, f=RUN_FILES),
    output:
        f"{RES}/recompute/{{impl}}/runs-identical.json",
    params:
        src=src,
        runs=lambda w, input: sorted({str(Path(f).parent) for f in input}),
    log:
        f"{RES}/logs/same_runs_{{impl}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit same-runs {params.runs:q} --out {output:q}"
        " 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
