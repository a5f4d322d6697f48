"""Who ran what: a run's identity from its own records, never from abbr strings.

Three records can describe an OpenCompass results file, and each is optional:

* the ``gpassk`` block GPassKEvaluator writes into the results (benchmark, k,
  n, thresholds, bootstrap intervals) — what was actually measured;
* the run's saved config (``<work_dir>/<ts>/configs/*.py``): the ``models``
  entry (path, temperature) and the ``datasets`` entry (k, n, the evaluator's
  ``benchmark``) whose abbrs are the results' folder and file names;
* the config generator's ``manifest.json`` entry for the same two abbrs.

For what was measured (benchmark, k, n) the results win, then the config, then
the manifest; for how the model was named and sampled (display name, path,
temperature, greedy) the manifest wins, then the config.  A disagreement is
reported, never resolved silently.

>>> run, notes = identify_run(
...     results={"accuracy": 40.0, "gpassk": {"benchmark": "AIME2025", "k": [1], "n": 1}},
...     model_cfg={"abbr": "qwen_t0", "path": "Qwen/Qwen2.5-7B-Instruct", "temperature": 0.0},
...     dataset_cfg={"abbr": "aime2025_k1_n1", "k": 1, "n": 1},
...     manifest=None, results_path=Path("results/qwen_t0/aime2025_k1_n1.json"),
...     model_abbr="qwen_t0", dataset_abbr="aime2025_k1_n1")
>>> run.display_name, run.benchmark, run.greedy, run.k, run.n, run.metrics, notes
('Qwen2.5-7B-Instruct', 'AIME2025', True, (1,), 1, {'accuracy': 40.0}, ())
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import TypeVar

from gpassk_opencompass.checks import finite_number, positive_int
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard.records import Interval, RunResult, Unresolved
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import read_results

T = TypeVar("T")

#: Numeric top-level keys of a results file that are not metrics.
NOT_METRICS = frozenset({"unresolved"})


class UnidentifiedRun(InputError):
    """A results file whose model or benchmark no record names."""


def identify_run(
    results: Mapping,
    model_cfg: Mapping | None,
    dataset_cfg: Mapping | None,
    manifest: Mapping | None,
    *,
    results_path: Path,
    model_abbr: str,
    dataset_abbr: str,
    written: float = 0.0,
) -> tuple[RunResult, tuple[str, ...]]:
    """Reconcile a run's records into a :class:`RunResult`.

    Args:
        results: the parsed results file.
        model_cfg: the saved config's ``models`` entry for this run, if found.
        dataset_cfg: the saved config's ``datasets`` entry for this run, if found.
        manifest: the generator manifest's ``runs`` entry for this run, if found.
        results_path: where the results file is.
        model_abbr: its folder name.
        dataset_abbr: its file stem.
        written: its modification time.

    Returns:
        The run, and one sentence per disagreement between records (or doubt).

    Raises:
        UnidentifiedRun: no record names the model or the benchmark, or a record is malformed.

    >>> identify_run({"accuracy": 1.0}, None, None, None, results_path=Path("r.json"),
    ...              model_abbr="m", dataset_abbr="d")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gpassk_opencompass.leaderboard.identify.UnidentifiedRun: no saved config or manifest names the model (its path); ...
    """
    record = _read(results, results_path)
    info = record.gpassk
    manifest = manifest or {}
    model_cfg = model_cfg or {}
    evaluator = _evaluator_cfg(dataset_cfg)
    notes: list[str] = []

    def first(field: str, *candidates: tuple[str, T | None]) -> T | None:
        present = [(source, value) for source, value in candidates if value is not None]
        for source, value in present[1:]:
            if value != present[0][1]:
                notes.append(
                    f"{field}: {present[0][0]} says {present[0][1]!r}, {source} says {value!r}; using {present[0][0]}"
                )
        return present[0][1] if present else None

    dataset_k = dataset_n = None
    if dataset_cfg is not None:  # OpenCompass runs a dataset without k/n as k = n = 1
        dataset_k = _int_tuple(dataset_cfg.get("k", 1), "the saved config's k")
        dataset_n = _optional(positive_int, dataset_cfg.get("n", 1), "the saved config's n")

    model_path = first(
        "model path", ("the manifest", manifest.get("model_path")), ("the saved config", model_cfg.get("path"))
    )
    display_name = manifest.get("display_name") or (PurePosixPath(str(model_path)).name if model_path else None)
    if not display_name:
        raise UnidentifiedRun(
            "no saved config or manifest names the model (its path); keep the run's "
            "configs/ folder or pass the generator's manifest.json with --manifest"
        )
    benchmark = first(
        "benchmark",
        ("the results", info.benchmark),
        ("the saved config's evaluator", evaluator.get("benchmark")),
        ("the manifest", manifest.get("benchmark")),
    )
    if benchmark is not None and not isinstance(benchmark, str):
        raise UnidentifiedRun(f"the benchmark should be a name, got {benchmark!r}")
    if not benchmark:
        raise UnidentifiedRun(
            "no record names the benchmark; set benchmark=<canonical name> on "
            "GPassKEvaluator in the dataset config, or pass the generator's manifest.json"
        )
    k = first(
        "k",
        ("the results", _int_tuple(info.k, "the results' gpassk.k")),
        ("the saved config", dataset_k),
        ("the manifest", _int_tuple(manifest.get("k"), "the manifest's k")),
    )
    recorded_n = info.n if info.n is not None or info.curtail is None else info.curtail.n  # a curtailed run: its n
    n = first(
        "n",
        ("the results", _optional(positive_int, recorded_n, "the results' gpassk.n")),
        ("the saved config", dataset_n),
        ("the manifest", _optional(positive_int, manifest.get("n"), "the manifest's n")),
    )
    if k is None or n is None:
        raise UnidentifiedRun("no record states k and n; keep the run's configs/ folder")
    temperature = first(
        "temperature",
        ("the manifest", _optional(finite_number, manifest.get("temperature"), "the manifest's temperature")),
        ("the saved config", model_temperature(model_cfg)),
    )
    greedy = manifest.get("greedy")
    if not isinstance(greedy, bool):
        greedy = n == 1 and _deterministic(model_cfg, temperature)
        if n == 1 and not greedy:
            notes.append(
                "n = 1 but no record says decoding was greedy (temperature 0, do_sample=False "
                "or top_k=1); not used for the Greedy column"
            )
    thresholds = record.thresholds or None
    run = RunResult(
        results_path=results_path,
        model_abbr=model_abbr,
        dataset_abbr=dataset_abbr,
        display_name=str(display_name),
        benchmark=benchmark,
        greedy=greedy,
        n=n,
        k=k,
        temperature=temperature,
        model_path=None if model_path is None else str(model_path),
        metrics=result_metrics(record),
        intervals=result_intervals(record),
        thresholds=thresholds,
        written=written,
        unresolved=result_unresolved(record, results_path),
        bounds=result_bounds(record),
        problems=record.problems,
        questions=info.questions if info.questions is not None else (len(record.details) or None),
        judge=info.judge,
        protocol=info.prompt_version,
        cut=record.cut,
        curtail=info.curtail,
    )
    return run, tuple(notes)


def result_unresolved(results: Mapping | ResultsFile, results_path: Path) -> Unresolved | None:
    """What an incomplete results file lacks, or ``None`` when it is complete (read by
    :func:`~gpassk_opencompass.scoring.results.read_results`, every schema version).

    Raises:
        UnidentifiedRun: a completeness field holds something other than a count / a boolean.

    >>> result_unresolved({"unresolved": 0, "gpassk": {"complete": True}}, Path("r.json")) is None
    True
    >>> result_unresolved({"gpassk": {"n": 16, "questions": 3, "judge_stats": {"total": 48, "unresolved": 45}}},
    ...                   Path("r.json")).describe()
    '45 of 48 generations unresolved'
    """
    record = _read(results, results_path)
    if record.complete:
        return None
    return Unresolved(results_path, record.unresolved, record.generations or None)


def result_bounds(results: Mapping | ResultsFile) -> dict[str, tuple[float, float]]:
    """``gpassk.bounds`` of an incomplete results file: ``{metric key: (all wrong, all right)}``.

    >>> result_bounds({"gpassk": {"bounds": {"mG-Pass@16": [2.5, 60.0]}}})
    {'mG-Pass@16': (2.5, 60.0)}
    """
    return dict(_read(results).bounds)


def model_temperature(model_cfg: Mapping) -> float | None:
    """The sampling temperature a model config sets, wherever its class keeps it.

    API models (``OpenAISDK``) take ``temperature``; HuggingFace and vLLM models
    ``generation_kwargs``; lmdeploy TurboMind models ``gen_config``.

    >>> model_temperature({"gen_config": {"temperature": 0.7, "top_p": 0.8}})
    0.7
    >>> model_temperature({"path": "m"}) is None
    True
    """
    for holder in (model_cfg, model_cfg.get("generation_kwargs"), model_cfg.get("gen_config")):
        if isinstance(holder, Mapping) and holder.get("temperature") is not None:
            return _optional(finite_number, holder["temperature"], "the saved config's temperature")
    return None


def result_metrics(results: Mapping | ResultsFile) -> dict[str, float]:
    """The finite numeric entries of a results file (its metrics), in file order; not ``unresolved``.

    >>> result_metrics({"G-Pass@16_0.5": 40.0, "details": [], "ok": True, "x": float("nan"), "unresolved": 0})
    {'G-Pass@16_0.5': 40.0}
    """
    return {key: value for key, value in _read(results).metrics.items() if key not in NOT_METRICS}


def result_intervals(results: Mapping | ResultsFile) -> dict[str, Interval]:
    """Bootstrap intervals from the results' ``gpassk.uncertainty`` block, by metric key.

    >>> result_intervals({"gpassk": {"uncertainty": {"mG-Pass@16": {
    ...     "mean": 30.0, "stderr": 1.0, "ci_low": 28.1, "ci_high": 32.0, "ci": 0.95}}}})
    {'mG-Pass@16': Interval(mean=30.0, stderr=1.0, low=28.1, high=32.0, level=0.95)}
    """
    return _read(results).uncertainty


def _read(results: Mapping | ResultsFile, results_path: Path | None = None) -> ResultsFile:
    """The results document through the one reader; a malformed one is an :class:`UnidentifiedRun`."""
    if isinstance(results, ResultsFile):
        return results
    try:
        return read_results(results, str(results_path) if results_path is not None else "the results")
    except InputError as error:
        message = str(error)
        if results_path is not None and message.startswith(f"{results_path}: "):
            message = message[len(f"{results_path}: ") :]
        raise UnidentifiedRun(message) from None


def _evaluator_cfg(dataset_cfg: Mapping | None) -> Mapping:
    eval_cfg = (dataset_cfg or {}).get("eval_cfg")
    evaluator = eval_cfg.get("evaluator") if isinstance(eval_cfg, Mapping) else None
    return evaluator if isinstance(evaluator, Mapping) else {}


def _int_tuple(value: object, what: str) -> tuple[int, ...] | None:
    """``k`` as OpenCompass allows it: an int or a list of ints."""
    if value is None:
        return None
    items = value if isinstance(value, (list, tuple)) and value else [value]
    try:
        return tuple(positive_int(item, what) for item in items)
    except InputError:
        raise UnidentifiedRun(f"{what} must be a positive integer or a list of them, got {value!r}") from None


def _optional(check: Callable[[object, str], T], value: object, what: str) -> T | None:
    """``check(value, what)`` (a :mod:`gpassk_opencompass.checks` helper) unless ``value`` is ``None``.

    >>> _optional(positive_int, 0, "the manifest's n")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.leaderboard.identify.UnidentifiedRun: the manifest's n must be a positive integer, got 0
    """
    if value is None:
        return None
    try:
        return check(value, what)
    except InputError as error:
        raise UnidentifiedRun(str(error)) from None


def _deterministic(model_cfg: Mapping, temperature: float | None) -> bool:
    if temperature == 0:
        return True
    for holder in (model_cfg.get("generation_kwargs"), model_cfg.get("gen_config")):
        if isinstance(holder, Mapping) and (holder.get("do_sample") is False or holder.get("top_k") == 1):
            return True
    return False
