"""Judge a whole batch: extract, deduplicate, consult the cache, judge, fan out.

:class:`BuiltinJudge` is the rule, LLM and cascade judge (its stages chosen by kind in
:mod:`~gpassk_opencompass.judges.registry`; :func:`judge_items` runs one from its settings). It extracts every
final answer, judges each distinct (question, reference, answer, language) once -- the rule judge, the judge
model through the durable cache (each verdict appended as it arrives), or the rule judge first and the model for
what it cannot confirm (``cascade``, the rule verdict kept as ``rule_correct``) -- and hands every item its
tuple's verdict in input order. It is synchronous: it runs its own asyncio loop (in a helper thread when one
is running), so scripts, OpenCompass's evaluator subprocess and notebooks can all call it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

from gpassk_opencompass import console
from gpassk_opencompass.errors import clause
from gpassk_opencompass.judges.cache import VerdictCache, verdict_key
from gpassk_opencompass.judges.extraction import MAX_ANSWER_CHARS, extract
from gpassk_opencompass.judges.kinds import CACHE, LLM, RULE, judge_kind
from gpassk_opencompass.judges.llm import JudgeAnswer, JudgeError, ask_judges
from gpassk_opencompass.judges.prompts import judge_protocol
from gpassk_opencompass.judges.types import JudgeItem, JudgeReport, JudgeSettings, JudgeStats, Verdict
from gpassk_opencompass.judges.workers import judge_by_rule
from gpassk_opencompass.log import logger


@dataclass(frozen=True)
class _Case:
    """One distinct judgment: what the judge sees."""

    question: str
    reference: str
    language: str
    extracted: str | None
    shown: str  # the extracted answer, or the response's tail when nothing was extracted
    overlong: int = 0  # length of a final answer refused as too long (0: none refused)


def judge_items(
    items: Sequence[JudgeItem], settings: JudgeSettings, *, progress: bool = True, repeats: Sequence[int] | None = None
) -> JudgeReport:
    """Judge every item with the built-in judge ``settings`` describes (:meth:`BuiltinJudge.judge`).

    >>> report = judge_items([JudgeItem("1+1?", "2", r"so \\boxed{2}"), JudgeItem("1+1?", "2", "It is 2.")],
    ...                      JudgeSettings(kind="rule"), progress=False)
    >>> [verdict.correct for verdict in report.verdicts], report.stats.unique, report.prompt_version
    ([True, True], 1, None)
    """
    if not isinstance(settings, JudgeSettings):
        raise ValueError(f"settings must be a JudgeSettings, got {type(settings).__name__}")
    return BuiltinJudge(settings).judge(items, progress=progress, repeats=repeats)


@dataclass(frozen=True)
class BuiltinJudge:
    """The ``rule``, ``llm`` and ``cascade`` judges (a :class:`~gpassk_opencompass.judges.protocol.Judge`):
    the stages of its kind (:func:`~gpassk_opencompass.judges.registry.judge_kind`), see the module docstring.

    >>> judge = BuiltinJudge(JudgeSettings(kind="llm", urls=("http://me:pw@10.0.0.5:8000/v1",), model="J"))
    >>> judge.name, judge.asks_model, judge.identity()
    ('llm', True, {'judge': 'llm', 'judge_model': 'J', 'judge_hosts': ['10.0.0.5:8000']})
    >>> BuiltinJudge(JudgeSettings()).identity()["rule_checker"][:12]
    'math-verify '
    """

    settings: JudgeSettings

    @property
    def name(self) -> str:
        return self.settings.kind

    @property
    def asks_model(self) -> bool:
        return self.settings.uses_model

    @property
    def cache_path(self) -> Path | None:
        return self.settings.cache_path

    def identity(self) -> dict[str, object]:
        """``judge``, ``judge_model`` (null for the rule judge), the rule checker's version (rule, cascade) and
        the judge model's ``host:port`` list, without credentials (llm, cascade)."""
        kind = judge_kind(self.settings.kind)
        identity: dict[str, object] = {"judge": kind.name, "judge_model": self.settings.model if kind.model else None}
        if kind.rule:
            identity["rule_checker"] = f"math-verify {_installed_version('math-verify')}"
        if kind.model:
            identity["judge_hosts"] = [_host_port(url) for url in self.settings.urls]
        return identity

    def with_cache(self, path: str | os.PathLike | None) -> BuiltinJudge:
        """The judge with its model verdicts kept in ``path`` (the rule judge, cheap and deterministic, keeps none)."""
        if not self.asks_model:
            return self
        return BuiltinJudge(self.settings.replace(cache_path=None if path is None else Path(path)))

    def judge(
        self, items: Sequence[JudgeItem], *, progress: bool = True, repeats: Sequence[int] | None = None
    ) -> JudgeReport:
        """Judge every item; see the module docstring for the steps.

        Args:
            items: the generations to judge.
            progress: show tqdm bars on stderr.
            repeats: how many generations each item stands for, when the caller
                passed each distinct generation once (``gpassk score``: a million
                generations are not a million items); the statistics and the log
                then count generations. One each by default.

        Returns:
            Verdicts aligned with ``items``, statistics, and the prompt version
            (``None`` for the rule judge).

        Raises:
            ValueError: an item is not a :class:`JudgeItem`.
            JudgeError: the judge endpoints cannot serve the run.
        """
        settings = self.settings
        kind = judge_kind(settings.kind)
        check_items(items)
        cases, case_of_item = _distinct_cases(items, settings.response_tail_chars)
        verdicts: list[Verdict | None] = [None] * len(cases)
        by_rule = 0
        if kind.rule:
            rule_verdicts = _rule_stage(cases, settings, progress)
            for index, verdict in enumerate(rule_verdicts):
                if not kind.model or verdict.correct is True:
                    verdicts[index] = verdict
                    by_rule += 1
        cached = requests = retries = 0
        if kind.model:
            pending = [index for index, verdict in enumerate(verdicts) if verdict is None]
            rule_said = {index: rule_verdicts[index] for index in pending} if kind.rule else {}
            cached, requests, retries = _model_stage(cases, pending, verdicts, rule_said, settings, progress)
        judged = cast(list[Verdict], verdicts)  # the rule stage, then the model stage, judged every case
        item_verdicts = tuple(judged[index] for index in case_of_item)
        stats = judge_stats(
            self.name,
            item_verdicts,
            repeats,
            unique=len(cases),
            cached=cached,
            requests=requests,
            retries=retries,
            by_rule=by_rule,
        )
        return JudgeReport(item_verdicts, stats, settings.prompt_version)


