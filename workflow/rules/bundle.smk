rule demo_bundle:
    output:
        leaderboard="results/demo-bundle/leaderboard.parquet",
        instances="results/demo-bundle/instances.parquet",
    params:
        src=src,
        out=lambda w, output: str(Path(output.leaderboard).parent),
    log:
        "results/logs/demo_bundle.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit demo-bundle --out {params.out:q} > {log:q} 2>&1"
