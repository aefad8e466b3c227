# A trials arm: the referee's trial tools, the settings census (a trials source) and
# compare-runs (a prereg with `compare`), each requested by the report's inputs
# (REPORT_INPUTS); the census, report and annex are every arm's.


rule settings_census:
    input:
        table=f"{RES}/bundle/trials.parquet",
        lock=f"{RES}/lock/lock.json",
        stamp=LOCK_STAMP,
    output:
        csv=f"{RES}/settings/settings.csv",
        all=f"{RES}/settings/settings_all.csv",
        txt=f"{RES}/settings/settings.txt",
    params:
        src=src,
        out=lambda w, output: str(Path(output.csv).parent),
    log:
        f"{RES}/logs/settings_census.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit settings-census {input.table:q}"
        " --out {params.out:q} > {log:q} 2>&1"


rule compare_runs:
    input:
        table=f"{RES}/bundle/trials.parquet",
        lock=f"{RES}/lock/lock.json",
        stamp=LOCK_STAMP,
    output:
        pairs=f"{RES}/compare/pairs.csv",
        json=f"{RES}/compare/compare.json",
        txt=f"{RES}/compare/compare.txt",
    params:
        src=src,
        # the prereg's compare block (trials contract section 11), each its own
        # argument (audit/kinds/arm.py compare_args)
        flags=list(A.compare_args),
        out=lambda w, output: str(Path(output.pairs).parent),
    log:
        f"{RES}/logs/compare_runs.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit compare-runs {params.flags:q}"
        " --trials {input.table:q} --out {params.out:q} > {log:q} 2>&1"
