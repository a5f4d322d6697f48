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
reported, never resolved silently.  What the run claims to be beyond its model and
benchmark is typed data too: a pilot (:func:`pilot`: fewer questions than the
published column) and the user's own data (:func:`own_data`: an absolute data path
in the saved config, with its digest).

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
from typing import Any, TypeVar

from gpassk_opencompass.checks import finite_number, positive_int
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard.records import OwnData, Pilot, RunResult, Unresolved
from gpassk_opencompass.leaderboard.table import published_questions
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
    run_id: str | None = None,
    digest: Callable[[str], str | None] = lambda path: None,
) -> tuple[RunResult, tuple[str, ...]]:
    """Reconcile a run's records into a :class:`RunResult`: the model's name, the benchmark, k and n, the
    sampling, then what the run claims to be (:func:`pilot`, :func:`own_data`).

    Args:
        results: the parsed results file.
        model_cfg: the saved config's ``models`` entry for this run, if found.
        dataset_cfg: the saved config's ``datasets`` entry for this run, if found.
        manifest: the generator manifest's ``runs`` entry for this run, if found.
        results_path: where the results file is.
        model_abbr: its folder name.
        dataset_abbr: its file stem.
        written: its modification time.
        run_id: :func:`~gpassk_opencompass.leaderboard.records.run_id` of its bytes.
        digest: the sha256 of a data file the saved config names (:func:`own_data`), when it can be read.

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
    manifest, model_cfg = manifest or {}, model_cfg or {}
    agree = _Agreement()
    model_path, display_name = _model_name(agree, manifest, model_cfg)
    benchmark = _benchmark(agree, record, dataset_cfg, manifest)
    k, n = _design(agree, record, dataset_cfg, manifest)
    temperature = agree.first(
        "temperature",
        ("the manifest", _optional(finite_number, manifest.get("temperature"), "the manifest's temperature")),
        ("the saved config", model_temperature(model_cfg)),
    )
    greedy = _greedy(agree, manifest, model_cfg, n, temperature)
    questions = _questions(record)
    run = RunResult(
        model_abbr=model_abbr,
        dataset_abbr=dataset_abbr,
        display_name=display_name,
        benchmark=benchmark,
        greedy=greedy,
        n=n,
        k=k,
        temperature=temperature,
        model_path=None if model_path is None else str(model_path),
        written=written,
        run_id=run_id,
        pilot=pilot(benchmark, questions),
        own_data=own_data(dataset_cfg, digest),
        **_recorded(record, results_path),
    )
    return run, tuple(agree.notes)


class _Agreement:
    """The records' values of a field, first present wins; each disagreement noted in one sentence."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def first(self, field: str, *candidates: tuple[str, T | None]) -> T | None:
        present = [(source, value) for source, value in candidates if value is not None]
        for source, value in present[1:]:
            if value != present[0][1]:
                self.notes.append(
                    f"{field}: {present[0][0]} says {present[0][1]!r}, {source} says {value!r}; using {present[0][0]}"
                )
        return present[0][1] if present else None


def _model_name(agree: _Agreement, manifest: Mapping, model_cfg: Mapping) -> tuple[object, str]:
    """The model's path (manifest, then saved config) and its display name (the manifest's, else the path's last
    component)."""
    model_path = agree.first(
        "model path", ("the manifest", manifest.get("model_path")), ("the saved config", model_cfg.get("path"))
    )
    display_name = manifest.get("display_name") or (PurePosixPath(str(model_path)).name if model_path else None)
    if not display_name:
        raise UnidentifiedRun(
            "no saved config or manifest names the model (its path); keep the run's "
            "configs/ folder or pass the generator's manifest.json with --manifest"
        )
    return model_path, str(display_name)


def _benchmark(agree: _Agreement, record: ResultsFile, dataset_cfg: Mapping | None, manifest: Mapping) -> str:
    """The benchmark: the results', then the saved config's evaluator's, then the manifest's."""
    benchmark = agree.first(
        "benchmark",
        ("the results", record.gpassk.benchmark),
        ("the saved config's evaluator", _evaluator_cfg(dataset_cfg).get("benchmark")),
        ("the manifest", manifest.get("benchmark")),
    )
    if benchmark is not None and not isinstance(benchmark, str):
        raise UnidentifiedRun(f"the benchmark should be a name, got {benchmark!r}")
    if not benchmark:
        raise UnidentifiedRun(
            "no record names the benchmark; set benchmark=<canonical name> on "
            "GPassKEvaluator in the dataset config, or pass the generator's manifest.json"
        )
    return benchmark


