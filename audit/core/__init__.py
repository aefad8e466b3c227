"""What both kinds of arm share, under the kinds and the seal: the strict YAML reader, the
disclosure, the contestants' environments, their two runs and their agreement. The arm's
kind and the arm record are audit/kinds/, above the kinds they register."""
