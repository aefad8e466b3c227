# Both kinds: the two contestants' outputs compared, cell by cell (leaderboard) or
# table by table (trials); the locked prereg's kind decides the files compared.


rule agree:
    input:
        same=expand(f"{RES}/recompute/{{impl}}/runs-identical.json", impl=IMPLS),
        a=f"{RES}/recompute/pandas/run1/cells.csv",
        b=f"{RES}/recompute/pyarrow/run1/cells.csv",
        prereg=f"{RES}/lock/prereg.yaml",
    output:
        json=f"{RES}/agreement.json",
        md=f"{RES}/agreement.md",
    params:
        src=src,
        kind=KIND.name,
        a=lambda w, input: str(Path(input.a).parent),
        b=lambda w, input: str(Path(input.b).parent),
    log:
        f"{RES}/logs/agree.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit agree --prereg {input.prereg:q} --kind {params.kind:q}"
        " --a {params.a:q} --b {params.b:q}"
        " --names pandas pyarrow --out-json {output.json:q} --out-md {output.md:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
