"""Text for a reader, below every kind and the report: the one number formatter (numbers.py)
and the one table of labels (labels.py) that the census records, the run comparisons, the
terminal summary, the report and the certificate all print through."""
