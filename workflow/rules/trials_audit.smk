# Trials arm: the referee's trial tools, the settings census and compare-runs
# (the census, report and annex of both kinds: census.smk, annex.smk).


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


def compare_flags(wildcards):
    """Every flag from the prereg's compare block (trials contract section 11), as
    a list of arguments: `:q` quotes each on its own."""
    c = COMPARE
    under = ["--under-study", ",".join(c["under_study"])] if c["under_study"] else []
    return [
        str(c["a"]),
        str(c["b"]),
        "--denominator",
        str(c["denominator"]),
        "--k",
        ",".join(map(str, c["k"])),
        "--seed",
        str(_PREREG["seed"]),
        "--draws",
        str(c["draws"]),
        *under,
        *compare_policy_flags(c),
    ]


def compare_policy_flags(c):
    """The compare block's optional direction, unit, policies and power settings, as
    arguments (`--unit`, `points`, ...); a key left out keeps the command's default."""
    keys = ("difference", "unit", "reward", "broken", "alpha", "power")
    return [arg for k in keys if k in c for arg in (f"--{k}", str(c[k]))]  # schema: enums, numbers


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
        flags=compare_flags,
        out=lambda w, output: str(Path(output.pairs).parent),
    log:
        f"{RES}/logs/compare_runs.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit compare-runs {params.flags:q}"
        " --trials {input.table:q} --out {params.out:q} > {log:q} 2>&1"
