"""secondseat: the installable command (``secondseat``) and the workflow it ships.

``secondseat <command>`` is the referee's command line (the table in
audit/commands) plus ``secondseat audit``, which runs the packaged Snakefile
through Snakemake (secondseat/workflow_run.py; docs/cli.md).
"""
