# Both kinds: the lock's RFC 3161 time-stamp (docs/seal.md, "Time-stamps"), when
# the config names a time-stamping authority (tsa_url, tsa_cert, tsa_optional).
# LOCK_STAMP is what every job that computes (the contestants' runs, the
# controls, the trials comparisons) and the report and the annex take as input
# besides the lock: none can start before the lock's hash is stamped, a DAG
# edge. Empty without a TSA. SEAL_TSA: the seal's arguments for the head's stamp.
TSA_URL = config.get("tsa_url", "")
TSA_CERT = config.get("tsa_cert", "")
TSA_OPTIONAL = bool(config.get("tsa_optional", False))
LOCK_STAMP = [f"{RES}/lock/timestamp.json"] if TSA_URL else []
SEAL_TSA = (
    ["--tsa-url", TSA_URL, "--tsa-cert", TSA_CERT, *(["--tsa-optional"] if TSA_OPTIONAL else [])]
    if TSA_URL
    else []
)


def check_tsa():
    """Before any job: the trusted certificates read; while the lock is still to be
    stamped and the stamp is not optional, the TSA answers with a token that verifies
    (it stamps the prereg's blake3). Else one line, tsa_unavailable, exit 2."""
    from audit.errors import AuditError
    from audit.seal import timestamp

    try:
        timestamp.load_trusted(TSA_CERT, "bad_config")
        if not TSA_OPTIONAL and not Path(LOCK_STAMP[0]).is_file():
            timestamp.probe(TSA_URL, TSA_CERT, PREREG_BLAKE3)
    except AuditError as e:
        refuse(e.kind, e.path, e.detail)


if TSA_URL:

    check_tsa()

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
