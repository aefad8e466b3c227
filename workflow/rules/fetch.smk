# A bundle on the Hugging Face Hub (config bundle: hf://datasets/<owner>/<name>@<commit>),
# fetched at that commit before the lock into results/<arm>/bundle/hf/: the files the
# prereg names (and its publisher_hash file, when the commit has one), each sha256
# checked against the Hub's record; hf-source.json beside them. The lock reads that
# folder and never the network. A branch or tag stops the run here, before any job.
import sys

if HF_URI:
    sys.path.insert(0, SRC)
    from audit.errors import AuditError
    from audit.bundles.hf import pinned

    try:
        pinned(HF_URI)
    except AuditError as _e:
        refuse(_e.kind, _config_source("bundle") + f" ({_e.path})", _e.detail)

    rule fetch_hf:
        output:
            leaderboard=A.shipped["leaderboard"],
            instances=A.shipped["instances"],
            record=f"{BUNDLE}/hf-source.json",
        params:
            src=src,
            uri=HF_URI,
            files=list(A.fetched),
            optional=list(A.fetched_optional),
            out=BUNDLE,
        log:
            f"{RES}/logs/fetch_hf.log",
        shell:
            "PYTHONPATH={params.src:q} python -m audit fetch-hf {params.uri:q}"
            " --files {params.files:q} --optional {params.optional:q}"
            " --out {params.out:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
