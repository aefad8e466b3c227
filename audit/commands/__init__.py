"""The referee's subcommands, one module each.

``COMMANDS`` maps a subcommand's name to its module. Each module has ``HELP``
(one line for the command list), ``add_arguments(parser)`` (every argument with
its help) and ``run(args) -> int`` (the exit code). ``python -m audit`` and the
``secondseat`` console command build their command lines from this table
(``audit.commands.table.main``); a new subcommand is a new module and one line
here.
"""

from __future__ import annotations

COMMANDS: dict[str, str] = {
    "lock": "audit.commands.lock",
    "same-runs": "audit.commands.same_runs",
    "agree": "audit.commands.agree",
    "census": "audit.commands.census",
    "demo-bundle": "audit.commands.demo_bundle",
    "generate": "audit.commands.generate",
    "record": "audit.commands.record",
    "stamp": "audit.commands.stamp",
    "report": "audit.commands.report",
    "report-figures": "audit.commands.report_figures",
    "seal": "audit.commands.seal",
    "verify": "audit.commands.verify",
    "compare-annex": "audit.commands.compare_annex",
    "adapt-trials": "audit.commands.adapt_trials",
    "settings-census": "audit.commands.settings_census",
    "compare-runs": "audit.commands.compare_runs",
    "metrics": "audit.commands.metrics",
    "self-test": "audit.commands.self_test",
    "verify-ledger": "audit.commands.verify_ledger",
    "compare-items": "audit.commands.compare_items",
    "draft-prereg": "audit.commands.draft_prereg",
    "adapt-swebench": "audit.commands.adapt_swebench",
    "adapt-swebench-site": "audit.commands.adapt_swebench_site",
    "resolve": "audit.commands.resolve",
    "fetch-hf": "audit.commands.fetch_hf",
    "adapt-inspect": "audit.commands.adapt_inspect",
    "adapt-eee": "audit.commands.adapt_eee",
    "versus": "audit.commands.versus",
    "amendment-prereg": "audit.commands.amendment_prereg",
    "feasible": "audit.commands.feasible",
    "publish": "audit.commands.publish",
    "fetch-annex": "audit.commands.fetch_annex",
    "timestamp-lock": "audit.commands.timestamp_lock",
}
