"""``gpassk data check``: where the data were looked for, what is there, what is missing.

Every test goes through the real entry point (``gpassk_opencompass.cli.main``)
on tiny data written in OpenCompass's layout under a temporary
``COMPASS_DATA_CACHE`` (the ``compass_cache`` fixture).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main
from tiny_data import write_aime2024, write_aime2025, write_livemathbench, write_math500

# Questions per language of LiveMathBench 202412 (paper, table 4): 119 x {cn, en} = 238.
SPLITS_202412 = {"CNMO": 18, "CCEE": 44, "AMC": 46, "WLPMC": 11}
DOCS = Path(__file__).resolve().parent.parent / "docs" / "data.md"


def questions(count: int, tag: str = "q") -> list[tuple[str, str]]:
    return [(f"{tag} {i}: what is {i} + {i}?", str(2 * i)) for i in range(count)]


def write_full_202412(cache: Path) -> Path:
    files = {
        (split, language): questions(count, f"{split} {language}")
        for split, count in SPLITS_202412.items()
        for language in ("cn", "en")
    }
    return write_livemathbench(cache, "202412", files)


def check(capsys, *names: str) -> tuple[int, str, str]:
    code = main(["data", "check", "--no-progress", *names])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def table_row(out: str, benchmark: str) -> list[str]:
    rows = [line.split() for line in out.splitlines() if line.split()[:1] == [benchmark] and len(line.split()) > 2]
    assert len(rows) == 1, out
    return rows[0]


def problems(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(("error: ", "warning: "))]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_complete_data_is_usable_with_counts_per_split_and_language(compass_cache, capsys):
    root = write_full_202412(compass_cache)
    code, out, _ = check(capsys, "LiveMathBench-202412")
    assert code == 0, out
    assert table_row(out, "LiveMathBench-202412") == [
        "LiveMathBench-202412",
        "ok",
        "238",
        "238",
        "local",
        str(root.parent),
    ]
    assert (
        "questions: CNMO/cn 18, CNMO/en 18, CCEE/cn 44, CCEE/en 44, AMC/cn 46, AMC/en 46, WLPMC/cn 11, WLPMC/en 11"
    ) in out
    assert f"{root.parent} (found)" in out
    assert problems(out) == []
    assert out.rstrip().endswith("1 of 1 benchmarks usable")


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_missing_file_is_named_with_how_to_get_it(compass_cache, capsys):
    root = write_full_202412(compass_cache)
    (root / "AMC_en.jsonl").unlink()
    code, out, _ = check(capsys, "LiveMathBench-202412")
    assert code == 1
    assert table_row(out, "LiveMathBench-202412")[:3] == ["LiveMathBench-202412", "error", "-"]
    [line] = problems(out)
    assert line.startswith(
        f"error: LiveMathBench-202412: missing file {root / 'AMC_en.jsonl'} (COMPASS_DATA_CACHE={compass_cache}); "
    )
    assert "DATASET_SOURCE=HF" in line and "LiveMathBench.zip" in line
    assert "AMC/en -" in out and "AMC/cn 46" in out


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_missing_field_names_file_record_and_field(compass_cache, capsys):
    root = write_full_202412(compass_cache)
    path = root / "CCEE_cn.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for index in (3, 7):
        del records[index]["answer"]
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    code, out, _ = check(capsys, "LiveMathBench-202412")
    assert code == 1
    [line] = problems(out)
    assert line.startswith(
        f"error: LiveMathBench-202412: {path} record 3: missing field(s) 'answer'; "
        "the record has 'question', 'question_type' (1 more record(s) like it)"
    )
    assert "CCEE/cn -" in out


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_different_count_warns_but_is_usable(compass_cache, capsys):
    write_aime2025(compass_cache, questions(30))  # e.g. parts I and II
    code, out, _ = check(capsys, "AIME2025")
    assert code == 0
    assert table_row(out, "AIME2025")[:5] == ["AIME2025", "warning", "30", "15", "local"]
    assert problems(out) == [
        "warning: AIME2025: 30 questions, the published column has 15; results will "
        "not compare one to one (see 'Benchmark composition' in docs/generator.md)"
    ]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_missing_everywhere_lists_the_places_in_order(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    code, out, _ = check(capsys, "AIME2024-45")
    assert code == 1
    assert table_row(out, "AIME2024-45")[:2] == ["AIME2024-45", "missing"]
    assert (
        f"looked at: DATASET_SOURCE not set: local copies; data/aime.jsonl (not there); "
        f"{tmp_path / 'home' / '.cache' / 'opencompass' / 'data' / 'aime.jsonl'} (not there)"
    ) in out
    [line] = problems(out)
    assert "COMPASS_DATA_CACHE is not set" in line and "aime.zip" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing created, nothing downloaded


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_falls_back_to_the_default_cache_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("COMPASS_DATA_CACHE", raising=False)
    monkeypatch.delenv("DATASET_SOURCE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    path = write_aime2024(tmp_path / "home" / ".cache" / "opencompass", questions(45))
    code, out, _ = check(capsys, "AIME2024-45")
    assert code == 0, out
    assert table_row(out, "AIME2024-45") == ["AIME2024-45", "ok", "45", "45", "local", str(path)]
    assert f"data/aime.jsonl (not there); {path} (found)" in out


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_hf_mode_reports_the_hub_id_and_downloads_nothing(compass_cache, monkeypatch, capsys):
    import datasets

    def no_download(*args, **kwargs):
        raise AssertionError(f"the check must not load from the Hub: {args}")

    monkeypatch.setattr(datasets, "load_dataset", no_download)
    monkeypatch.setenv("DATASET_SOURCE", "HF")
    write_aime2025(compass_cache, questions(15))
    code, out, _ = check(capsys, "LiveMathBench-Hard-202412", "AIME2025")
    assert code == 0, out
    assert table_row(out, "LiveMathBench-Hard-202412") == [
        "LiveMathBench-Hard-202412",
        "hub",
        "-",
        "45",
        "hf",
        "opencompass/LiveMathBench",
    ]
    assert (
        "looked at: DATASET_SOURCE=HF: Hugging Face dataset opencompass/LiveMathBench "
        "(not downloaded by this check; a run loads it with datasets.load_dataset: network, "
        "and HF_TOKEN for a gated dataset)"
    ) in out
    assert ("questions: hard/cn -, hard/en -") in out
    # AIME has no Hub copy in OpenCompass's mapping: read locally even in HF mode.
    assert table_row(out, "AIME2025")[:5] == ["AIME2025", "ok", "15", "15", "local"]
    assert "DATASET_SOURCE=HF: not used, this loader reads local copies only" in out
    assert "not verified (Hugging Face, nothing downloaded): LiveMathBench-Hard-202412" in out
    assert not (compass_cache / "data" / "LiveMathBench").exists()


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_hf_subsets_are_the_ones_the_loader_would_load(compass_cache, monkeypatch):
    from gpassk_opencompass.plugin.data_check import check_benchmark

    monkeypatch.setenv("DATASET_SOURCE", "HF")
    found = check_benchmark("LiveMathBench-202505")
    assert [part.where for part in found.parts] == ["opencompass/LiveMathBench:v202505_all_en"]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_math500_counts_level_5_like_the_loader(compass_cache, capsys):
    from gpassk_opencompass.plugin.datasets import Math500Level5Dataset

    records = {
        f"test/{i}.json": {
            "problem": f"p{i}",
            "solution": f"so \\boxed{{{i}}}",
            "level": f"Level {1 + i % 5}",
            "type": "Algebra",
        }
        for i in range(20)
    }
    records["test/3.json"]["answer"] = "3"
    path = write_math500(compass_cache, records)
    code, out, _ = check(capsys, "MATH500-L5")
    assert code == 0
    assert table_row(out, "MATH500-L5")[:5] == ["MATH500-L5", "warning", "4", "134", "local"]
    assert len(Math500Level5Dataset.load()) == 4
    assert f"{path} (found)" not in out and f"{path.parent} (found)" in out
    assert "questions: level 5 4" in out


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_math500_without_levels_or_answers_is_an_error(compass_cache, capsys):
    path = write_math500(compass_cache, {"a": {"problem": "p", "solution": "s"}})
    code, out, _ = check(capsys, "MATH500-L5")
    assert code == 1
    [line] = problems(out)
    assert line.startswith(
        f"error: MATH500-L5: MATH500-L5 needs each question's difficulty, but no record "
        f"of {path} has a 'level' field; MATH500 ships with OpenCompass's data archive"
    )
    write_math500(compass_cache, {"a": {"problem": "p", "solution": "no box", "level": "Level 5"}})
    code, out, _ = check(capsys, "MATH500-L5")
    assert code == 1
    assert f"{path} record a: no 'answer' field and no \\boxed{{}} in its solution" in problems(out)[0]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_an_unreadable_file_is_an_error_with_its_line(compass_cache, capsys):
    path = write_aime2025(compass_cache, questions(15))
    path.write_text(path.read_text() + "{not json\n")
    code, out, _ = check(capsys, "AIME2025")
    assert code == 1
    assert problems(out)[0].startswith(f"error: AIME2025: {path} does not read: {path}:16: not valid JSON")


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_aime_field_layouts(compass_cache, capsys):
    path = write_aime2025(compass_cache, questions(15))
    path.write_text(path.read_text().replace('"answer"', '"solution"'))
    code, out, _ = check(capsys, "AIME2025")
    assert code == 1
    [line] = problems(out)
    assert line.startswith(
        f"error: AIME2025: {path} record 0: expected fields 'question'+'answer' or "
        "'origin_prompt'+'gold_answer'; the record has 'question', 'solution' "
        "(14 more record(s) like it)"
    )


def test_unknown_benchmark_exits_2_before_reading_anything(compass_cache, capsys):
    code, out, err = check(capsys, "AIME2025", "AIME2052")
    assert code == 2
    assert out == ""
    assert err.strip().splitlines() == [
        "gpassk data: error: unknown benchmark 'AIME2052'; did you mean 'AIME2026'? known: LiveMathBench-202412, "
        "LiveMathBench-Hard-202412, LiveMathBench-202505, LiveMathBench-Hard-202505, MATH500-L5, AIME2024-45, "
        "AIME2025, AIME2026, HMMT-Feb-2025, HMMT-Feb-2026, HMMT-Nov-2025, BRUMO2025, CMIMC2025, BeyondAIME, "
        "OlymMATH-EN-Easy, OlymMATH-EN-Hard, OlymMATH-ZH-Easy, OlymMATH-ZH-Hard"
    ]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_no_names_checks_the_whole_catalog(compass_cache, capsys):
    from gpassk_opencompass.catalog import BENCHMARKS

    write_full_202412(compass_cache)
    code, out, _ = check(capsys)
    assert code == 1  # only 202412 is there (Hard-202412 misses two files)
    assert [table_row(out, b.name)[1] for b in BENCHMARKS] == [
        "ok",
        "error",
        "error",
        "error",
        "missing",
        "missing",
        "missing",
        *["missing"] * 11,  # the newest sets (tests/test_data_newest.py)
    ]
    assert out.rstrip().endswith("1 of 18 benchmarks usable; 18 error(s)")


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_the_commands_of_the_data_guide_run(compass_cache, capsys):
    """Every ``$ gpassk data check ...`` line of docs/data.md parses and names real benchmarks."""
    commands = re.findall(r"^\$ (gpassk data check[^#\n]*)", DOCS.read_text(encoding="utf-8"), re.MULTILINE)
    assert len(commands) >= 3
    write_full_202412(compass_cache)
    for command in commands:
        argv = shlex.split(command)[1:]
        code = main([*argv[:2], "--no-progress", *argv[2:]])
        captured = capsys.readouterr()
        assert code in (0, 1), (command, captured.err)
        assert "benchmarks usable" in captured.out


def test_the_guide_gives_the_catalog_counts():
    """docs/data.md's overview table has one row per benchmark, ending with the catalog's count."""
    from gpassk_opencompass.catalog import BENCHMARKS

    text = DOCS.read_text(encoding="utf-8")
    for benchmark in BENCHMARKS:
        count = "-" if benchmark.questions is None else str(benchmark.questions)
        assert re.search(rf"^\| {re.escape(benchmark.name)} \|[^\n]*\| {count} \|$", text, re.MULTILINE), benchmark


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_modelscope_is_refused_per_benchmark(compass_cache, monkeypatch, capsys):
    monkeypatch.setenv("DATASET_SOURCE", "ModelScope")
    write_aime2025(compass_cache, questions(15))
    code, out, _ = check(capsys, "AIME2025")
    assert code == 1
    assert "looked at: DATASET_SOURCE=ModelScope: not supported by our loaders" in out
    assert problems(out)[0].startswith(
        "error: AIME2025: DATASET_SOURCE=ModelScope is not supported for 'opencompass/aime2025'"
    )


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_math_folder_without_the_file(compass_cache, capsys):
    (compass_cache / "data" / "math").mkdir(parents=True)
    code, out, _ = check(capsys, "MATH500-L5")
    assert code == 1
    [line] = problems(out)
    assert line.startswith(
        f"error: MATH500-L5: MATH500: {compass_cache / 'data' / 'math' / 'test_prm800k_500.json'} does not exist; "
    )
    assert "math.zip" in line


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_the_guide_example_is_what_the_check_prints(compass_cache, monkeypatch, capsys):
    """The console example of docs/data.md, run on its own data (``…`` stands for an elided part)."""
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"^\$ (gpassk data check AIME2024-45 AIME2025)\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    command, expected = block.group(1), block.group(2).rstrip("\n").splitlines()
    write_aime2025(compass_cache, questions(30))
    code = main([*shlex.split(command)[1:3], "--no-progress", *shlex.split(command)[3:]])
    printed = capsys.readouterr().out.replace(str(compass_cache), "/data/oc").rstrip("\n").splitlines()
    assert code == 1
    assert len(printed) == len(expected)
    for line, documented in zip(printed, expected):
        pattern = ".*".join(re.escape(piece) for piece in documented.split("…"))
        assert re.fullmatch(pattern, line.rstrip()), (line, documented)


TOY_LOADER = """
from gpassk_opencompass.plugin.data_check import BenchmarkCheck, Part, count_warning, read_records
from gpassk_opencompass.plugin.datasets.files import jsonl_pairs


