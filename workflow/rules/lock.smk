# Both kinds: the lock, the run's first job (docs/seal.md). What it reads besides
# the prereg, the bundle folder it hashes, a trials source's assembled table and the
# shipped files it copies where the contestants read them (a trials source's
# leaderboard) are the arm's (lock_inputs, LOCK_BUNDLE, LOCK_ASSEMBLED, LOCK_COPIES:
# common.smk). The bundle's tables are judged before anything is written: by preflight
# (--judged, LOCK_JUDGED), or by the lock itself when preflight could not (a bundle a
# rule builds, a trials source's jobs folder past its bound).
#
# Every job of the arm waits for the lock: it goes first (LOCK_FIRST, common.smk).


rule lock:
    priority: LOCK_FIRST
    input:
        unpack(lock_inputs),
        prereg=locked_input(PREREG),
    output:
        prereg=f"{RES}/lock/prereg.yaml",
        lock=f"{RES}/lock/lock.json",
        files=f"{RES}/lock/files.json",
        events=f"{RES}/events/lock.json",
        copies=LOCK_COPIES,
    params:
        src=src,
        expected=PREREG_BLAKE3,
        kind=KIND.name,
        expect_bundle=EXPECT_BUNDLE,
        bundle=LOCK_BUNDLE,
        assembled=LOCK_ASSEMBLED,
        judged=LOCK_JUDGED,
        out=lambda w, output: str(Path(output.lock).parent),
        results=lambda w: RESULTS,
    log:
        f"{RES}/logs/lock.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit lock --prereg {input.prereg:q} --kind {params.kind:q}"
        " --expected-blake3 {params.expected:q} --bundle {params.bundle:q} {params.assembled:q}"
        " --out-dir {params.out:q} --results {params.results:q} --events {output.events:q} {params.expect_bundle:q}"
        " {params.judged:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
