"""locate_dataset: OpenCompass's lookup order, no download, helpful errors."""

from __future__ import annotations

import os

import pytest

from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin.data_paths import DataLocation, local_candidates, locate_dataset

HOW = "Get it from somewhere."


def locate(dataset_id="opencompass/X", environ=None, home="/nonexistent-home", hf_id="org/X", local="./data/X/"):
    return locate_dataset(dataset_id, local=local, hf_id=hf_id, how_to_get=HOW, environ=environ or {}, home=home)


def test_cache_directory_first(tmp_path):
    (tmp_path / "cache" / "data" / "X").mkdir(parents=True)
    (tmp_path / "home" / ".cache" / "opencompass" / "data" / "X").mkdir(parents=True)
    found = locate(environ={"COMPASS_DATA_CACHE": str(tmp_path / "cache")}, home=str(tmp_path / "home"))
    assert found == DataLocation("local", str(tmp_path / "cache" / "data" / "X"))


def test_falls_back_to_the_default_cache_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no ./data/X here
    (tmp_path / "home" / ".cache" / "opencompass" / "data" / "X").mkdir(parents=True)
    found = locate(environ={}, home=str(tmp_path / "home"))
    assert found == DataLocation("local", str(tmp_path / "home" / ".cache" / "opencompass" / "data" / "X"))


def test_hf_source_when_the_dataset_has_a_hub_copy(tmp_path):
    assert locate(environ={"DATASET_SOURCE": "HF"}) == DataLocation("hf", "org/X")


def test_hf_source_without_hub_copy_reads_locally(tmp_path):
    (tmp_path / "data" / "X").mkdir(parents=True)
    found = locate(environ={"DATASET_SOURCE": "HF", "COMPASS_DATA_CACHE": str(tmp_path)}, hf_id=None)
    assert found == DataLocation("local", str(tmp_path / "data" / "X"))


def test_absolute_path_is_used_as_is(tmp_path):
    target = tmp_path / "file.jsonl"
    target.write_text("{}\n")
    assert locate(str(target), environ={"DATASET_SOURCE": "HF"}) == DataLocation("local", str(target))
    with pytest.raises(FileNotFoundError, match=f"looked at {tmp_path / 'missing.jsonl'} "):
        locate(str(tmp_path / "missing.jsonl"))


def test_modelscope_is_refused():
    with pytest.raises(InputError, match="DATASET_SOURCE=ModelScope is not supported for 'opencompass/X'"):
        locate(environ={"DATASET_SOURCE": "ModelScope"})


def test_missing_everywhere_lists_every_place_and_creates_nothing(tmp_path):
    cache, home = tmp_path / "cache", tmp_path / "home"
    with pytest.raises(FileNotFoundError) as error:
        locate(environ={"COMPASS_DATA_CACHE": str(cache)}, home=str(home))
    assert str(error.value) == (
        f"no data for 'opencompass/X': looked at {cache / 'data' / 'X'} "
        f"(COMPASS_DATA_CACHE='{cache}'); Get it from somewhere. Nothing is downloaded automatically."
    )
    assert os.listdir(tmp_path) == []


def test_unset_cache_is_said(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="COMPASS_DATA_CACHE is not set"):
        locate(environ={}, home=str(tmp_path / "home"))


@pytest.mark.parametrize(
    "local, environ, expected",
    [
        ("./data/X/", {"COMPASS_DATA_CACHE": "/c"}, ("/c/data/X",)),
        ("./data/X/", {}, ("data/X", "/h/.cache/opencompass/data/X")),
        (
            "./data/aime.jsonl",
            {"COMPASS_DATA_CACHE": "rel"},
            ("rel/data/aime.jsonl", "/h/.cache/opencompass/rel/data/aime.jsonl"),
        ),
    ],
)
def test_local_candidates_mirror_opencompass(local, environ, expected):
    assert local_candidates(local, environ, "/h") == expected


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_local_candidates_agree_with_opencompass_get_data_path(tmp_path, monkeypatch):
    """Where both find data, they find the same directory."""
    from opencompass.utils import get_data_path

    (tmp_path / "data" / "LiveMathBench").mkdir(parents=True)
    monkeypatch.setenv("COMPASS_DATA_CACHE", str(tmp_path))
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    theirs = get_data_path("opencompass/LiveMathBench")
    ours = locate_dataset("opencompass/LiveMathBench", local="./data/LiveMathBench/", hf_id=None, how_to_get=HOW)
    assert os.path.normpath(theirs) == ours.where