class ToyDataset:
    @staticmethod
    def load(path):
        raise NotImplementedError("not needed by the data check")

    @classmethod
    def check_data(cls, benchmark, entry, environ, home):
        path = entry["path"]
        count, problems = read_records(benchmark.name, path, jsonl_pairs, lambda key, record, where: True)
        if count is not None:
            problems += count_warning(benchmark.name, count, benchmark.questions, "questions")
        return BenchmarkCheck(benchmark.name, "local", path, (f"{path} (found)",), (Part("all", path, count),),
                              benchmark.questions, tuple(problems))
"""


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_new_loader_brings_its_own_data_check(tmp_path, monkeypatch, capsys):
    """A benchmark on a new loader: its loader declares the check; data_check.py names no loader."""
    from gpassk_opencompass import catalog

    data = tmp_path / "toy.jsonl"
    data.write_text('{"question": "1+1?", "answer": "2"}\n{"question": "2+2?", "answer": "4"}\n')
    (tmp_path / "toy_loader.py").write_text(TOY_LOADER)
    (tmp_path / "toy_config.py").write_text(
        f"from toy_loader import ToyDataset\n\ntoy_config_datasets = [dict(type=ToyDataset, path={str(data)!r})]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(catalog, "BENCHMARKS", (*catalog.BENCHMARKS, catalog.Benchmark("Toy", False, "toy_config", 3)))
    code, out, _ = check(capsys, "Toy")
    assert code == 0, out
    assert table_row(out, "Toy") == ["Toy", "warning", "2", "3", "local", str(data)]
    assert problems(out) == [
        "warning: Toy: 2 questions, the published column has 3; results will not compare "
        "one to one (see 'Benchmark composition' in docs/generator.md)"
    ]


ARCHITECTURE = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_the_architecture_example_adds_a_benchmark(compass_cache, tmp_path, monkeypatch, capsys):
    """docs/architecture.md's worked example, as written there: its config and its catalog line are all it takes."""
    import shutil

    from gpassk_opencompass import catalog
    from gpassk_opencompass.grid import spec, writer

    section = ARCHITECTURE.read_text(encoding="utf-8").split("### A benchmark, worked example")[1]
    section = re.split(r"\n##+ ", section)[0]  # up to the next section or subsection
    config, line = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    data = write_aime2025(compass_cache, questions(3)).rename(tmp_path / "aime2027.jsonl")
    package = tmp_path / "example_configs"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(Path(catalog.__file__).parent / "plugin" / "configs" / "aime_common.py", package)
    (package / "aime2027.py").write_text(config.replace("'/data/aime2027.jsonl'", repr(str(data))))
    entry = eval(line.strip().rstrip(","), {"Benchmark": catalog.Benchmark, "_CONFIGS": "example_configs"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(catalog, "BENCHMARKS", (*catalog.BENCHMARKS, entry))

    code, out, _ = check(capsys, "AIME2027")
    assert code == 0, out
    assert table_row(out, "AIME2027") == ["AIME2027", "ok", "3", "-", "local", str(data)]
    template = writer.load_template(
        str(Path(spec.__file__).parents[2] / "opencompass_config_templates" / "quickstart.py"),
        {"benchmarks": ["AIME2027"]},
    )
    files = writer.plan(spec.expand(template), template, "quickstart.py")
    assert [file.name.split("@")[1] for file in files[:-1]] == ["AIME2027_k1_n1.py", "AIME2027_k4-8_n8.py"]
    assert all(f"path={str(data)!r}" in file.text for file in files[:-1])


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_math500_ids_given_twice_are_refused_by_data_check_and_the_loader(compass_cache, capsys):
    from gpassk_opencompass.errors import InputError
    from gpassk_opencompass.plugin.datasets import Math500Level5Dataset

    records = {
        f"test/{i}.json": {"problem": f"p{i}", "answer": str(i), "level": "Level 5", "unique_id": f"test/x/{i}.json"}
        for i in range(6)
    }
    records["test/4.json"]["unique_id"] = "test/x/1.json"
    path = write_math500(compass_cache, records)
    message = (
        f"{path} record test/4.json: question id 'test/x/1.json' repeats {path} record test/1.json; "
        "every question needs its own id: remove the duplicate or correct its id"
    )
    code, out, _ = check(capsys, "MATH500-L5")
    assert code == 1 and f"error: MATH500-L5: {message}" in problems(out), out
    with pytest.raises(InputError) as refused:
        Math500Level5Dataset.load()
    assert str(refused.value) == message
