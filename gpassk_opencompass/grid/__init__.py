"""The config generator: a template's model x temperature x benchmark grid -> OpenCompass config files.

* :mod:`.spec` -- pure: template variables -> :class:`~.spec.GridTemplate`
  -> one :class:`~.spec.RunSpec` per run; the one naming convention for
  model abbrs, dataset abbrs and file names; the manifest;
* :mod:`.overrides` -- ``--set KEY=VALUE``: the command line's changes to a
  template's variables;
* :mod:`.python_source` -- plain data -> the Python source of a config;
* :mod:`.writer` -- rendering and writing the config files and
  ``manifest.json`` (atomically, never over an existing file without force);
* :mod:`.launch` -- ``gpassk grid run``: one ``opencompass`` launch per
  config through OpenCompass's own runners (local, Slurm, DLC), resumed
  with ``-r``;
* :mod:`.status` -- ``gpassk grid status``: each config's state read from
  its results file and logs (OpenCompass exits 0 when a task fails).

``save_opencompass_configs.py`` at the repository's top is the thin entry
point.  May import: :mod:`~gpassk_opencompass.catalog`, :mod:`~gpassk_opencompass.checks`,
:mod:`~gpassk_opencompass.curtailed` (a template's ``curtail``, a curtailed run's rounds),
:mod:`~gpassk_opencompass.contracts`, :mod:`~gpassk_opencompass.defaults`, :mod:`~gpassk_opencompass.errors`,
:mod:`~gpassk_opencompass.files`, :mod:`~gpassk_opencompass.redaction`, :mod:`~gpassk_opencompass.log`,
:mod:`~gpassk_opencompass.console` (progress bars, a log's bars read without their sequences), the judge
names and prompts (:mod:`~gpassk_opencompass.judges`) and the results reader (:mod:`~gpassk_opencompass.scoring`);
the configs it writes reference the plugin's classes by import path, which it never imports.
"""
