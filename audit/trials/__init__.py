"""A trials arm (trials v1, docs/trials-contract.md): its prereg, lock and census, outcome
classes, statistics, settings census and the run comparisons. The trial adapters are in
audit.adapters."""
