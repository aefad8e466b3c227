"""The seal: the ledger, the annex, its verification and comparison (docs/seal.md).

Under the kinds, the report and the lock: it imports no kind's package (cells, trials),
no report, no lock and not the kind registry (pyproject.toml's import-linter contracts);
what is a kind's own, the certificate and the locked prereg's reader and checks, its
caller hands it (from the registry, audit/kinds/arm_kind.py).
"""
