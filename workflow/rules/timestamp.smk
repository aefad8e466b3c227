# Both kinds: the lock's RFC 3161 time-stamp (docs/seal.md, "Time-stamps"), when
# the config names a time-stamping authority (tsa_url, tsa_cert, tsa_optional).
# LOCK_STAMP is what every job that computes (the contestants' runs, the
# controls, the trials comparisons) and the report and the annex take as input
# besides the lock: none can start before the lock's hash is stamped, a DAG
# edge. Empty without a TSA. SEAL_TSA: the seal's arguments for the head's stamp.
import time

TSA_URL = config.get("tsa_url", "")
TSA_CERT = config.get("tsa_cert", "")
TSA_OPTIONAL = bool(config.get("tsa_optional", False))
LOCK_STAMP = [f"{RES}/lock/timestamp.json"] if TSA_URL else []
SEAL_TSA = (
    ["--tsa-url", TSA_URL, "--tsa-cert", TSA_CERT, *(["--tsa-optional"] if TSA_OPTIONAL else [])]
    if TSA_URL
    else []
)


_RUN_BEGAN = time.time()  # a log older than this is an earlier run's


if TSA_URL:

    # Before any job (audit/seal/timestamp.py check_before_run): one line, exit 2.
    from audit.seal.timestamp import check_before_run as timestamp_check_before_run

    guard(timestamp_check_before_run, TSA_URL, TSA_CERT, TSA_OPTIONAL, LOCK_STAMP[0], PREREG_BLAKE3)

    rule timestamp_lock:
        input:
            events=f"{RES}/events/lock.json",
            cert=TSA_CERT,
        output:
            LOCK_STAMP,
        params:
            src=src,
            url=TSA_URL,
            token=f"{RES}/lock/lock.tsr",
            optional=["--optional"] if TSA_OPTIONAL else [],
        log:
            f"{RES}/logs/timestamp_lock.log",
        shell:
            "PYTHONPATH={params.src:q} python -m audit timestamp-lock --events {input.events:q}"
            " --out {output:q} --token {params.token:q} --url {params.url:q} --cert {input.cert:q}"
            " {params.optional:q} 2>&1 | tee {log:q}"
