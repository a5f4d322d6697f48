"""Read NeMo-Skills generations (``ns eval``, ``ns generate``): ``output-rs<seed>.jsonl``, one file per random seed.

NeMo-Skills (NVIDIA) writes one file per random seed, ``eval-results/<benchmark>/output-rs0.jsonl``,
``output-rs1.jsonl``, ... (``output.jsonl`` for one greedy run), each one line per question in the order
of the benchmark's data, the data's fields kept beside what the run added::

    {"id": "...", "problem": "...", "expected_answer": "220", "generation": "... \\\\boxed{220}",
     "predicted_answer": "220", "symbolic_correct": true, "finish_reason": "stop", ...}

Its ``summarize_results`` joins the seed files **line by line** (``zip_longest`` of the sorted files) and
so does this reader: the question at line i of every seed file is one question, with one generation per
seed. Each line is one sample row (:func:`sample_row`):

* ``id``: the line's ``id`` when the data has one, else its position in the file (0, 1, ...), as text;
* ``question``: ``problem`` (``question`` in older versions); ``answer``: ``expected_answer``;
* ``prediction``: ``generation``; ``source_extracted``: ``predicted_answer`` (null: none extracted);
* ``source_verdict``: the LLM judge's ``judgement`` read as NeMo-Skills reads it (:func:`judgement_verdict`)
  when the run's first line has one -- the output of ``ns generate --generation_type=math_judge``, which
  NeMo-Skills writes to a folder of its own beside the evaluation's -- else ``symbolic_correct`` (its
  symbolic checker), else none;
* ``finish_reason``: ``finish_reason`` as the server returned it (``length``: cut at the token limit), but
  not in a judged run: there the judge's reply replaced it (NeMo-Skills keeps a line's fields except the ones its
  new output has). With ``++parse_reasoning=True`` a generation whose thinking never ended is ``""``
  (NeMo-Skills' choice; ``_full_generation`` keeps the text): no answer, as it has none.

The seed files must agree line by line: the same ``id`` (when there is one), ``problem`` and
``expected_answer`` at the same position, and as many lines each; a file that differs is one line
naming it, the line and the first file (NeMo-Skills would silently pair different questions).

>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> line = {"problem": "1+1?", "expected_answer": 2, "generation": "so \\\\boxed{2}", "predicted_answer": "2"}
>>> for seed, verdict in enumerate([True, False]):
...     _ = (folder / f"output-rs{seed}.jsonl").write_text(json.dumps(line | {"symbolic_correct": verdict}) + "\\n")
>>> detect(folder), [file.name for file in files(folder)]
(True, ['output-rs0.jsonl', 'output-rs1.jsonl'])
>>> (record,) = read(folder)
>>> record["id"], record["answer"], record["predictions"], record["source_verdicts"]
('0', '2', ['so \\\\boxed{2}', 'so \\\\boxed{2}'], [True, False])
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Iterator

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files, load_json_text, read_lines
from gpassk_opencompass.scoring.readers._folder import gold_answer
from gpassk_opencompass.scoring.readers.sniff import first_record

NAME = "nemo-skills"
DESCRIPTION = "NeMo-Skills output-rs<seed>.jsonl, one file per seed (or their folder, or output.jsonl)"

#: A seed file's name; the seed is its number (files are taken in seed order: rs2 before rs10).
SEED_FILE = re.compile(r"output-rs(\d+)\.jsonl")
#: The one file of a greedy run, when a folder has no seed files.
GREEDY_FILE = "output.jsonl"
#: Where a line keeps the question text, newest name first.
QUESTION_FIELDS = ("problem", "question")
#: The fields that hold NeMo-Skills' own verdict on a generation, in order of preference: a judged run's lines
#: keep the symbolic checker's verdict beside the judge's, and the judge is what that run was made for.
VERDICT_FIELDS = ("judgement", "symbolic_correct")
_FIX = "give the output-rs*.jsonl files of one `ns eval` run, as NeMo-Skills wrote them"


def detect(path: pathlib.Path) -> bool:
    """A ``.jsonl`` file whose first record has ``generation`` (text) and ``expected_answer``, or a folder of such.

    >>> detect(pathlib.Path("no-such-folder"))
    False
    """
    try:
        candidates = _in_folder(path) if path.is_dir() else [path]
        return bool(candidates) and _looks_like_output(candidates[0])
    except OSError:
        return False


def _looks_like_output(path: pathlib.Path) -> bool:
    record = first_record(path, (".jsonl",))
    return isinstance(record, dict) and isinstance(record.get("generation"), str) and "expected_answer" in record


def _in_folder(folder: pathlib.Path) -> list[pathlib.Path]:
    """The seed files of ``folder`` in seed order, else its ``output.jsonl``, else nothing."""
    seeds = [file for file in find_files(folder, "output-rs*.jsonl") if SEED_FILE.fullmatch(file.name)]
    if seeds:
        return sorted(seeds, key=lambda file: int(SEED_FILE.fullmatch(file.name)[1]))  # type: ignore[index]
    return find_files(folder, GREEDY_FILE)


def files(path: pathlib.Path) -> list[pathlib.Path]:
    """What :func:`read` reads: ``path`` itself, or a folder's seed files (else its ``output.jsonl``).

    Raises:
        InputError: a folder holding neither (the message says which files NeMo-Skills writes, and lists the
            benchmark subfolders that have them, as ``eval-results/`` does).
    """
    if not path.is_dir():
        return [path]
    found = _in_folder(path)
    if found:
        return found
    below = sorted({file.parent.name for file in find_files(path, "*/output-rs*.jsonl", f"*/{GREEDY_FILE}")})
    hint = (
        f"; it has benchmark folders {', '.join(below[:5])}{', ...' if len(below) > 5 else ''}: give one"
        if below
        else ""
    )
    raise InputError(f"{path}: no NeMo-Skills output (output-rs<seed>.jsonl or {GREEDY_FILE}) in it{hint}")


def read(path: pathlib.Path) -> Iterator[dict]:
    """One gpassk generations record per question: line i of every seed file (see the module docstring).

    The files are read one after the other (one open at a time, however many seeds), each line checked
    against the first file's line at the same position.

    Raises:
        InputError: a malformed line, or seed files that do not agree line by line (the message names
            the file, the line and the fix).
    """
    seeds = files(path)
    first = seeds[0]
    verdict_field = _verdict_field(first)
    questions: list[list[dict]] = []  # per position, its row from each seed file read so far
    for index, file in enumerate(seeds):
        count = 0
        for count, (where, row) in enumerate(_samples(file, verdict_field), start=1):
            if index == 0:
                questions.append([row])
                continue
            if count > len(questions):
                raise InputError(
                    f"{where}: a line more than {first.name} has ({len(questions)} samples); the seed files are "
                    f"joined line by line (a file from another run, or another benchmark): {_FIX}"
                )
            _check_same_question(row, questions[count - 1][0], where, first)
            questions[count - 1].append(row)
        if index == 0 and not questions:
            raise InputError(f"{first}: no samples (the file is empty); {_FIX}")
        if count < len(questions):
            raise InputError(
                f"{file}: ends after {count} sample(s), where {first.name} has {len(questions)}; the seed files are "
                f"joined line by line (a file cut short, or from another run): {_FIX}"
            )
    for position, rows in enumerate(questions):
        yield _question(rows, position)


#: The fields every seed file's line i must share, as NeMo-Skills names them.
_SHARED = {"id": '"id"', "question": '"problem"', "answer": '"expected_answer"'}


def _check_same_question(row: dict, reference: dict, where: str, first: pathlib.Path) -> None:
    for field, name in _SHARED.items():
        if row[field] != reference[field]:
            raise InputError(
                f"{where}: its {name} differs from {first.name}'s at the same position "
                f"({row[field]!r:.60} vs {reference[field]!r:.60}); NeMo-Skills joins the seed files line by "
                f"line, so every file must hold the same questions in the same order: {_FIX}"
            )


def _question(rows: list[dict], position: int) -> dict:
    """The generations record of one question's rows, one per seed file."""
    reference = rows[0]
    record = {
        "id": reference["id"] if reference["id"] is not None else str(position),
        "question": reference["question"],
        "answer": reference["answer"],
        "predictions": [row["prediction"] for row in rows],
        "source_extracted": [row["source_extracted"] for row in rows],
    }
    if any("source_verdict" in row for row in rows):
        record["source_verdicts"] = [row.get("source_verdict") for row in rows]
    if any(row.get("finish_reason") is not None for row in rows):
        record["finish_reasons"] = [row.get("finish_reason") for row in rows]
    return record


