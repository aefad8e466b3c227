# Both kinds: the permutation null's draws when null_shards > 1 (docs/contract.md,
# "Sharded null draws"; docs/trials-contract.md 9.1): NULL_SHARDS independent jobs
# per contestant and run, each a range of draws (null_range, null_shards.smk), merged
# by the same contestant into the run's nulls.csv and null_hist.csv: byte-identical
# to drawing them all in the recompute itself, as the recompute does with one shard.
# contestant_command (common.smk, trials_common.smk): the contestant's entry for the
# arm's kind, `python -m impl_<x>` or `python -m impl_<x> trials`.
if not DRAWS_IN_RECOMPUTE:

    rule null_draws:
        input:
            prereg=f"{RES}/lock/prereg.yaml",
            table=f"{RES}/recompute/{{impl}}/run{{run}}/reproduce.csv",
            env="results/envs/impl-{impl}.synced",
        output:
            f"{RES}/recompute/{{impl}}/run{{run}}/null-draws/{{shard}}.csv",
        params:
            src=src,
            python=lambda w: impl_python(w.impl),
            module=lambda w: contestant_command(w.impl),
            draws=lambda w: null_range(int(w.shard)),
        log:
            f"{RES}/logs/null_draws_{{impl}}_run{{run}}_{{shard}}.log",
        shell:
            "PYTHONPATH={params.src:q} {params.python:q} {params.module:q} null-draws"
            " --prereg {input.prereg:q} --table {input.table:q} --draws {params.draws:q}"
            " --out {output:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""

    rule null_merge:
        input:
            prereg=f"{RES}/lock/prereg.yaml",
            table=f"{RES}/recompute/{{impl}}/run{{run}}/reproduce.csv",
            parts=expand(
                f"{RES}/recompute/{{{{impl}}}}/run{{{{run}}}}/null-draws/{{shard}}.csv",
                shard=range(NULL_SHARDS),
            ),
        output:
            nulls=f"{RES}/recompute/{{impl}}/run{{run}}/nulls.csv",
            hist=f"{RES}/recompute/{{impl}}/run{{run}}/null_hist.csv",
        params:
            src=src,
            python=lambda w: impl_python(w.impl),
            module=lambda w: contestant_command(w.impl),
            out=lambda w, output: str(Path(output.nulls).parent),
        log:
            f"{RES}/logs/null_merge_{{impl}}_run{{run}}.log",
        shell:
            "PYTHONPATH={params.src:q} {params.python:q} {params.module:q} null-merge"
            " --prereg {input.prereg:q} --table {input.table:q} --out {params.out:q}"
            " {input.parts:q} 2>&1 | tee {log:q} >\"${{SECONDSEAT_JOB_OUTPUT:-/dev/null}}\""
