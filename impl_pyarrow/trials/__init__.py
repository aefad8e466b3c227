"""Trial-level recompute (docs/trials-contract.md, trials v1), contestant side.

Reads a task-level registry or the adapter's trial table, derives per-task values
under declared policies, recomputes task-macro means, Method D intervals and a
task bootstrap, and judges published leaderboard values with tiers and certain
tiers. Pure Python arithmetic; pyarrow for reading parquet and for the output
tables (trials/outputs.py).
"""
