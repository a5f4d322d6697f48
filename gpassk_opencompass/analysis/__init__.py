"""Answers questions about results files: how much two judges agree, whether model A beats model B, how many
samples to draw.

One module per question, each a function from results files to a frozen report:

* :mod:`.agreement` -- ``gpassk agree``: two judges on the same generations (or the two stages of one
  cascade run): agreement, Cohen's kappa, the 2x2 table, how every metric moves, the items they disagree on;
* :mod:`.comparison` -- ``gpassk compare``: two runs on the same questions: per metric the difference,
  its paired bootstrap interval and sign-flip p-value;
* :mod:`.planning` -- ``gpassk plan``: from a pilot, the interval half-width to expect per metric at other
  n and question counts, the smallest n for a target, and a planned-vs-simulated calibration;
* their Markdown, JSON and HTML come from :mod:`gpassk_opencompass.render.reports` (below this package: it
  renders the reports it is given and imports none of these modules).

Inputs are results JSON files (``gpassk score`` output, or an OpenCompass run's
``results/<model>/<dataset>.json``), read only through
:func:`gpassk_opencompass.scoring.results.load_results`; a run folder is refused
with a message naming where its results files are.

May import: :mod:`~gpassk_opencompass.scoring` (the results reader), :mod:`~gpassk_opencompass.judges` (the
``Verdict`` type), :mod:`~gpassk_opencompass.uncertainty`, :mod:`~gpassk_opencompass.metrics`,
:mod:`~gpassk_opencompass.checks`, :mod:`~gpassk_opencompass.defaults`, :mod:`~gpassk_opencompass.errors`,
:mod:`~gpassk_opencompass.files`, :mod:`~gpassk_opencompass.log`, :mod:`~gpassk_opencompass.render` (and numpy, scipy; jinja2 and
matplotlib only through :mod:`~gpassk_opencompass.render`, when ``--html`` or the plot is asked for); never
OpenCompass.
"""
