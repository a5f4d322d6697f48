"""A real ``opencompass`` run against the loopback OpenAI server, then ``gpassk leaderboard`` on it.

Three models of different accuracy answer a six-question benchmark sampled
(temperature 0.7, n = 24, k = [4, 16]) and greedily (temperature 0, n = 1) — one
``opencompass --debug`` launch with ``model_dataset_combinations``. OpenCompass
itself writes the saved config and the results (its ``BaseEvaluator`` computes
G-Pass@k from per-prediction ``correct`` details); the leaderboard must identify
every run from those files alone and print numbers equal to both the results
files and an exact computation from the loopback server's answering rule.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main
from gpassk_opencompass.leaderboard import build_leaderboard, collect_runs
from leaderboard_workdirs import g_pass, mg_pass, read_results
from loopback_openai import last_user_message

TESTS = Path(__file__).resolve().parent
QUESTIONS = [(3 + i, 11 * i + 2) for i in range(6)]  # "What is a + b?"
MODELS = {"acme/strong-7b": 0.8, "acme/middle-7b": 0.5, "acme/weak-1b": 0.2}
N, KS = 24, (4, 16)

CONFIG = '''
from opencompass.openicl.icl_inferencer import GenInferencer
from opencompass.openicl.icl_prompt_template import PromptTemplate
from opencompass.openicl.icl_retriever import ZeroRetriever
from leaderboard_opencompass_plugins import ExactMatchEvaluator, OfflineOpenAISDK, TinyMathDataset


def model(path, abbr, temperature):
    return dict(type=OfflineOpenAISDK, abbr=abbr, path=path, key='EMPTY', openai_api_base={url!r},
                temperature=temperature, max_out_len=16, max_seq_len=2048, batch_size=16,
                query_per_second=1000, retry=1)


def dataset(abbr, k, n):
    return dict(
        type=TinyMathDataset, abbr=abbr, path={data!r}, k=k, n=n,
        reader_cfg=dict(input_columns=['question'], output_column='answer'),
        infer_cfg=dict(
            prompt_template=dict(type=PromptTemplate, template=dict(round=[dict(role='HUMAN', prompt='{{question}}')])),
            retriever=dict(type=ZeroRetriever), inferencer=dict(type=GenInferencer)),
        eval_cfg=dict(evaluator=dict(type=ExactMatchEvaluator, benchmark='AIME2025')))


paths = {paths!r}
sampled_models = [model(path, f'm{{i}}_sampled', 0.7) for i, path in enumerate(paths)]
greedy_models = [model(path, f'm{{i}}_greedy', 0.0) for i, path in enumerate(paths)]
sampled = dataset('tiny_sampled', {ks!r}, {n})
greedy = dataset('tiny_greedy', 1, 1)
models = sampled_models + greedy_models
datasets = [sampled, greedy]
model_dataset_combinations = [dict(models=sampled_models, datasets=[sampled]),
                              dict(models=greedy_models, datasets=[greedy])]
del model, dataset, paths, sampled, greedy  # a config's globals are dumped: keep only settings
'''


def question_p(model_p: float, index: int) -> float:
    """The loopback model's chance on question ``index``: harder questions later."""
    return min(1.0, max(0.0, model_p + (0.5 - (index + 0.5) / len(QUESTIONS)) * 1.4))


def sampled_correct(model_p: float, index: int) -> int:
    """How many of the n sampled replies to question ``index`` are right."""
    return min(N, round(question_p(model_p, index) * N))


class Responder:
    """Right answers in a fixed proportion per (model, question): the j-th sampled reply is
    right when j < c; greedy replies are right when the question's chance is >= 0.5."""

    def __init__(self) -> None:
        self.calls: Counter = Counter()
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> str:
        question = last_user_message(body)
        index = next(i for i, (a, b) in enumerate(QUESTIONS) if question == f"What is {a} + {b}?")
        model_p = MODELS[body["model"]]
        right = str(sum(QUESTIONS[index]))
        if body.get("temperature") == 0:
            return right if question_p(model_p, index) >= 0.5 else "-1"
        with self.lock:
            j = self.calls[(body["model"], index)]
            self.calls[(body["model"], index)] += 1
        return right if j < sampled_correct(model_p, index) else "-1"


def exact(model_p: float) -> dict[str, float]:
    """The leaderboard's columns for one model, from the answering rule, exactly (x100)."""
    counts = [sampled_correct(model_p, i) for i in range(len(QUESTIONS))]
    mean = lambda values: float(sum(values, Fraction(0)) / len(values) * 100)  # noqa: E731
    greedy = [question_p(model_p, i) >= 0.5 for i in range(len(QUESTIONS))]
    return {"Greedy": 100 * sum(greedy) / len(greedy),
            **{f"G-Pass@16_{tau}": mean([g_pass(N, c, 16, Fraction(tau)) for c in counts])
               for tau in (0.5, 0.75, 1.0)},
            "mG-Pass@16": mean([mg_pass(N, c, 16) for c in counts])}


