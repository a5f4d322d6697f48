"""Generations that ran out of tokens: which were cut at the output limit, which end without a final answer.

One decision per generation, :func:`generation_end`:

* **cut** at the output limit: where the tool recorded why the generation stopped
  (:attr:`~gpassk_opencompass.scoring.questions.Question.finish_reasons`), that reason is one of
  :data:`CUT_REASONS` (a server's ``length``, inspect's ``max_tokens``/``model_length``, ...); where it
  recorded nothing, the extraction finds no final answer and the text stops mid-sentence or inside an
  open box (:func:`~gpassk_opencompass.judges.extraction.ends_cut`, the rule judge's own check);
* **no answer**: not cut, and the extraction (:func:`~gpassk_opencompass.judges.extraction.extract`)
  finds no final answer in it;
* **answered** otherwise.

A cut generation has no answer and counts as wrong: G-Pass@k_1.0 is bounded by the share of questions
none of whose generations were cut. :func:`count_ends` counts them per question, and says how many
generations' ends the tool recorded (``source``: ``finish_reason`` for all, ``extraction`` for none,
``mixed``); the results document keeps both (:class:`~gpassk_opencompass.scoring.results.CutGenerations`).

>>> generation_end("... so the answer is 12.", None), generation_end("First 12, then we need to bo", None)
('answered', 'cut')
>>> generation_end("I give up.", None), generation_end(r"\\boxed{12} and then more", "length")
('no_answer', 'cut')
>>> ends = count_ends([Question("a", "q", "1", ("\\\\boxed{1}", "we then compute the", "hmm."))])
>>> ends.cut.tolist(), ends.no_answer.tolist(), ends.source
([1], [1], 'extraction')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Literal

import numpy as np

from gpassk_opencompass.judges.extraction import ends_cut, extract
from gpassk_opencompass.scoring.questions import Question

#: The recorded stop reasons (lower-cased) that mean "cut at the output limit": OpenAI-compatible servers
#: (vLLM, SGLang, llama.cpp, OpenAI) ``length``; inspect_ai ``max_tokens`` and ``model_length`` (the
#: context window); Anthropic and Gemini ``max_tokens``; Hugging Face ``max_length`` / ``max_new_tokens``.
CUT_REASONS = frozenset({"length", "max_tokens", "model_length", "max_length", "max_new_tokens", "max_output_tokens"})

End = Literal["answered", "cut", "no_answer"]
Source = Literal["finish_reason", "extraction", "mixed"]

_THINK_END = "</think>"
_ENDS: tuple[End, ...] = ("answered", "answered", "cut", "no_answer")  # by code; 0 is "not read yet"
_CODES = {"answered": 1, "cut": 2, "no_answer": 3}


def generation_end(text: str, finish_reason: str | None) -> End:
    """How one generation ended (see the module docstring): ``answered``, ``cut`` or ``no_answer``.

    ``finish_reason``: the stop reason the tool recorded, ``None`` where it recorded none.
    """
    if finish_reason is not None and finish_reason.strip().lower() in CUT_REASONS:
        return "cut"
    read = _read_end(text)
    return "no_answer" if read == "cut" and finish_reason is not None else read


def _read_end(text: str) -> End:
    """How the text alone ends: its final answer found, or none and it stops mid-sentence (cut), or none."""
    found = extract(text)
    if found.answer is not None or found.overlong:
        return "answered"
    return "cut" if _stops_cut(text) else "no_answer"


def _stops_cut(text: str) -> bool:
    """The extraction's check on the text it reads (after the last ``</think>``): it stops mid-sentence."""
    return ends_cut(text.rsplit(_THINK_END, 1)[1] if _THINK_END in text else text)


@dataclass(frozen=True)
class Ends:
    """What :func:`count_ends` found: per question (in order) its cut generations and those without an answer.

    Attributes:
        cut: per question, generations cut at the output limit.
        no_answer: per question, generations not cut that end without a final answer.
        recorded: generations whose stop reason the tool recorded (the others were judged by the extraction).
        generations: all generations.
    """

    cut: np.ndarray
    no_answer: np.ndarray
    recorded: int
    generations: int

    @property
    def source(self) -> Source:
        """Who said how the generations ended: the tool's record for all, the extraction for all, or both."""
        if self.recorded == self.generations:
            return "finish_reason"
        return "extraction" if self.recorded == 0 else "mixed"


def count_ends(questions: Sequence[Question], distinct: tuple[Sequence[str], Sequence[int]] | None = None) -> Ends:
    """Count every question's cut and unanswered generations (:func:`generation_end`).

    ``distinct``: the distinct texts and, per generation (questions in order), the index of its text, as the
    flow's deduplication found them: each is then read once, as the judge reads it (without, each distinct
    text of a question once).
    """
    texts, indices = distinct if distinct is not None else _per_question(questions)
    read = bytearray(len(texts))  # per text, _CODES of how it ends (0: not read yet): a byte each
    cut = np.zeros(len(questions), dtype=np.int64)
    no_answer = np.zeros(len(questions), dtype=np.int64)
    recorded = generation = 0
    for position, question in enumerate(questions):
        for reason in question.finish_reasons or repeat(None, len(question.predictions)):
            index = indices[generation]
            generation += 1
            if reason is not None:
                recorded += 1
                if reason.strip().lower() in CUT_REASONS:
                    cut[position] += 1
                    continue
            if not read[index]:  # only the texts a generation without a cut record needs are read
                read[index] = _CODES[_read_end(texts[index])]
            end = _ENDS[read[index]]
            if end == "cut" and reason is None:
                cut[position] += 1
            elif end != "answered":
                no_answer[position] += 1
    return Ends(cut, no_answer, recorded, generation)


def _per_question(questions: Sequence[Question]) -> tuple[list[str], list[int]]:
    """Each question's distinct texts, and per generation the index of its text among all of them."""
    texts: list[str] = []
    indices: list[int] = []
    for question in questions:
        first = {text: len(texts) + position for position, text in enumerate(dict.fromkeys(question.predictions))}
        texts += first
        indices += [first[text] for text in question.predictions]
    return texts, indices
