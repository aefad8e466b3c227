# Both kinds: the census (one class per cell; docs/contract.md, docs/trials-contract.md)
# and the record of every output the seal will chain. What the census writes and
# what is recorded are each kind's (CENSUS_OUTPUTS, RECORDED_OUTPUTS).
rule census:
    input:
        agreement=f"{RES}/agreement.json",
        cells=f"{RES}/recompute/pandas/run1/census.csv",
        prereg=f"{RES}/lock/prereg.yaml",
        lock=f"{RES}/lock/lock.json",
    output:
        **CENSUS_OUTPUTS,
    params:
        src=src,
        kind=KIND.name,
        cells=lambda w, input: str(Path(input.cells).parent),
        out=lambda w, output: str(Path(output.txt).parent),
    log:
        f"{RES}/logs/census.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit census --agreement {input.agreement:q}"
        " --cells {params.cells:q} --prereg {input.prereg:q} --kind {params.kind:q} --lock {input.lock:q}"
        " --out-dir {params.out:q} > {log:q} 2>&1"


rule record_outputs:
    input:
        outputs=RECORDED_OUTPUTS,
    output:
        f"{RES}/events/outputs.json",
    params:
        src=src,
    log:
        f"{RES}/logs/record_outputs.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit record {input.outputs:q}"
        " --events {output:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
