# Trials arm: agreement, census (classes, rule recovery, intervals), settings
# census, compare-runs, ledger, report, annex.


rule census_trials:
    input:
        agreement=f"{RES}/agreement.json",
        cells=f"{RES}/recompute/pandas/run1/census.csv",
        prereg=f"{RES}/lock/prereg.yaml",
        lock=f"{RES}/lock/lock.json",
    output:
        txt=f"{RES}/census.txt",
        json=f"{RES}/census.json",
        intervals=f"{RES}/intervals.csv",
        recovery=f"{RES}/recovery.csv",
        entries=f"{RES}/entries.csv",
        rows=f"{RES}/census_rows.csv",
        recomputed_only=f"{RES}/recomputed_only.csv",
        cells=f"{RES}/census_cells.csv",  # the contestants' census.csv, as the seal copies it
    params:
        src=src,
        cells=lambda w, input: str(Path(input.cells).parent),
        out=lambda w, output: str(Path(output.txt).parent),
    log:
        f"{RES}/logs/census.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit census --agreement {input.agreement:q}"
        " --cells {params.cells:q} --prereg {input.prereg:q} --lock {input.lock:q}"
        " --out-dir {params.out:q} > {log:q} 2>&1"


rule settings_census:
    input:
        table=f"{RES}/bundle/trials.parquet",
        lock=f"{RES}/lock/lock.json",
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
    """The compare block's optional direction, unit, policies and power settings."""
    keys = ("difference", "unit", "reward", "broken", "alpha", "power")
    return "".join(f" --{k} {c[k]}" for k in keys if k in c)  # schema: enums, numbers


rule compare_runs:
    input:
        table=f"{RES}/bundle/trials.parquet",
        lock=f"{RES}/lock/lock.json",
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


rule record_outputs_trials:
    input:
        outputs=[
            *([f"{RES}/bundle/adapter.json"] if IS_TRIALS_SOURCE else []),
            *expand(
                f"{RES}/recompute/{{impl}}/run{{run}}/{{f}}.csv",
                impl=IMPLS,
                run=RUNS,
                f=TRIAL_FILES,
            ),
            f"{RES}/agreement.json",
            *referee_outputs(),
            *VERSUS,
        ],
    output:
        f"{RES}/events/outputs.json",
    params:
        src=src,
    log:
        f"{RES}/logs/record_outputs.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit record {input.outputs:q}"
        " --events {output:q} 2>&1 | tee {log:q}"


rule report_trials:
    input:
        census=f"{RES}/census.json",
        agreement=f"{RES}/agreement.json",
        referee=referee_outputs(),
        vulns=f"{RES}/vulnerabilities.json",
        versus=VERSUS,
    output:
        md=f"{RES}/report/report.md",
        html=f"{RES}/report/report.html",
        # the plots (audit/report/trials.py FIGURES), each written even when it has no data
        plots=expand(
            f"{RES}/report/{{plot}}.svg",
            plot=["task_rewards", "intervals", "null_histograms", "settings"],
        ),
    params:
        src=src,
        res=RES,
        out=lambda w, output: str(Path(output.md).parent),
    log:
        f"{RES}/logs/report.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit report --res {params.res:q} --out {params.out:q}"
        " > {log:q} 2>&1"


rule annex_trials:
    input:
        events=[
            f"{RES}/events/lock.json",
            *trial_control_events(),
            f"{RES}/events/outputs.json",
        ],
        report=f"{RES}/report/report.html",
        census=f"{RES}/census.txt",
        controls=[f"{RES}/controls.md"] if TRIAL_CONTROLS else [],
        vulns=f"{RES}/vulnerabilities.json",
        sealed=sealed_inputs(TRIAL_CONTROLS),
    output:
        annex=directory(f"{RES}/annex"),
        ledger=f"{RES}/ledger.jsonl",
    params:
        src=src,
        arm=ARM,
        res=lambda w, input: str(Path(input.census).parent),
        key=SEAT_KEY,
    log:
        f"{RES}/logs/annex.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit seal --res {params.res:q} --arm {params.arm:q}"
        " --events {input.events:q} --ledger-out {output.ledger:q} --out {output.annex:q}"
        " --key={params.key:q} --src {params.src:q} 2>&1 | tee {log:q}"
