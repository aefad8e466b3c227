# The self-test (docs/self-test.md): faults injected into the contestants, and
# the stages that flag them. Built only when asked for explicitly
#   uv run snakemake --cores 2 results/<arm>/self-test.md
# or, when the prereg's self_test key names its bundles, as part of the annex. Either
# kind's record answers self_test (a trials prereg declares none: always empty).
SELF_TEST_BUNDLES = list(RECORD.self_test) or ["demo", "demo-edges"]


rule self_test:
    input:
        envs=expand("results/envs/impl-{impl}.synced", impl=IMPLS),
    output:
        md=f"{RES}/self-test.md",
        csv=f"{RES}/self-test.csv",
    params:
        src=src,
        bundles=SELF_TEST_BUNDLES,
        shared=str(Path(SRC, "..", "shared", "bundles")),
        out=lambda w, output: str(Path(output.md).parent),
    log:
        f"{RES}/logs/self_test.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit self-test --bundles {params.bundles:q}"
        " --shared {params.shared:q} --out {params.out:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""


if RECORD.self_test:

    # The annex waits for the kill matrix the prereg asks for (audit seal copies it).
    use rule annex as annex_with_self_test with:
        input:
            events=event_files(CONTROLS),
            report=f"{RES}/report/report.html",
            census=f"{RES}/census.txt",
            controls=f"{RES}/controls.md",
            self_test=f"{RES}/self-test.md",
            stamp=LOCK_STAMP,

    ruleorder: annex_with_self_test > annex
