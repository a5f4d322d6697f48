"""Real ``opencompass`` runs on tiny data against loopback OpenAI-protocol servers.

Shared by the evaluator, config-generator and leaderboard tests:

* :func:`write_livemathbench` writes a tiny LiveMathBench in the
  ``$COMPASS_DATA_CACHE/data/LiveMathBench/{version}/{split}_{language}.jsonl``
  layout;
* :class:`ScriptedModel` is a responder for :class:`loopback_openai.LoopbackOpenAI`
  that plays one or more generation models whose answers are right a known
  number of times per question (so every G-Pass@k value is known exactly);
* :func:`scripted_judge` plays an LLM judge;
* :func:`run_opencompass` runs the real ``opencompass`` CLI in a subprocess
  and returns the run's output directory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import tiny_data
from loopback_openai import Reply, last_user_message

WRONG = "-1"  # every scripted wrong answer; no question or reference contains it


@dataclass(frozen=True)
class TinyQuestion:
    """One question of the tiny benchmark.

    Attributes:
        split, language: where it lives (``{split}_{language}.jsonl``).
        question: its text (unique among the questions).
        answer: the reference answer.
        correct: ``{model name: how many of the first n requests are answered right}``.
    """

    split: str
    language: str
    question: str
    answer: str
    correct: dict


def tiny_livemathbench(models: dict[str, list[int]]) -> list[TinyQuestion]:
    """Eight questions: splits CNMO and AMC x languages en and cn, two each.

    ``models`` maps a model name to its number of right answers per question
    (eight numbers).
    """
    texts = [
        ("CNMO", "en", "Compute 17 + 25.", "42"),
        ("CNMO", "en", "What is 3 to the power 4?", "81"),
        ("CNMO", "cn", "计算 12 乘以 12。", "144"),
        ("CNMO", "cn", "求 100 除以 4 的值。", "25"),
        ("AMC", "en", "What is the sum of the interior angles of a triangle, in degrees?", "180"),
        ("AMC", "en", "Simplify 6/8 to lowest terms.", "\\frac{3}{4}"),
        ("AMC", "cn", "一个正方形的边长是 7，它的面积是多少？", "49"),
        ("AMC", "cn", "计算 2 的 10 次方。", "1024"),
    ]
    return [
        TinyQuestion(split, language, question, answer, {model: counts[index] for model, counts in models.items()})
        for index, (split, language, question, answer) in enumerate(texts)
    ]


def write_livemathbench(root: Path, questions: list[TinyQuestion], version: str = "202412") -> Path:
    """Write the questions as ``root/data/LiveMathBench/{version}/{split}_{language}.jsonl``; returns root."""
    files = defaultdict(list)
    for question in questions:
        files[(question.split, question.language)].append((question.question, question.answer))
    tiny_data.write_livemathbench(root, version, dict(files), question_type="问答")
    return root


class ScriptedModel:
    """Responder playing generation models with exactly known correctness.

    The ``i``-th request (counting from 0) with a given prompt and
    temperature to model ``m`` gets the right answer iff
    ``i mod n < question.correct[m]``, so the n sampled replicas of a dataset
    contain exactly ``correct[m]`` right answers, whatever order OpenCompass
    sends them in; a greedy request (its own temperature) is right iff
    ``correct[m] > 0``. Datasets sharing a model must differ in prompt.
    With ``cut_wrong`` a wrong answer is a reply cut at the output limit
    (it stops mid-sentence, before any answer, with ``finish_reason: "length"``
    as a real server says it) instead of a wrong number.
    """

    def __init__(self, questions: list[TinyQuestion], n: int, cut_wrong: bool = False):
        self.questions = questions
        self.n = n
        self.cut_wrong = cut_wrong
        self._seen = defaultdict(int)
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> str | Reply:
        prompt = last_user_message(body)
        question = next((q for q in self.questions if q.question in prompt), None)
        if question is None:
            return "I cannot find a question here."
        model = body.get("model")
        key = (model, prompt, body.get("temperature"))
        with self._lock:
            index = self._seen[key]
            self._seen[key] += 1
        right = index % self.n < question.correct[model]
        if self.cut_wrong and not right:
            return Reply(
                f"Let me work through it (attempt {index}).\nFirst we add the two numbers and carry the",
                finish_reason="length",
            )
        answer = question.answer if right else WRONG
        return f"Let me work through it (attempt {index}).\nThe final answer is $\\boxed{{{answer}}}$."


def scripted_judge(body: dict) -> str:
    """An LLM judge that says no exactly to the scripted wrong answer."""
    if WRONG in last_user_message(body):
        return "The examinee's answer does not match the standard answer.\n\\boxed{no}"
    return "The answers are equivalent.\n\\boxed{yes}"


def opencompass_cli() -> str:
    """The ``opencompass`` console script of this interpreter's environment."""
    return str(Path(sys.executable).parent / "opencompass")


