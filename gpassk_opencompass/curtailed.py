r"""Curtailed two-stage sampling: fewer generations, and G-Pass@k, mG-Pass@k and pass@k still exactly unbiased.

Stage 1 draws ``n1 >= k`` generations per question; a question stops there when its stage-1 count ``c1`` of
correct verdicts is in the rule's stop set ``S`` (``all-wrong``: ``S = {0}``; ``all-wrong-or-right``:
``S = {0, n1}``); every other question draws on to ``n``. ``(N, C)``, draws used and correct, is sufficient, and
given it every admissible order of outcomes is equally likely, so the Rao-Blackwell estimator of
:math:`P(\mathrm{Bin}(k, p) \ge m)` is the share of admissible paths to ``(N, C)`` whose first ``k`` draws hold
at least ``m`` successes:

* stopped (``N = n1``, ``C`` in ``S``): the fixed-n formula at ``n1``, :math:`T_{n_1,k}[C, m]`;
* drawn on (``N = n``): :math:`\sum_{c_1 \notin S} H(c_1 | C)\, T_{n_1,k}[c_1, m] / \sum_{c_1 \notin S} H(c_1 | C)`,

with :math:`H(c_1 | C) = \binom{n_1}{c_1}\binom{n-n_1}{C-c_1} / \binom{n}{C}` the law of stage 1's count given
``(n, C)`` and :math:`T` the hypergeometric tail table of :mod:`gpassk_opencompass.metrics`. It is unbiased for
every ``p`` and any stop set that depends only on ``c1``; with ``S`` empty it is the fixed-n formula. Plugging
``(N, C)`` into the fixed-n formula instead is biased. docs/metrics.md, "Curtailed sampling", says why and what
each rule costs in variance.

>>> design = Curtailed.parse("16:48")
>>> design, design.stop_set
(Curtailed(n1=16, n=48, rule='all-wrong'), frozenset({0}))
>>> from gpassk_opencompass.metrics import pass_at_k
>>> pass_at_k([16, 48, 48], [0, 1, 20], 1, design).round(6).tolist()  # accuracy: not c/N = 1/48, 20/48
[0.0, 0.0625, 0.416672]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpassk_opencompass.checks import unknown
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.metrics import Columns, hypergeometric_pmf, int_array, tail_table

#: The stop rules by name: each gives its stop set (stage-1 counts that stop a question) from ``n1``. A new rule
#: that depends only on a question's own stage-1 count is one more entry; the path count takes any set.
RULES: Mapping[str, Callable[[int], frozenset[int]]] = {
    "all-wrong": lambda n1: frozenset({0}),
    "all-wrong-or-right": lambda n1: frozenset({0, n1}),
}
#: The rule when none is named: it keeps G-Pass@k_tau for tau >= 0.5 and mG-Pass@k (on U-shaped difficulty, <= 1.0001x
#: the variance); pass@k (tau = 0) it does not (4x at k = n1 = 16): docs/metrics.md, "Curtailed sampling".
DEFAULT_RULE = "all-wrong"
#: The most generations per question a curtailed design may plan: its path count holds (n1 + 1) x (n + 1) floats.
MAX_CURTAILED_N = 2048

__all__ = ["DEFAULT_RULE", "MAX_CURTAILED_N", "RULES", "Curtailed"]


@dataclass(frozen=True)
class Curtailed:
    """A two-stage curtailed design: ``n1`` draws per question, ``n`` for those whose stage 1 misses ``rule``.

    A :class:`gpassk_opencompass.metrics.Design`: give it as ``design=`` to any metric of
    :mod:`gpassk_opencompass.metrics`. Invalid values are one :class:`InputError` line.

    >>> Curtailed(16, 48, "all-wrong-or-rihgt")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: unknown curtailment rule 'all-wrong-or-rihgt'; did you mean 'all-wrong-or-right'? known: all-wrong, all-wrong-or-right
    """

    n1: int
    n: int
    rule: str = DEFAULT_RULE

    def __post_init__(self) -> None:
        for name in ("n1", "n"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputError(f"curtailment {name} must be an integer; got {name}={value!r}")
            object.__setattr__(self, name, int(value))
        if not 1 <= self.n1 <= self.n <= MAX_CURTAILED_N:
            raise InputError(
                f"curtailment must satisfy 1 <= n1 <= n <= {MAX_CURTAILED_N} (MAX_CURTAILED_N); "
                f"got n1={self.n1}, n={self.n}"
            )
        if self.rule not in RULES:
            raise unknown("curtailment rule", self.rule, RULES)

    @classmethod
    def parse(cls, text: str) -> Curtailed:
        """``"N1:N"`` or ``"N1:N:RULE"`` (``--curtail 16:48:all-wrong``).

        >>> Curtailed.parse("16:48:all-wrong-or-right").stop_set == {0, 16}
        True
        >>> Curtailed.parse("16-48")
        Traceback (most recent call last):
        ...
        gpassk_opencompass.errors.InputError: --curtail must be N1:N or N1:N:RULE (e.g. 16:48:all-wrong); got '16-48'
        """
        parts = str(text).split(":")
        if len(parts) not in (2, 3) or not all(part.strip().isdigit() for part in parts[:2]):
            raise InputError(f"--curtail must be N1:N or N1:N:RULE (e.g. 16:48:{DEFAULT_RULE}); got {text!r}")
        return cls(int(parts[0]), int(parts[1]), *(part.strip() for part in parts[2:]))

    def __str__(self) -> str:
        return f"{self.n1}:{self.n}:{self.rule}"

    def as_dict(self) -> dict[str, Any]:
        """What a results file records of the design."""
        return {"n1": self.n1, "n": self.n, "rule": self.rule}

    @property
    def stop_set(self) -> frozenset[int]:
        """The stage-1 counts that stop a question (empty when ``n1 == n``: nothing is left to save)."""
        return RULES[self.rule](self.n1) if self.n1 < self.n else frozenset()

    def stops(self, c1: Any) -> np.ndarray:
        """Whether stage-1 counts ``c1`` stop their questions.

        >>> Curtailed(4, 8, "all-wrong-or-right").stops([0, 1, 4]).tolist()
        [True, False, True]
        """
        return np.isin(np.asarray(c1), sorted(self.stop_set))

    def admissible(self, drawn: Any, correct: Any) -> np.ndarray:
        """Whether ``(N, C)`` can come from the design: ``N`` is ``n1`` with ``C`` in the stop set, or ``n`` with some
        stage-1 count outside it.

        >>> Curtailed(4, 8).admissible([4, 4, 8, 8], [0, 1, 0, 8]).tolist()  # 0 of 8 would have stopped at 4
        [True, False, False, True]
        """
        drawn, correct = np.broadcast_arrays(int_array("N", drawn), int_array("C", correct))
        stopped = (drawn == self.n1) & self.stops(correct)
        low = np.maximum(0, correct - (self.n - self.n1))  # stage 1's count, given the totals, lies in [low, high]
        high = np.minimum(self.n1, correct)
        inside = sum(((low <= s) & (s <= high) for s in self.stop_set), np.zeros(correct.shape, dtype=np.int64))
        on = (drawn == self.n) & (correct >= 0) & (correct <= self.n) & (high - low + 1 > inside)
        return stopped | on

    def check_drawn(self, drawn: Any, names: Any = None) -> None:
        """:class:`InputError` naming the first question with a count other than ``n1`` or ``n`` (before judging).

        >>> Curtailed(16, 48).check_drawn([16, 48, 30], ["a", "b", "c"])
        Traceback (most recent call last):
        ...
        gpassk_opencompass.errors.InputError: question 'c' has 30 generations; curtailed at 16 of 48 each has 16 (stopped) or 48 (drawn on)
        """
        drawn = int_array("N", drawn).ravel()
        bad = (drawn != self.n1) & (drawn != self.n)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"question {_name(names, i)} has {int(drawn[i])} generations; curtailed at {self.n1} of {self.n} "
                f"each has {self.n1} (stopped) or {self.n} (drawn on)"
            )

    def check(self, drawn: Any, correct: Any, names: Any = None) -> None:
        """:class:`InputError` naming the first ``(N, C)`` the design cannot have produced (question ``names[i]``)."""
        self.check_drawn(drawn, names)
        drawn, correct = np.broadcast_arrays(int_array("N", drawn), int_array("C", correct))
        bad = ~self.admissible(drawn, correct)
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise InputError(
                f"question {_name(names, i)}: {int(correct.ravel()[i])} correct of {int(drawn.ravel()[i])} cannot "
                f"come from curtailment at {self.n1} of {self.n} ({self.rule}: a question stops at {self.n1} exactly "
                f"when its stage-1 count is in {{{', '.join(map(str, sorted(self.stop_set)))}}})"
            )

    def check_order(self, drawn: Any, first: Any, unresolved: Any, names: Any = None, *, judge: str = "") -> None:
        """:class:`InputError` naming the first question whose stage-1 verdicts (its first ``n1``, in draw order:
        ``first`` correct and ``unresolved`` unresolved) contradict its count: stopped without meeting the rule, or
        drawn on though they meet it. Unresolved verdicts contradict nothing (the question is unresolved).

        >>> Curtailed(4, 8).check_order([4, 8, 8], [0, 2, 0], [0, 0, 1], ["a", "b", "c"])
        >>> Curtailed(4, 8).check_order([4, 8], [0, 0], [0, 0], ["a", "b"], judge="rule")
        Traceback (most recent call last):
        ...
        gpassk_opencompass.errors.InputError: question 'b' drew on to 8 generations, but its first 4 verdicts meet all-wrong (0 correct): its generations are not in draw order, or the stop was decided by another judge than rule; score with the judge that decided the stop
        """
        drawn, first, unresolved = (
            int_array(name, value).ravel() for name, value in (("N", drawn), ("c1", first), ("u1", unresolved))
        )
        stops = sorted(self.stop_set)
        some_stop = np.zeros(drawn.shape, dtype=bool)  # a resolution of the unresolved ones meets the rule
        for count in stops:
            some_stop |= (first <= count) & (count <= first + unresolved)
        every_stop = (unresolved + 1) == sum(
            ((first <= s) & (s <= first + unresolved) for s in stops), np.zeros(drawn.shape, dtype=np.int64)
        )
        stopped = (drawn == self.n1) & (self.n1 < self.n)
        by = f"another judge than {judge}" if judge else "another judge"
        for bad, what in (
            (stopped & ~some_stop, "stopped at {N} generations with {c1} correct, which does not meet {rule}"),
            (
                ~stopped & every_stop,
                "drew on to {N} generations, but its first {n1} verdicts meet {rule} ({c1} correct)",
            ),
        ):
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                said = what.format(N=int(drawn[i]), c1=int(first[i]), n1=self.n1, rule=self.rule)
                raise InputError(
                    f"question {_name(names, i)} {said}: its generations are not in draw order, or the stop was "
                    f"decided by {by}; score with the judge that decided the stop"
                )

    def resolutions(self, drawn: Any, correct: Any, unresolved: Any) -> tuple[np.ndarray, np.ndarray]:
        """The least and the most admissible ``C`` in ``[correct, correct + unresolved]`` per question: the count
        with every unresolved verdict wrong, and right, as far as the design allows (the estimator is
        non-decreasing in ``C``, so they bound it). :meth:`check_order` makes sure there is one.

        >>> [a.tolist() for a in Curtailed(4, 8, "all-wrong-or-right").resolutions([4, 8], [3, 5], [1, 3])]
        [[4, 5], [4, 7]]
        """
        drawn, low, spread = (
            int_array(name, value).ravel() for name, value in (("N", drawn), ("C", correct), ("u", unresolved))
        )
        least, most = low.copy(), low + spread
        for _ in range(int(spread.max(initial=0)) + 1):  # unresolved verdicts are few: walk inward a step at a time
            step = ~self.admissible(drawn, least) & (least < most)
            least[step] += 1
            back = ~self.admissible(drawn, most) & (most > least)
            most[back] -= 1
            if not (step.any() or back.any()):
                break
        return least, most

    def continuing(self, drawn: Any, first: Any, unresolved: Any) -> np.ndarray:
        """Whether each question, drawn only to ``n1`` so far, goes on to ``n``: stage 1 resolved and missing the rule.

        >>> Curtailed(4, 8).continuing([4, 4, 4, 8], [0, 2, 0, 3], [0, 0, 1, 0]).tolist()
        [False, True, False, False]
        """
        drawn, first, unresolved = (
            int_array(name, value).ravel() for name, value in (("N", drawn), ("c1", first), ("u1", unresolved))
        )
        return (drawn == self.n1) & (self.n1 < self.n) & (unresolved == 0) & ~self.stops(first)

    def gather(self, n: np.ndarray, c: np.ndarray, k: np.ndarray, columns: Columns) -> np.ndarray:
        """Per question ``sum_w weight * E[1{X >= m}]``, the path count above (the metrics' :class:`Design` hook)."""
        shape = np.broadcast_shapes(n.shape, c.shape, k.shape)
        n, c, k = (np.broadcast_to(array, shape).ravel() for array in (n, c, k))
        self.check(n, c)
        if k.size and int(k.max()) > self.n1:
            raise InputError(
                f"k must be at most n1={self.n1}, the stage-1 draws of every question; got k={int(k.max())}"
            )
        out = np.empty(n.size)
        for value in np.unique(k).tolist():
            weights = columns(value)
            for drawn in dict.fromkeys((self.n1, self.n)):
                members = (k == value) & (n == drawn)
                if members.any():
                    rows, inverse = np.unique(c[members], return_inverse=True)
                    tails = self._tails(drawn, rows, value)
                    out[members] = sum((tails[:, m] * weight for m, weight in weights), np.zeros(len(rows)))[inverse]
        return np.clip(out.reshape(shape), 0.0, 1.0)

    def _tails(self, drawn: int, counts: np.ndarray, k: int) -> np.ndarray:
        """The estimates of ``P(X >= m)`` (rows: the given counts; columns: ``m`` in ``[0, k + 1]``) for ``N = drawn``."""
        first = tail_table(self.n1, k)
        if drawn == self.n1 and self.n1 < self.n:  # stopped: the path is known up to order
            return first[counts]
        stage1 = hypergeometric_pmf(self.n, self.n1, counts)  # H(c1 | C): rows C, columns c1
        stage1[:, sorted(self.stop_set)] = 0.0  # paths that would have stopped are not admissible
        return (stage1 @ first) / stage1.sum(axis=1, keepdims=True)


def _name(names: Any, i: int) -> str:
    """Question ``i`` as a message names it: its id where given, else its position."""
    return repr(names[i]) if names is not None else str(i)
