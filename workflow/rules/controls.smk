# Injected-perturbation controls, both kinds (docs/controls.md): four jobs whatever
# the number of controls (predict and perturb, a rerun per contestant, check). One
# process predicts and stamps every control, and only then builds the perturbed
# bundles (`controls predict-perturb`: the prereg, the lock's checked copy of the
# bundle and the libraries read once, not twice); it checks each stamp before that
# control's perturbed bundle is written, and the check refuses a prediction whose
# bytes changed after its stamp. What a control reads and what its reruns write, the
# kind's common file says (control_source, control_source_args, CONTROL_BUNDLE,
# CONTROL_RUN_FILES); the controls' folders, arm.smk (control_files).
#
# The controls' chain (predict and perturb, the reruns, the check, the report's
# figures) is the longest: its head goes first after the lock (PREDICT_FIRST), its
# reruns after the contestants' first runs, which its check reads (CONTROLS_FIRST;
# common.smk).


if CONTROLS:

    rule controls_predict_perturb:
        priority: PREDICT_FIRST
        input:
            unpack(control_source),
            prereg=f"{RES}/lock/prereg.yaml",
            stamp=LOCK_STAMP,
        output:
            predictions=control_files("prediction.csv"),
            selections=control_files("selection.json"),
            stamps=control_files("stamp.json"),
            bundles=expand(
                f"{RES}/controls/{{control}}/bundle/{{f}}", control=CONTROLS, f=CONTROL_BUNDLE
            ),
            events=expand(f"{RES}/events/perturb-{{control}}.json", control=CONTROLS),
        params:
            src=src,
            kind=KIND.name,
            source=control_source_args,
            controls=control_args,
            out=lambda w, output: controls_folder(output.stamps),
            events=lambda w, output: str(Path(output.events[0]).parent),
        log:
            f"{RES}/logs/controls_predict_perturb.log",
        shell:
            "PYTHONPATH={params.src:q} python -m controls predict-perturb --prereg {input.prereg:q} --kind {params.kind:q}"
            " {params.source:q} {params.controls:q} --out {params.out:q}"
            " --events {params.events:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""

    # One process of each contestant recomputes every perturbed bundle (its own
    # environment, as the recompute), without the null.
    rule controls_recompute:
        priority: CONTROLS_FIRST
        input:
            prereg=f"{RES}/lock/prereg.yaml",
            bundles=expand(
                f"{RES}/controls/{{control}}/bundle/{{f}}", control=CONTROLS, f=CONTROL_BUNDLE
            ),
            env="results/envs/impl-{impl}.synced",
        output:
            expand(
                f"{RES}/controls/{{control}}/{{{{impl}}}}/{{f}}.csv",
                control=CONTROLS,
                f=CONTROL_RUN_FILES,
            ),
        params:
            src=src,
            python=lambda w: impl_python(w.impl),
            command=lambda w: contestant_command(w.impl),
            # --bundle <c>/bundle --out <c>/<impl>, for each control, in order
            pairs=lambda w, input: [
                a
                for k in range(len(CONTROLS))
                for folder in [Path(input.bundles[k * len(CONTROL_BUNDLE)]).parent]
                for a in ("--bundle", str(folder), "--out", str(folder.parent / w.impl))
            ],
        log:
            f"{RES}/logs/controls_recompute_{{impl}}.log",
        shell:
            "PYTHONPATH={params.src:q} {params.python:q} {params.command:q} --prereg {input.prereg:q}"
            " {params.pairs:q} --no-draws 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""


rule controls_check:
    input:
        prereg=f"{RES}/lock/prereg.yaml",
        predictions=control_files("prediction.csv"),
        selections=control_files("selection.json"),
        stamps=control_files("stamp.json"),
        before=expand(f"{RES}/recompute/{{impl}}/run1/{{f}}.csv", impl=IMPLS, f=CONTROL_RUN_FILES),
        after=expand(
            f"{RES}/controls/{{control}}/{{impl}}/{{f}}.csv",
            control=CONTROLS,
            impl=IMPLS,
            f=CONTROL_RUN_FILES,
        ),
    output:
        checks=control_files("check.csv"),
        verdicts=control_files("verdict.json"),
        csv=f"{RES}/controls.csv",
        md=f"{RES}/controls.md",
    params:
        src=src,
        kind=KIND.name,
        controls=control_args,
        folder=lambda w, output: str(Path(output.csv).parent / "controls"),
        # argument lists: `:q` quotes each element on its own
        before=lambda w, input: [
            a
            for k, i in enumerate(IMPLS)
            for a in ("--before", i, str(Path(input.before[k * len(CONTROL_RUN_FILES)]).parent))
        ],
    log:
        f"{RES}/logs/controls_check.log",
    shell:
        "PYTHONPATH={params.src:q} python -m controls check --prereg {input.prereg:q} --kind {params.kind:q}"
        " {params.controls:q} --controls {params.folder:q} {params.before:q}"
        " --out-csv {output.csv:q} --out-md {output.md:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
