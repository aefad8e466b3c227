"""The seal: the ledger, the annex, its verification and comparison (docs/seal.md).

At the bottom of the referee: it imports no kind's package (cells, trials), no report and
no lock (pyproject.toml's import-linter contracts); what is a kind's own, the certificate
and the prereg's checks, the kind registry hands it (audit/core/arm_kind.py).
"""
