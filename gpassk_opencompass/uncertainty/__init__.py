"""How sure is a number: intervals, paired comparisons, sample sizes and judge agreement. Pure.

* :mod:`.bayes` -- Beta-Binomial posterior per question: posterior mean,
  standard deviation and credible interval of G-Pass@k_tau and mG-Pass@k;
* :mod:`.planner` -- from a pilot, the interval half-width to expect at other
  n (and question counts), and the smallest n for a target width;
* :mod:`.curtailment` -- the same for a curtailed two-stage design: the law of its
  outcomes, the generations it draws and its estimator's variance, exactly;
* :mod:`.paired` -- two models on the same questions: per-metric difference,
  paired interval and p-value;
* :mod:`.ranks` -- ``K`` models on shared questions: rank intervals and the
  significance of a leaderboard's adjacent pairs;
* :mod:`.resampling` -- what those two resample: the sign-flip permutation test
  and the bootstrap over questions;
* :mod:`.agreement` -- two judges on the same generations: agreement, Cohen's
  kappa, the 2x2 table and the items they disagree on;
* :mod:`.numerics` -- what they share: the prior and count checks, binomial and
  Beta-Binomial rows (from :func:`gpassk_opencompass.metrics.pmf_from_log_ratios`).

Functions of arrays (questions x generations verdicts, or per-question
counts); they know nothing of files, OpenCompass or HTTP.  May import:
:mod:`gpassk_opencompass.metrics`, :mod:`~gpassk_opencompass.curtailed`, :mod:`~gpassk_opencompass.checks`,
:mod:`~gpassk_opencompass.errors`, :mod:`~gpassk_opencompass.defaults`, numpy, scipy.
"""

from gpassk_opencompass.uncertainty.agreement import (
    JudgeAgreement,
    MetricShift,
    disagreements,
    judge_agreement,
    metric_shift,
    verdict_counts,
)
from gpassk_opencompass.uncertainty.bayes import (
    BayesEstimate,
    PosteriorMoments,
    bayes_interval,
    bayes_interval_counts,
    counts_from_matrix,
    posterior_moments,
)
from gpassk_opencompass.uncertainty.paired import (
    AlignedRuns,
    PairedDifference,
    accuracy_key,
    align_runs,
    metric_values,
    paired_comparison,
)
from gpassk_opencompass.uncertainty.planner import (
    PlannedWidth,
    expected_half_width,
    pilot_probabilities,
    plan_table,
    smallest_n,
    within_question_variance,
)
from gpassk_opencompass.uncertainty.ranks import (
    AdjacentComparison,
    ModelRank,
    RankIntervals,
    adjacent_significance,
    rank_intervals,
)
from gpassk_opencompass.uncertainty.resampling import SignFlipTest, sign_flip_test

__all__ = [
    "AdjacentComparison",
    "AlignedRuns",
    "BayesEstimate",
    "JudgeAgreement",
    "MetricShift",
    "ModelRank",
    "PairedDifference",
    "PlannedWidth",
    "PosteriorMoments",
    "RankIntervals",
    "SignFlipTest",
    "accuracy_key",
    "adjacent_significance",
    "align_runs",
    "bayes_interval",
    "bayes_interval_counts",
    "counts_from_matrix",
    "disagreements",
    "expected_half_width",
    "judge_agreement",
    "metric_shift",
    "metric_values",
    "paired_comparison",
    "pilot_probabilities",
    "plan_table",
    "posterior_moments",
    "rank_intervals",
    "sign_flip_test",
    "smallest_n",
    "verdict_counts",
    "within_question_variance",
]
