"""Every output made for people -- text, JSON, HTML pages, charts -- rendered in one place.

* :mod:`.leaderboard` -- the leaderboard as Markdown, CSV and JSON;
* :mod:`.html` -- the leaderboard as one self-contained HTML page;
* :mod:`.formats` -- the leaderboard's formats by name and file suffix (``gpassk leaderboard -o``);
* :mod:`.reports` -- the analysis reports (``gpassk agree/compare/plan``) as Markdown and JSON, the
  agreement also as an HTML page;
* :mod:`.plots` -- every chart, drawn with matplotlib;
* :mod:`.console` -- the console text of ``gpassk calc``, ``gpassk data check`` and ``gpassk grid status``;
* :mod:`.score_report` -- the console report of ``gpassk score``/``rejudge`` and what is said when verdicts are missing;
* ``templates/`` -- the one Jinja2 template directory of every HTML page (autoescaped).

Renderers are pure functions of what they are given (a ``Leaderboard``, a report); this package sits below
:mod:`~gpassk_opencompass.leaderboard` and :mod:`~gpassk_opencompass.analysis`, which both import it, and
imports neither (their types are named in annotations only). Numbers are formatted here once.

May import: :mod:`~gpassk_opencompass.errors`, :mod:`~gpassk_opencompass.files`,
:mod:`~gpassk_opencompass.redaction`, :mod:`~gpassk_opencompass.metrics` (the metric keys),
:mod:`~gpassk_opencompass.defaults`, :mod:`~gpassk_opencompass.catalog` (the composition sentence); jinja2 and matplotlib (the ``plots`` extra) only when a page or a chart
is asked for, through :func:`require_extra` and :func:`template`.
"""

from __future__ import annotations

import functools
import importlib

from gpassk_opencompass.errors import InputError

#: How to get the optional modules a page or a chart needs.
PLOTS_EXTRA = "pip install 'gpassk-opencompass[plots]'"


def exact_number(value: float | None) -> str:
    """A value exactly as the results hold it (CSV cells, a page's sort keys); empty when missing.

    >>> exact_number(36.46), exact_number(16), exact_number(None)
    ('36.46', '16.0', '')
    """
    return "" if value is None else repr(float(value))


def require_extra(option: str, wanted: object, *modules: str) -> None:
    """Refuse ``option`` in one line, before any work, when it is ``wanted`` and a module it needs is missing.

    >>> require_extra("--html", "page.html", "no_such_module_here")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: --html needs no_such_module_here, which is not installed: pip install 'gpassk-opencompass[plots]'
    >>> require_extra("--html", None, "no_such_module_here")  # not asked for: nothing to check
    """
    if wanted is None or wanted is False:
        return
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            raise InputError(f"{option} needs {module}, which is not installed: {PLOTS_EXTRA}") from None


def template(name: str):
    """The Jinja2 template ``templates/<name>``, from the one environment of every page.

    Autoescaped (every value from results, configs or model output is text), strict about
    undefined names, the template's own trailing newline kept.
    """
    return _environment().get_template(name)


@functools.lru_cache(maxsize=1)
def _environment():
    require_extra("an HTML page", True, "jinja2")
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("gpassk_opencompass.render", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