@pytest.fixture(scope="module")
def opencompass_run(tmp_path_factory, request):
    """One real ``opencompass`` launch; its work dir."""
    from loopback_openai import LoopbackOpenAI

    root = tmp_path_factory.mktemp("opencompass_run")
    data = root / "tiny.jsonl"
    data.write_text("".join(json.dumps({"question": f"What is {a} + {b}?", "answer": str(a + b)}) + "\n"
                            for a, b in QUESTIONS), encoding="utf-8")
    responder = Responder()
    server = LoopbackOpenAI(responder).start()
    request.addfinalizer(server.stop)
    config = root / "eval_tiny.py"
    config.write_text(CONFIG.format(url=server.url, data=str(data), paths=list(MODELS), ks=list(KS), n=N),
                      encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
           "OPENAI_API_KEY": "EMPTY", "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    opencompass = Path(sys.executable).with_name("opencompass")
    done = subprocess.run([str(opencompass), str(config), "-w", str(root / "outputs"), "--debug"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert sum(responder.calls.values()) == len(MODELS) * len(QUESTIONS) * N
    (run_dir,) = (root / "outputs").iterdir()
    return run_dir


def test_opencompass_wrote_what_the_leaderboard_reads(opencompass_run):
    (config,) = (opencompass_run / "configs").glob("*.py")  # configs/<YYYYmmdd_HHMMSS>_<pid>.py
    assert config.stem.startswith(opencompass_run.name + "_")
    results = sorted(path.relative_to(opencompass_run / "results").as_posix()
                     for path in (opencompass_run / "results").glob("*/*.json"))
    assert results == sorted([f"m{i}_sampled/tiny_sampled.json" for i in range(3)]
                             + [f"m{i}_greedy/tiny_greedy.json" for i in range(3)])


def test_every_run_is_identified_from_opencompass_own_files(opencompass_run):
    collection = collect_runs([opencompass_run.parent])
    assert [notice.message for notice in collection.notices] == []
    runs = {(run.display_name, run.greedy): run for run in collection.runs}
    assert set(runs) == {(Path(path).name, greedy) for path in MODELS for greedy in (False, True)}
    for (name, greedy), run in runs.items():
        assert run.benchmark == "AIME2025"
        assert (run.n, run.k, run.temperature) == ((1, (1,), 0.0) if greedy else (N, KS, 0.7))


def test_the_table_matches_the_results_files_and_the_exact_values(opencompass_run, capsys):
    assert main(["leaderboard", str(opencompass_run.parent), "--format", "json"]) == 0
    shaped = json.loads(capsys.readouterr().out)
    assert main(["leaderboard", str(opencompass_run.parent)]) == 0
    markdown = capsys.readouterr().out
    rows = [line.strip("|").split(" | ") for line in markdown.splitlines() if line.startswith("| ")][1:]
    rows = {cells[0].strip(): [cell.strip() for cell in cells[1:]] for cells in rows}
    assert list(rows) == ["weak-1b", "middle-7b", "strong-7b"]  # by mG-Pass@16, ascending
    for index, (path, model_p) in enumerate(MODELS.items()):
        name = Path(path).name
        sampled = read_results(opencompass_run / "results" / f"m{index}_sampled" / "tiny_sampled.json")
        greedy = read_results(opencompass_run / "results" / f"m{index}_greedy" / "tiny_greedy.json")
        from_files = {"Greedy": greedy["accuracy"],
                      **{key: sampled[key] for key in ("G-Pass@16_0.5", "G-Pass@16_0.75", "G-Pass@16_1.0",
                                                      "mG-Pass@16")}}
        expected = exact(model_p)
        for column, value in from_files.items():
            assert math.isclose(value, expected[column], abs_tol=1e-9), (name, column)
        assert rows[name] == [f"{value:.1f}" for value in from_files.values()]
        json_names = ["Greedy", "G-Pass@16-0.5", "G-Pass@16-0.75", "G-Pass@16-1.0", "mG-Pass@16"]
        assert [shaped[name][metric]["AIME2025"] for metric in json_names] == list(from_files.values())


def test_a_second_launch_supersedes_the_first(opencompass_run, tmp_path):
    """Copying the run under a later timestamp (a rerun) makes it the one used, and says so."""
    import shutil

    rerun = tmp_path / "outputs" / "29990101_000000"
    shutil.copytree(opencompass_run, rerun)
    first = tmp_path / "outputs" / opencompass_run.name
    shutil.copytree(opencompass_run, first)
    for path in first.glob("results/*/*.json"):
        os.utime(path, (1_000_000, 1_000_000))
    board = build_leaderboard(collect_runs([tmp_path / "outputs"]).runs)
    assert all(row.sources[0].is_relative_to(rerun) for row in board.tables[0].rows)
    assert len([n for n in board.notices if "ran more than once" in n.message]) == 6
