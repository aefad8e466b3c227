"""Either kind's prereg record: what the report, the certificate and their rank section
are handed of the locked prereg, parsed once by the kind's reader (Kind role ``record``).

The two records answer the questions the report asks of both alike (``name``,
``tolerances``, ``null_draws``, ``ranks``, ``disclosure``, ``judged()``,
``cell_tolerance(row, column)``, ``self_test``); what only one kind declares, its caller
reads after asking which record it holds.
"""

from __future__ import annotations

from audit.cells import record as cells
from audit.trials import record as trials

Prereg = cells.Prereg | trials.Prereg
