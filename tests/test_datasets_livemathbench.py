"""LiveMathBenchDataset: real columns, OpenCompass's prompts, data found without downloads."""

from __future__ import annotations

import copy
import os

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin.datasets.livemathbench import (
    PROMPT_CN,
    PROMPT_EN,
    LiveMathBenchDataset,
    check_selection,
)
from tiny_data import default_livemathbench, write_livemathbench

#: Drives OpenCompass (its datasets, evaluators or configs): only the e2e step collects it (conftest.py).
pytestmark = pytest.mark.e2e

COLUMNS = {
    "question_id",
    "question",
    "answer",
    "question_type",
    "split",
    "language",
    "version",
    "prompt",
    "prompt_version",
}


@pytest.fixture
def cache(compass_cache):
    return compass_cache


def test_rows_carry_split_language_and_type_as_columns(cache):
    files = default_livemathbench(cache, questions_per_file=3)
    dataset = LiveMathBenchDataset.load()
    assert set(dataset.column_names) == COLUMNS
    expected = [
        (split, language, question, answer)
        for split in ("CNMO", "CCEE", "AMC", "WLPMC")
        for language in ("cn", "en")
        for question, answer in files[(split, language)]
    ]
    got = [(row["split"], row["language"], row["question"], row["answer"]) for row in dataset]
    assert got == expected
    assert set(dataset["question_type"]) == {"Problem-Solving"}
    assert set(dataset["version"]) == {"202412"}
    assert len(set(dataset["question_id"])) == len(dataset) == 24


def test_question_ids_are_stable_across_selections(cache):
    default_livemathbench(cache)
    everything = {row["question"]: row["question_id"] for row in LiveMathBenchDataset.load()}
    amc_only = LiveMathBenchDataset.load(dataset_splits=["AMC"], dataset_languages=["en"])
    assert {row["question"]: row["question_id"] for row in amc_only}.items() <= everything.items()


@pytest.mark.parametrize("cot", [True, False])
def test_prompts_equal_opencompass_loader(cache, cot):
    """Same files through OpenCompass's own LiveMathBenchDataset: identical prompts."""
    from opencompass.datasets.livemathbench.livemathbench import LiveMathBenchDataset as OpenCompassLoader

    default_livemathbench(cache)
    ours = LiveMathBenchDataset.load(cot=cot, dataset_splits=["CNMO", "AMC", "hard"])
    theirs = OpenCompassLoader.load(
        path=str(cache / "data" / "LiveMathBench"), cot=cot, dataset_splits=["CNMO", "AMC", "hard"]
    )
    assert ours["prompt"] == theirs["prompt"]
    assert ours["question"] == theirs["question"]


def test_prompt_constants_equal_opencompass():
    from opencompass.datasets.livemathbench import prompts

    assert (PROMPT_EN, PROMPT_CN) == (prompts.PROMPT_EN, prompts.PROMPT_CN)


def test_cot_switch_and_prompt_version(cache):
    default_livemathbench(cache)
    with_cot = LiveMathBenchDataset.load(cot=True, dataset_splits=["AMC"])
    without = LiveMathBenchDataset.load(cot=False, dataset_splits=["AMC"])
    by_language = {row["language"]: row["prompt"] for row in with_cot}
    assert "step by step" in by_language["en"] and "逐步推理" in by_language["cn"]
    assert not any("step by step" in p or "逐步推理" in p for p in without["prompt"])
    assert set(with_cot["prompt_version"]) == {"opencompass-livemathbench"}
    assert set(without["prompt_version"]) == {"opencompass-livemathbench-nocot"}
    for row in without:
        assert row["prompt"].rstrip("\n").endswith(row["question"])


def test_202505_release(cache):
    write_livemathbench(cache, "202505", {("all", "en"): [("a?", "1"), ("b?", "2")], ("hard", "en"): [("c?", "3")]})
    assert LiveMathBenchDataset.load(version="202505")["question"] == ["a?", "b?"]
    hard = LiveMathBenchDataset.load(version="202505", dataset_splits=["hard"])
    assert hard["question"] == ["c?"] and hard["split"] == ["hard"] and hard["language"] == ["en"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(version="202501"), "unknown LiveMathBench version '202501'; known: 202412, 202505"),
        (dict(dataset_splits=["CMNO"]), "has no split 'CMNO'; it has: CNMO, CCEE, AMC, WLPMC, hard"),
        (dict(dataset_languages=["fr"]), "has no language 'fr'; it has: cn, en"),
        (dict(version="202505", dataset_languages=["cn"]), "LiveMathBench 202505 has no language 'cn'"),
        (dict(dataset_splits=[]), "dataset_splits must be a non-empty list"),
        (dict(dataset_splits="AMC"), "dataset_splits must be a non-empty list, got 'AMC'"),
        (dict(dataset_languages=["en", "en"]), "dataset_languages lists en more than once"),
    ],
)
def test_bad_selection_fails_before_looking_for_data(cache, kwargs, message):
    # The cache is empty: an InputError (not FileNotFoundError) shows validation comes first.
    with pytest.raises(InputError, match=message):
        LiveMathBenchDataset.load(**kwargs)


