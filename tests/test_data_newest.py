"""The newest competition sets: ``gpassk data check`` on stand-ins in each set's real layout.

Each stand-in is written the way its source ships it (docs/data.md, "The newest competition
sets"): MathArena's Hub snapshots (``data/train-00000-of-00001.parquet``: ``problem_idx``
int64, ``problem``, ``answer`` (int64 for AIME 2026, a string otherwise), ``problem_type``
list of strings where the card lists it), OpenCompass's AIME 2026 / HMMT February 2026
JSONL files, BeyondAIME's ``test`` Parquet and OlymMATH's ``data/OlymMATH-<LANG>-<TIER>.jsonl``,
with the real field names and question counts. Golden rows come from reading the stand-in
with pyarrow / json here, not from the loader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gpassk_opencompass.catalog import BENCHMARKS, get_benchmark
from gpassk_opencompass.cli import main

ROOT = Path(__file__).resolve().parent.parent
PARQUET = "data/train-00000-of-00001.parquet"

# name -> (file under $COMPASS_DATA_CACHE, questions, fields of one record i)
MATHARENA_TYPES = {"problem_type": ["Algebra"]}
LAYOUTS: dict[str, tuple[str, int, object]] = {
    "AIME2026": ("data/aime2026/aime2026.jsonl", 30, lambda i: {"problem": f"AIME {i}", "answer": str(100 + i)}),
    "HMMT-Feb-2025": (
        f"data/MathArena/hmmt_feb_2025/{PARQUET}",
        30,
        lambda i: {"problem_idx": i + 1, "problem": f"HMMT {i}", "answer": f"\\frac{{{i}}}{{7}}", **MATHARENA_TYPES},
    ),
    "HMMT-Feb-2026": (
        "data/hmmt2026/hmmt_feb_2026.jsonl",
        33,
        lambda i: {"problem": f"HMMT 2026 {i}", "answer": f"\\sqrt{{{i}}}"},
    ),
    "HMMT-Nov-2025": (
        f"data/MathArena/hmmt_nov_2025/{PARQUET}",
        30,
        lambda i: {"problem_idx": i + 1, "problem": f"Nov {i}", "answer": str(i), **MATHARENA_TYPES},
    ),
    "BRUMO2025": (
        f"data/MathArena/brumo_2025/{PARQUET}",
        30,
        lambda i: {"problem_idx": i + 1, "problem": f"BRUMO {i}", "answer": f"{i}\\pi", **MATHARENA_TYPES},
    ),
    "CMIMC2025": (
        f"data/MathArena/cmimc_2025/{PARQUET}",
        40,
        lambda i: {"problem_idx": i + 1, "problem": f"CMIMC {i}", "answer": str(i * i), **MATHARENA_TYPES},
    ),
    "BeyondAIME": ("data/BeyondAIME/data/test.parquet", 100, lambda i: {"problem": f"Beyond {i}", "answer": 1000 + i}),
    **{
        f"OlymMATH-{lang}-{tier.capitalize()}": (
            f"data/OlymMATH/data/OlymMATH-{lang}-{tier}.jsonl",
            100,
            lambda i, lang=lang, tier=tier: {
                "unique_id": f"{lang}-{tier}-{i}",
                "problem": f"Olym {lang} {i}",
                "answer": f"{i}",
                "subject": "Number Theory",
            },
        )
        for lang in ("EN", "ZH")
        for tier in ("EASY", "HARD")
    },
}


def write_records(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(records), path)
    else:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def write_standin(cache: Path, name: str) -> Path:
    relative, count, record = LAYOUTS[name]
    return write_records(cache / relative, [record(i) for i in range(count)])


def read_back(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def check(capsys, name: str) -> tuple[int, str]:
    code = main(["data", "check", "--no-progress", name])
    return code, capsys.readouterr().out


def row(out: str, name: str) -> list[str]:
    [found] = [line.split() for line in out.splitlines() if line.split()[:1] == [name] and len(line.split()) > 2]
    return found


def problems(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(("error: ", "warning: "))]


def test_every_new_benchmark_has_a_layout_here():
    new = [b.name for b in BENCHMARKS[BENCHMARKS.index(get_benchmark("AIME2025")) + 1 :]]
    assert new == list(LAYOUTS)


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_the_real_layout_checks_ok(compass_cache, capsys, name):
    path = write_standin(compass_cache, name)
    code, out = check(capsys, name)
    assert code == 0, out
    # OpenCompass's own copies are one file; a Hub snapshot is the folder above data/.
    where = path if name in ("AIME2026", "HMMT-Feb-2026") else path.parents[1]
    assert row(out, name) == [name, "ok", str(LAYOUTS[name][1]), "-", "local", str(where)]
    assert problems(out) == []


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_name_in_another_case_finds_the_benchmark(compass_cache, capsys):
    """Issue 24: `gpassk data check olymmath-en-hard` finds OlymMATH-EN-Hard (was: unknown, did you mean ZH-Hard)."""
    path = write_standin(compass_cache, "OlymMATH-EN-Hard")
    code, out = check(capsys, "olymmath-en-hard")
    assert code == 0, out
    assert row(out, "OlymMATH-EN-Hard") == ["OlymMATH-EN-Hard", "ok", "100", "-", "local", str(path.parents[1])]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_a_record_without_its_answer_is_one_line(compass_cache, capsys, name):
    path = write_standin(compass_cache, name)
    records = read_back(path)
    for record in records:
        del record["answer"]
    write_records(path, records)
    code, out = check(capsys, name)
    assert code == 1
    fields = ", ".join(map(repr, sorted(records[0])))
    assert problems(out) == [
        f"error: {name}: {path} record 0: missing field(s) 'answer'; the record has {fields} "
        f"({len(records) - 1} more record(s) like it); the layout is in docs/data.md"
    ]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_loaded_rows_are_the_files_rows(compass_cache):
    """The loader's rows, against the stand-ins read independently (MathArena Parquet, OlymMATH JSONL)."""
    from gpassk_opencompass.plugin.data_check import dataset_entry
    from gpassk_opencompass.plugin.datasets.competition import CompetitionDataset

    for name, id_field in (("HMMT-Feb-2025", "problem_idx"), ("OlymMATH-ZH-Hard", "unique_id"), ("BeyondAIME", None)):
        records = read_back(write_standin(compass_cache, name))
        entry = dataset_entry(get_benchmark(name))
        loaded = CompetitionDataset.load(entry["path"], name, entry["hub"], entry.get("files"))
        assert loaded.to_list() == [
            {
                "question_id": f"{name}/{record[id_field] if id_field else index}",
                "question": record["problem"],
                "answer": str(record["answer"]),
            }
            for index, record in enumerate(records)
        ]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_an_integer_answer_reads_as_its_digits_and_a_list_is_refused(compass_cache, capsys, tmp_path):
    path = write_standin(compass_cache, "BeyondAIME")
    records = read_back(path)
    assert records[5]["answer"] == 1005 and type(records[5]["answer"]) is int
    records[5]["answer"] = None
    write_records(path, records)
    code, out = check(capsys, "BeyondAIME")
    assert code == 1
    assert problems(out) == [
        f"error: BeyondAIME: {path} record 5: 'answer' should be a number or a string, got NoneType None; "
        "the layout is in docs/data.md"
    ]


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_missing_data_names_the_hub_id_and_where_to_put_it(compass_cache, capsys):
    code, out = check(capsys, "HMMT-Nov-2025")
    assert code == 1
    assert row(out, "HMMT-Nov-2025")[:2] == ["HMMT-Nov-2025", "missing"]
    [line] = problems(out)
    folder = compass_cache / "data" / "MathArena" / "hmmt_nov_2025"
    assert line.startswith(f"error: HMMT-Nov-2025: no data for 'data/MathArena/hmmt_nov_2025': looked at {folder}")
    assert (
        "download the Hugging Face dataset MathArena/hmmt_nov_2025 into "
        "$COMPASS_DATA_CACHE/data/MathArena/hmmt_nov_2025 (huggingface-cli download MathArena/hmmt_nov_2025 "
        "--repo-type dataset --local-dir ...)"
    ) in line


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_snapshot_without_the_expected_file_is_named(compass_cache, capsys):
    folder = compass_cache / "data" / "OlymMATH" / "data"
    write_records(folder / "OlymMATH-EN-EASY.jsonl", [{"problem": "p", "answer": "1"}])
    code, out = check(capsys, "OlymMATH-EN-Hard")
    assert code == 1
    [line] = problems(out)
    assert line.startswith(
        f"error: OlymMATH-EN-Hard: no .parquet or .jsonl file matching 'data/OlymMATH-EN-HARD.jsonl' in {folder.parent}"
    )


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_opencompass_archive_hint_for_its_own_copies(compass_cache, capsys):
    code, out = check(capsys, "HMMT-Feb-2026")
    assert code == 1
    assert "hmmt_feb_2026.zip" in problems(out)[0] and "MathArena/hmmt_feb_2026" in problems(out)[0]


