# Each contestant runs in its own uv environment, synced from the one uv.lock
# with only its own dependency group: pandas never sees pyarrow, pyarrow never
# sees pandas. The two recompute rules are written out twice on purpose.


rule recompute_pandas:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        lock=f"{RES}/lock/lock.json",
        files=f"{RES}/lock/files.json",
        leaderboard=bundle_file("leaderboard"),
        instances=bundle_file("instances"),
        env="results/envs/impl-pandas.synced",
    output:
        cells=f"{RES}/recompute/pandas/run{{run}}/cells.csv",
        census=f"{RES}/recompute/pandas/run{{run}}/census.csv",
        table=f"{RES}/recompute/pandas/run{{run}}/reproduce.csv",
        chance=f"{RES}/recompute/pandas/run{{run}}/chance.csv",
        **recompute_nulls("pandas"),
    params:
        src=src,
        python=impl_python("pandas"),
        bundle=bundle_dir,
        out=lambda w, output: str(Path(output.cells).parent),
        no_draws=[] if DRAWS_IN_RECOMPUTE else ["--no-draws"],
    log:
        f"{RES}/logs/recompute_pandas_run{{run}}.log",
    shell:
        "PYTHONPATH={params.src:q} {params.python:q} -m impl_pandas --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --lock {input.files:q} --out {params.out:q} {params.no_draws:q} 2>&1 | tee {log:q}"


rule recompute_pyarrow:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        lock=f"{RES}/lock/lock.json",
        files=f"{RES}/lock/files.json",
        leaderboard=bundle_file("leaderboard"),
        instances=bundle_file("instances"),
        env="results/envs/impl-pyarrow.synced",
    output:
        cells=f"{RES}/recompute/pyarrow/run{{run}}/cells.csv",
        census=f"{RES}/recompute/pyarrow/run{{run}}/census.csv",
        table=f"{RES}/recompute/pyarrow/run{{run}}/reproduce.csv",
        chance=f"{RES}/recompute/pyarrow/run{{run}}/chance.csv",
        **recompute_nulls("pyarrow"),
    params:
        src=src,
        python=impl_python("pyarrow"),
        bundle=bundle_dir,
        out=lambda w, output: str(Path(output.cells).parent),
        no_draws=[] if DRAWS_IN_RECOMPUTE else ["--no-draws"],
    log:
        f"{RES}/logs/recompute_pyarrow_run{{run}}.log",
    shell:
        "PYTHONPATH={params.src:q} {params.python:q} -m impl_pyarrow --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --lock {input.files:q} --out {params.out:q} {params.no_draws:q} 2>&1 | tee {log:q}"


# The permutation null's draws, when null_shards > 1: NULL_SHARDS independent jobs per
# run (ranges of draws), merged by the same contestant into the run's nulls.csv and
# null_hist.csv: byte-identical to drawing them all in the recompute itself, as the
# recompute does with one shard (DRAWS_IN_RECOMPUTE, common.smk).
if not DRAWS_IN_RECOMPUTE:

    rule null_draws:
        input:
            prereg=f"{RES}/lock/prereg.yaml",
            table=f"{RES}/recompute/{{impl}}/run{{run}}/reproduce.csv",
            env="results/envs/impl-{impl}.synced",
        output:
            f"{RES}/recompute/{{impl}}/run{{run}}/null-draws/{{shard}}.csv",
        params:
            src=src,
            python=lambda w: impl_python(w.impl),
            draws=lambda w: null_range(int(w.shard)),
        log:
            f"{RES}/logs/null_draws_{{impl}}_run{{run}}_{{shard}}.log",
        shell:
            "PYTHONPATH={params.src:q} {params.python:q} -m impl_{wildcards.impl:q} null-draws"
            " --prereg {input.prereg:q} --table {input.table:q} --draws {params.draws:q}"
            " --out {output:q} 2>&1 | tee {log:q}"


    rule null_merge:
        input:
            prereg=f"{RES}/lock/prereg.yaml",
            table=f"{RES}/recompute/{{impl}}/run{{run}}/reproduce.csv",
            parts=expand(
                f"{RES}/recompute/{{{{impl}}}}/run{{{{run}}}}/null-draws/{{shard}}.csv",
                shard=range(NULL_SHARDS),
            ),
        output:
            nulls=f"{RES}/recompute/{{impl}}/run{{run}}/nulls.csv",
            hist=f"{RES}/recompute/{{impl}}/run{{run}}/null_hist.csv",
        params:
            src=src,
            python=lambda w: impl_python(w.impl),
            out=lambda w, output: str(Path(output.nulls).parent),
        log:
            f"{RES}/logs/null_merge_{{impl}}_run{{run}}.log",
        shell:
            "PYTHONPATH={params.src:q} {params.python:q} -m impl_{wildcards.impl:q} null-merge"
            " --prereg {input.prereg:q} --table {input.table:q} --out {params.out:q} {input.parts:q}"
            " 2>&1 | tee {log:q}"
