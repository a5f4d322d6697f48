"""Re-judge a finished OpenCompass run with another judge, without generating again.

For a run, a model's predictions folder or one predictions file, the run's saved config gives the model and
dataset entries of each predictions file; a :class:`~gpassk_opencompass.plugin.evaluator.GPassKEvaluator` with
the new judge runs in OpenCompass's own ``OpenICLEvalTask`` on the saved predictions, into a run directory of its
own that ``gpassk leaderboard`` reads like any other. The dataset must load as it did (predictions that do not
match its rows are refused first, :func:`check_data_matches`). See docs/scoring.md, "gpassk rejudge".
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from opencompass.registry import MODELS
from opencompass.utils.build import build_dataset_from_cfg

from gpassk_opencompass.defaults import MAX_N
from gpassk_opencompass.errors import InputError, clause
from gpassk_opencompass.files import read_bytes_bounded, read_json_file
from gpassk_opencompass.files.writing import (
    check_not_inside,
    check_replaceable,
    check_writable_folder,
    write_bytes_atomic,
)
from gpassk_opencompass.judges.kinds import SOURCE
from gpassk_opencompass.log import logger
from gpassk_opencompass.plugin.config_types import resolve_config_types
from gpassk_opencompass.plugin.datasets.files import locate
from gpassk_opencompass.plugin.evaluator import GPassKEvaluator
from gpassk_opencompass.plugin.replicas import data_changed
from gpassk_opencompass.plugin.runs import (
    MAX_CONFIG_BYTES,
    load_saved_config,
    prediction_parts,
    saved_config_paths,
)
from gpassk_opencompass.scoring.readers.opencompass import score_commands
from gpassk_opencompass.scoring.results import ResultsFile
from gpassk_opencompass.scoring.results_io import load_results


@dataclass(frozen=True)
class RejudgeTarget:
    """One model x dataset of a finished run, with the config entries that produced it."""

    run_dir: Path
    model_abbr: str
    dataset_abbr: str
    model_cfg: dict
    dataset_cfg: dict
    config_path: Path


def find_targets(path: str | os.PathLike) -> list[RejudgeTarget]:
    """Every model x dataset with predictions under ``path`` (a run, a predictions folder or file).

    Raises:
        InputError: the path is not part of an OpenCompass run, the run has no
            saved config, or no predictions match its config.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"{str(path)!r} does not exist")
    if path.is_file():
        run_dir, models, wanted_file = path.parent.parent.parent, [path.parent.name], path
    elif (path / "predictions").is_dir():
        run_dir, models, wanted_file = path, None, None
    elif path.name == "predictions":
        run_dir, models, wanted_file = path.parent, None, None
    elif path.parent.name == "predictions":
        run_dir, models, wanted_file = path.parent.parent, [path.name], None
    elif (path / "round1" / "predictions").is_dir():  # a curtailed run's folder (docs/grid.md, "Curtailed grids")
        raise InputError(
            f"{path} is a curtailed run: its verdicts decided which questions went on to round 2, so it is scored "
            f"with them; its rounds are OpenCompass runs: gpassk rejudge {path / 'round1'} judges round 1 again "
            "into a run of its own, which gpassk agree compares with the judge that decided"
        )
    else:
        raise InputError(
            f"{str(path)!r} is not an OpenCompass run (outputs/<timestamp>), its predictions/ "
            "folder, a predictions/<model_abbr> folder or a predictions file"
        )
    configs = saved_config_paths(run_dir)
    if not configs:
        raise InputError(f"{run_dir} has no saved config (configs/*.py): cannot tell how its predictions were made")
    config_path = configs[0]
    saved = load_saved_config(config_path)  # as data: UnreadableConfig names the file and line
    config = resolve_config_types(saved, config_path)  # every type named, or one line before anything else
    model_dirs = (
        models
        if models is not None
        else sorted(folder.name for folder in (run_dir / "predictions").iterdir() if folder.is_dir())
    )
    targets = []
    for model_abbr in model_dirs:
        for model_cfg, dataset_cfg in _pairs(saved, config, model_abbr):
            dataset_abbr = dataset_cfg["abbr"]
            parts = prediction_parts(run_dir, model_abbr, dataset_abbr)
            if not parts or (
                wanted_file is not None and wanted_file.resolve() not in [part.resolve() for part in parts]
            ):
                continue
            targets.append(
                RejudgeTarget(
                    run_dir, model_abbr, dataset_abbr, copy.deepcopy(model_cfg), copy.deepcopy(dataset_cfg), config_path
                )
            )
    if not targets:
        raise InputError(f"no predictions under {path} match a model and dataset of {config_path}")
    return targets


