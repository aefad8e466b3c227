"""What both kinds of arm share: the strict YAML reader, the arm's kind, the disclosure,
the contestants' environments, their two runs and their agreement."""
