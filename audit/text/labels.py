"""Words for a reader: the one table of labels for the result files' keys (column headers,
classes, parts of a rule). The report shows the label, the raw key in a tooltip and in the
glossary that ends the page; the terminal summary and the certificate use the same labels.

A key not in the table (a prereg's own policy or column name) is shown as it is: it is the
prereg's word, and the prereg is what a reader checks it against.
"""

from __future__ import annotations

LABELS: dict[str, str] = {
    # classes of a cell
    "structural": "structural (identity, not compared)",
    "no_antecedent": "no antecedent in the data",
    "reproduced": "reproduced",
    "divergent": "divergent",
    "no_data": "no data",
    "infeasible": "infeasible",
    "not_published": "not published",
    "not_recorded": "not recorded",
    "recorded": "recorded",
    # classes of a trial (docs/trials-contract.md section 11.5)
    "passed": "passed",
    "failed": "failed",
    "broken_verifier": "broken verifier",
    "agent_error": "agent error",
    "infrastructure_error": "infrastructure error",
    "control_run": "control run",
    # headers of the census and its columns
    "class": "Class",
    "cells": "Cells",
    "column": "Column",
    "row_id": "Row",
    "entry": "Entry",
    "policy": "Policy",
    "rule": "Rule",
    "published": "Published",
    "recomputed": "Recomputed",
    "nearest": "Nearest recomputed",
    "abs_diff": "|difference|",
    "min_abs_diff": "Smallest |difference|",
    "min_divergent_abs_diff": "Smallest divergent |difference|",
    "tier": "Tier",
    "certain_tier": "Tier whatever the inputs' rounding",
    "null_mean": "Null mean",
    "null_sd": "Null SD",
    "null_max": "Null max",
    "null_p": "p (permutation null)",
    "null_expected": "Expected by chance (null mean)",
    "observed": "Observed",
    "draws_ge_observed": "Draws at or above observed",
    "draws": "Draws",
    "p": "p",
    # controls
    "control": "Control",
    "kind": "Kind",
    "target": "Target",
    "cells_predicted": "Cells predicted",
    "cells_ok": "Cells as predicted",
    "unpredicted_changes": "Unpredicted changes",
    "class_changes": "Class changes",
    "contestants_identical": "Contestants identical",
    "verdict": "Verdict",
    "reasons": "Reasons",
    "disclosed": "Disclosed row",
    # agreement beyond chance
    "chance_cells": "Cells",
    "chance_certain": "Certain by arithmetic",
    "chance_tested": "Tested",
    "chance_exact": "Exact",
    "chance_expected": "Exact expected by chance",
    "chance_p": "p (binomial)",
    "constructed": "Constructed",
    # trials: entries, intervals, settings
    "measure": "Measure",
    "macro": "Task-macro mean",
    "boot_low": "Bootstrap low",
    "boot_high": "Bootstrap high",
    "tasks": "Tasks",
    "tasks_left_out": "Tasks left out",
    "selected": "Trials selected",
    "scored": "Scored",
    "errored": "Errored",
    "unscored": "unscored",  # a header capitalises it
    "excluded": "Excluded",
    "values": "Values averaged",
    "reward_macro": "Reward (task-macro mean)",
    "reward_ci95": "95% half-width (Method D)",
    "reward_boot_low": "Bootstrap low",
    "reward_boot_high": "Bootstrap high",
    "pass_macro": "Pass rate (task-macro)",
    "setting": "Setting",
    "status": "Status",
    "value": "Value",
    "trials": "Trials",
    "runs": "Runs",
    "reproducing": "Rules reproducing",
    "exactly_one": "Exactly one rule",
    "certain": "Certain",
    "policies_all": "Rules reproducing every cell",
    "policies_all_tier0": "... at tier 0",
    "policies_all_certain": "... whatever the inputs' rounding",
    # compare-runs' per-task differences (pairs.csv)
    "a_values": "A trials counted",
    "b_values": "B trials counted",
    "a_mean": "A mean",
    "b_mean": "B mean",
    "a_passes": "A passes",
    "b_passes": "B passes",
    "difference": "Difference",
    # parts of a trials rule (denominator / measure / rounding)
    "attempted": "attempted (errors count 0)",
    "run_mean": "mean of run rates",
    "pooled_rate": "pooled rate",
    "se_runs_sample": "SE over runs (sample SD)",
    "se_runs_population": "SE over runs (population SD)",
    "se_binomial_pooled": "binomial SE of the pooled rate",
    "se_clustered_tasks": "SE clustered by task",
    "se_clustered_tasks_inspect": "SE clustered by task (Inspect)",
    "pass_at_k": "pass@k",
    "pass_hat_k": "pass^k",
    "half_even": "half-even",
    "half_up": "half-up",
    "down": "truncated",
}

# the rule parts' short forms where a table has no room for the long ones
SHORT: dict[str, str] = {
    "attempted": "attempted",
    "scored": "scored",
    "run_mean": "run mean",
    "pooled_rate": "pooled",
    "reward_macro": "task-macro",
    "reward_ci95": "Method D",
    "se_runs_sample": "SE runs (sample)",
    "se_runs_population": "SE runs (pop.)",
    "se_binomial_pooled": "SE binomial",
    "se_clustered_tasks": "SE clustered",
    "se_clustered_tasks_inspect": "SE clustered (Inspect)",
    "half_even": "half-even",
    "half_up": "half-up",
    "down": "truncated",
}


def label(key: str) -> str:
    """The reader's word for ``key``; the key itself when the table has none."""
    return LABELS.get(key, key)


# headers whose first letter is a symbol's and stays as it is
LOWER = {"p", "null_p", "chance_p"}


def header(key: str) -> str:
    """A table header: the label, or for a key the table lacks (a CSV's own column name), the
    key in words (underscores as spaces)."""
    text = LABELS.get(key) or key.replace("_", " ")
    return text if key in LOWER else text[:1].upper() + text[1:]


def rule(key: str) -> str:
    """A trials rule ``denominator/measure/rounding`` in words ("attempted · pooled ·
    half-even"); any other key as it is."""
    parts = key.split("/")
    if len(parts) < 2:
        return SHORT.get(key, label(key))
    return " · ".join(SHORT.get(p, p) for p in parts)


def glossary(keys: list[str]) -> list[tuple[str, str]]:
    """(key, label) for every key shown that the table renames (not merely capitalises or
    spaces), in first-shown order."""
    seen: dict[str, str] = {}
    for k in keys:
        # a label that is only the key in words ("no_data" -> "No data") needs no entry
        if k in LABELS and LABELS[k].lower() != k.replace("_", " ").lower() and k not in seen:
            seen[k] = LABELS[k]
    return list(seen.items())
