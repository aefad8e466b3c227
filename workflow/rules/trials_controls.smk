# Trial-level controls (docs/controls.md), as for the leaderboard: a control's
# prediction is stamped (rule trial_control_stamp) before the rule that builds its
# perturbed table (the trial table, or the registry) may run, and both refuse a
# prediction whose bytes changed after the stamp. Both contestants then recompute
# the perturbed table.

TRIAL_CONTROLS = sorted(_PREREG.get("controls") or {})
CONTROL_TABLE = SOURCE["table"]  # the file a control perturbs, as the contestants read it


wildcard_constraints:
    control="|".join(TRIAL_CONTROLS) if TRIAL_CONTROLS else "(?!)",


ARM_CONTROLS = TRIAL_CONTROLS  # the shared annex rule's controls (annex.smk)
CONTROLS_MD = [f"{RES}/controls.md"] if TRIAL_CONTROLS else []


rule trial_control_predict:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        table=lambda w: source_inputs(w)["table"],
        lock=f"{RES}/lock/lock.json",
    output:
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
    params:
        src=src,
    log:
        f"{RES}/logs/control_predict_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls predict-trials --prereg {input.prereg:q}"
        " --table {input.table:q} --control {wildcards.control:q}"
        " --out-prediction {output.prediction:q} --out-selection {output.selection:q}"
        " 2>&1 | tee {log:q}"


rule trial_control_stamp:
    input:
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
    output:
        f"{RES}/controls/{{control}}/stamp.json",
    params:
        src=src,
    log:
        f"{RES}/logs/control_stamp_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m audit stamp {input.prediction:q} {input.selection:q}"
        " --events {output:q} 2>&1 | tee {log:q}"


rule trial_control_perturb:
    input:
        stamp=f"{RES}/controls/{{control}}/stamp.json",
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
        prereg=f"{RES}/lock/prereg.yaml",
        table=lambda w: source_inputs(w)["table"],
        lock=f"{RES}/lock/lock.json",
    output:
        table=f"{RES}/controls/{{control}}/bundle/{CONTROL_TABLE}",
        events=f"{RES}/events/perturb-{{control}}.json",
    params:
        src=src,
        out=lambda w, output: str(Path(output.table).parent),
    log:
        f"{RES}/logs/control_perturb_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls perturb-trials --prereg {input.prereg:q}"
        " --table {input.table:q} --selection {input.selection:q}"
        " --prediction {input.prediction:q} --stamp {input.stamp:q}"
        " --events {output.events:q} --out {params.out:q} 2>&1 | tee {log:q}"


# One rule for both contestants, each in its own environment, as recompute_trials.
rule trial_control_recompute:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        table=f"{RES}/controls/{{control}}/bundle/{CONTROL_TABLE}",
        env="results/envs/impl-{impl}.synced",
    output:
        entries=f"{RES}/controls/{{control}}/{{impl}}/entries.csv",
        tasks=f"{RES}/controls/{{control}}/{{impl}}/tasks.csv",
    params:
        src=src,
        python=lambda w: impl_python(w.impl),
        module=lambda w: trials_module(w.impl),
        bundle=lambda w, input: str(Path(input.table).parent),
        out=lambda w, output: str(Path(output.entries).parent),
    log:
        f"{RES}/logs/control_recompute_{{impl}}_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} {params.python:q} {params.module:q} --prereg {input.prereg:q}"
        " --bundle {params.bundle:q} --out {params.out:q} 2>&1 | tee {log:q}"


rule trial_control_check:
    input:
        stamp=f"{RES}/controls/{{control}}/stamp.json",
        prediction=f"{RES}/controls/{{control}}/prediction.csv",
        selection=f"{RES}/controls/{{control}}/selection.json",
        before=expand(f"{RES}/recompute/{{impl}}/run1/entries.csv", impl=IMPLS),
        after=expand(f"{RES}/controls/{{{{control}}}}/{{impl}}/entries.csv", impl=IMPLS),
    output:
        csv=f"{RES}/controls/{{control}}/check.csv",
        json=f"{RES}/controls/{{control}}/verdict.json",
    params:
        src=src,
        before=lambda w, input: [
            x for i, f in zip(IMPLS, input.before) for x in ("--before", i, str(Path(f).parent))
        ],
        after=lambda w, input: [
            x for i, f in zip(IMPLS, input.after) for x in ("--after", i, str(Path(f).parent))
        ],
    log:
        f"{RES}/logs/control_check_{{control}}.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls check-trials --selection {input.selection:q}"
        " --prediction {input.prediction:q} --stamp {input.stamp:q}"
        " {params.before:q} {params.after:q}"
        " --out-csv {output.csv:q} --out-json {output.json:q} 2>&1 | tee {log:q}"


rule trial_controls_summary:
    input:
        verdicts=expand(f"{RES}/controls/{{control}}/verdict.json", control=TRIAL_CONTROLS),
        checks=expand(f"{RES}/controls/{{control}}/check.csv", control=TRIAL_CONTROLS),
        prereg=f"{RES}/lock/prereg.yaml",
    output:
        csv=f"{RES}/controls.csv",
        md=f"{RES}/controls.md",
    params:
        src=src,
    log:
        f"{RES}/logs/controls_summary.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls summary --verdicts {input.verdicts:q}"
        " --checks {input.checks:q} --prereg {input.prereg:q} --out-csv {output.csv:q} --out-md {output.md:q}"
        " 2>&1 | tee {log:q}"
