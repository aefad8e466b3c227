"""Can a published number be true at all? (GRIM and GRIMMER-style checks.)

A rate or mean over N bounded integer scores is S/N for a whole S; a spread
(SD, SE, CI half-width) of such scores is fixed by their sum and sum of
squares. ``decimals`` reads a published value at its own printed decimals and
gives the exact interval of true values that print as it under a rounding
rule; ``grim`` decides, in whole numbers and fractions only, whether any count
gives the value; ``table`` reads a published table's column as text;
``python -m audit feasible`` (audit/commands/feasible.py) is the quick check.
"""