def check_items(items: Sequence[JudgeItem]) -> None:
    """Raise ``ValueError`` unless every item is a :class:`JudgeItem` (a caller's bug, not the user's)."""
    for position, item in enumerate(items):
        if not isinstance(item, JudgeItem):
            raise ValueError(f"item {position} must be a JudgeItem, got {type(item).__name__}")


def judge_stats(
    name: str,
    verdicts: Sequence[Verdict],
    repeats: Sequence[int] | None,
    *,
    unique: int,
    cached: int = 0,
    requests: int = 0,
    retries: int = 0,
    by_rule: int = 0,
) -> JudgeStats:
    """The statistics of one judged batch (``repeats``: generations per verdict), logged in one line."""
    repeats = [1] * len(verdicts) if repeats is None else repeats
    if len(repeats) != len(verdicts):
        raise ValueError(f"repeats has {len(repeats)} counts for {len(verdicts)} items")
    total = sum(repeats)
    unresolved = sum(times for verdict, times in zip(verdicts, repeats) if verdict.correct is None)
    stats = JudgeStats(
        total=total,
        unique=unique,
        deduplicated=total - unique,
        cached=cached,
        requests=requests,
        retries=retries,
        unresolved=unresolved,
        by_rule=by_rule,
    )
    message = (
        "judged {} generations ({} judge): {} distinct, {} by rule, {} from cache, {} requests "
        "({} retries), {} unresolved"
    )
    (logger.warning if unresolved else logger.info)(
        message,
        stats.total,
        name,
        stats.unique,
        stats.by_rule,
        stats.cached,
        stats.requests,
        stats.retries,
        stats.unresolved,
    )
    return stats


def _installed_version(distribution: str) -> str:
    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


