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
#   logs/                                 one log per job
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/bundle.smk"
include: "workflow/rules/lock.smk"
include: "workflow/rules/recompute.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/controls.smk"


rule all:
    default_target: True
    input:
        get_final_output(),


onsuccess:
    shell("cat {RES}/census.txt {RES}/controls.csv")
