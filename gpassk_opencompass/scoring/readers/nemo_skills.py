"""Read NeMo-Skills generations (``ns eval``, ``ns generate``): ``output-rs<seed>.jsonl``, one file per random seed.

NeMo-Skills (NVIDIA) writes one file per random seed, ``eval-results/<benchmark>/output-rs0.jsonl``,
``output-rs1.jsonl``, ... (``output.jsonl`` for one greedy run), each one line per question in the order
of the benchmark's data, the data's fields kept beside what the run added::

    {"id": "...", "problem": "...", "expected_answer": "220", "generation": "... \\\\boxed{220}",
     "predicted_answer": "220", "symbolic_correct": true, "finish_reason": "stop", ...}

This reader reads one such file as sample rows (``SAMPLES``: one row per line, :func:`row_of_line`); a folder of
them is one file per seed (``SEED_GLOB``), joined by question id by the one mechanism of the long layouts
(:func:`~gpassk_opencompass.scoring.readers._samples.join_seeds`: a question missing from a seed's file is one
line naming both, or with ``--allow-missing`` that question's n is what was found):

* ``id``: the line's ``id`` when the data has one, else its position in the file (0, 1, ...) as text: the
  seed files are then joined line by line, as NeMo-Skills' ``summarize_results`` joins them (it zips the
  sorted files), and a line whose ``problem`` or ``expected_answer`` differs from the first file's at the
  same position is one line naming both (NeMo-Skills would pair them silently);
* ``question``: ``problem`` (``question`` in older versions); ``answer``: ``expected_answer``;
* ``prediction``: ``generation``; ``source_extracted``: ``predicted_answer`` (null: none extracted);
* ``source_verdict``: the LLM judge's ``judgement`` when the file's first line has one -- the output of
  ``ns generate --generation_type=math_judge``, which NeMo-Skills writes to a folder of its own beside the
  evaluation's -- read by the one reader of judge replies
  (:func:`~gpassk_opencompass.judges.source_replies.read_source_reply`: the judge's last ``Judgement:`` yes or
  no; a blank, all-thinking, cut (``finish_reason`` ``length``) or verdict-less reply is unresolved, where
  NeMo-Skills counts it wrong) -- else ``symbolic_correct`` (its symbolic checker), else none;
* ``finish_reason``: ``finish_reason`` as the server returned it (``length``: cut at the token limit), but
  not in a judged run: there the judge's reply replaced it (NeMo-Skills keeps a line's fields except the ones its
  new output has). With ``++parse_reasoning=True`` a generation whose thinking never ended is ``""``
  (NeMo-Skills' choice; ``_full_generation`` keeps the text): no answer, as it has none.

>>> import json, pathlib, tempfile
>>> file = pathlib.Path(tempfile.mkdtemp()) / "output-rs0.jsonl"
>>> line = {"problem": "1+1?", "expected_answer": 2, "generation": "so \\\\boxed{2}", "predicted_answer": "2"}
>>> _ = file.write_text(json.dumps(line | {"symbolic_correct": True}) + "\\n")
>>> detect(file), list(read(file))  # doctest: +NORMALIZE_WHITESPACE
(True, [('.../output-rs0.jsonl line 1', {'id': '0', 'question': '1+1?', 'answer': '2', 'prediction': 'so \\\\boxed{2}',
         'source_extracted': '2', 'source_verdict': True, 'finish_reason': None})])
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Iterator

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import find_files, load_json_text, read_lines
from gpassk_opencompass.judges.source_replies import read_source_reply
from gpassk_opencompass.scoring.readers._folder import gold_answer
from gpassk_opencompass.scoring.readers._samples import LineId
from gpassk_opencompass.scoring.readers.sniff import first_record

NAME = "nemo-skills"
DESCRIPTION = "NeMo-Skills output-rs<seed>.jsonl, one file per seed (or their folder, or output.jsonl)"
#: This reader yields sample rows (:mod:`~gpassk_opencompass.scoring.readers._samples`), one per line.
SAMPLES = True
#: NeMo-Skills' seed files: a folder holding them is read as one file per seed.
SEED_GLOB = "output-rs*.jsonl"
#: Where a line keeps the question text, newest name first.
QUESTION_FIELDS = ("problem", "question")
#: The fields that hold NeMo-Skills' own verdict on a generation, in order of preference: a judged run's lines
#: keep the symbolic checker's verdict beside the judge's, and the judge is what that run was made for.
VERDICT_FIELDS = ("judgement", "symbolic_correct")
_FIX = "give the output-rs*.jsonl files of one `ns eval` run, as NeMo-Skills wrote them"
_OUTPUTS = (f"*/{SEED_GLOB}", "*/output.jsonl")
#: One chunk of a seed's file (``++num_chunks``): NeMo-Skills joins them into that file when all are done.
_CHUNK = re.compile(r"(output(?:-rs\d+)?)_chunk_\d+\.jsonl")


def detect(path: pathlib.Path) -> bool:
    """A ``.jsonl`` file whose first record has ``generation`` (text) and ``expected_answer``; or a results
    folder (``eval-results/``) of benchmark folders holding such files, to say which to give (:func:`read`).

    >>> detect(pathlib.Path("no-such-folder"))
    False
    """
    try:
        if not path.is_dir():
            return _looks_like_output(path)
        return not find_files(path, SEED_GLOB, "output.jsonl") and any(
            _looks_like_output(file) for file in find_files(path, *_OUTPUTS)[:1]
        )
    except OSError:
        return False


def _looks_like_output(path: pathlib.Path) -> bool:
    record = first_record(path, (".jsonl",))
    return isinstance(record, dict) and isinstance(record.get("generation"), str) and "expected_answer" in record


def read(path: pathlib.Path) -> Iterator[tuple[str, dict]]:
    """``(where, row)`` for each non-blank line of one NeMo-Skills output file (see the module docstring).

    Raises:
        InputError: a malformed line (the message names the file, the line and the fix); a chunk of a run
            not merged yet (``output-rs0_chunk_1.jsonl``: unfinished, a part of the questions); a folder, which is
            read as one file per seed before it gets here unless it holds none (the message lists the benchmark
            folders it has, as ``eval-results/`` does).
    """
    if path.is_dir():
        below = sorted({file.parent.name for file in find_files(path, *_OUTPUTS)})
        listed = f"{', '.join(below[:5])}{', ...' if len(below) > 5 else ''}"
        hint = f"; it has benchmark folders {listed}: give one" if below else ""
        raise InputError(f"{path}: no NeMo-Skills output ({SEED_GLOB} or output.jsonl) in it{hint}")
    chunk = _CHUNK.fullmatch(path.name)
    if chunk:
        raise InputError(
            f"{path}: one chunk of {chunk[1]}.jsonl, not yet merged (NeMo-Skills joins the chunks into it once every "
            "chunk is done, then deletes them): the run is unfinished; score its files when it ends"
        )
    verdict_field = _verdict_field(path)
    for position, (where, line) in enumerate(_lines(path)):
        row = row_of_line(line, where, verdict_field)
        if row["id"] is None:
            row["id"] = LineId(position)
        yield where, row


def _verdict_field(file: pathlib.Path) -> str | None:
    """Which field holds the run's verdicts: the first of :data:`VERDICT_FIELDS` the file's first line has."""
    record = first_record(file, (file.suffix,))
    if not isinstance(record, dict):
        return None
    return next((name for name in VERDICT_FIELDS if name in record), None)


def _lines(file: pathlib.Path) -> Iterator[tuple[str, object]]:
    """``(where, parsed line)`` for each non-blank line of ``file``."""
    for number, line in enumerate(read_lines(file), start=1):
        if line.strip():
            where = f"{file} line {number}"
            yield where, load_json_text(line, source=where)


def row_of_line(line: object, where: str, verdict_field: str | None = "symbolic_correct") -> dict:
    """One NeMo-Skills output line as a sample row (see the module docstring); ``id`` is ``None`` without one.

    Args:
        line: the parsed line.
        where: the file and line, for messages.
        verdict_field: ``judgement``, ``symbolic_correct`` or ``None`` (no source verdict).

    >>> row_of_line({"problem": "p", "expected_answer": 7, "generation": "g", "predicted_answer": None,
    ...             "symbolic_correct": False, "finish_reason": "length"}, "f line 1", "symbolic_correct")
    {'id': None, 'question': 'p', 'answer': '7', 'prediction': 'g', 'source_extracted': None, 'source_verdict': False, 'finish_reason': 'length'}
    >>> row_of_line({"problem": "p", "expected_answer": "7", "predicted_answer": "7"}, "f line 1")
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
    reason = line.get("finish_reason")
    if reason is not None and not isinstance(reason, str):
        raise InputError(
            f'{where}: "finish_reason" must be text (the server\'s), got {type(reason).__name__} {reason!r:.40}'
        )
    if verdict_field is not None:
        row["source_verdict"] = _verdict(line, verdict_field, where, reason)
    row["finish_reason"] = reason if verdict_field != "judgement" else None  # a judged run's is the judge's
    return row


def _text(value: object, where: str, field: str) -> str:
    """A value NeMo-Skills may write as a number (an id, an extracted answer) as its text."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise InputError(f'{where}: "{field}" must be text or a number, got {type(value).__name__} {value!r:.60}')


def _verdict(line: dict, field: str, where: str, finish_reason: str | None) -> bool | None:
    value = line.get(field)
    if field == "judgement":  # the judge's reply: read as every judge reply is read
        if value is not None and not isinstance(value, str):
            raise InputError(f'{where}: "judgement" must be the judge\'s text, got {type(value).__name__}')
        return read_source_reply("nemo-skills", value, finish_reason=finish_reason)[0]
    if value is None:
        return None
    if not isinstance(value, bool):
        raise InputError(f'{where}: "{field}" must be true, false or null, got {type(value).__name__} {value!r:.40}')
    return value
