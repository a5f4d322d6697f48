"""What to compute from the verdicts (:class:`ScoringRequest`), and whether it can be computed on the questions.

Every rule is declared on the model (its types, ``Field`` bounds, ``Literal``) or
is the one check of its home (:func:`~gpassk_opencompass.metrics.check_request` for
k and tau, :func:`~gpassk_opencompass.checks.open_unit` for the level,
:func:`~gpassk_opencompass.uncertainty.numerics.check_prior`, the catalog's names),
so a bad request is one :class:`~gpassk_opencompass.errors.InputError` line on
construction, and :func:`check_questions` checks the rest before anything is judged.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Annotated, Literal, get_args

import numpy as np
from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from gpassk_opencompass import defaults, metrics
from gpassk_opencompass.catalog import get_benchmark
from gpassk_opencompass.checks import open_unit
from gpassk_opencompass.contracts import Count, Finite, PositiveInt, Setting
from gpassk_opencompass.curtailed import Curtailed
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges import LANGUAGES
from gpassk_opencompass.scoring.compute import IDENTICAL_SHARE_WARNING
from gpassk_opencompass.scoring.questions import CheckedQuestions, Question, check_count
from gpassk_opencompass.uncertainty.numerics import check_prior

Interval = Literal["bootstrap", "bayes", "both"]
#: What ``interval`` may ask for: bootstrap intervals (``gpassk.uncertainty``), Bayesian
#: credible intervals (``gpassk.bayes``), or both.
INTERVALS: tuple[str, ...] = get_args(Interval)


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (a strict model takes no ``numpy.int64`` for an ``int``)."""
    return value.item() if isinstance(value, np.generic) else value


def _design(value: object) -> object:
    """A curtailed design as given: ``"16:48:all-wrong"`` (``--curtail``), a mapping of its fields, or the design."""
    if isinstance(value, str):
        return Curtailed.parse(value)
    return Curtailed(**value) if isinstance(value, dict) else value


def _several(value: object) -> object:
    """One value, or an iterable of them, as a tuple of plain values (``k=4`` is ``ks=(4,)``)."""
    if isinstance(value, (str, numbers.Number)):
        return (_plain(value),)
    return tuple(_plain(item) for item in value) if isinstance(value, Iterable) else value


