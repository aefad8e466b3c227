# secondseat: a preregistered audit of a published leaderboard.
#
# Paths (all under results/<arm>/):
#   lock/prereg.yaml, lock/lock.json      the method as locked, the bundle's hashes
#   ledger.jsonl                          hash-chained record of what happened
#   recompute/<impl>/run<n>/              each contestant's canonical tables, twice
#   recompute/<impl>/runs-identical.json  proof the two runs wrote the same bytes
#   agreement.{json,md}                   the two contestants compared cell by cell
#   census.{txt,json}, census_*.csv       one class per cell, totals, per column
#   controls/<control>/                   prediction, stamp, perturbed bundle, both
#                                         contestants' outputs, check
#   controls.{csv,md}                     every control's verdict
#   report/                               report.md, report.html and the plots
#   versus-<parent>.{csv,json}            an amendment beside its parent (amends)
#   annex/                                the sealed annex a second seat verifies
#   logs/                                 one log per job
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


# The config, the seat and the prereg, once; the prereg alone decides the kind:
# leaderboard (cells v1) or trials (trials v1).
include: "workflow/rules/arm.smk"
# The lock's time-stamp, when the config names an authority: every computing job waits for it.
include: "workflow/rules/timestamp.smk"


if KIND.name == "trials":

    include: "workflow/rules/trials_common.smk"
    include: "workflow/rules/trials.smk"
    include: "workflow/rules/trials_audit.smk"

else:

    include: "workflow/rules/common.smk"
    include: "workflow/rules/bundle.smk"
    include: "workflow/rules/fetch.smk"
    include: "workflow/rules/selftest.smk"


# Both kinds, one rule per stage: the lock, the contestants' environments, their
# two runs, the null's draws in shards, the controls, the agreement, the census
# and the record of the outputs, the advisories of the locked environments, the
# report and the annex.
include: "workflow/rules/lock.smk"
include: "workflow/rules/runs.smk"
include: "workflow/rules/recompute.smk"
include: "workflow/rules/null_draws.smk"
include: "workflow/rules/controls.smk"
include: "workflow/rules/agree.smk"
include: "workflow/rules/census.smk"
include: "workflow/rules/vulns.smk"
include: "workflow/rules/annex.smk"


if PARENT:  # an amendment (prereg key amends) beside its sealed parent

    include: "workflow/rules/versus.smk"


rule all:
    default_target: True
    input:
        get_final_output(),


onstart:
    # Nothing rewrites a locked or sealed arm: checked once the DAG is built (guard_planned).
    guard_planned()


# The end of a run: the arm's answer (findings first), the report's path and the annex
# head, last; the same from the sealed files when there is nothing to do; Ctrl-C one
# line and exit 130 (print_run_summary, show_summary_on_nothing_to_do, interrupted_exit).
show_summary_on_nothing_to_do()


onsuccess:
    print_run_summary()
    release_scheduler_timers()


onerror:
    interrupted_exit()
    stamp_refused_exit()  # a stamp the TSA refused when due: its one line, exit 2
    release_scheduler_timers()