def test_missing_files_are_listed_with_how_to_get_them(cache):
    write_livemathbench(cache, "202412", {("AMC", "en"): [("q", "1")]})
    with pytest.raises(FileNotFoundError) as error:
        LiveMathBenchDataset.load(dataset_splits=["AMC", "CNMO"], dataset_languages=["en", "cn"])
    message = str(error.value)
    root = os.path.join(str(cache), "data", "LiveMathBench", "202412")
    assert "missing 3 file(s)" in message
    for name in ("AMC_cn.jsonl", "CNMO_en.jsonl", "CNMO_cn.jsonl"):
        assert os.path.join(root, name) in message
    assert "DATASET_SOURCE=HF" in message and "Nothing is downloaded" in message


def test_no_data_at_all_names_the_places_tried_and_downloads_nothing(cache, tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        LiveMathBenchDataset.load()
    message = str(error.value)
    assert os.path.join(str(cache), "data", "LiveMathBench") in message
    assert "huggingface.co/datasets/opencompass/LiveMathBench" in message
    assert not (cache).exists() and not (tmp_path / "home").exists()


def test_hf_source_goes_to_the_hub(cache, monkeypatch, tmp_path):
    """DATASET_SOURCE=HF reads opencompass/LiveMathBench from the Hub (offline here: a Hub error)."""
    default_livemathbench(cache)  # local files exist, but must not be used
    monkeypatch.setenv("DATASET_SOURCE", "HF")
    import datasets
    from huggingface_hub import constants as hub_constants

    # Offline mode is read when the libraries are imported, so set the constants too.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf"))
    with pytest.raises(OSError, match="opencompass/LiveMathBench"):
        LiveMathBenchDataset.load(dataset_splits=["AMC"], dataset_languages=["en"])


def test_malformed_records_name_file_and_line(cache):
    root = write_livemathbench(cache, "202412", {("AMC", "en"): [("q", "1")]})
    (root / "AMC_en.jsonl").write_text('{"question": "q", "answer": "1"}\n\n{"question": "q2",\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"AMC_en\.jsonl:3: not valid JSON"):
        LiveMathBenchDataset.load(dataset_splits=["AMC"], dataset_languages=["en"])
    (root / "AMC_en.jsonl").write_text('{"question": "q"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"AMC_en record 0: missing field\(s\) 'answer'"):
        LiveMathBenchDataset.load(dataset_splits=["AMC"], dataset_languages=["en"])


@pytest.mark.parametrize(
    "module, variable, questions_per_file, files",
    [
        ("livemathbench_202412", "livemathbench_202412_datasets", 2, 8),
        ("livemathbench_hard_202412", "livemathbench_hard_202412_datasets", 2, 2),
    ],
)
def test_dataset_configs_build_through_opencompass(cache, module, variable, questions_per_file, files):
    """The shipped config, built by OpenCompass itself: n replicas, our columns intact."""
    from mmengine.config import Config
    from opencompass.utils import build_dataset_from_cfg

    import gpassk_opencompass.plugin.configs as configs

    default_livemathbench(cache, questions_per_file)
    config = copy.deepcopy(
        Config.fromfile(os.path.join(os.path.dirname(configs.__file__), f"{module}.py"))[variable][0]
    )
    config.update(k=[2, 4], n=4)
    dataset = build_dataset_from_cfg(config)
    questions = questions_per_file * files
    assert len(dataset.test) == questions * 4
    assert set(dataset.test.column_names) >= COLUMNS
    ids = dataset.test["question_id"]
    assert all(ids.count(question_id) == 4 for question_id in set(ids)) and len(set(ids)) == questions


def test_check_selection_defaults():
    assert check_selection("202505", None, None) == (("all",), ("en",))


def test_exported_lazily_from_the_package():
    import gpassk_opencompass

    assert gpassk_opencompass.LiveMathBenchDataset is LiveMathBenchDataset
    assert "LiveMathBenchDataset" in gpassk_opencompass.__all__