class ScoringRequest(Setting):
    """What to compute from the verdicts: a declared setting, validated on construction (:class:`InputError`).

    Attributes:
        ks: the k values (each at most every question's n, checked by :func:`check_questions`).
        thresholds: the tau values in [0, 1].
        subsets: the subset columns (keys of :attr:`Question.labels`), in report order.
        interval: ``"bootstrap"`` (default), ``"bayes"`` or ``"both"`` (:data:`INTERVALS`).
        ci: the level of both kinds of interval.
        n_boot: bootstrap resamples; seed: their seed.
        prior: ``(alpha0, beta0)`` of the Beta prior of the Bayesian intervals.
        benchmark: the canonical benchmark name, recorded for the leaderboard.
        allow_unresolved: keep the metric keys even with unresolved verdicts
            (they then count those as wrong; ``gpassk.complete`` is false and
            ``gpassk.bounds`` gives each metric's range).
        identical_warning: warn when at least this share of questions got n
            byte-identical generations.
        curtail: the curtailed two-stage design the generations were drawn under (``"16:48:all-wrong"``);
            every k at most its ``n1``, and every metric its unbiased estimate.

    >>> ScoringRequest(ks=4, interval="bayes", prior=(0.5, 0.5))
    ScoringRequest(ks=(4,), thresholds=(0.0, 0.25, 0.5, 0.75, 1.0), subsets=(), interval='bayes', ci=0.95, n_boot=1000, seed=0, prior=(0.5, 0.5), benchmark=None, allow_unresolved=False, identical_warning=0.5, curtail=None)
    >>> ScoringRequest(ks=(4, 20), curtail="16:48")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: k=20 is above n1=16 of --curtail 16:48:all-wrong: every k must be at most the stage-1 draws every question has; lower k or raise n1
    >>> ScoringRequest(ks=(4,), interval="credible")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: interval = 'credible': input should be 'bootstrap', 'bayes' or 'both'
    >>> ScoringRequest(ks=(4,), prior=(0, 1))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: prior alpha0 must be a finite number > 0; got 0
    """

    ks: Annotated[tuple[int, ...], BeforeValidator(_several)]
    thresholds: Annotated[tuple[float, ...], BeforeValidator(_several)] = metrics.DEFAULT_THRESHOLDS
    subsets: Annotated[tuple[str, ...], BeforeValidator(_several)] = ()
    interval: Interval = "bootstrap"
    ci: Annotated[float, BeforeValidator(_plain), AfterValidator(lambda ci: open_unit(ci, "ci"))] = defaults.CI
    n_boot: Annotated[PositiveInt, BeforeValidator(_plain), Field(le=metrics.MAX_BOOTSTRAP)] = defaults.N_BOOT
    seed: Annotated[Count, BeforeValidator(_plain)] = 0
    prior: Annotated[tuple[float, float], BeforeValidator(check_prior)] = defaults.PRIOR
    benchmark: Annotated[
        str | None, AfterValidator(lambda name: None if name is None else get_benchmark(name).name)
    ] = None
    allow_unresolved: bool = False
    identical_warning: Annotated[Finite, BeforeValidator(_plain), Field(ge=0, le=1)] = IDENTICAL_SHARE_WARNING
    curtail: Annotated[Curtailed | None, BeforeValidator(_design)] = None

    @model_validator(mode="after")
    def _computable(self) -> ScoringRequest:
        """Each k and each tau once, all valid: the metrics' own check."""
        metrics.check_request(self.ks, self.thresholds)
        if self.curtail is not None and max(self.ks) > self.curtail.n1:
            raise InputError(
                f"k={max(self.ks)} is above n1={self.curtail.n1} of --curtail {self.curtail}: every k must be at most "
                "the stage-1 draws every question has; lower k or raise n1"
            )
        return self

    @property
    def bootstrap(self) -> bool:
        """Whether bootstrap intervals are asked for."""
        return self.interval in ("bootstrap", "both")

    @property
    def bayes(self) -> bool:
        """Whether Bayesian credible intervals are asked for."""
        return self.interval in ("bayes", "both")


def check_questions(questions: Sequence[Question], request: ScoringRequest) -> None:
    """Raise :class:`InputError` now, before judging, if ``request`` cannot be computed on ``questions``.

    Every question has a label for each subset column, a judge language, and from the largest k up to
    :data:`~gpassk_opencompass.defaults.MAX_N` generations (:func:`~gpassk_opencompass.scoring.questions.check_count`);
    and a bootstrap that fits (:func:`~gpassk_opencompass.metrics.check_bootstrap`) whatever the verdicts: the
    metrics after judging take all this as checked (``validate_args=False``) and check nothing again.

    >>> check_questions([Question("a", "q", "1", ("1", "2"))], ScoringRequest(ks=(4,), thresholds=(0.5,)))
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: question 'a' has 2 prediction(s); at least 4 are needed (the largest k)
    """
    if not questions:
        raise InputError("there are no questions to score")
    largest = max(request.ks)
    counted = isinstance(questions, CheckedQuestions) and questions.least >= largest  # checked where they entered
    for question in questions:
        missing = [column for column in request.subsets if column not in question.labels]
        if missing:
            raise InputError(f"question {question.id!r} has no label for subset column(s) {missing}")
        if question.language not in LANGUAGES:
            raise InputError(f"question {question.id!r}: language must be 'en' or 'cn'; got {question.language!r}")
        if not counted:
            check_count(question.id, len(question.predictions), largest)
    if request.curtail is not None:
        request.curtail.check_drawn([len(question.predictions) for question in questions], [q.id for q in questions])
    if request.bootstrap:  # the most (n, c) groups the verdicts can make: each n with every c, at most one a question
        ns = {len(question.predictions) for question in questions}
        keys = len(request.ks) * (len(request.thresholds) + 1)  # per k, a G-Pass@k per tau and mG-Pass@k
        metrics.check_bootstrap(request.n_boot, min(len(questions), sum(n + 1 for n in ns)), keys)
