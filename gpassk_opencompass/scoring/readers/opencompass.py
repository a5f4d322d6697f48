"""An OpenCompass run's predictions, with OpenCompass's own per-sample verdicts where its run kept them.

``predictions/<model>/<dataset>.json`` (or its ``_0``, ``_1``... parts, :func:`prediction_parts`) holds the
n-times repeated dataset: row ``r`` is replica ``r // Q`` of question ``r % Q``. Without verdicts the rows are
grouped by (``origin_prompt``, ``gold``); with ``--dump-eval-details`` and OpenCompass's own evaluator, the
results file's ``details`` give per question (``example_abbr``) one verdict per replica (``correct``, else
``is_correct``, else ``cascade_correct``) -> source_verdicts, a ``pred`` other than the generation ->
source_extracted, the rows checked against prompts and gold. The mapping: docs/scoring.md, "opencompass".
Where the details keep an LLM judge's replies -- ``CascadeEvaluator``'s ``llm_evaluation`` (for the replicas its
rule did not accept, each naming its ``dataset_replica_idx``), ``GenericLLMEvaluator``'s judge output
(``prediction`` beside the judge's ``origin_prompt``) -- a replica's verdict is its rule's yes, else its judge's
reply read by the one reader of judge replies
(:func:`~gpassk_opencompass.judges.source_replies.read_source_reply`): a blank, all-thinking or verdict-less
reply is unresolved, where OpenCompass counts it wrong. Where the grid's model classes recorded why each
generation stopped (the finish-reason sidecar beside each predictions file,
:mod:`~gpassk_opencompass.scoring.finish_reasons`), a question's ``finish_reasons`` says it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from gpassk_opencompass.checks import is_int
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files, read_head, read_json_file
from gpassk_opencompass.judges.source_replies import read_source_reply
from gpassk_opencompass.scoring.finish_reasons import finish_reasons_of, sidecar_path
from gpassk_opencompass.scoring.readers._complete import check_complete
from gpassk_opencompass.scoring.readers._folder import gold_answer
from gpassk_opencompass.scoring.readers.sniff import SNIFF_BYTES

NAME = "opencompass"
DESCRIPTION = "an OpenCompass run's predictions/<model>/<dataset>.json or its results/<model>/<dataset>.json"

#: The per-replica verdict keys of OpenCompass's own evaluators, in the order ``BaseEvaluator.evaluate`` reads them.
VERDICT_KEYS = ("correct", "is_correct", "cascade_correct")

_PART = re.compile(r"^(?P<dataset>.+)_(?P<part>\d+)$")
_EXAMPLE = re.compile(r"^(?P<subdivision>.+)_(?P<index>0|[1-9]\d*)$")
#: The most subfolders of a work dir looked at for runs.
_MAX_RUNS = 1000
_FIX_RUN = "give the predictions and results of one run (its eval step writes the results from those predictions)"


def detect(path: Path) -> bool:
    """A ``.json`` file two levels under a run's ``predictions`` (or ``results``, beside its predictions) folder;
    or a folder of a run (the run, its ``predictions`` or ``results``, a model's folder in them, a work dir of
    runs), to say which files to give (:func:`score_commands`). Never raises."""
    if path.is_dir():
        try:
            return any(_datasets(path))
        except (OSError, InputError):  # a part missing between _0 and the last: read() names it when given a file
            return False
    if path.suffix != ".json" or not path.is_file():
        return False
    folder = path.parent.parent
    return folder.name == "predictions" or (
        folder.name == "results" and (folder.parent / "predictions" / path.parent.name).is_dir()
    )


def prediction_parts(run_dir: Path, model_abbr: str, dataset_abbr: str) -> list[Path]:
    """The predictions file of one model x dataset, or its ``_0``, ``_1``... parts in order ([] if none).

    Raises:
        InputError: a part is missing between ``_0`` and the last one found (named in the message).
    """
    folder = Path(run_dir) / "predictions" / model_abbr
    whole = folder / f"{dataset_abbr}.json"
    if whole.is_file():
        return [whole]
    part = re.compile(re.escape(dataset_abbr) + r"_(0|[1-9]\d*)\.json")
    found = {
        int(match[1]): file
        for file in (folder.iterdir() if folder.is_dir() else ())
        if (match := part.fullmatch(file.name)) and file.is_file()
    }
    if 0 not in found:  # no partitioned run (a ``<other abbr>_3.json`` may be another dataset's whole file)
        return []
    check_complete(
        str(folder),
        {dataset_abbr: found.keys()},
        says=f"OpenCompass numbers the parts of a partitioned dataset _0 to _N; found {_listed(found.values())}",
        name=lambda dataset, index: f"{dataset}_{index}.json",
        fix="give a run whose infer task finished (opencompass -r TIMESTAMP completes it)",
    )
    return [found[index] for index in sorted(found)]


def prediction_texts(run_dir: Path, model_abbr: str, dataset_abbr: str) -> list[str]:
    """The generations of one model x dataset of a run, one per row in OpenCompass's order (every part).

    Raises:
        InputError: no predictions file, a part missing, a row that is not OpenCompass's or holds other than one
            generation (one line naming it).
    """
    found = prediction_parts(run_dir, model_abbr, dataset_abbr)
    if not found:
        raise InputError(
            f"{Path(run_dir) / 'predictions' / model_abbr / dataset_abbr}.json does not exist (nor its _0, _1... "
            "parts): the run's infer task did not finish"
        )
    texts = []
    for file in found:
        for row, record in _rows(file):
            prediction = _predictions(record.get("prediction"), f"{file} row {row}")
            if len(prediction) != 1:
                raise InputError(f"{file} row {row}: holds {len(prediction)} generations; expected one per row")
            texts += prediction
    return texts


def recorded_finish_reasons(run_dir: Path, model_abbr: str, dataset_abbr: str) -> tuple[str | None, ...] | None:
    """Per row of one model x dataset of a run (OpenCompass's order, every part), the finish reason its sidecar
    recorded (``None`` where none); ``None`` when no part has a sidecar (the run's model classes recorded none).

    Raises:
        InputError: as :func:`prediction_texts`, only when a sidecar exists.
    """
    sidecars = [sidecar_path(file) for file in prediction_parts(run_dir, model_abbr, dataset_abbr)]
    if not any(os.path.lexists(sidecar) for sidecar in sidecars):
        return None
    return finish_reasons_of(prediction_texts(run_dir, model_abbr, dataset_abbr), sidecars)


def _with_finish_reasons(questions: list[dict], found: list[Path]) -> list[dict]:
    """The questions, each with ``finish_reasons`` where a sidecar of ``found`` exists (as read, otherwise)."""
    texts = [text for question in questions for text in question["predictions"]]
    reasons = finish_reasons_of(texts, [sidecar_path(file) for file in found])
    if reasons is None:
        return questions
    start = 0
    for question in questions:
        question["finish_reasons"] = list(reasons[start : start + len(question["predictions"])])
        start += len(question["predictions"])
    return questions


def _listed(files: Iterable[Path]) -> str:
    names = sorted((file.name for file in files), key=lambda name: (len(name), name))
    return ", ".join(names[:4]) + (f" ... {names[-1]}" if len(names) > 4 else "")


def parts(path: Path) -> tuple[str, list[Path]]:
    """The dataset's abbr and its predictions files: ``path`` alone, or every ``_0``, ``_1``... part of it."""
    match = _PART.match(path.stem)
    if match and not (path.parent / f"{match['dataset']}.json").is_file():
        dataset = match["dataset"]
        found = prediction_parts(path.parent.parent.parent, path.parent.name, dataset)
        if path in found:
            return dataset, found
    return path.stem, [path]


def _located(path: Path) -> tuple[str, list[Path], Path]:
    """The dataset's abbr, its predictions files and its results file (which may not exist), from either file.

    Raises:
        InputError: a results file without the predictions of its run beside it.
    """
    if path.parent.parent.name == "results":
        run_dir, model, dataset = path.parent.parent.parent, path.parent.name, path.stem
        found = prediction_parts(run_dir, model, dataset)
        if not found:
            raise InputError(
                f"{path}: no predictions for it ({run_dir / 'predictions' / model / dataset}.json or its _0, _1... "
                "parts); the results hold OpenCompass's verdicts, the predictions the generations: give the whole run"
            )
        return dataset, found, path
    dataset, found = parts(path)
    return dataset, found, path.parent.parent.parent / "results" / path.parent.name / f"{dataset}.json"


def files(path: Path) -> list[Path]:
    """What :func:`read` reads: the predictions file and its sibling parts (:func:`parts`), their finish-reason
    sidecars that are regular files (one that is not is left out with a warning when read, never an error: the
    predictions are scored with the text's lower bound), the results file."""
    if path.is_dir():
        return [path]
    _, found, results = _located(path)
    sidecars = [sidecar for file in found if (sidecar := sidecar_path(file)).is_file()]
    return [*found, *sidecars, *([results] if results.is_file() else [])]


def no_verdicts(path: Path) -> str:
    """Why the run of ``path`` carries no OpenCompass verdicts, for ``--judge source``'s refusal ('' if it does)."""
    return "" if path.is_dir() else _details(_located(path)[2])[1]


def read(path: Path) -> Iterator[dict]:
    """One question per question of the run, with OpenCompass's verdicts where kept (see the module docstring)."""
    if path.is_dir():
        raise InputError(
            f"{path}: {score_commands(path) or 'a folder; --format opencompass reads one predictions/<model>/<dataset>.json file'}"
        )
    dataset, found, results = _located(path)
    rows = [(f"{file} row {row}", record) for file in found for row, record in _rows(file)]
    details, _ = _details(results)
    if details is None:
        source = str(found[0]) if len(found) == 1 else f"{found[0].parent / dataset}_*.json"
        questions = list(_by_prompt(dataset, rows, source))
    else:
        questions = list(_by_index(dataset, rows, details, results))
    yield from _with_finish_reasons(questions, found)


#: The most commands :func:`score_commands` lists; the rest are counted.
_LISTED = 3
_GPASSK_BLOCK = re.compile(rb'"gpassk"\s*:\s*\{')
_DETAILS = re.compile(rb'"details"\s*:\s*\[')
# A per-sample verdict in the details, or an LLM judge's replies there (CascadeEvaluator's, GenericLLMEvaluator's).
_VERDICT = re.compile(
    rb'"(?:'
    + b"|".join(key.encode() for key in VERDICT_KEYS)
    + rb')"\s*:|"llm_evaluation"\s*:|"origin_prompt"\s*:\s*\['
)


def score_commands(path: Path) -> str:
    """What to run for an OpenCompass run's folder (or one predictions file), one model x dataset at a time.

    Per model x dataset, by what its results file holds (its first bytes, :func:`_judged_by`): OpenCompass's own
    evaluator's per-sample verdicts (``--dump-eval-details``) -> ``gpassk score <predictions> --judge source``;
    GPassKEvaluator's -> ``gpassk rejudge <run>``; none -> ``gpassk score <predictions> --judge rule``. At most
    three commands are listed, the others counted. ``""``: not a folder of a run. Never raises.
    """
    try:
        entries = list(_datasets(path)) if path.is_dir() else [(path.parent.parent.parent, *parts(path))]
    except (OSError, InputError):
        return ""
    if not entries:
        return ""
    own: list[Path] = []
    plain: list[Path] = []
    rejudged: dict[Path, None] = {}  # the runs GPassKEvaluator judged, in order
    for run_dir, dataset, found in entries:
        judged = _judged_by(run_dir / "results" / found[0].parent.name / f"{dataset}.json")
        if judged == "gpassk":
            rejudged.setdefault(run_dir, None)
        else:
            (own if judged == "own" else plain).append(found[0])
    listed = [f"gpassk score {file} --judge source --k K" for file in own]
    listed += [f"gpassk score {file} --judge rule --k K" for file in plain]
    listed += [f"gpassk rejudge {run_dir}" for run_dir in rejudged]
    more = (
        f" (and {len(listed) - _LISTED} more, one per predictions/<model>/<dataset>.json)"
        if len(listed) > _LISTED
        else ""
    )
    why = []
    if own:
        why.append("--judge source: the per-sample verdicts OpenCompass's own evaluator kept (--dump-eval-details)")
    if rejudged:
        why.append("gpassk rejudge: a run GPassKEvaluator judged, judged again in place")
    return (
        "an OpenCompass run's folder; gpassk score takes one model x dataset's predictions file: "
        f"{'; '.join(listed[:_LISTED])}{more}{' (' + '; '.join(why) + ')' if why else ''}"
    )


def _judged_by(results: Path) -> str:
    """Who judged a results file, from its first bytes: ``gpassk`` (GPassKEvaluator's block), ``own`` (OpenCompass's
    details with a per-sample verdict), ``""`` (no file, or neither). Never raises."""
    head = read_head(results, SNIFF_BYTES) or b""
    if _GPASSK_BLOCK.search(head):
        return "gpassk"
    return "own" if _DETAILS.search(head) and _VERDICT.search(head) else ""


def _datasets(folder: Path) -> Iterator[tuple[Path, str, list[Path]]]:
    """``(run, dataset abbr, its predictions files)`` per model x dataset of the runs a folder is, is in or holds."""
    runs, model = _runs_of(folder)
    for run_dir in runs:
        seen: set[tuple[str, str]] = set()
        for file in find_files(run_dir / "predictions", f"{model or '*'}/*.json"):
            dataset, found = parts(file)
            if (file.parent.name, dataset) not in seen:
                seen.add((file.parent.name, dataset))
                yield run_dir, dataset, found


def _runs_of(folder: Path) -> tuple[list[Path], str | None]:
    """The runs a folder is (or is a part of, or holds: a ``-w`` work dir), and the one model it stands for."""
    if (folder / "predictions").is_dir():
        return [folder], None
    if folder.name in ("predictions", "results") and (folder.parent / "predictions").is_dir():
        return [folder.parent], None
    if (
        folder.parent.name in ("predictions", "results")
        and (folder.parent.parent / "predictions" / folder.name).is_dir()
    ):
        return [folder.parent.parent], folder.name
    below = sorted(child for child in folder.iterdir() if not child.is_symlink() and child.is_dir())
    return [child for child in below[:_MAX_RUNS] if (child / "predictions").is_dir()], None


def _by_prompt(dataset: str, rows: list[tuple[str, dict]], source: str) -> Iterator[dict]:
    """The rows grouped by (prompt, gold answer), without OpenCompass's verdicts to number them."""
    questions: dict[tuple[str, str], dict] = {}
    for where, record in rows:
        key = _key(record, where)
        question = questions.setdefault(
            key, {"id": f"{dataset}/{len(questions)}", "question": key[0], "answer": key[1], "predictions": []}
        )
        question["predictions"] += _predictions(record.get("prediction"), where)
    check_complete(
        source,
        {question["id"]: range(len(question["predictions"])) for question in questions.values()},
        says="OpenCompass repeats every question n times, so each has the same number of predictions; a last part "
        "file is missing, or two questions share a prompt and gold answer",
        name=lambda question, index: f"prediction {index + 1} of question {question!r}",
        fix="give the predictions of a finished run, every part",
    )
    yield from questions.values()


def _by_index(dataset: str, rows: list[tuple[str, dict]], details: list[dict], results: Path) -> Iterator[dict]:
    """Question ``i``'s replicas are rows ``i``, ``Q + i``, ...: OpenCompass's numbering, its verdicts matched by it."""
    total = len(details)
    if len(rows) % total:
        raise InputError(
            f"{results}: {total} questions in its details, but the predictions hold {len(rows)} rows, not n rows "
            f"for each; the predictions and the results are of different runs; {_FIX_RUN}"
        )
    n = len(rows) // total
    questions = [_replicas(dataset, detail, n, f"{results} details[{place}]") for place, detail in enumerate(details)]
    indices = sorted(index for index, _, _ in questions)
    if indices != list(range(total)):
        missing = min(set(range(total)) - set(indices))  # as many entries as questions: one is missing
        raise InputError(
            f"{results}: its details number the questions {_ranges(indices)}, not 0 to {total - 1} "
            f"(none for question {missing}); {_FIX_RUN}"
        )
    for index, verdicts, extracted in sorted(questions, key=lambda question: question[0]):
        replicas = [rows[replica * total + index] for replica in range(n)]
        key = _key(replicas[0][1], replicas[0][0])
        predictions = []
        for replica, (where, record) in enumerate(replicas):
            if _key(record, where) != key:
                raise InputError(
                    f"{where}: by OpenCompass's numbering it is replica {replica} of question {index} (row "
                    f"{replica} x {total} + {index} of the run), but its prompt or gold answer differs from that "
                    f"question's; {_FIX_RUN}"
                )
            prediction = _predictions(record.get("prediction"), where)
            if len(prediction) != 1:
                raise InputError(
                    f"{where}: holds {len(prediction)} predictions, but OpenCompass's verdicts in {results} are one "
                    "per row; score it with another judge (e.g. --judge rule)"
                )
            predictions += prediction
        question: dict[str, object] = {"id": f"{dataset}/{index}", "question": key[0], "answer": key[1]}
        question["predictions"] = predictions
        question["source_verdicts"] = verdicts or [None] * n
        answers = [
            answer if isinstance(answer, str) and answer != prediction else None
            for answer, prediction in zip(extracted or (), predictions)
        ]
        if any(answer is not None for answer in answers) and len(answers) == n:
            question["source_extracted"] = answers
        yield question


def _replicas(dataset: str, detail: dict, n: int, where: str) -> tuple[int, list[bool | None], list | None]:
    """One ``details`` entry: its question index, its verdict per replica, its ``pred`` per replica (if a list).

    OpenCompass flattens each replica's keys into one list per key, so a key only some replicas have
    (CascadeEvaluator's ``cascade_correct`` when a replica needed no LLM judge) is shorter than n and no longer
    says which replica each value is: refused, never matched by guessing.
    """
    abbr = detail.get("example_abbr")
    match = _EXAMPLE.match(abbr) if isinstance(abbr, str) else None
    if match is None or not (match["subdivision"] == dataset or match["subdivision"].startswith(f"{dataset}_")):
        raise InputError(
            f"{where}: example_abbr {abbr!r:.60} is not {dataset}_<question index> as OpenCompass writes it; {_FIX_RUN}"
        )
    columns = {key: detail[key] for key in VERDICT_KEYS if key in detail}
    for key, values in columns.items():
        if not isinstance(values, list):
            raise InputError(
                f"{where}: {key} must be a list of one verdict per replica (OpenCompass's details), got "
                f"{type(values).__name__}; {_FIX_RUN}"
            )
        if len(values) != n:
            raise InputError(
                f"{where}: {key} holds {len(values)} verdicts for the n={n} replicas of the predictions: which "
                "replica each is for is lost (the predictions and results of different runs, or an evaluator that "
                "wrote it for some replicas only); score with another judge (e.g. --judge rule)"
            )
    verdicts = [
        next(
            (
                _verdict(columns[key][replica], f"{where} {key}[{replica}]")
                for key in VERDICT_KEYS
                if key in columns and columns[key][replica] is not None
            ),
            None,
        )
        for replica in range(n if columns else 0)
    ]
    replies = _judge_replies(detail, n, where)
    if replies:
        verdicts = verdicts or [None] * n
        rules = detail.get("rule_evaluation")
        for replica, reply in replies.items():
            rule = rules[replica] if isinstance(rules, list) and len(rules) == n else None
            accepted = isinstance(rule, dict) and rule.get("correct") is True  # OpenCompass: rule or judge
            verdicts[replica] = True if accepted else read_source_reply("opencompass", reply)[0]
    extracted = detail.get("pred")
    return int(match["index"]), verdicts, extracted if isinstance(extracted, list) else None


def _judge_replies(detail: dict, n: int, where: str) -> dict[int, object]:
    """The LLM judge's reply per replica that has one, as OpenCompass's details keep them ({} if none)."""
    evaluations = detail.get("llm_evaluation")
    if isinstance(evaluations, list):  # CascadeEvaluator: only the replicas its rule did not accept, in order
        replies: dict[int, object] = {}
        for position, evaluation in enumerate(evaluations):
            replica = evaluation.get("dataset_replica_idx") if isinstance(evaluation, dict) else None
            if not is_int(replica) or not 0 <= replica < n or replica in replies:  # type: ignore[operator]
                raise InputError(
                    f"{where}: llm_evaluation[{position}] names no replica of 0 to {n - 1} of its own "
                    f"(dataset_replica_idx {replica!r:.20}): which generation the judge's reply is about is lost; "
                    "score with another judge (e.g. --judge rule)"
                )
            replies[replica] = evaluation.get("prediction")  # type: ignore[index]
        return replies
    if _judge_output(detail):  # GenericLLMEvaluator: its judge's output, one reply per replica
        predictions = detail["prediction"]
        if len(predictions) != n:
            raise InputError(
                f"{where}: its judge's replies (prediction) are {len(predictions)} for the n={n} replicas of the "
                f"predictions; {_FIX_RUN}"
            )
        return dict(enumerate(predictions))
    return {}


def _judge_output(detail: dict) -> bool:
    """A detail that is an LLM judge's own output (GenericLLMEvaluator's): its prompts and replies, no verdict."""
    return (
        not any(key in detail for key in VERDICT_KEYS)
        and isinstance(detail.get("origin_prompt"), list)
        and isinstance(detail.get("prediction"), list)
    )


def _verdict(value: object, where: str) -> bool:
    """A verdict as OpenCompass counts it (``int(value)``): true/false, or a number 0 or 1."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    raise InputError(f"{where}: a verdict is true, false, 0 or 1, got {value!r:.60}; {_FIX_RUN}")


def _details(results: Path) -> tuple[list[dict] | None, str]:
    """OpenCompass's per-question details in ``results`` with verdicts, or ``None`` and why there are none."""
    if not results.is_file():
        return (
            None,
            f"{results} does not exist (OpenCompass's eval step writes it, with verdicts under --dump-eval-details)",
        )
    data = read_json_file(results)
    if not isinstance(data, dict):
        raise InputError(f"{results}: expected OpenCompass's results object, got {type(data).__name__}; {_FIX_RUN}")
    if "gpassk" in data:
        return None, (
            f"{results} was written by GPassKEvaluator, whose verdicts are gpassk's own: judge the run again with "
            f"gpassk rejudge {results.parent.parent.parent}"
        )
    details = data.get("details")
    if details is None:
        return None, (
            f"{results} has no per-sample details: the run was evaluated without --dump-eval-details; rerun its "
            "eval step with it (move that file aside first: OpenCompass skips a dataset whose results exist)"
        )
    if (
        not isinstance(details, list)
        or not details
        or not all(isinstance(detail, dict) and "example_abbr" in detail for detail in details)
    ):
        return None, f"{results}: its details are not OpenCompass's per-question replicas (no example_abbr)"
    if not any(key in detail or _judge_output(detail) for detail in details for key in VERDICT_KEYS):
        return None, f"{results}: its details carry no per-sample verdict ({', '.join(VERDICT_KEYS)})"
    return details, ""


def _ranges(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers[:6])) + (f" ... {numbers[-1]}" if len(numbers) > 6 else "")


def _rows(file: Path) -> Iterator[tuple[str, dict]]:
    """The rows of one predictions file in OpenCompass's order: ``"0"``, ``"1"``, ... as its eval step reads them."""
    data = read_json_file(file)
    if not isinstance(data, dict) or not data:
        raise InputError(
            f'{file}: expected OpenCompass\'s predictions object {{"0": {{origin_prompt, prediction, gold}}, ...}}, '
            f"got {'an empty object' if data == {} else type(data).__name__}"
        )
    numbers = [str(number) for number in range(len(data))]
    if set(data) != set(numbers):
        row = next(row for row in data if row not in set(numbers))
        raise InputError(
            f"{file}: row {row!r:.40} is not numbered as OpenCompass numbers its rows (0 to {len(data) - 1}); "
            "give the file its infer task wrote"
        )
    for row in numbers:
        record = data[row]
        if not isinstance(record, dict) or "prediction" not in record or "gold" not in record:
            raise InputError(
                f"{file} row {row}: expected an object with origin_prompt, prediction and gold (a run of "
                "OpenCompass's infer task); got "
                + (f"keys {sorted(record)}" if isinstance(record, dict) else type(record).__name__)
            )
        yield row, record


def _key(record: dict, where: str) -> tuple[str, str]:
    """A row's (prompt, gold answer): what its question is."""
    return (
        _prompt(record.get("origin_prompt"), where),
        gold_answer(record.get("gold"), where, "gold", "G-Pass@k needs one reference answer per question"),
    )


def _prompt(prompt: object, where: str) -> str:
    """The prompt as text: a chat prompt's turns (``[{"role", "prompt"}, ...]``) joined by blank lines."""
    if prompt is None or isinstance(prompt, str):
        return prompt or ""
    if isinstance(prompt, list) and all(isinstance(turn, dict) for turn in prompt):
        return "\n\n".join(str(turn.get("prompt", "")) for turn in prompt)
    raise InputError(f"{where}: origin_prompt must be text or a list of chat turns, got {type(prompt).__name__}")


def _predictions(prediction: object, where: str) -> list[str]:
    values = prediction if isinstance(prediction, list) else [prediction]
    texts = [value for value in values if isinstance(value, str)]
    if len(texts) < len(values):
        value = next(value for value in values if not isinstance(value, str))
        raise InputError(f"{where}: prediction must be the model's text, got {type(value).__name__} {value!r:.80}")
    return texts
