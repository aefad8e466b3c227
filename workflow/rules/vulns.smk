# The vulnerability audit of the locked environments (docs/seal.md, "Advisories"):
# pip-audit from its own environment (.venvs/vulns) against the exact pins of
# uv.lock. Volatile in the annex; never blocks: without network, pip-audit or
# with vulnerability_audit: false, it records why not and succeeds.
VULN_AUDIT = config.get("vulnerability_audit", True)


rule vulnerabilities:
    input:
        lock=f"{SRC}/uv.lock",
        project=f"{SRC}/pyproject.toml",
    output:
        f"{RES}/vulnerabilities.json",
    params:
        src=src,
        pip_audit=f"{SRC}/.venvs/vulns/bin/pip-audit",
        disabled=[] if VULN_AUDIT else ["--disabled"],
    log:
        f"{RES}/logs/vulnerabilities.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit.seal.vulns --src {params.src:q}"
        " --out {output:q} --pip-audit {params.pip_audit:q} {params.disabled:q} > {log:q} 2>&1"
