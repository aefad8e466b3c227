rule census:
    input:
        agreement=f"{RES}/agreement.json",
        cells=f"{RES}/recompute/pandas/run1/census.csv",
        prereg=f"{RES}/lock/prereg.yaml",
        lock=f"{RES}/lock/lock.json",
    output:
        txt=f"{RES}/census.txt",
        json=f"{RES}/census.json",
        columns=f"{RES}/census_columns.csv",
        cells=f"{RES}/census_cells.csv",
        rows=f"{RES}/census_rows.csv",
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


rule record_outputs:
    input:
        outputs=[
            *expand(
                f"{RES}/recompute/{{impl}}/run{{run}}/{{f}}.csv",
                impl=IMPLS,
                run=RUNS,
                f=RUN_FILES,
            ),
            f"{RES}/agreement.json",
            f"{RES}/census.json",
            f"{RES}/census_columns.csv",
            f"{RES}/census_cells.csv",
            f"{RES}/census_rows.csv",
            *expand(
                f"{RES}/controls/{{control}}/{{impl}}/{{f}}.csv",
                control=CONTROLS,
                impl=IMPLS,
                f=["cells", "census", "reproduce"],
            ),
            *expand(f"{RES}/controls/{{control}}/check.csv", control=CONTROLS),
            f"{RES}/controls.csv",
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
