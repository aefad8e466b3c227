# How many jobs draw the permutation null per contestant and run, and which
# draws each takes: both kinds (docs/contract.md "Sharded null draws",
# docs/trials-contract.md 9.1). An execution setting, not the method: the
# merged nulls.csv and null_hist.csv are the same bytes for any count.
NULL_DRAWS = RECORD.null_draws  # either kind's record: the checked prereg's count
NULL_SHARDS = config.get("null_shards", 1)
if NULL_SHARDS > NULL_DRAWS > 0:
    refuse(
        "bad_config",
        _config_source("null_shards"),
        f"at null_shards: {NULL_SHARDS} shards for {NULL_DRAWS} null draws (at most one per draw)",
    )

# One shard (the default): each recompute draws its null itself, the same bytes
# without two more processes per run; more: null-draws jobs over ranges of draws
# and a null-merge per contestant and run (null_draws.smk).
DRAWS_IN_RECOMPUTE = NULL_SHARDS == 1


def null_range(shard):
    """Shard i of NULL_SHARDS draws the contiguous range A:B, sizes differing by at most one."""
    return f"{shard * NULL_DRAWS // NULL_SHARDS}:{(shard + 1) * NULL_DRAWS // NULL_SHARDS}"