def _host_port(url: str) -> str:
    """``http://user:key@host:8000/v1`` -> ``host:8000`` (the scheme's port when none is given)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname
    return f"{host}:{port}"


def _distinct_cases(items: Sequence[JudgeItem], tail_chars: int) -> tuple[list[_Case], list[int]]:
    """The distinct cases, and for each item the index of its case."""
    index_of: dict[_Case, int] = {}
    case_of_item = []
    for item in items:
        found = extract(item.response)
        shown = found.answer if found.answer is not None else item.response.strip()[-tail_chars:]
        case = _Case(item.question, item.reference, item.language, found.answer, shown, found.overlong)
        case_of_item.append(index_of.setdefault(case, len(index_of)))
    return list(index_of), case_of_item


def _rule_stage(cases: list[_Case], settings: JudgeSettings, progress: bool) -> list[Verdict]:
    """Rule verdicts per case; cases sharing (reference, answer) are judged once; overlong answers are wrong."""
    position: dict[tuple[str, str | None], int] = {}
    for case in cases:
        if not case.overlong:
            position.setdefault((case.reference, case.extracted), len(position))
    pairs = list(position)
    verdicts = judge_by_rule(pairs, timeout=settings.rule_timeout, processes=settings.rule_processes, progress=progress)
    return [
        verdicts[position[case.reference, case.extracted]]
        if not case.overlong
        else Verdict(
            False,
            None,
            f"extracted answer has {case.overlong} characters, over the limit of {MAX_ANSWER_CHARS}",
            RULE,
        )
        for case in cases
    ]


def _model_stage(
    cases: list[_Case],
    pending: list[int],
    verdicts: list[Verdict | None],
    rule_said: dict[int, Verdict],
    settings: JudgeSettings,
    progress: bool,
) -> tuple[int, int, int]:
    """Fill ``verdicts[i]`` for ``i`` in ``pending`` from the cache or the judge model.

    Returns ``(cached, requests, retries)``.
    """
    protocol = judge_protocol(settings.judge_prompt)
    keys = {index: _cache_key(cases[index], settings.model, protocol.version) for index in pending}
    cache = VerdictCache(settings.cache_path) if settings.cache_path is not None else None
    try:
        cached = 0
        if cache is not None:
            for index in pending:
                hit = cache.get(keys[index])
                if hit is not None:
                    verdicts[index] = Verdict(
                        hit.correct,
                        cases[index].extracted,
                        hit.reason,
                        CACHE,
                        rule_correct=_rule_correct(rule_said, index),
                    )
                    cached += 1
        to_ask = [index for index in pending if verdicts[index] is None]
        if cache is not None and pending:
            logger.info("judge cache {}: {} of {} distinct answers already judged", cache.path, cached, len(pending))
        prompts = [
            protocol.build(
                cases[index].question,
                cases[index].reference,
                cases[index].shown,
                cases[index].language,
                extracted=cases[index].extracted is not None,
            )
            for index in to_ask
        ]
        bar = console.progress(
            total=len(to_ask), desc=f"judging with {settings.model}", unit="verdict", show=progress and bool(to_ask)
        )

        def on_answer(position: int, answer: JudgeAnswer) -> None:
            index = to_ask[position]
            case = cases[index]
            reason = answer.reason
            if answer.correct is None and index in rule_said:
                reason = f"{clause(reason)}; the rule judge said: {rule_said[index].reason}"
            verdicts[index] = Verdict(
                answer.correct, case.extracted, reason, LLM, rule_correct=_rule_correct(rule_said, index)
            )
            if cache is not None and answer.correct is not None:
                cache.put(
                    keys[index],
                    answer.correct,
                    answer.reason,
                    finish_reason=answer.finish_reason,
                    model=settings.model,
                    prompt_version=protocol.version,
                    answer=case.shown[:200],
                )
            bar.update(1)

        try:
            stats = _run(ask_judges(prompts, settings, on_answer))
        except JudgeError as error:
            if not error.arrived:
                raise
            kept = (
                f"they are kept in the judge cache {cache.path}: the same command resumes"
                if cache is not None
                else "no judge cache was set, so they are lost: set one to resume"
            )
            raise JudgeError(f"{clause(error)}; {kept}", arrived=error.arrived, mid_run=error.mid_run) from None
        finally:
            bar.close()
        return cached, stats.requests, stats.retries
    finally:
        if cache is not None:
            cache.close()


def _rule_correct(rule_said: dict[int, Verdict], index: int) -> bool | None:
    """What the cascade's rule judge said about a case sent on to the model (``None`` outside a cascade)."""
    said = rule_said.get(index)
    return None if said is None else said.correct


def _cache_key(case: _Case, model: str, prompt_version: str) -> str:
    return verdict_key(model, prompt_version, case.language, case.question, case.reference, case.shown)


def _run(coroutine):
    """Run ``coroutine`` to completion from synchronous code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpassk-judge") as pool:
        return pool.submit(asyncio.run, coroutine).result()
