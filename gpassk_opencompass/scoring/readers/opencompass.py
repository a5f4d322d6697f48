"""An OpenCompass run's predictions, made without our evaluator: ``predictions/<model>/<dataset>.json``.

OpenCompass writes one JSON object per model x dataset, ``{"0": {"origin_prompt": ..., "prediction": ...,
"gold": ...}, "1": ...}``, split into ``<dataset>_0.json``, ``<dataset>_1.json``... parts when the
dataset is partitioned (:func:`prediction_parts`). For G-Pass@k a dataset
is repeated n times, so the n generations of a question are the rows with its prompt and gold answer.

Mapped as: the rows grouped by (``origin_prompt``, ``gold``) in order of first appearance -> one question;
``<dataset>/<i>`` (i counted from 0) -> id; ``origin_prompt`` -> question (a chat prompt's turns joined);
``gold`` -> answer; each row's ``prediction`` (a list when the model returned several) -> predictions.
A run made with ``GPassKEvaluator`` is judged again in place with ``gpassk rejudge`` instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import read_json_file
from gpassk_opencompass.scoring.readers._complete import check_complete
from gpassk_opencompass.scoring.readers._folder import gold_answer

NAME = "opencompass"
DESCRIPTION = "an OpenCompass run's predictions/<model>/<dataset>.json (or its _0, _1... parts)"

_PART = re.compile(r"^(?P<dataset>.+)_(?P<part>\d+)$")


def detect(path: Path) -> bool:
    """A ``.json`` file two levels under a ``predictions`` folder."""
    return path.suffix == ".json" and path.is_file() and path.parent.parent.name == "predictions"


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


def files(path: Path) -> list[Path]:
    """What :func:`read` reads: ``path`` and its sibling parts (:func:`parts`)."""
    return [path] if path.is_dir() else parts(path)[1]


def read(path: Path) -> Iterator[dict]:
    """One question per distinct (prompt, gold), its rows' predictions in order (see the module docstring)."""
    if path.is_dir():
        raise InputError(
            f"{path} is a folder; --format opencompass reads one predictions/<model>/<dataset>.json file "
            f"(a run made with GPassKEvaluator is judged again with: gpassk rejudge {path})"
        )
    dataset, files = parts(path)
    questions: dict[tuple[str, str], dict] = {}
    for file in files:
        for row, record in _rows(file):
            where = f"{file} row {row}"
            key = (
                _prompt(record.get("origin_prompt"), where),
                gold_answer(record.get("gold"), where, "gold", "G-Pass@k needs one reference answer per question"),
            )
            question = questions.setdefault(
                key, {"id": f"{dataset}/{len(questions)}", "question": key[0], "answer": key[1], "predictions": []}
            )
            question["predictions"] += _predictions(record.get("prediction"), where)
    check_complete(
        str(files[0]) if len(files) == 1 else f"{path.parent / dataset}_*.json",
        {question["id"]: range(len(question["predictions"])) for question in questions.values()},
        says="OpenCompass repeats every question n times, so each has the same number of predictions; a last part "
        "file is missing, or two questions share a prompt and gold answer",
        name=lambda question, index: f"prediction {index + 1} of question {question!r}",
        fix="give the predictions of a finished run, every part",
    )
    yield from questions.values()


def _rows(file: Path) -> Iterator[tuple[str, dict]]:
    data = read_json_file(file)
    if not isinstance(data, dict) or not data:
        raise InputError(
            f'{file}: expected OpenCompass\'s predictions object {{"0": {{origin_prompt, prediction, gold}}, ...}}, '
            f"got {'an empty object' if data == {} else type(data).__name__}"
        )
    for row, record in data.items():
        if not isinstance(record, dict) or "prediction" not in record or "gold" not in record:
            raise InputError(
                f"{file} row {row}: expected an object with origin_prompt, prediction and gold (a run of "
                "OpenCompass's infer task); got "
                + (f"keys {sorted(record)}" if isinstance(record, dict) else type(record).__name__)
            )
        yield row, record


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
