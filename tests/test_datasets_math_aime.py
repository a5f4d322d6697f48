"""MATH500-L5 and AIME loaders: OpenCompass's files and field layouts, level filter, count checks."""

from __future__ import annotations

import copy
import json
import os

import pytest
from loguru import logger

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin.datasets.aime import AIMEDataset
from gpassk_opencompass.plugin.datasets.math500 import Math500Level5Dataset
from tiny_data import write_aime2024, write_aime2025, write_math500

#: Drives OpenCompass (its datasets, evaluators or configs): only the e2e step collects it (conftest.py).
pytestmark = pytest.mark.e2e


@pytest.fixture
def cache(compass_cache):
    return compass_cache


@pytest.fixture
def warnings_logged():
    messages: list[str] = []
    handler = logger.add(lambda message: messages.append(message.record["message"]), level="WARNING")
    yield messages
    logger.remove(handler)


MATH_RECORDS = {
    "test/algebra/1.json": {
        "problem": "P1",
        "solution": "so \\boxed{\\frac{1}{2}}",
        "level": "Level 5",
        "type": "Algebra",
    },
    "test/geometry/2.json": {"problem": "P2", "solution": "\\boxed{3}", "level": "Level 4", "type": "Geometry"},
    "test/number_theory/3.json": {
        "problem": "P3",
        "solution": "first \\boxed{1} then \\boxed{7}",
        "level": "Level 5",
        "type": "Number Theory",
    },
    "test/precalculus/4.json": {"problem": "P4", "solution": "\\boxed{0}", "level": "Level 1", "type": "Precalculus"},
}


def test_math500_keeps_level_5_only_with_boxed_answers(cache, warnings_logged):
    write_math500(cache, MATH_RECORDS)
    dataset = Math500Level5Dataset.load()
    assert dataset["problem"] == ["P1", "P3"]
    assert dataset["answer"] == ["\\frac{1}{2}", "7"]  # the last \boxed{} of the solution
    assert dataset["subject"] == ["Algebra", "Number Theory"]
    assert dataset["level"] == [5, 5]
    assert dataset["question_id"] == ["MATH500/test/algebra/1.json", "MATH500/test/number_theory/3.json"]
    assert warnings_logged == [
        f"MATH500-L5: {cache / 'data' / 'math' / 'test_prm800k_500.json'} has 2 "
        "level-5 questions; the published column used 134"
    ]


def test_math500_reads_the_huggingface_jsonl_layout(tmp_path, cache):
    path = tmp_path / "test.jsonl"
    path.write_text(
        "".join(
            json.dumps(record) + "\n"
            for record in [
                {
                    "problem": "A",
                    "solution": "\\boxed{9}",
                    "answer": "9",
                    "subject": "Algebra",
                    "level": 5,
                    "unique_id": "test/algebra/7.json",
                },
                {
                    "problem": "B",
                    "solution": "\\boxed{2}",
                    "answer": "2",
                    "subject": "Algebra",
                    "level": 3,
                    "unique_id": "test/algebra/8.json",
                },
            ]
        ),
        encoding="utf-8",
    )
    dataset = Math500Level5Dataset.load(path=str(path))
    assert dataset["problem"] == ["A"] and dataset["answer"] == ["9"]
    assert dataset["question_id"] == ["test/algebra/7.json"]


def test_math500_without_levels_is_an_error(cache):
    write_math500(cache, {"1": {"problem": "P", "solution": "\\boxed{1}"}})
    with pytest.raises(InputError, match=r"no record of .* has a 'level' field"):
        Math500Level5Dataset.load()


def test_math500_level_5_record_without_any_answer_is_an_error(cache):
    write_math500(cache, {"1": {"problem": "P", "solution": "no box here", "level": "Level 5"}})
    with pytest.raises(InputError, match=r"record 1: no 'answer' field and no \\boxed\{\} in its solution"):
        Math500Level5Dataset.load()