def test_a_template_names_a_new_benchmark(compass_cache):
    from gpassk_opencompass.grid import spec, writer

    template = writer.load_template(
        str(ROOT / "opencompass_config_templates" / "quickstart.py"),
        {"benchmarks": ["HMMT-Feb-2025", "OlymMATH-ZH-Easy"]},
    )
    files = writer.plan(spec.expand(template), template, "quickstart.py")
    texts = {file.name.split("@")[1]: file.text for file in files[:-1]}
    assert sorted(texts) == [
        "HMMT-Feb-2025_k1_n1.py",
        "HMMT-Feb-2025_k4-8_n8.py",
        "OlymMATH-ZH-Easy_k1_n1.py",
        "OlymMATH-ZH-Easy_k4-8_n8.py",
    ]
    for name, text in texts.items():
        if name.startswith("HMMT"):
            assert "path='data/MathArena/hmmt_feb_2025'" in text and "请逐步推理" not in text
        else:
            assert "请逐步推理" in text and "language='cn'" in text


def test_none_of_them_has_published_figures():
    """The catalog's flag, the shipped published tables and docs/leaderboard.md's list say the same."""
    from gpassk_opencompass.files import read_json_file
    from gpassk_opencompass.leaderboard import published

    shipped = read_json_file(str(Path(published.__file__).parent.parent / "data" / "published_leaderboard.json"))
    assert [b.name for b in BENCHMARKS if b.published] == shipped["benchmarks"]
    assert not any(get_benchmark(name).published for name in LAYOUTS)
    page = (ROOT / "docs" / "leaderboard.md").read_text(encoding="utf-8")
    for benchmark in BENCHMARKS:
        expected = "yes" if benchmark.published else "none"
        assert re.search(rf"^\| {re.escape(benchmark.name)} \| {expected} \|", page, re.MULTILINE), benchmark.name


