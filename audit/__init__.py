"""The referee: locks the method, compares the contestants, summarises, verifies.

It never recomputes a leaderboard cell itself.
"""

import csv as _csv

# Every CSV the referee (and the controls, which import it) reads is one the
# project wrote: a field as long as the data put there (a row id of megabytes,
# a reproduce.csv row of one character per leaderboard row) is valid, not the
# csv module's default limit of 131,072 characters.
_csv.field_size_limit(2**31 - 1)
