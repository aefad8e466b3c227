# Both kinds: the report and the sealed annex (docs/seal.md). What the report reads
# and draws, and the arm's controls, are each kind's (REPORT_INPUTS, REPORT_OUTPUTS,
# CONTROLS, CONTROLS_MD); event_files and sealed_inputs (arm.smk) are shared.
rule report:
    input:
        **REPORT_INPUTS,
        census=f"{RES}/census.json",
        agreement=f"{RES}/agreement.json",
        vulns=f"{RES}/vulnerabilities.json",
        versus=VERSUS,
        stamp=LOCK_STAMP,
    output:
        **REPORT_OUTPUTS,
    params:
        src=src,
        kind=KIND.name,
        res=lambda w, input: str(Path(input.census).parent),
        out=lambda w, output: str(Path(output.md).parent),
    log:
        f"{RES}/logs/report.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit report --res {params.res:q} --kind {params.kind:q} --out {params.out:q}"
        " > {log:q} 2>&1"


rule annex:
    input:
        events=event_files(CONTROLS),
        report=f"{RES}/report/report.html",
        census=f"{RES}/census.txt",
        controls=CONTROLS_MD,
        vulns=f"{RES}/vulnerabilities.json",
        sealed=sealed_inputs(CONTROLS),
        stamp=LOCK_STAMP,
    output:
        annex=directory(f"{RES}/annex"),
        ledger=f"{RES}/ledger.jsonl",
    params:
        src=src,
        arm=ARM,
        kind=KIND.name,
        res=lambda w, input: str(Path(input.census).parent),
        key=SEAT_KEY,
        tsa=SEAL_TSA,
    log:
        f"{RES}/logs/annex.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit seal --res {params.res:q} --arm {params.arm:q} --kind {params.kind:q}"
        " --events {input.events:q} --ledger-out {output.ledger:q} --out {output.annex:q}"
        " --key={params.key:q} --src {params.src:q} {params.tsa:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""


if FIGURE_OUTPUTS:

    rule report_figures:
        input:
            **FIGURE_INPUTS,
        output:
            **FIGURE_OUTPUTS,
        params:
            src=src,
            res=lambda w, input: str(Path(input.prereg).parent.parent),  # <res>/lock/prereg.yaml
            out=lambda w, output: str(Path(output[0]).parent),
        log:
            f"{RES}/logs/report_figures.log",
        shell:
            "PYTHONPATH={params.src:q} python -m audit report-figures --res {params.res:q} --out {params.out:q}"
            " > {log:q} 2>&1"