def test_math500_missing_file_is_an_error_without_download(cache, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no data for 'opencompass/math'.*Nothing is downloaded"):
        Math500Level5Dataset.load()
    assert not cache.exists() and not (tmp_path / "home").exists()


def test_aime_reads_both_opencompass_layouts(cache, warnings_logged):
    write_aime2024(cache, [("Find x.", "17"), ("Find y.", " 204 ")])
    write_aime2025(cache, [("Find z.", "70")])
    aime2024 = AIMEDataset.load(path="opencompass/aime2024", benchmark="AIME2024-45")
    assert (aime2024["question"], aime2024["answer"]) == (["Find x.", "Find y."], ["17", "204"])
    assert aime2024["question_id"] == ["AIME2024-45/0", "AIME2024-45/1"]
    aime2025 = AIMEDataset.load(path="opencompass/aime2025", benchmark="AIME2025")
    assert (aime2025["question"], aime2025["answer"]) == (["Find z."], ["70"])
    assert [m.split(":")[0] for m in warnings_logged] == ["AIME2024-45", "AIME2025"]
    assert "has 2 questions; the published column used 45" in warnings_logged[0]
    assert "has 1 questions; the published column used 15" in warnings_logged[1]


def test_aime_exact_composition_logs_nothing(tmp_path, cache, warnings_logged):
    path = tmp_path / "aime2025_part1.jsonl"
    path.write_text("".join(json.dumps({"question": f"Q{i}", "answer": str(i)}) + "\n" for i in range(15)))
    assert len(AIMEDataset.load(path=str(path), benchmark="AIME2025")) == 15
    assert warnings_logged == []


def test_aime_agrees_with_opencompass_aime2024_loader(cache):
    from opencompass.datasets import Aime2024Dataset

    path = write_aime2024(cache, [("Find x.", "17"), ("Find y.", "204")])
    theirs = Aime2024Dataset.load(str(path))
    ours = AIMEDataset.load(path="opencompass/aime2024", benchmark="AIME2024-45")
    assert ours["question"] == theirs["question"] and ours["answer"] == theirs["answer"]


def test_aime_bad_records(cache):
    path = write_aime2025(cache, [("q", "1")])
    path.write_text('{"problem": "q", "solution": "1"}\n', encoding="utf-8")
    with pytest.raises(
        InputError,
        match="record 0: expected fields 'question'\\+'answer' or "
        "'origin_prompt'\\+'gold_answer'; the record has 'problem', 'solution'",
    ):
        AIMEDataset.load(path="opencompass/aime2025", benchmark="AIME2025")
    with pytest.raises(InputError, match="unknown benchmark 'AIME2031'"):
        AIMEDataset.load(path="opencompass/aime2025", benchmark="AIME2031")


@pytest.mark.parametrize(
    "module, variable",
    [("math500_l5", "math500_l5_datasets"), ("aime2024_45", "aime2024_45_datasets"), ("aime2025", "aime2025_datasets")],
)
def test_dataset_configs_build_through_opencompass(cache, module, variable):
    from mmengine.config import Config
    from opencompass.utils import build_dataset_from_cfg

    import gpassk_opencompass.plugin.configs as configs

    write_math500(cache, MATH_RECORDS)
    write_aime2024(cache, [("Find x.", "17"), ("Find y.", "204")])
    write_aime2025(cache, [("Find z.", "70"), ("Find w.", "1")])
    config = copy.deepcopy(
        Config.fromfile(os.path.join(os.path.dirname(configs.__file__), f"{module}.py"))[variable][0]
    )
    config.update(k=[1, 2], n=2)
    dataset = build_dataset_from_cfg(config)
    assert len(dataset.test) == 4
    question_column = config["eval_cfg"]["evaluator"]["question_column"]
    assert question_column in dataset.test.column_names and "question_id" in dataset.test.column_names
    assert config["reader_cfg"]["input_columns"] == [question_column]
