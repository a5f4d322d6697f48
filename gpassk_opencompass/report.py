"""From judged generations to OpenCompass-style results: overall, per subset, with uncertainty.

Pure functions of a questions x generations correctness matrix; the evaluator
and ``gpassk score`` both report through here, so their keys agree.

>>> results = gpassk_results([[1, 1, 0, 0], [1, 1, 1, 1]], ks=[2], thresholds=[1.0],
...                         subsets={"language": ["en", "cn"]})
>>> {key: round(value, 4) for key, value in results.metrics.items()}
{'accuracy (4 runs average)': 75.0, 'G-Pass@2_1.0': 58.3333, 'mG-Pass@2': 58.3333, 'en/accuracy (4 runs average)': 50.0, 'en/G-Pass@2_1.0': 16.6667, 'en/mG-Pass@2': 16.6667, 'cn/accuracy (4 runs average)': 100.0, 'cn/G-Pass@2_1.0': 100.0, 'cn/mG-Pass@2': 100.0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from gpassk_opencompass.metrics import DEFAULT_THRESHOLDS, summarize, summarize_uncertainty


def accuracy_key(n: int) -> str:
    """OpenCompass's name for mean accuracy over ``n`` replicas.

    >>> accuracy_key(1), accuracy_key(48)
    ('accuracy', 'accuracy (48 runs average)')
    """
    return "accuracy" if n == 1 else f"accuracy ({n} runs average)"


def reports_g_pass(n: int, ks: Sequence[int]) -> bool:
    """OpenCompass reports G-Pass@k only for sampled runs (``n > 1``) with some ``k > 1``."""
    return n > 1 and max(ks) > 1


@dataclass(frozen=True)
class GPassKResults:
    """Everything computed from one correctness matrix.

    Attributes:
        metrics: ordered ``{key: value x 100}``: accuracy, G-Pass@k_tau and
            mG-Pass@k overall, then ``{subset}/{key}`` per subset label.
        uncertainty: per overall key, ``{"mean", "stderr", "ci_low",
            "ci_high", "ci"}`` (x 100).
        counts: correct generations per question.
    """

    metrics: dict[str, float]
    uncertainty: dict[str, dict[str, float | None]]
    counts: tuple[int, ...]


def gpassk_results(
    correct,
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
        correct: questions x generations, truthy = correct.
        ks: the k values (each <= the number of generations).
        thresholds: the tau values.
        subsets: ``{column: one label per question}`` (e.g. split, language);
            each label gets its own ``{label}/{key}`` metrics, and with two or
            more columns each combination of labels too (``CNMO_en``).
        ci, n_boot, seed: the bootstrap interval of the overall metrics.
    """
    matrix = np.asarray(correct, dtype=bool)
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise ValueError(f"correct must be a non-empty questions x generations matrix; got shape {matrix.shape}")
    n = matrix.shape[1]
    counts = matrix.sum(axis=1)
    subsets = dict(subsets or {})
    for column, labels in subsets.items():
        if len(labels) != len(counts):
            raise ValueError(f"subset column {column!r} has {len(labels)} labels for {len(counts)} questions")

    def block(selected: np.ndarray) -> dict[str, float]:
        values = {accuracy_key(n): float(100.0 * selected.mean() / n)}
        if reports_g_pass(n, ks):
            values.update(summarize(selected, n, ks, thresholds))
        return values

    metrics = block(counts)
    for label, members in _subset_members(subsets).items():
        for key, value in block(counts[members]).items():
            metrics[f"{label}/{key}"] = value

    estimates = summarize_uncertainty(counts, n, [1], [1.0], ci=ci, n_boot=n_boot, seed=seed)
    uncertainty = {accuracy_key(n): asdict(estimates["G-Pass@1_1.0"])}
    if reports_g_pass(n, ks):
        for key, estimate in summarize_uncertainty(counts, n, ks, thresholds, ci=ci, n_boot=n_boot,
                                                   seed=seed).items():
            uncertainty[key] = asdict(estimate)
    return GPassKResults(metrics=metrics, uncertainty=uncertainty, counts=tuple(int(c) for c in counts))


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