def _verdict_field(first: pathlib.Path) -> str | None:
    """Which field holds the run's verdicts: the first of :data:`VERDICT_FIELDS` the first line has."""
    record = first_record(first, (first.suffix,))
    if not isinstance(record, dict):
        return None
    return next((name for name in VERDICT_FIELDS if name in record), None)


def _samples(file: pathlib.Path, verdict_field: str | None) -> Iterator[tuple[str, dict]]:
    """``(where, row)`` for each non-blank line of one seed file."""
    for number, line in enumerate(read_lines(file), start=1):
        if line.strip():
            where = f"{file} line {number}"
            yield where, sample_row(load_json_text(line, source=where), where, verdict_field)


def sample_row(line: object, where: str, verdict_field: str | None = "symbolic_correct") -> dict:
    """One NeMo-Skills output line as a sample row (see the module docstring); ``id`` is ``None`` without one.

    Args:
        line: the parsed line.
        where: the file and line, for messages.
        verdict_field: ``judgement``, ``symbolic_correct`` or ``None`` (no source verdict).

    >>> sample_row({"problem": "p", "expected_answer": 7, "generation": "g", "predicted_answer": None,
    ...             "symbolic_correct": False, "finish_reason": "length"}, "f line 1", "symbolic_correct")
    {'id': None, 'question': 'p', 'answer': '7', 'prediction': 'g', 'source_extracted': None, 'source_verdict': False, 'finish_reason': 'length'}
    >>> sample_row({"problem": "p", "expected_answer": "7", "predicted_answer": "7"}, "f line 1")
    Traceback (most recent call last):
    ...
    gpassk_opencompass.errors.InputError: f line 1: missing "generation" (the model's output); a NeMo-Skills output line has problem, expected_answer and generation: give the output-rs*.jsonl files of one `ns eval` run, as NeMo-Skills wrote them
    """
    if not isinstance(line, dict):
        raise InputError(f"{where}: expected a JSON object (one NeMo-Skills output line), got {type(line).__name__}")
    question = next((line[name] for name in QUESTION_FIELDS if line.get(name) is not None), None)
    for name, value, what in (
        ("generation", line.get("generation"), "the model's output"),
        ("problem", question, "the question"),
        ("expected_answer", line.get("expected_answer"), "the gold answer"),
    ):
        if value is None:
            raise InputError(
                f'{where}: missing "{name}" ({what}); a NeMo-Skills output line has problem, expected_answer '
                f"and generation: {_FIX}"
            )
        if name != "expected_answer" and not isinstance(value, str):
            raise InputError(f'{where}: "{name}" must be text, got {type(value).__name__} {value!r:.60}; {_FIX}')
    identifier = line.get("id")
    row = {
        "id": None if identifier is None else _text(identifier, where, "id"),
        "question": question,
        "answer": gold_answer(
            line["expected_answer"], where, '"expected_answer"', "score a benchmark with one gold answer"
        ),
        "prediction": line["generation"],
        "source_extracted": None
        if line.get("predicted_answer") is None
        else _text(line["predicted_answer"], where, "predicted_answer"),
    }
    if verdict_field is not None:
        row["source_verdict"] = _verdict(line, verdict_field, where)
    reason = line.get("finish_reason") if verdict_field != "judgement" else None  # a judged run's is the judge's
    if reason is not None and not isinstance(reason, str):
        raise InputError(
            f'{where}: "finish_reason" must be text (the server\'s), got {type(reason).__name__} {reason!r:.40}'
        )
    row["finish_reason"] = reason
    return row


