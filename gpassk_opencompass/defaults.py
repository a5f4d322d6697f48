"""Every default setting and named limit that more than one layer reads, defined once.

The settings models (:class:`~gpassk_opencompass.judges.JudgeSettings`, the
scoring request), ``GPassKEvaluator``, the CLI's options, ``score()`` and the
metrics all read their defaults from here; none writes the value again.

>>> CONCURRENCY, REQUEST_TIMEOUT, N_BOOT, CI, PRIOR
(32, 600.0, 1000, 0.95, (1.0, 1.0))
>>> MAX_N
100000
"""

from __future__ import annotations

#: Requests an LLM judge keeps in flight at once.
CONCURRENCY = 32

#: Seconds one LLM judge request may take, end to end.
REQUEST_TIMEOUT = 600.0

#: Bootstrap resamples behind each interval.
N_BOOT = 1000

#: Level of every interval (bootstrap, Bayesian, kappa, paired difference).
CI = 0.95

#: Beta prior (alpha, beta) of the Bayesian estimate: uniform.
PRIOR = (1.0, 1.0)

#: The most generations per question accepted anywhere (metrics, scoring, grid).
MAX_N = 100_000