def _pairs(saved: Mapping, resolved: Mapping, model_abbr: str) -> list[tuple[dict, dict]]:
    """(model, dataset) entries of the resolved config that OpenCompass ran for this model, abbrs written in.

    An abbr OpenCompass derives (an entry without one) comes from the saved entry:
    for a model, from its ``type`` as named there.
    """
    pairs = []
    for combination, done in zip(_combinations(saved), _combinations(resolved)):
        for model_cfg, model_done in zip(combination.get("models", []), done.get("models", [])):
            if _abbr(model_cfg, "model") == model_abbr:
                pairs += [
                    ({**model_done, "abbr": model_abbr}, {**dataset_done, "abbr": _abbr(dataset_cfg, "dataset")})
                    for dataset_cfg, dataset_done in zip(combination.get("datasets", []), done.get("datasets", []))
                ]
    return pairs


def _combinations(config: Mapping) -> list[Mapping]:
    """The config's model x dataset combinations (``models`` x ``datasets`` when it has none)."""
    return config.get("model_dataset_combinations") or [
        {"models": config.get("models", []), "datasets": config.get("datasets", [])}
    ]


def _abbr(cfg: Mapping, kind: str) -> str:
    from opencompass.utils import dataset_abbr_from_cfg, model_abbr_from_cfg

    return model_abbr_from_cfg(cfg) if kind == "model" else dataset_abbr_from_cfg(cfg)


#: What a saved evaluator says about *what* was evaluated, the only keywords ``gpassk rejudge`` keeps from it: the
#: benchmark, the question's columns and subsets, the prompt language, how predictions were post-processed (its
#: ``type`` resolved by the names door). How to judge (the judge, its endpoints, processes, concurrency, timeouts,
#: retries, cache paths, the statistics asked) comes from the person running the command or the defaults.
EVALUATED = ("benchmark", "question_column", "subset_columns", "language", "language_column", "pred_postprocessor")


def with_judge(
    dataset_cfg: Mapping, evaluator: Mapping, ks: Sequence[int] | None = None, ignored: set[str] | None = None
) -> dict:
    """The dataset entry scored by GPassKEvaluator with these keywords (and k, when given).

    Of the original evaluator's keywords only :data:`EVALUATED` are kept (a shared folder says what was
    evaluated, never how); ``evaluator`` overrides them. The names of the others are added to ``ignored``.

    >>> saved = {"abbr": "d", "eval_cfg": {"evaluator": {"benchmark": "AIME2025", "rule_processes": 48}}}
    >>> left = set()
    >>> entry = with_judge(saved, {"judge": "rule"}, ignored=left)
    >>> sorted(key for key in entry["eval_cfg"]["evaluator"] if key != "type"), left
    (['benchmark', 'judge'], {'rule_processes'})
    """
    entry = copy.deepcopy(dict(dataset_cfg))
    eval_cfg = dict(entry.get("eval_cfg") or {})
    original = dict(eval_cfg.get("evaluator") or {})
    original.pop("type", None)  # resolved by config_types: a class, never a name; ours replaces it
    kept = {key: value for key, value in original.items() if key in EVALUATED}
    if ignored is not None:
        ignored.update(key for key in original if key not in EVALUATED)
    eval_cfg["evaluator"] = {**kept, **evaluator, "type": GPassKEvaluator}
    entry["eval_cfg"] = eval_cfg
    if ks is not None:
        entry["k"] = list(ks)
    return entry


