"""Qwen2.5-Math's evaluation output: ``<split>_<prompt_type>_<n>_seed<s>_t<T>_s<start>_e<end>.jsonl``.

Written by ``evaluation/math_eval.py`` of QwenLM/Qwen2.5-Math (``main``: one line per question,
``save_jsonl(all_samples, out_file)``), scored by its ``evaluate``. A line is::

    {"idx": 0, "question": "...", "gt_cot": "...", "gt": "204", ...,
     "code": ["<generation 1>", ...], "pred": ["204", ...], "report": [null, ...], "score": [true, ...]}

Mapped as: ``idx`` -> id, ``question`` (or ``problem``) -> question, ``gt`` (or ``answer``) -> answer,
``code`` -> predictions, ``pred`` -> source_extracted, ``score`` -> source_verdicts (when present).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.files import load_json_text, read_lines
from gpassk_opencompass.scoring.readers.sniff import first_record

NAME = "qwen-math"
DESCRIPTION = "Qwen2.5-Math evaluation output, *_s0_e-1.jsonl lines with idx, gt, code/pred/score lists"


def detect(path: Path) -> bool:
    """A ``.jsonl`` file whose first record has ``idx`` and the ``code`` and ``pred`` lists."""
    record = first_record(path, suffixes=(".jsonl",))
    return isinstance(record, dict) and isinstance(record.get("code"), list) and "pred" in record and "idx" in record


def read(path: Path) -> Iterator[dict]:
    """One question per non-blank line (see the module docstring)."""
    if path.is_dir():
        raise InputError(f"{path} is a folder; --format qwen-math reads one *_s0_e-1.jsonl file of math_eval.py")
    for number, line in enumerate(read_lines(path), start=1):
        if line.strip():
            yield _question(line, f"{path} line {number}")


def _question(line: str, where: str) -> dict:
    sample = load_json_text(line, source=where)
    if not isinstance(sample, dict):
        raise InputError(f"{where}: expected a JSON object (one math_eval.py sample), got {type(sample).__name__}")
    missing = [name for name in ("idx", "code") if name not in sample]
    question = _first(sample, ("question", "problem"))
    answer = _first(sample, ("gt", "answer"))
    missing += ["question (or problem)"] * (question is None) + ["gt (or answer)"] * (answer is None)
    if missing:
        raise InputError(
            f"{where}: missing {', '.join(missing)}; a math_eval.py sample has idx, question, gt and the code, "
            "pred, score lists (is this the *_s0_e-1.jsonl output of math_eval.py?)"
        )
    record = {
        "id": str(sample["idx"]),
        "question": question,
        "answer": _text(answer),
        "predictions": sample["code"],
    }
    if "pred" in sample:
        record["source_extracted"] = _extracted(sample["pred"])
    if "score" in sample:
        record["source_verdicts"] = sample["score"]
    return record


def _first(sample: dict, names: tuple[str, ...]) -> object:
    return next((sample[name] for name in names if sample.get(name) is not None), None)


def _text(value: object) -> object:
    """A number as its text (``gt`` of a numeric answer); anything else as it is, for the checks to name."""
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _extracted(values: object) -> object:
    """``pred``: extracted answers are text; a number (a numeric answer) as its text, an empty one as null."""
    if not isinstance(values, list):
        return values
    return [None if value in ("", None) else _text(value) for value in values]
