"""EvalScope review files: one question per ``group_id``, its repeats' outputs as the n predictions.

``evalscope eval ... --repeats N`` writes ``reviews/<model>/<benchmark>_<subset>.jsonl``, one line per
generation: ``group_id`` -> id, the user messages -> question, ``target`` -> answer, ``score.prediction`` of
generations 0..N-1 -> predictions (a gap is refused), ``score.extracted_prediction`` -> source_extracted, the
main score of ``score.value`` -> source_verdicts, and the ``stop_reason`` of EvalScope's predictions file
beside the reviews -> finish_reasons. A folder must hold exactly one review file. The mapping: docs/scoring.md,
"evalscope".

>>> verdict(1.0), verdict(False), verdict(0), verdict(0.5), verdict("1")
(True, False, False, None, None)
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files, load_json_text, read_lines
from gpassk_opencompass.scoring.readers._complete import check_complete
from gpassk_opencompass.scoring.readers._folder import detect_dump, gold_answer, only_file
from gpassk_opencompass.scoring.readers.inspect import content_text
from gpassk_opencompass.scoring.readers.sniff import first_record

NAME = "evalscope"
DESCRIPTION = "EvalScope review files: reviews/<model>/<benchmark>_<subset>.jsonl (or its work dir); --repeats N"

#: Where the review files are, from a work dir (or a folder of timestamped runs).
_RUN_GLOBS = ("reviews/*/*.jsonl", "*/reviews/*/*.jsonl")
#: What every review line has (EvalScope 1.x).
_SCORE_FIELDS = ("score", "group_id", "generation_index")


def detect(path: pathlib.Path) -> bool:
    """Whether ``path`` is an EvalScope review file, or a folder holding one (its first line, at most 1 MB)."""
    return detect_dump(path, _looks_like_review, _reviews_in)


def _looks_like_review(path: pathlib.Path) -> bool:
    first = first_record(path, (".jsonl",))
    return (
        isinstance(first, dict)
        and "target" in first
        and isinstance(first.get("sample_score"), dict)
        and all(name in first["sample_score"] for name in _SCORE_FIELDS)
    )


def _reviews_in(folder: pathlib.Path) -> list[pathlib.Path]:
    if folder.parent.name == "reviews":  # reviews/<model>/
        patterns: tuple[str, ...] = ("*.jsonl",)
    elif folder.name == "reviews":
        patterns = ("*/*.jsonl",)
    else:
        patterns = _RUN_GLOBS
    return find_files(folder, *patterns)


def review_file(path: pathlib.Path) -> pathlib.Path:
    """The review file ``path`` names: itself, or the one ``reviews/<model>/*.jsonl`` of a work dir."""
    return only_file(
        path,
        _reviews_in,
        "EvalScope review file",
        "reviews/<model>/<benchmark>_<subset>.jsonl",
        "give the work dir of an evalscope eval run or its review file",
        per="model, benchmark and subset",
    )


def files(path: pathlib.Path) -> list[pathlib.Path]:
    """What :func:`read` reads: the one file :func:`review_file` names, and its predictions file when there."""
    review = review_file(path)
    predictions = predictions_file(review)
    return [review] if predictions is None else [review, predictions]


def predictions_file(review: pathlib.Path) -> pathlib.Path | None:
    """EvalScope's predictions file of a review file (``<run>/predictions/<model>/<same name>``), if it is there.

    >>> predictions_file(pathlib.Path("tests/data/evalscope/outputs/reviews/loopback-math/aime24_default.jsonl"))
    PosixPath('tests/data/evalscope/outputs/predictions/loopback-math/aime24_default.jsonl')
    """
    if review.parent.parent.name != "reviews":
        return None
    candidate = review.parent.parent.parent / "predictions" / review.parent.name / review.name
    return candidate if candidate.is_file() else None


def _stop_reasons(path: pathlib.Path | None) -> dict[int, tuple[str, str]]:
    """``{index: (the output's text, its stop_reason)}`` of a predictions file (empty without one)."""
    reasons: dict[int, tuple[str, str]] = {}
    for number, line in enumerate(read_lines(path) if path is not None else (), start=1):
        if not line.strip():
            continue
        record = load_json_text(line, source=f"{path} line {number}")
        output = record.get("model_output") if isinstance(record, dict) else None
        choices = output.get("choices") if isinstance(output, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        message = choice.get("message")
        text = message.get("content") if isinstance(message, dict) else None
        reason, index = choice.get("stop_reason"), record.get("index") if isinstance(record, dict) else None
        if type(index) is int and isinstance(text, str) and isinstance(reason, str):
            reasons[index] = (text, reason)
    return reasons


def read(path: pathlib.Path) -> Iterator[dict]:
    """One gpassk generations record per question (``group_id``) of an EvalScope review file, in file order.

    Raises:
        InputError: a line that is not an EvalScope review line, a field of the wrong type, a repeat twice, repeats
            of one question with different prompts or targets, an empty file (one line naming file, line, field).
    """
    source = review_file(path)
    stops = _stop_reasons(predictions_file(source))
    questions: dict[int, dict] = {}
    for number, line in enumerate(read_lines(source), start=1):
        if line.strip():
            _add(questions, line, f"{source} line {number}", stops)
    if not questions:
        raise InputError(f"{source}: no review lines (the file is empty); give the review file evalscope eval wrote")
    check_complete(
        str(source),
        {str(group): question["repeats"].keys() for group, question in questions.items()},
        says="EvalScope numbers every question's repeats generation_index 0..N-1 with --repeats N",
        name=lambda group, index: f"group_id {group} generation_index {index}",
        fix="give the review file evalscope eval wrote, whole",
    )
    for question in questions.values():
        yield _question(question)


def _add(questions: dict[int, dict], line: str, where: str, stops: dict[int, tuple[str, str]]) -> None:
    review = load_json_text(line, source=where)
    sample = review.get("sample_score") if isinstance(review, dict) else None
    if not isinstance(sample, dict) or not isinstance(sample.get("score"), dict):
        raise InputError(
            f"{where}: no 'sample_score' object with a 'score'; is this an EvalScope review file "
            "(reviews/<model>/*.jsonl, not predictions/)?"
        )
    group, repeat = sample.get("group_id"), sample.get("generation_index")
    if type(group) is not int or type(repeat) is not int or group < 0 or repeat < 0:
        raise InputError(
            f"{where}: 'sample_score.group_id' and 'generation_index' must be non-negative integers, got {group!r:.30} "
            f"and {repeat!r:.30}; give a review file of EvalScope 1.x"
        )
    score = sample["score"]
    entry = (
        _prompt(review.get("messages"), where),
        gold_answer(review.get("target"), where, "'target'", "gpassk scores against one gold answer per question"),
    )
    question = questions.setdefault(group, {"id": str(group), "entry": entry, "repeats": {}, "where": where})
    if question["entry"] != entry:
        raise InputError(
            f"{where}: group_id {group} has another prompt or target than at {question['where']}; "
            "the file mixes runs: give one run's review file"
        )
    if repeat in question["repeats"]:
        raise InputError(
            f"{where}: group_id {group} generation_index {repeat} appears twice; give one run's review file, "
            "not several joined"
        )
    prediction = _prediction(score, where)
    text, stop = stops.get(review.get("index"), (None, None))  # no such index: no stop reason
    question["repeats"][repeat] = (
        prediction,
        _extracted(score, where),
        _score_verdict(score),
        stop if text == prediction else None,  # the same generation, or no stop reason
    )


def _question(question: dict) -> dict:
    text, answer = question["entry"]
    repeats = [question["repeats"][index] for index in sorted(question["repeats"])]
    return {
        "id": question["id"],
        "question": text,
        "answer": answer,
        "predictions": [prediction for prediction, *_ in repeats],
        "source_extracted": [extracted for _, extracted, *_ in repeats],
        "source_verdicts": [verdict for _, _, verdict, _ in repeats],
        **({"finish_reasons": stops} if any(stops := [stop for *_, stop in repeats]) else {}),
    }


def _prompt(messages: object, where: str) -> str:
    if not isinstance(messages, list) or not all(isinstance(message, dict) for message in messages):
        raise InputError(f"{where}: 'messages' must be the list of chat messages EvalScope sent, got {messages!r:.60}")
    text = "\n\n".join(content_text(message.get("content")) for message in messages if message.get("role") == "user")
    if not text:
        raise InputError(f"{where}: 'messages' holds no user message with text; give the review file evalscope wrote")
    return text


def _prediction(score: dict, where: str) -> str:
    prediction = score.get("prediction")
    if not isinstance(prediction, str):
        raise InputError(
            f"{where}: 'sample_score.score.prediction' must be the model's output (a string), got {prediction!r:.60}"
        )
    return prediction


def _extracted(score: dict, where: str) -> str | None:
    extracted = score.get("extracted_prediction")
    if extracted is not None and not isinstance(extracted, str):
        raise InputError(
            f"{where}: 'sample_score.score.extracted_prediction' must be a string or null, got {extracted!r:.60}"
        )
    return extracted or None


def _score_verdict(score: dict) -> bool | None:
    """The main metric of a successful score as a verdict (see :func:`verdict`); None without one."""
    values = score.get("value")
    if score.get("status", "success") != "success" or not isinstance(values, dict):
        return None
    name = score.get("main_score_name")
    if name not in values:
        name = next(iter(values)) if len(values) == 1 else "acc"
    return verdict(values.get(name))


def verdict(value: object) -> bool | None:
    """EvalScope's per-sample score as a verdict: 1 or True -> True, 0 or False -> False, anything else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return True if value == 1 else False if value == 0 else None
    return None
