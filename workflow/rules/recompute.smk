# Both kinds: each contestant recomputes the arm twice, each run its own process in
# the contestant's own uv environment (impl_python: synced from the one uv.lock with
# only its own dependency group, so pandas never sees pyarrow and pyarrow never sees
# pandas). What a run reads is the kind's (recompute_inputs, recompute_bundle);
# contestant_command is the contestant's entry for the kind, `python -m impl_<x>`
# or `python -m impl_<x> trials`. With one null shard the run draws the null
# itself; with more, --no-draws leaves it to the shards (null_draws.smk).
# What a run writes itself: every run file (RUN_FILES, the kind's) with one shard;
# with more, all but the null, which the shards draw and the merge writes.
RECOMPUTE_FILES = [f for f in RUN_FILES if DRAWS_IN_RECOMPUTE or f not in ("nulls", "null_hist")]


rule recompute:
    priority: lambda wildcards: FIRST_RUNS_FIRST if wildcards.run == "1" else 0
    input:
        unpack(recompute_inputs),
        prereg=f"{RES}/lock/prereg.yaml",
        files=f"{RES}/lock/files.json",
        env="results/envs/impl-{impl}.synced",
        stamp=LOCK_STAMP,
    output:
        expand(f"{RES}/recompute/{{{{impl}}}}/run{{{{run}}}}/{{f}}.csv", f=RECOMPUTE_FILES),
    params:
        src=src,
        python=lambda w: impl_python(w.impl),
        command=lambda w: contestant_command(w.impl),
        bundle=recompute_bundle,
        out=lambda w, output: str(Path(output[0]).parent),
        no_draws=[] if DRAWS_IN_RECOMPUTE else ["--no-draws"],
    log:
        f"{RES}/logs/recompute_{{impl}}_run{{run}}.log",
    shell:
        "PYTHONPATH={params.src:q} {params.python:q} {params.command:q} --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --lock {input.files:q} --out {params.out:q} {params.no_draws:q}"
        " 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
