"""A trials arm (trials v1, docs/trials-contract.md): its prereg, lock and census, the trial
adapters, outcome classes, statistics, settings census and the run comparisons."""
