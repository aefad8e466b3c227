rule lock:
    input:
        prereg=PREREG,
        leaderboard=bundle_file("leaderboard"),
        instances=bundle_file("instances"),
    output:
        prereg=f"{RES}/lock/prereg.yaml",
        lock=f"{RES}/lock/lock.json",
        files=f"{RES}/lock/files.json",
        events=f"{RES}/events/lock.json",
    params:
        src=src,
        expected=PREREG_BLAKE3,
        expect_bundle=EXPECT_BUNDLE,
        bundle=bundle_dir,
        out=lambda w, output: str(Path(output.lock).parent),
    log:
        f"{RES}/logs/lock.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit lock --prereg {input.prereg:q}"
        " --expected-blake3 {params.expected:q} --bundle {params.bundle:q}"
        " --out-dir {params.out:q} --events {output.events:q} {params.expect_bundle:q} 2>&1 | tee {log:q}"