def _text(value: object, where: str, field: str) -> str:
    """A value NeMo-Skills may write as a number (an id, an extracted answer) as its text."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise InputError(f'{where}: "{field}" must be text or a number, got {type(value).__name__} {value!r:.60}')


def _verdict(line: dict, field: str, where: str) -> bool | None:
    value = line.get(field)
    if value is None:
        return None
    if field == "judgement":
        if not isinstance(value, str):
            raise InputError(f'{where}: "judgement" must be the judge\'s text, got {type(value).__name__}')
        return judgement_verdict(value)
    if not isinstance(value, bool):
        raise InputError(f'{where}: "{field}" must be true, false or null, got {type(value).__name__} {value!r:.40}')
    return value


def judgement_verdict(judgement: str) -> bool:
    """NeMo-Skills' reading of its LLM judge's reply (``is_correct_judgement``): the text after the last
    ``Judgement:`` starting with yes (True) or no (False); anything else is False, as NeMo-Skills counts it.

    >>> judgement_verdict("...\\nJudgement: Yes"), judgement_verdict("Judgement: no, they differ"), judgement_verdict("?")
    (True, False, False)
    """
    if "Judgement:" in judgement:
        verdict = judgement.split("Judgement:")[-1].strip().lower()
        if verdict.startswith("yes"):
            return True
    return False