def rejudge(
    targets: Sequence[RejudgeTarget], output_dir: str | os.PathLike, evaluator: Mapping, ks: Sequence[int] | None = None
) -> list[Path]:
    """Score every target with GPassKEvaluator(**evaluator) through OpenCompass's eval task.

    Args:
        targets: from :func:`find_targets`.
        output_dir: the new run directory (created; predictions are linked,
            not copied), outside every run being re-judged. Rerunning
            resumes: a complete result made as asked (same judge, judge
            model, prompt version, k and thresholds) is kept; an incomplete
            one (unresolved verdicts) is judged again, its judge cache
            answering every verdict that arrived, so only the missing ones
            are asked; one made otherwise is judged again into the same file.
        evaluator: GPassKEvaluator keywords (judge, url, model_name, ...).
        ks: replace the datasets' k (each must be <= n).

    Returns:
        The results files, one per target.

    Raises:
        InputError: before any work, for ``output_dir`` equal to or inside a
            run being re-judged, a k above n, or a bad judge setting.
    """
    from mmengine.config import ConfigDict
    from opencompass.tasks import OpenICLEvalTask

    output_dir = Path(output_dir)
    for run_dir in dict.fromkeys(target.run_dir for target in targets):
        check_not_inside("--output", output_dir, "the run being re-judged", run_dir)
    prepared = []
    ignored: set[str] = set()
    for target in targets:  # every check before the first judgment
        check_replaceable("--output", _results_path(output_dir, target))  # OpenCompass writes it: a file or none
        dataset_cfg = with_judge(target.dataset_cfg, evaluator, ks, ignored)
        n = _bounded_n(dataset_cfg, target)
        if ks is not None and max(ks) > n:
            raise InputError(
                f"k must be <= n; got k={max(ks)} but {target.model_abbr} x {target.dataset_abbr} "
                f"has n={n} generations per question"
            )
        # what OpenCompass gets passes the door again: a target made by hand holds no name either
        task_config = resolve_config_types(
            {"models": [target.model_cfg], "datasets": [[dataset_cfg]]}, target.config_path
        )
        model_cfg, dataset_cfg = _role_lookup(task_config["models"][0], task_config["datasets"][0][0])
        check_data_matches(target, dataset_cfg)
        prepared.append((target, model_cfg, dataset_cfg, _instantiate_evaluator(dataset_cfg)))
    if ignored:
        logger.warning(
            "rejudge: the saved evaluator's {} ignored (a saved config says what was evaluated, never how: "
            "those come from this command's options or the defaults)",
            ", ".join(sorted(ignored)),
        )
    for target, *_ in prepared:
        _link_predictions(target, output_dir)
    results = []
    for target, model_cfg, dataset_cfg, asked in prepared:
        configs = output_dir / "configs"
        configs.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(
            configs / target.config_path.name,
            read_bytes_bounded(target.config_path, MAX_CONFIG_BYTES, "a dumped OpenCompass config"),
        )
        result = _results_path(output_dir, target)
        reason = _why_judge_again(result, asked, dataset_cfg.get("k", 1)) if result.is_file() else None
        if reason is not None:  # OpenCompass skips a dataset whose results file exists
            logger.info("judging {} x {} again into {}: {}", target.model_abbr, target.dataset_abbr, result, reason)
            result.unlink()
        task = OpenICLEvalTask(
            ConfigDict(
                models=[model_cfg],
                datasets=[[dataset_cfg]],
                work_dir=str(output_dir),
                eval=dict(runner=dict(task=dict(dump_details=True))),
            )
        )
        task.run()
        if not result.is_file():
            raise RuntimeError(f"OpenCompass's eval task wrote no {result}")
        results.append(result)
    return results


def _bounded_n(dataset_cfg: Mapping, target: RejudgeTarget) -> int:
    """The saved dataset's ``n`` (generations per question: it sizes the dataset OpenCompass builds), bounded where
    it is read; its ``k`` each at most ``n``.

    Raises:
        InputError: ``n`` not a whole number from 1 to :data:`~gpassk_opencompass.defaults.MAX_N`, or a k not
            from 1 to ``n`` (naming the saved config).
    """
    n, ks = dataset_cfg.get("n", 1), dataset_cfg.get("k", 1)
    where = f"{target.config_path}: {target.model_abbr} x {target.dataset_abbr}"
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise InputError(f"{where}: n = {n!r:.40}; generations per question must be a whole number from 1 to {MAX_N:,}")
    for k in [ks] if isinstance(ks, int) else ks if isinstance(ks, (list, tuple)) else [ks]:
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
            raise InputError(f"{where}: k = {k!r:.40}; each k must be a whole number from 1 to n = {n}; give --k")
    return n


