"""The lock: the run's first job, above the seal (docs/seal.md, "The lock").

shared.py reads the prereg once and writes the lock's files; cells.py and trials.py
hash each kind's bundle; amends.py checks an amendment's parent. Each is handed
the results folder (where an amendment's parent lives); none infers it.
"""
