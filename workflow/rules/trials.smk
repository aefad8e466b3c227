# Trials arm: adapt (a trials source); the lock (lock.smk) and the recompute
# (recompute.smk) are shared with a leaderboard arm.


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
        " --format {params.fmt:q} {params.tb:q} --out {params.out:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
