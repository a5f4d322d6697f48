"""The config generator: a template's model x temperature x benchmark grid -> OpenCompass config files.

* :mod:`.spec` -- pure: template variables -> :class:`~.spec.GridTemplate`
  -> one :class:`~.spec.RunSpec` per run; the one naming convention for
  model abbrs, dataset abbrs and file names; the manifest;
* :mod:`.python_source` -- plain data -> the Python source of a config;
* :mod:`.writer` -- rendering and writing the config files and
  ``manifest.json`` (atomically, never over an existing file without force).

``save_opencompass_configs.py`` at the repository's top is the thin entry
point.  May import: :mod:`~gpassk_opencompass.catalog`,
:mod:`~gpassk_opencompass.files`; the configs it writes reference
:mod:`gpassk_opencompass.plugin` classes by import path.
"""
