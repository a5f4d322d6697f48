"""The OpenCompass plugin: everything that imports OpenCompass (or its mmengine) lives here.

* :mod:`.evaluator` -- :class:`GPassKEvaluator`, the ``BaseEvaluator`` that
  judges the n replicas of every question in one pass and reports G-Pass@k;
* :mod:`.replicas` -- OpenCompass's replica layout (row ``r * M + q``);
* :mod:`.datasets`, :mod:`.configs` -- LiveMathBench / MATH500-L5 / AIME
  loaders and one dataset config per benchmark; :mod:`.data_paths` -- where
  their files are, found without downloading;
* :mod:`.models` -- model wrappers (an OpenAI-compatible model that starts
  offline, TurboMind with one seed per generation) with
  :mod:`.sampling_seeds` and :mod:`.token_estimate`;
* :mod:`.runs` -- finished runs on disk, and their saved configs read as
  data (``ast`` and a whitelist; never executed);
* :mod:`.config_types` -- the one door from a saved config to OpenCompass:
  every ``type`` in it resolved against an allow-list (OpenCompass's
  registries, gpassk's own classes), anything else refused;
* :mod:`.rejudge` -- judging a finished run again through OpenCompass's own
  evaluation task;
* :mod:`.preflight` -- what a config needs (a GPU, lmdeploy, ...), checked
  before anything is launched; :mod:`.data_check` -- ``gpassk data check``.

May import: :mod:`gpassk_opencompass.metrics`, :mod:`~gpassk_opencompass.judges`,
:mod:`~gpassk_opencompass.scoring`, :mod:`~gpassk_opencompass.catalog`, :mod:`~gpassk_opencompass.checks`,
:mod:`~gpassk_opencompass.defaults`, :mod:`~gpassk_opencompass.errors`, :mod:`~gpassk_opencompass.files`,
:mod:`~gpassk_opencompass.log`, :mod:`~gpassk_opencompass.console` (bars drawn into the task log),
:mod:`~gpassk_opencompass.redaction`, :mod:`~gpassk_opencompass.render` (the
console report).
Nothing outside this subpackage imports OpenCompass.  This ``__init__``
imports nothing, so reading runs (:mod:`.runs`) works without OpenCompass.
"""
