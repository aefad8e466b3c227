"""The one prereg parser of this contestant, for its leaderboard part and its trials part.

A prereg is read as plain data (plain_yaml.py), its kind decided and that kind's JSON
Schema checked (.document); then each kind's own checks, what a schema cannot say:
.cells for a leaderboard prereg (cells v1), .trials for a trials prereg (trials v1).
What both kinds hold alike (integers, exact decimals, tolerances) is read by .fields.
"""