def offline_environment(data_root: Path, scratch: Path) -> dict[str, str]:
    """What an offline OpenCompass run needs set: the data cache, offline hubs, a dummy key, and a tiktoken cache
    under ``scratch`` that holds nothing (OpenAISDK's start-up download fails fast). ``DATASET_SOURCE`` must be unset.
    """
    return dict(
        COMPASS_DATA_CACHE=str(data_root),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        OPENAI_API_KEY="EMPTY",
        TIKTOKEN_CACHE_DIR=str(scratch / "no-tiktoken"),
    )


def run_opencompass(config: Path, workdir: Path, data_root: Path, *extra: str, timeout: float = 600) -> Path:
    """Run ``opencompass CONFIG -w WORKDIR`` offline; return the single timestamped output dir.

    The CLI exits 0 even when a task fails, so callers assert on result files;
    on a missing result the task logs under ``logs/`` say why.
    """
    env = dict(os.environ, **offline_environment(data_root, workdir))
    env.pop("DATASET_SOURCE", None)
    completed = subprocess.run(
        [opencompass_cli(), str(config), "-w", str(workdir), *extra],
        cwd=workdir.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if completed.returncode != 0:
        raise AssertionError(
            f"opencompass exited {completed.returncode}:\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
        )
    runs = sorted(path for path in workdir.iterdir() if path.is_dir())
    assert runs, f"opencompass wrote no output dir under {workdir}:\n{completed.stdout[-3000:]}"
    return runs[-1]


def task_logs(run_dir: Path) -> str:
    """All task logs of a run, to explain a missing result."""
    return "\n".join(f"==> {path}\n{path.read_text()[-4000:]}" for path in sorted(run_dir.glob("logs/**/*.out")))


def read_result(run_dir: Path, model_abbr: str, dataset_abbr: str) -> dict:
    """``results/<model_abbr>/<dataset_abbr>.json`` of a run, with the task logs in the error if missing."""
    path = run_dir / "results" / model_abbr / f"{dataset_abbr}.json"
    if not path.exists():
        raise AssertionError(f"no result {path}; task logs:\n{task_logs(run_dir)}")
    return json.loads(path.read_text())


# ----------------------------------------------------------------------------
# the standard tiny run: two models, a sampled benchmark judged two ways, a greedy run

#: Right answers per question (n = 8) of the two scripted models.
TINY_MODELS = {"strong": [8, 7, 6, 8, 4, 8, 2, 1], "weak": [1, 0, 2, 3, 0, 8, 0, 5]}
TINY_N = 8
TINY_KS = (4, 8)


def tiny_run_config(model_url: str, judge_url: str) -> str:
    """An OpenCompass config: strong/weak sampled (T=0.7) on ``tiny_rule`` and ``tiny_llm``, greedy on ``tiny_greedy``.

    ``tiny_rule`` (benchmark LiveMathBench-202412: splits CNMO and AMC,
    languages en and cn) is scored by the rule judge; ``tiny_llm``
    (LiveMathBench-202505: the same questions as split ``all``, language
    ``en``, without the chain-of-thought clause) by the LLM judge at
    ``judge_url``; ``tiny_greedy`` is LiveMathBench-202412 with n = 1.
    Model abbrs: ``strong_t0-7``, ``weak_t0-7``, ``strong_greedy``,
    ``weak_greedy``.
    """
    return f"""
from mmengine.config import read_base

from gpassk_opencompass.plugin.datasets.livemathbench import LiveMathBenchDataset
from gpassk_opencompass.plugin.evaluator import GPassKEvaluator
from gpassk_opencompass.plugin.models import OfflineOpenAISDK
from opencompass.partitioners import NaivePartitioner
from opencompass.runners import LocalRunner
from opencompass.tasks import OpenICLEvalTask

with read_base():
    from gpassk_opencompass.plugin.configs.livemathbench_common import livemathbench_infer_cfg, livemathbench_reader_cfg


model_base = dict(type=OfflineOpenAISDK, openai_api_base={model_url!r}, key='EMPTY', query_per_second=1000,
                  max_out_len=256, max_seq_len=4096, batch_size=16, retry=2, run_cfg=dict(num_gpus=0))
dataset_base = dict(type=LiveMathBenchDataset, path='opencompass/LiveMathBench', version='202412',
                    dataset_splits=['CNMO', 'AMC'], dataset_languages=['en', 'cn'],
                    reader_cfg=livemathbench_reader_cfg, infer_cfg=livemathbench_infer_cfg)
evaluator_base = dict(type=GPassKEvaluator, benchmark='LiveMathBench-202412')
v202505 = dict(version='202505', dataset_splits=['all'], dataset_languages=['en'])

sampled = [dict(model_base, abbr='strong_t0-7', path='strong', temperature=0.7),
           dict(model_base, abbr='weak_t0-7', path='weak', temperature=0.7)]
greedy = [dict(model_base, abbr='strong_greedy', path='strong', temperature=0.0),
          dict(model_base, abbr='weak_greedy', path='weak', temperature=0.0)]
sampled_datasets = [
    dict(dataset_base, abbr='tiny_rule', cot=True, n={TINY_N}, k={list(TINY_KS)},
         eval_cfg=dict(evaluator=dict(evaluator_base, judge='rule'))),
    dict(dataset_base, **v202505, abbr='tiny_llm', cot=False, n={TINY_N}, k={list(TINY_KS)},
         eval_cfg=dict(evaluator=dict(evaluator_base, benchmark='LiveMathBench-202505', judge='llm',
                                      url=[{judge_url!r}], model_name='judge'))),
]
greedy_datasets = [dict(dataset_base, abbr='tiny_greedy', cot=True, n=1, k=1,
                        eval_cfg=dict(evaluator=dict(evaluator_base, judge='rule')))]

models = sampled + greedy
datasets = sampled_datasets + greedy_datasets
model_dataset_combinations = [
    dict(models=sampled, datasets=sampled_datasets),
    dict(models=greedy, datasets=greedy_datasets),
]
# One evaluation task per model (not per model x dataset): fewer OpenCompass start-ups.
eval = dict(partitioner=dict(type=NaivePartitioner, n=8),
            runner=dict(type=LocalRunner, max_num_workers=2, task=dict(type=OpenICLEvalTask)))
"""


@dataclass(frozen=True)
class TinyRun:
    """A finished tiny OpenCompass run and what produced it."""

    run_dir: Path
    workdir: Path
    data_root: Path
    questions: list
    judge_requests: list  # request bodies the LLM judge received
    model_requests: list


def run_tiny_opencompass(tmp: Path) -> TinyRun:
    """Serve the scripted models and judge on loopback, run :func:`tiny_run_config`, stop the servers."""
    from loopback_openai import LoopbackOpenAI

    questions = tiny_livemathbench(TINY_MODELS)
    data_root = write_livemathbench(tmp / "data_root", questions)
    write_livemathbench(data_root, [replace(q, split="all", language="en") for q in questions], version="202505")
    workdir = tmp / "outputs"
    workdir.mkdir()
    with (
        LoopbackOpenAI(ScriptedModel(questions, TINY_N), model_name="strong") as model,
        LoopbackOpenAI(scripted_judge, model_name="judge") as judge,
    ):
        config = tmp / "tiny_run.py"
        config.write_text(tiny_run_config(model.url, judge.url))
        run_dir = run_opencompass(config, workdir, data_root, "--dump-eval-details", "--max-num-workers", "2")
        return TinyRun(run_dir, workdir, data_root, questions, list(judge.requests), list(model.requests))


def read_predictions(run_dir: Path, model_abbr: str, dataset_abbr: str) -> list[dict]:
    """The prediction records of one model x dataset, joined across OpenCompass's ``_0``, ``_1``... parts."""
    from gpassk_opencompass.plugin.runs import prediction_parts

    parts = prediction_parts(run_dir, model_abbr, dataset_abbr)
    assert parts, f"no predictions for {model_abbr} x {dataset_abbr} under {run_dir}"
    records = []
    for part in parts:
        chunk = json.loads(part.read_text())
        records += [chunk[str(i)] for i in range(len(chunk))]
    return records
