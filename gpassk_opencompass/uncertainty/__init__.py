"""How sure is a number: intervals, paired comparisons, sample sizes and judge agreement. Pure.

* :mod:`.bayes` -- Beta-Binomial posterior per question: posterior mean,
  standard deviation and credible interval of G-Pass@k_tau and mG-Pass@k;
* :mod:`.planner` -- from a pilot, the interval half-width to expect at other
  n (and question counts), and the smallest n for a target width;
* :mod:`.paired` -- two models on the same questions: per-metric difference,
  paired interval and p-value; rank intervals for a leaderboard;
* :mod:`.agreement` -- two judges on the same generations: agreement, Cohen's
  kappa, the 2x2 table and the items they disagree on.

Functions of arrays (questions x generations verdicts, or per-question
counts); they know nothing of files, OpenCompass or HTTP.  May import:
:mod:`gpassk_opencompass.metrics`, numpy, scipy.
"""
