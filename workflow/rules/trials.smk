# A trials arm on a trials source: the adapter's trial table (the lock, lock.smk, and
# the recompute, recompute.smk, are every arm's). Requested only by such an arm.


rule adapt_trials:
    input:
        jobs=f"{BUNDLE}/{A.source_jobs}",
    output:
        table=f"{RES}/bundle/trials.parquet",
        adapter=f"{RES}/bundle/adapter.json",
    params:
        src=src,
        jobs_content=jobs_content,
        out=lambda w, output: str(Path(output.table).parent),
        fmt=A.source_format,
        # tb-run-v1 (section 16.1): the declared duplicate rule and the board's minimum
        tb=list(A.adapt_args),
    log:
        f"{RES}/logs/adapt_trials.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit adapt-trials --jobs {input.jobs:q}"
        " --format {params.fmt:q} {params.tb:q} --out {params.out:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
