"""The arm kinds above the kinds they register: the registry (arm_kind.py: each kind's
prereg, lock, contestants' entry, census, report, certificate, controls' source), the arm
record the workflow runs (arm.py) and the files the agreement compares (agreed.py)."""
