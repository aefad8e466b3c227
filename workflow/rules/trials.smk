# Trials arm: adapt (trials source), both contestants twice each (the lock: lock.smk).


rule adapt_trials:
    input:
        jobs=f"{BUNDLE}/{SOURCE.get('jobs', '')}",
    output:
        table=f"{RES}/bundle/trials.parquet",
        adapter=f"{RES}/bundle/adapter.json",
    params:
        src=src,
        out=lambda w, output: str(Path(output.table).parent),
        fmt=SOURCE.get("format", ""),
        # tb-run-v1 (section 16.1): the declared duplicate rule and the board's minimum
        tb=(
            ["--duplicates", str(SOURCE["duplicates"]), "--min-tries", str(SOURCE["min_tries"])]
            if SOURCE.get("format") == "tb-run-v1"
            else []
        ),
    log:
        f"{RES}/logs/adapt_trials.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit adapt-trials --jobs {input.jobs:q}"
        " --format {params.fmt:q} {params.tb:q} --out {params.out:q} 2>&1 | tee {log:q}"


# One rule for both contestants: each runs in its own environment (impl_python),
# as its own process, once per run folder. With one null shard it draws the null
# itself; with more, the null is left to the shards below.
rule recompute_trials:
    input:
        unpack(source_inputs),
        prereg=f"{RES}/lock/prereg.yaml",
        files=f"{RES}/lock/files.json",
        env="results/envs/impl-{impl}.synced",
    output:
        expand(f"{RES}/recompute/{{{{impl}}}}/run{{{{run}}}}/{{f}}.csv", f=RECOMPUTE_FILES),
    params:
        src=src,
        python=lambda w: impl_python(w.impl),
        module=lambda w: trials_module(w.impl),
        bundle=READ_DIR,
        out=lambda w, output: str(Path(output[0]).parent),
        no_draws=[] if DRAWS_IN_RECOMPUTE else ["--no-draws"],
    log:
        f"{RES}/logs/recompute_{{impl}}_run{{run}}.log",
    shell:
        "PYTHONPATH={params.src:q} {params.python:q} {params.module:q} --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --lock {input.files:q} --out {params.out:q} {params.no_draws:q}"
        " 2>&1 | tee {log:q}"
