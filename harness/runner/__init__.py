"""What runs a trial: the typed configuration and its plan, the components (agent, user, judge), the agent
host and plug-ins, one trial (`trial`) and a whole run (`run`). Nothing is imported here, so importing one
of these modules (the CLI's `config` for `--help`) loads nothing else."""
