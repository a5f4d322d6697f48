"""From judged generations to OpenCompass-style results: overall, per subset, with uncertainty.

Pure functions; :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` and
``gpassk score`` both report through here, so their result files have the
same keys and the same ``gpassk`` block:

* metric keys at the top, as OpenCompass names them, x 100:
  ``accuracy ({n} runs average)`` (``accuracy`` when n = 1),
  ``G-Pass@{k}_{tau}``, ``mG-Pass@{k}``, then ``{subset}/{key}`` per subset;
* ``gpassk``: benchmark, k, n, thresholds, judge, prompt version, bootstrap
  intervals, judge statistics, share of questions with identical generations;
* ``details``: one entry per question (id, c, n, subset labels, verdicts).

>>> results = gpassk_results([2, 4], 4, ks=[2], thresholds=[1.0], subsets={"language": ["en", "cn"]})
>>> {key: round(value, 4) for key, value in results.metrics.items()}
{'accuracy (4 runs average)': 75.0, 'G-Pass@2_1.0': 58.3333, 'mG-Pass@2': 58.3333, 'en/accuracy (4 runs average)': 50.0, 'en/G-Pass@2_1.0': 16.6667, 'en/mG-Pass@2': 16.6667, 'cn/accuracy (4 runs average)': 100.0, 'cn/G-Pass@2_1.0': 100.0, 'cn/mG-Pass@2': 100.0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from loguru import logger

from gpassk_opencompass.judges import JudgeReport, JudgeSettings, Verdict
from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS, summarize, summarize_uncertainty

#: Warn when at least this share of questions got n byte-identical generations.
IDENTICAL_SHARE_WARNING = 0.5


def accuracy_key(n: int | None) -> str:
    """OpenCompass's name for mean accuracy over ``n`` replicas (``None``: n varies).

    >>> accuracy_key(1), accuracy_key(48), accuracy_key(None)
    ('accuracy', 'accuracy (48 runs average)', 'accuracy')
    """
    return "accuracy" if n in (1, None) else f"accuracy ({n} runs average)"


def reports_g_pass(n_max: int, ks: Sequence[int]) -> bool:
    """OpenCompass reports G-Pass@k only for sampled runs (``n > 1``) with some ``k > 1``."""
    return n_max > 1 and max(ks) > 1


@dataclass(frozen=True)
class GPassKResults:
    """The metrics of one set of judged questions.

    Attributes:
        metrics: ordered ``{key: value x 100}``: accuracy, G-Pass@k_tau and
            mG-Pass@k overall, then ``{subset}/{key}`` per subset label.
        uncertainty: per overall key, ``{"mean", "stderr", "ci_low",
            "ci_high", "ci"}`` (x 100).
        n: generations per question, ``None`` when it varies.
    """

    metrics: dict[str, float]
    uncertainty: dict[str, dict[str, float | None]]
    n: int | None


def gpassk_results(
    counts: Sequence[int],
    n,
    ks: Sequence[int],
    thresholds: Sequence = DEFAULT_THRESHOLDS,
    subsets: Mapping[str, Sequence[str]] | None = None,
    *,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: int = 0,
) -> GPassKResults:
    """Accuracy, G-Pass@k_tau and mG-Pass@k overall and per subset, OpenCompass keys.

    Args:
        counts: correct generations per question.
        n: generations per question (one int, or one per question).
        ks: the k values (each <= every n).
        thresholds: the tau values.
        subsets: ``{column: one label per question}`` (e.g. split, language);
            each label gets its own ``{label}/{key}`` metrics, and with two or
            more columns each combination of labels too (``CNMO_en``).
        ci, n_boot, seed: the bootstrap interval of the overall metrics.

    Raises:
        ValueError: naming the bad value (from :mod:`~gpassk_opencompass.metrics`).
    """
    counts = np.asarray(counts)
    n_array = np.broadcast_to(np.asarray(n), counts.shape)
    uniform = int(n_array[0]) if counts.size and (n_array == n_array[0]).all() else None
    g_pass = bool(counts.size) and reports_g_pass(int(n_array.max()), ks)
    subsets = dict(subsets or {})
    for column, labels in subsets.items():
        if len(labels) != len(counts):
            raise ValueError(f"subset column {column!r} has {len(labels)} labels for {len(counts)} questions")

    def block(members) -> dict[str, float]:
        values = {accuracy_key(uniform): float(100 * np.mean(counts[members] / n_array[members]))}
        if g_pass:
            values.update(summarize(counts[members], n_array[members], ks, thresholds))
        return values

    metrics = block(slice(None))
    for label, members in _subset_members(subsets).items():
        for key, value in block(members).items():
            metrics[f"{label}/{key}"] = value

    estimates = summarize_uncertainty(counts, n_array, [1], [1.0], ci=ci, n_boot=n_boot, seed=seed)
    uncertainty = {accuracy_key(uniform): asdict(estimates["G-Pass@1_1.0"])}
    if g_pass:
        for key, estimate in summarize_uncertainty(counts, n_array, ks, thresholds, ci=ci, n_boot=n_boot,
                                                   seed=seed).items():
            uncertainty[key] = asdict(estimate)
    return GPassKResults(metrics=metrics, uncertainty=uncertainty, n=uniform)


def _subset_members(subsets: Mapping[str, Sequence[str]]) -> dict[str, np.ndarray]:
    """``{label: boolean mask over questions}``, single columns first, then their combinations."""
    members: dict[str, np.ndarray] = {}
    columns = [np.asarray([str(label) for label in labels]) for labels in subsets.values()]
    for column, labels in zip(subsets, columns):
        for label in dict.fromkeys(labels.tolist()):
            name = label if label not in members else f"{column}={label}"  # two columns share a label
            members[name] = labels == label
    if len(columns) > 1:
        combined = list(zip(*(labels.tolist() for labels in columns)))
        for combination in dict.fromkeys(combined):
            members["_".join(combination)] = np.array([row == combination for row in combined])
    return members


def identical_share(generations_by_question: Sequence[Sequence[str]]) -> float:
    """The share of questions (among those with n > 1) whose generations are all byte-identical.

    With sampling this should be near 0; near 1 means every replica was
    generated with the same seed, and every G-Pass@k_tau collapses to accuracy.

    >>> identical_share([["x", "x"], ["x", "y"], ["z", "z"], ["w"]])
    0.6666666666666666
    """
    sampled = [generations for generations in generations_by_question if len(generations) > 1]
    if not sampled:
        return 0.0
    return sum(len(set(generations)) == 1 for generations in sampled) / len(sampled)


def warn_if_identical(share: float, threshold: float = IDENTICAL_SHARE_WARNING) -> None:
    """Log a loud warning when replicas look like copies of each other."""
    if share >= threshold and share > 0:
        logger.warning(f"{share:.0%} of questions got byte-identical generations: the samples were probably "
                       "drawn with one fixed seed, which collapses every G-Pass@k_tau to accuracy. Give each "
                       "replica its own seed (or none) and sample with temperature > 0.")


def question_details(question_id: str, verdicts: Sequence[Verdict], labels: Mapping[str, str] | None = None) -> dict:
    """One question's entry of ``details``: id, c, n, subset labels, unresolved count, every verdict."""
    return {"id": question_id, "c": sum(verdict.correct is True for verdict in verdicts), "n": len(verdicts),
            **dict(labels or {}), "unresolved": sum(verdict.correct is None for verdict in verdicts),
            "verdicts": [asdict(verdict) for verdict in verdicts]}


def results_document(results: GPassKResults, judged: JudgeReport, judge: JudgeSettings, *, ks: Sequence[int],
                     thresholds: Sequence, benchmark: str | None, identical: float,
                     details: Sequence[dict]) -> dict:
    """The whole result: metric keys, the ``gpassk`` block, then ``details``."""
    document = dict(results.metrics)
    document["gpassk"] = {
        "benchmark": benchmark,
        "k": [int(k) for k in ks],
        "n": results.n,
        "questions": len(details),
        "thresholds": [float(tau) for tau in thresholds],
        "judge": judge.kind,
        "judge_model": judge.model or None,
        "prompt_version": judged.prompt_version,
        "uncertainty": results.uncertainty,
        "judge_stats": judged.stats.as_dict(),
        "identical_replicas_share": identical,
    }
    document["details"] = list(details)
    return document
