rule report:
    input:
        census=f"{RES}/census.json",
        columns=f"{RES}/census_columns.csv",
        cells=f"{RES}/census_cells.csv",
        agreement=f"{RES}/agreement.json",
        hist=f"{RES}/recompute/pandas/run1/null_hist.csv",
        controls=f"{RES}/controls.csv",
        vulns=f"{RES}/vulnerabilities.json",
        versus=VERSUS,
    output:
        md=f"{RES}/report/report.md",
        html=report(
            f"{RES}/report/report.html",
            caption="../report/report.rst",
            category="Report",
            labels={"what": "the whole report"},
        ),
        census_map=report(
            f"{RES}/report/census_map.svg",
            caption="../report/census_map.rst",
            category="Census",
            labels={"what": "census map"},
        ),
        nulls=report(
            f"{RES}/report/null_histograms.svg",
            caption="../report/nulls.rst",
            category="Chance",
            labels={"what": "permutation nulls"},
        ),
        controls=report(
            f"{RES}/report/controls.svg",
            caption="../report/controls.rst",
            category="Controls",
            labels={"what": "predicted against measured"},
        ),
    params:
        src=src,
        res=lambda w, input: str(Path(input.census).parent),
        out=lambda w, output: str(Path(output.md).parent),
    log:
        f"{RES}/logs/report.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit report --res {params.res:q} --out {params.out:q}"
        " > {log:q} 2>&1"


rule annex:
    input:
        events=event_files(),
        report=f"{RES}/report/report.html",
        census=f"{RES}/census.txt",
        controls=f"{RES}/controls.md",
        vulns=f"{RES}/vulnerabilities.json",
        sealed=sealed_inputs(CONTROLS),
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