def _design(
    agree: _Agreement, record: ResultsFile, dataset_cfg: Mapping | None, manifest: Mapping
) -> tuple[tuple[int, ...], int]:
    """k and n: the results', then the saved config's, then the manifest's."""
    dataset_k = dataset_n = None
    if dataset_cfg is not None:  # OpenCompass runs a dataset without k/n as k = n = 1
        dataset_k = _int_tuple(dataset_cfg.get("k", 1), "the saved config's k")
        dataset_n = _optional(positive_int, dataset_cfg.get("n", 1), "the saved config's n")
    info = record.gpassk
    k = agree.first(
        "k",
        ("the results", _int_tuple(info.k, "the results' gpassk.k")),
        ("the saved config", dataset_k),
        ("the manifest", _int_tuple(manifest.get("k"), "the manifest's k")),
    )
    recorded_n = info.n if info.n is not None or info.curtail is None else info.curtail.n  # a curtailed run: its n
    n = agree.first(
        "n",
        ("the results", _optional(positive_int, recorded_n, "the results' gpassk.n")),
        ("the saved config", dataset_n),
        ("the manifest", _optional(positive_int, manifest.get("n"), "the manifest's n")),
    )
    if k is None or n is None:
        raise UnidentifiedRun("no record states k and n; keep the run's configs/ folder")
    return k, n


def _greedy(agree: _Agreement, manifest: Mapping, model_cfg: Mapping, n: int, temperature: float | None) -> bool:
    """The manifest's word, else n = 1 with deterministic decoding (an n = 1 run that is not: noted)."""
    greedy = manifest.get("greedy")
    if isinstance(greedy, bool):
        return greedy
    greedy = n == 1 and _deterministic(model_cfg, temperature)
    if n == 1 and not greedy:
        agree.notes.append(
            "n = 1 but no record says decoding was greedy (temperature 0, do_sample=False "
            "or top_k=1); not used for the Greedy column"
        )
    return greedy


def run_from_results(record: ResultsFile, results_path: Path, *, run_id: str, written: float) -> RunResult:
    """The run a results file describes by itself (a ``gpassk score`` output: no saved config, no manifest),
    named after its file; n is the one it records, else its design's, else its widest question's.

    >>> run = run_from_results(read_results({"accuracy": 50.0, "gpassk": {"benchmark": "AIME2025", "k": [1],
    ...     "n": 2, "questions": 5}}, "s.json"), Path("s.json"), run_id="ab", written=0.0)
    >>> run.display_name, run.n, run.k, run.metrics, [type(claim).__name__ for claim in run.claims]
    ('s', 2, (1,), {'accuracy': 50.0}, ['Pilot'])
    """
    info = record.gpassk
    widest = max((question.n for question in record.details), default=1)
    n = info.n if info.n is not None else (info.curtail.n if info.curtail is not None else widest)
    benchmark = record.benchmark or ""
    return RunResult(
        model_abbr=results_path.stem,
        dataset_abbr=results_path.stem,
        display_name=results_path.stem,
        benchmark=benchmark,
        greedy=False,
        n=n,
        k=record.ks,
        written=written,
        run_id=run_id,
        pilot=pilot(benchmark, _questions(record)) if benchmark else None,
        **_recorded(record, results_path),
    )


def _questions(record: ResultsFile) -> int | None:
    return record.gpassk.questions if record.gpassk.questions is not None else (len(record.details) or None)


def _recorded(record: ResultsFile, results_path: Path) -> dict[str, Any]:
    """The fields of a run its results file records (what was measured, and how completely)."""
    return {
        "results_path": results_path,
        "metrics": {key: value for key, value in record.metrics.items() if key not in NOT_METRICS},
        "intervals": record.uncertainty,
        "thresholds": record.thresholds or None,
        "unresolved": None
        if record.complete
        else Unresolved(results_path, record.unresolved, record.generations or None),
        "bounds": dict(record.bounds),
        "problems": record.problems,
        "questions": _questions(record),
        "judge": record.gpassk.judge,
        "protocol": record.gpassk.prompt_version,
        "cut": record.cut,
        "curtail": record.gpassk.curtail,
    }


def pilot(benchmark: str, questions: int | None) -> Pilot | None:
    """A run of fewer questions than its benchmark's published column is a pilot (``max_questions``,
    ``test_range``); ``None`` otherwise, or when either count is unknown.

    >>> pilot("AIME2025", 5), pilot("AIME2025", 15), pilot("my-own-set", 5)
    (Pilot(questions=5, published=15), None, None)
    """
    published = published_questions(benchmark)
    return (
        Pilot(questions, published)
        if questions is not None and published is not None and questions < published
        else None
    )


def own_data(dataset_cfg: Mapping | None, digest: Callable[[str], str | None] = lambda path: None) -> OwnData | None:
    """The user's own data file, when the saved config's dataset reads one: the grid's ``data_paths`` (and a
    hand-written config) give an absolute ``path``; the benchmarks' shipped configs name their data relative to
    the data cache. ``digest(path)`` is its sha256, when it can be read.

    >>> own_data({"path": "/data/aime2025.jsonl"}), own_data({"path": "opencompass/aime2025"}), own_data(None)
    (OwnData(path='/data/aime2025.jsonl', sha256=None), None, None)
    """
    path = (dataset_cfg or {}).get("path")
    if not isinstance(path, str) or not PurePosixPath(path).is_absolute():
        return None
    return OwnData(path, digest(path))


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


def _read(results: Mapping, results_path: Path) -> ResultsFile:
    """The results document through the one reader (every schema version); a malformed one is an
    :class:`UnidentifiedRun`."""
    try:
        return read_results(results, str(results_path))
    except InputError as error:
        raise UnidentifiedRun(str(error).removeprefix(f"{results_path}: ")) from None


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