@pytest.mark.e2e
def test_opencompass_dry_run_loads_a_generated_config_on_the_parquet_layout(tmp_path):
    """The real ``opencompass --dry-run`` on a generated HMMT-Feb-2025 config reads MathArena's Parquet layout."""
    from generated_configs import generate_configs
    from test_opencompass_dry_run import dry_run

    out = tmp_path / "configs"
    runs = generate_configs("nono1.py", out, "benchmarks=[HMMT-Feb-2025]")
    sampled = next(run for run in runs if not run["greedy"] and run["model_path"] == "Qwen/Qwen2.5-7B-Instruct")
    cache = tmp_path / "cache"
    write_standin(cache, "HMMT-Feb-2025")
    result = dry_run(out / sampled["file"], tmp_path / "work", cache)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    sizes = json.loads((tmp_path / "work" / ".cache" / "dataset_size.json").read_text())
    assert sizes == {sampled["dataset_abbr"]: 30 * 48}


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_a_file_that_is_not_parquet_does_not_read(compass_cache, capsys):
    path = write_standin(compass_cache, "CMIMC2025")
    path.write_bytes(b"PAR1 not really")
    code, out = check(capsys, "CMIMC2025")
    assert code == 1
    [line] = problems(out)
    assert line.startswith(f"error: CMIMC2025: {path} does not read: ")


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_the_loader_refuses_an_empty_file(compass_cache):
    from gpassk_opencompass.errors import InputError
    from gpassk_opencompass.plugin.datasets.competition import CompetitionDataset

    path = write_records(compass_cache / "data" / "hmmt2026" / "hmmt_feb_2026.jsonl", [])
    with pytest.raises(InputError, match=rf"^HMMT-Feb-2026: {re.escape(str(path))} holds no questions; download"):
        CompetitionDataset.load("opencompass/hmmt2026", "HMMT-Feb-2026", "MathArena/hmmt_feb_2026")


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize(
    ("name", "id_field", "twice"),
    [("HMMT-Feb-2025", "problem_idx", 4), ("OlymMATH-EN-Easy", "unique_id", "EN-EASY-3")],
    ids=["parquet", "jsonl"],
)
def test_a_question_id_given_twice_is_refused_by_data_check_and_the_loader(
    compass_cache, capsys, name, id_field, twice
):
    """Record 7 given record 3's id: one line naming the file, the id and both records, from both sides."""
    from gpassk_opencompass.errors import InputError
    from gpassk_opencompass.plugin.data_check import dataset_entry
    from gpassk_opencompass.plugin.datasets.competition import CompetitionDataset

    path = write_standin(compass_cache, name)
    records = read_back(path)
    assert records[3][id_field] == twice
    records[7][id_field] = twice
    write_records(path, records)
    message = (
        f"{path} record 7: question id '{name}/{twice}' repeats {path} record 3; every question needs its own id: "
        "remove the duplicate or correct its id"
    )
    code, out = check(capsys, name)
    assert code == 1 and problems(out) == [f"error: {name}: {message}"], out
    entry = dataset_entry(get_benchmark(name))
    with pytest.raises(InputError) as refused:
        CompetitionDataset.load(entry["path"], name, entry["hub"], entry.get("files"))
    assert str(refused.value) == message
