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
