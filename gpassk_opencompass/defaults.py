"""Every default setting and named limit that more than one layer reads, defined once.

The settings models (:class:`~gpassk_opencompass.judges.JudgeSettings`, the
scoring request), ``GPassKEvaluator``, the CLI's options, ``score()`` and the
metrics all read their defaults from here; none writes the value again.

>>> CONCURRENCY, REQUEST_TIMEOUT, N_BOOT, CI, PRIOR
(32, 600.0, 1000, 0.95, (1.0, 1.0))
>>> MAX_N, N_BOOT_PAIRED, N_PERM, EXACT_MAX, N_CALIBRATION, MAX_RULE_TIMEOUT
(100000, 2000, 10000, 20, 2000, 600)
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

#: Bootstrap resamples of the questions behind a paired interval or a rank interval (compare, leaderboard).
N_BOOT_PAIRED = 2000

#: Random sign vectors of a Monte Carlo sign-flip test.
N_PERM = 10_000

#: The most differing questions whose sign vectors are all enumerated (an exact p-value).
EXACT_MAX = 20

#: Simulated runs per planned row behind ``gpassk plan --calibration-plot``.
N_CALIBRATION = 2000

#: The most seconds the rule judge may spend on one parse or comparison: beyond ten minutes a judge model
#: (``--judge cascade``) is the better way.
MAX_RULE_TIMEOUT = 600

#: A run whose share of generations cut at the output limit is above this gets a warning (leaderboard rows, page).
CUT_WARNING_SHARE = 0.05

#: A config larger than this is not read (OpenCompass's dumps are tens of kB): the saved configs of runs, the
#: configs ``gpassk grid run`` checks, and those it copies into a curtailed run's folder.
MAX_CONFIG_BYTES = 8 * 1024 * 1024