def check_data_matches(target: RejudgeTarget, dataset_cfg: Mapping) -> None:
    """Refuse, before anything is judged, a run whose predictions do not match its dataset's rows as they load now.

    OpenCompass's eval task pairs the i-th prediction with the i-th row of the dataset it builds from the
    config (each question n times); data changed or moved since the run (a newer download, another
    ``COMPASS_DATA_CACHE``) give another number of rows. The line names the data read, both counts and the fix.

    Raises:
        InputError: the counts differ.
    """
    predictions = 0
    for part in prediction_parts(target.run_dir, target.model_abbr, target.dataset_abbr):
        records = read_json_file(part)
        if not isinstance(records, dict):
            return  # not OpenCompass's predictions: its eval task says so
        predictions += len(records)
    rows = len(build_dataset_from_cfg(dataset_cfg).test)
    if predictions == rows:
        return
    raise InputError(
        data_changed(
            f"{target.model_abbr} x {target.dataset_abbr}",
            predictions,
            rows,
            dataset_cfg.get("n", 1),
            _data_place(dataset_cfg),
            "rejudge again",
        )
    )


def _data_place(dataset_cfg: Mapping) -> str:
    """Where the dataset's ``path`` resolves now (OpenCompass's mapping, nothing downloaded), with the path."""
    path = dataset_cfg.get("path")
    if not isinstance(path, str):
        return "the dataset config's data"
    try:
        where = locate(path, "", hub=True).where
    except (FileNotFoundError, InputError):
        return f"path={path!r}"
    return f"{where} (path={path!r})" if where != path else where


def _role_lookup(model_cfg: dict, dataset_cfg: dict) -> tuple[dict, dict]:
    """The entries as OpenICLEvalTask can take them when it would look the model up by name.

    With a ``pred_role`` in ``eval_cfg`` and a ``meta_template`` on the model,
    OpenCompass reads ``MODELS.get(model type).is_api`` and extracts that
    role's text unless the model is an API model. Our model type is the class
    (:func:`resolve_config_types`): for an API model the role is dropped, as
    OpenCompass would ignore it; otherwise the type is the name ``MODELS``
    registered it under (looked up in its own table, nothing imported); a
    model class it does not register is refused with a ``pred_role``.
    """
    eval_cfg = dataset_cfg.get("eval_cfg") or {}
    model_type = model_cfg.get("type")
    if "pred_role" not in eval_cfg or "meta_template" not in model_cfg or not isinstance(model_type, type):
        return model_cfg, dataset_cfg
    if getattr(model_type, "is_api", False):
        eval_cfg = {key: value for key, value in eval_cfg.items() if key != "pred_role"}
        return model_cfg, {**dataset_cfg, "eval_cfg": eval_cfg}
    names = [name for name, registered in MODELS.module_dict.items() if registered is model_type and "." not in name]
    if not names:
        raise InputError(
            f"{model_cfg.get('abbr')} x {dataset_cfg.get('abbr')}: pred_role {eval_cfg['pred_role']!r} makes "
            f"OpenCompass look the model up by name, and its MODELS registry does not hold {model_type.__name__} "
            "(a name from a saved config is never imported); remove pred_role from the saved config's eval_cfg "
            "to judge the whole replies"
        )
    return {**model_cfg, "type": names[0]}, dataset_cfg


def _why_judge_again(results_file: Path, asked: GPassKEvaluator, ks) -> str | None:
    """Why an existing results file is not the answer to this re-judge, or ``None`` when it is.

    It is judged again when it does not read, is incomplete (unresolved
    verdicts: the judge cache answers those that arrived), or was made with
    another judge, judge model, prompt version, k, thresholds, or other
    intervals (bootstrap or Bayesian, their level, the prior).
    """
    try:
        record = load_results(results_file)
    except InputError as error:
        return f"the existing results do not read ({clause(error)})"
    if not record.complete:
        return "the existing results are incomplete (only the missing verdicts are asked)"
    judge = asked.scoring_judge
    wanted = {
        "judge": judge.name,
        "judge_model": judge.identity().get("judge_model"),
        "prompt_version": settings.prompt_version if (settings := asked.judge_settings) is not None else None,
        "k": [ks] if isinstance(ks, int) else list(ks),
        "thresholds": [float(tau) for tau in asked.request.thresholds],
    }
    made = {name: getattr(record.gpassk, name) for name in wanted}
    if isinstance(made["k"], int):
        made["k"] = [made["k"]]
    request, bayes_level, prior = asked.request, _level(record.gpassk.bayes), _prior(record)
    wanted["intervals"] = {
        "bootstrap": request.ci if request.bootstrap else None,
        "bayes": [request.ci, *request.prior] if request.bayes else None,
    }
    made["intervals"] = {
        "bootstrap": _level(record.gpassk.uncertainty),
        "bayes": [bayes_level, *prior] if bayes_level is not None and prior is not None else None,
    }
    differs = [f"{name} {made[name]!r} (asked: {wanted[name]!r})" for name in wanted if made[name] != wanted[name]]
    return f"the existing results were made with {', '.join(differs)}" if differs else None


