"""What a control command raises when a control cannot be applied.

Its own module, so that a command that only checks (``controls check``,
``controls summary``) starts without the polars the predictions use.
"""


class ControlError(Exception):
    """A control that cannot be applied to this bundle (e.g. no eligible row)."""
