# secondseat: a preregistered audit of a published leaderboard. What the run writes
# under results/<arm>/: README.md, Layout; what an arm is, the config, the report's
# caption and the run's start and end: workflow/rules/common.smk.

# The config, the seat, the prereg and its kind, the arm: read and checked once.
include: "workflow/rules/common.smk"
# The lock's time-stamp, when the config names an authority.
include: "workflow/rules/timestamp.smk"
# One rule per stage, in the DAG's order: the bundle (the demo's, the Hub's, a trials
# source's adapted table), the lock, the contestants' environments and two runs each,
# the null's shards, the controls, the agreement, the census and the record, a trials
# arm's referee tools, the advisories, the report and the annex, an amendment's versus,
# the self-test. A rule the arm does not need is never requested.
include: "workflow/rules/bundle.smk"
include: "workflow/rules/fetch.smk"
include: "workflow/rules/trials.smk"
include: "workflow/rules/lock.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/recompute.smk"
include: "workflow/rules/null_draws.smk"
include: "workflow/rules/controls.smk"
include: "workflow/rules/agree.smk"
include: "workflow/rules/census.smk"
include: "workflow/rules/trials_audit.smk"
include: "workflow/rules/vulns.smk"
include: "workflow/rules/annex.smk"
include: "workflow/rules/versus.smk"
include: "workflow/rules/selftest.smk"


# What the arm builds when asked for nothing (common.smk, get_final_output).
rule all:
    default_target: True
    input:
        get_final_output(),


# The workflow is read: what that built lives as long as the process, out of Python's
# collector's way (preflight.smk, freeze_read).
freeze_read()
