# An amendment arm (prereg key amends; docs/seal.md, "Amendment arms"): its census
# beside its parent's, read from the parent's verified annex, never written there.
rule versus:
    input:
        cells=f"{RES}/census_cells.csv",
        lock=f"{RES}/lock/lock.json",
        prereg=f"{RES}/lock/prereg.yaml",
        parent="results/{parent}/annex/manifest.json",
    output:
        csv=f"{RES}/versus-{{parent}}.csv",
        json=f"{RES}/versus-{{parent}}.json",
    params:
        src=src,
        res=lambda w, input: str(Path(input.lock).parent.parent),
        parent=lambda w, input: str(Path(input.parent).parent),
    log:
        f"{RES}/logs/versus-{{parent}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit versus --parent-annex {params.parent:q}"
        " --res {params.res:q} --out-csv {output.csv:q} --out-json {output.json:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