def _level(intervals: Mapping | None) -> float | None:
    """The one level of a results file's intervals (``None``: none, or several levels: not as any request makes)."""
    levels = {interval.level for interval in (intervals or {}).values()}
    return levels.pop() if len(levels) == 1 else None


def _prior(record) -> list[float] | None:
    """The one Beta prior of a results file's Bayesian intervals (``None``: several)."""
    priors = {tuple(estimate.prior) for estimate in (record.gpassk.bayes or {}).values()}
    return list(priors.pop()) if len(priors) == 1 else None


def _results_path(output_dir: Path, target: RejudgeTarget) -> Path:
    """Where OpenCompass's eval task writes ``target``'s results in ``output_dir``."""
    return output_dir / "results" / target.model_abbr / f"{target.dataset_abbr}.json"


def _instantiate_evaluator(dataset_cfg: Mapping) -> GPassKEvaluator:
    """Build the evaluator now so a bad judge setting fails before anything runs; it says what will judge."""
    keywords = {key: value for key, value in dataset_cfg["eval_cfg"]["evaluator"].items() if key != "type"}
    return GPassKEvaluator(**keywords)


def _link_predictions(target: RejudgeTarget, output_dir: Path) -> None:
    link = output_dir / "predictions" / target.model_abbr
    source = (target.run_dir / "predictions" / target.model_abbr).resolve()
    if link.is_symlink() or link.exists():
        if link.resolve() != source:
            raise InputError(f"{link} already holds other predictions; choose another output directory")
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(source, target_is_directory=True)


@dataclass(frozen=True)
class Rejudged:
    """One re-judged model x dataset: where its results are, and the results read back."""

    target: RejudgeTarget
    path: Path
    results: ResultsFile


def default_output(targets: Sequence[RejudgeTarget]) -> Path:
    """``<run>_rejudged`` next to the (first) run being re-judged."""
    run_dir = targets[0].run_dir
    return run_dir.with_name(run_dir.name + "_rejudged")


def rejudge_run(
    path: str | os.PathLike,
    evaluator: Mapping,
    *,
    output_dir: str | os.PathLike | None = None,
    ks: Sequence[int] | None = None,
) -> list[Rejudged]:
    """``gpassk rejudge``: find the run's targets, re-judge them into ``output_dir``, read the results back.

    Args:
        path: a run, its predictions folder, a model's predictions folder or one predictions file.
        evaluator: GPassKEvaluator keywords (judge, url, model_name, interval, ...).
        output_dir: the new run directory (default: :func:`default_output`).
        ks: replace the datasets' k.

    Raises:
        InputError: a bad path, output or setting, before anything is judged.
        JudgeError: the judge cannot serve the run.
    """
    targets = find_targets(path)
    if evaluator.get("judge") == SOURCE:
        first = targets[0]
        predictions = prediction_parts(first.run_dir, first.model_abbr, first.dataset_abbr)[0]
        raise InputError(
            "--judge source takes the verdicts the run's own evaluator kept (in results/, under --dump-eval-details), "
            "not a judge's: nothing to judge again; "
            + (score_commands(Path(path)) or f"score them with: gpassk score {predictions} --judge source --k K")
        )
    output_dir = Path(output_dir) if output_dir is not None else default_output(targets)
    check_writable_folder("--output", output_dir)
    for target in targets:
        logger.info(
            "re-judging {} x {} from {} into {}", target.model_abbr, target.dataset_abbr, target.run_dir, output_dir
        )
    paths = rejudge(targets, output_dir, evaluator, ks=ks)
    return [Rejudged(target, result, load_results(result)) for target, result in zip(targets, paths)]
