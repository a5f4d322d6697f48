"""Read lm-evaluation-harness samples (``lm_eval run ... --log_samples``) as gpassk generations.

lm-eval writes ``samples_<task>_<time>.jsonl``, one line per question **per filter**; the lines are joined by
``doc_id``: ``resps[0]`` -> predictions, ``target`` -> answer, the ``filtered_resps`` of the first filter that
keeps one answer per generation -> source_extracted, and per-generation source_verdicts only where
"extracted == target" reproduces that filter's ``exact_match`` mean exactly (else ``None``). A folder must
hold exactly one ``samples_*.jsonl``. The mapping and lm-eval's quirks: docs/scoring.md, "lm-eval".

>>> import json, pathlib, tempfile
>>> line = {"doc_id": 0, "doc": {"question": "1+1?"}, "target": "2", "resps": [["so 2", "so 3"]]}
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "samples_t_2026.jsonl").write_text("\\n".join(json.dumps({**line, **more}) for more in (
...     {"filtered_resps": ["2"], "filter": "first", "exact_match": 1.0},
...     {"filtered_resps": [["2", "3"]], "filter": "all", "exact_match": 0.5})))
>>> detect(folder), detect(folder / "samples_t_2026.jsonl")
(True, True)
>>> record = next(read(folder))
>>> record["id"], record["answer"], record["predictions"], record["source_extracted"], record["source_verdicts"]
('0', '2', ['so 2', 'so 3'], ['2', '3'], [True, False])
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files, load_json_text, read_lines
from gpassk_opencompass.scoring.readers._folder import detect_dump, gold_answer, only_file
from gpassk_opencompass.scoring.readers.sniff import first_record

NAME = "lm-eval"
DESCRIPTION = (
    "lm-evaluation-harness --log_samples: samples_<task>_<time>.jsonl (or its output folder); "
    "source verdicts only where a filter keeps all n answers and exact_match pins each one"
)

#: How lm-eval names a samples file.
SAMPLES_GLOB = "samples_*.jsonl"
#: The fields every samples line has (lm-eval 0.4.x).
REQUIRED = ("doc_id", "target", "resps", "filtered_resps", "filter")
#: Where a ``doc`` usually keeps the question text, in order of preference.
QUESTION_FIELDS = ("question", "problem", "Question", "Problem", "input", "query")


def detect(path: pathlib.Path) -> bool:
    """Whether ``path`` is an lm-eval samples file, or a folder holding one (from its first line)."""
    return detect_dump(path, _looks_like_samples, _samples_in, ".jsonl")


def _looks_like_samples(path: pathlib.Path) -> bool:
    first = first_record(path, (".jsonl",))
    return isinstance(first, dict) and all(name in first for name in REQUIRED)


def _samples_in(folder: pathlib.Path) -> list[pathlib.Path]:
    return find_files(folder, SAMPLES_GLOB, f"*/{SAMPLES_GLOB}")


def samples_file(path: pathlib.Path) -> pathlib.Path:
    """The samples file ``path`` names: itself, or the one ``samples_*.jsonl`` of an output folder."""
    return only_file(path, _samples_in, "lm-eval samples file", SAMPLES_GLOB, "run lm_eval with --log_samples")


def files(path: pathlib.Path) -> list[pathlib.Path]:
    """What :func:`read` reads: the one file :func:`samples_file` names."""
    return [samples_file(path)]


def read(path: pathlib.Path) -> Iterator[dict]:
    """One gpassk generations record per question of an lm-eval samples file (see the module docstring).

    Raises:
        InputError: a line is not an lm-eval generative sample (the message names file, line, field, fix).
    """
    source = samples_file(path)
    records: dict[int, dict] = {}
    first_line: dict[tuple[int, str], int] = {}
    for number, line in enumerate(read_lines(source), start=1):
        if line.strip():
            _add(records, first_line, line, f"{source} line {number}", number)
    if not records:
        raise InputError(f"{source}: no samples (the file is empty); run lm_eval with --log_samples")
    for record in records.values():
        record.pop("per_prediction_filter", None)
        yield record


def _add(records: dict[int, dict], first_line: dict[tuple[int, str], int], line: str, where: str, number: int) -> None:
    sample = load_json_text(line, source=where)
    if not isinstance(sample, dict):
        raise InputError(
            f"{where}: expected a JSON object, got {type(sample).__name__}; is this an lm-eval samples file?"
        )
    missing = [name for name in REQUIRED if name not in sample]
    if missing:
        raise InputError(
            f"{where}: missing {', '.join(map(repr, missing))}; an lm-eval samples line (--log_samples) has "
            f"{', '.join(REQUIRED)}"
        )
    doc_id, filter_name = sample["doc_id"], sample["filter"]
    if type(doc_id) is not int or doc_id < 0 or not isinstance(filter_name, str):
        raise InputError(
            f'{where}: "doc_id" must be a non-negative integer and "filter" a string, got {doc_id!r} and '
            f"{filter_name!r}; is this an lm-eval samples file?"
        )
    if (doc_id, filter_name) in first_line:
        raise InputError(
            f"{where}: doc_id {doc_id} with filter {filter_name!r} repeats line {first_line[doc_id, filter_name]}; "
            "give one run's samples file, not several joined"
        )
    first_line[doc_id, filter_name] = number
    predictions = _predictions(sample["resps"], where)
    answer = gold_answer(sample["target"], where, '"target"', "score a task with one gold answer per question")
    record = records.get(doc_id)
    if record is None:
        record = records[doc_id] = {
            "id": str(doc_id),
            "question": _question(sample, where),
            "answer": answer,
            "predictions": predictions,
        }
    elif record["predictions"] != predictions or record["answer"] != answer:
        raise InputError(
            f'{where}: doc_id {doc_id} has other "resps" or "target" than on its first line; '
            "the file mixes runs: give one run's samples file"
        )
    extracted = _per_prediction(sample["filtered_resps"], len(predictions), where)
    if extracted is not None and "per_prediction_filter" not in record:
        record["per_prediction_filter"] = filter_name
        record["source_extracted"] = extracted
        record["source_verdicts"] = _verdicts(extracted, answer, sample.get("exact_match"))


def _predictions(resps, where: str) -> list[str]:
    if not (isinstance(resps, list) and len(resps) == 1 and isinstance(resps[0], list) and resps[0]):
        shape = type(resps).__name__ if not isinstance(resps, list) else f"{len(resps)} requests"
        shape = "no generations" if resps == [[]] else shape
        raise InputError(
            f'{where}: "resps" must be [[generation, ...]] (one generate_until request, its n repeats), got {shape}; '
            "only generative lm-eval tasks (output_type: generate_until) have answers to score"
        )
    for position, text in enumerate(resps[0]):
        if not isinstance(text, str):
            raise InputError(
                f'{where}: "resps"[0][{position}] must be a generation (a string), got {type(text).__name__}; '
                "only generative lm-eval tasks (output_type: generate_until) have answers to score"
            )
    return resps[0]


def _question(sample: dict, where: str) -> str:
    doc = sample.get("doc")
    if isinstance(doc, dict):
        for name in QUESTION_FIELDS:
            if isinstance(doc.get(name), str):
                return doc[name]
    arguments = sample.get("arguments")
    first = next(iter(arguments.values()), None) if isinstance(arguments, dict) else None
    prompt = first.get("arg_0") if isinstance(first, dict) else None
    if isinstance(prompt, list) and prompt and isinstance(prompt[0], str):  # a chat prompt: [messages as JSON]
        prompt = prompt[0]
    if isinstance(prompt, str):
        return prompt
    raise InputError(
        f'{where}: no question text: "doc" has none of {", ".join(QUESTION_FIELDS)} and "arguments" no prompt; '
        "is this an lm-eval samples file?"
    )


def _per_prediction(filtered, n: int, where: str) -> list[str | None] | None:
    """The filter's answer per generation (``[[a1, ..., an]]``), or None for a filter that keeps one answer."""
    if not (isinstance(filtered, list) and len(filtered) == 1):
        raise InputError(
            f'{where}: "filtered_resps" must hold one entry (the filter\'s output for the one request), '
            f"got {filtered!r:.60}; is this an lm-eval samples file of a generative task?"
        )
    kept = filtered[0]
    if not isinstance(kept, list):
        return None
    if len(kept) != n:
        raise InputError(
            f'{where}: "filtered_resps"[0] has {len(kept)} answers for {n} generations in "resps"; '
            "a filter keeping all answers gives one per generation"
        )
    return [answer if isinstance(answer, str) else None for answer in kept]


def _verdicts(extracted: list[str | None], answer: str, exact_match) -> list[bool | None]:
    """Per generation ``extracted == answer`` where that is lm-eval's own ``exact_match`` mean, else ``None``."""
    strict: list[bool | None] = [text == answer for text in extracted]
    n = len(extracted)
    number = isinstance(exact_match, (int, float)) and not isinstance(exact_match, bool)
    return strict if number and abs(exact_match * n - sum(map(bool, strict))) < 1e-9 else [None] * n
