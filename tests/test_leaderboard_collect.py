"""Reading OpenCompass work dirs: identification from the run's own records, and bad runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpassk_opencompass.cli import main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.leaderboard import collect_runs
from leaderboard_workdirs import (
    Spec,
    dataset_cfg,
    model_cfg,
    read_results,
    set_written,
    standard_grid,
    write_config,
    write_manifest,
    write_results,
    write_run,
)

TS = "20250213_101500"


def by_file(collection):
    return {(run.model_abbr, run.dataset_abbr): run for run in collection.runs}


def messages(collection):
    return [notice.message for notice in collection.notices]


def test_runs_are_identified_from_the_saved_config(tmp_path):
    specs = standard_grid()
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    collection = collect_runs([tmp_path / "outputs"])
    assert messages(collection) == []
    runs = by_file(collection)
    assert len(runs) == len(specs) == 12
    for spec in specs:
        run = runs[(spec.model_abbr, spec.dataset_abbr)]
        assert run.display_name == Path(spec.model_path).name
        assert run.model_path == spec.model_path
        assert run.benchmark == spec.benchmark
        assert run.greedy is spec.greedy
        assert run.k == spec.ks and run.n == spec.n and run.temperature == spec.temperature
        results_path = run_dir / "results" / spec.model_abbr / f"{spec.dataset_abbr}.json"
        assert run.results_path == results_path
        on_disk = read_results(results_path)
        assert dict(run.metrics) == {key: value for key, value in on_disk.items() if key not in ("gpassk", "details")}
        assert run.thresholds == (0.0, 0.25, 0.5, 0.75, 1.0)


@pytest.mark.parametrize("given", ["work_dir", "run_dir", "parent"])
def test_a_work_dir_a_single_run_or_a_folder_above_them(tmp_path, given):
    write_run(tmp_path / "runs" / "outputs", TS, standard_grid()[:4])
    path = {
        "work_dir": tmp_path / "runs" / "outputs",
        "run_dir": tmp_path / "runs" / "outputs" / TS,
        "parent": tmp_path,
    }[given]
    assert len(collect_runs([path]).runs) == 4


def test_abbrs_are_never_parsed(tmp_path):
    """Abbrs that lie about everything: identity comes from the config entries they name."""
    run_dir = tmp_path / "outputs" / TS
    write_config(
        run_dir,
        f"{TS}_1",
        [model_cfg("gpt-4_t1-0_k50", "acme/Actual-Model-3B", 0.6)],
        [dataset_cfg("AIME2025_k4_n8", "MATH500-L5", (16,), 32)],
    )
    write_results(run_dir, "gpt-4_t1-0_k50", "AIME2025_k4_n8", {"mG-Pass@16": 12.5})
    (run,) = collect_runs([tmp_path]).runs
    assert (run.display_name, run.benchmark, run.temperature, run.k, run.n, run.greedy) == (
        "Actual-Model-3B",
        "MATH500-L5",
        0.6,
        (16,),
        32,
        False,
    )


def test_the_manifest_identifies_runs_without_a_saved_config(tmp_path):
    specs = standard_grid()[:2]
    write_run(tmp_path / "outputs", TS, specs, with_config=False, with_block=False)
    write_manifest(tmp_path / "opencompass_configs", specs, display_names={"acme/strong-math-7b": "Strong-Math-7B"})
    collection = collect_runs([tmp_path])  # the manifest is found under the given folder
    runs = by_file(collection)
    sampled, greedy = (runs[(spec.model_abbr, spec.dataset_abbr)] for spec in specs)
    assert sampled.display_name == greedy.display_name == "Strong-Math-7B"
    assert (sampled.benchmark, sampled.k, sampled.n) == ("LiveMathBench-202412", (4, 8, 16), 32)
    assert sampled.greedy is False
    assert (greedy.k, greedy.n, greedy.greedy, greedy.temperature) == ((1,), 1, True, 0.0)
    assert any("no saved config" in message for message in messages(collection))


def test_a_manifest_given_explicitly(tmp_path):
    specs = standard_grid()[:2]
    write_run(tmp_path / "outputs", TS, specs, with_config=False)
    manifest = write_manifest(tmp_path / "elsewhere", specs)
    assert len(collect_runs([tmp_path / "outputs"]).runs) == 0
    assert len(collect_runs([tmp_path / "outputs"], manifests=[manifest]).runs) == 2


def test_without_config_or_manifest_a_run_is_skipped_with_the_reason(tmp_path):
    write_run(tmp_path / "a", TS, standard_grid()[:2])
    write_run(tmp_path / "b", TS, standard_grid()[2:4], with_config=False)
    collection = collect_runs([tmp_path / "a", tmp_path / "b"])
    assert len(collection.runs) == 2  # the partial result: a's runs
    skipped = [m for m in messages(collection) if m.startswith("skipped")]
    assert len(skipped) == 2
    assert all("no saved config or manifest names the model" in m and "--manifest" in m for m in skipped)
    assert all(str(tmp_path / "b") in m for m in skipped)


def test_corrupt_and_odd_results_files_are_skipped_the_rest_read(tmp_path):
    specs = standard_grid()[:4]
    run_dir = write_run(tmp_path / "outputs", TS, specs)
    corrupt = run_dir / "results" / specs[0].model_abbr / f"{specs[0].dataset_abbr}.json"
    corrupt.write_text('{"G-Pass@16_0.5": 4', encoding="utf-8")  # torn write
    failed = run_dir / "results" / specs[1].model_abbr / f"{specs[1].dataset_abbr}.json"
    failed.write_text(json.dumps({"error": "judge unreachable"}), encoding="utf-8")
    listed = run_dir / "results" / specs[2].model_abbr / f"{specs[2].dataset_abbr}.json"
    listed.write_text("[1, 2, 3]", encoding="utf-8")
    collection = collect_runs([tmp_path / "outputs"])
    assert [run.dataset_abbr for run in collection.runs] == [specs[3].dataset_abbr]
    found = messages(collection)
    assert any(str(corrupt) in m and "not readable JSON" in m for m in found)
    assert any(str(failed) in m and "evaluation failed (judge unreachable)" in m for m in found)
    assert any(str(listed) in m and "expected a JSON object" in m and "list" in m for m in found)


def test_an_unreadable_saved_config_is_reported(tmp_path):
    specs = standard_grid()[:2]
    run_dir = write_run(tmp_path / "outputs", TS, specs, with_config=False)
    (run_dir / "configs" / f"{TS}_7.py").write_text("models = [dict(abbr='x',\n", encoding="utf-8")
    write_manifest(tmp_path / "outputs", specs)
    collection = collect_runs([tmp_path])
    assert len(collection.runs) == 2  # the manifest still identifies them
    assert any(
        f"saved config {run_dir / 'configs' / f'{TS}_7.py'} not read: not Python" in m for m in messages(collection)
    )


def test_disagreeing_records_are_reported_and_the_results_win(tmp_path):
    spec = Spec("acme/m", "AIME2025", 0.7, 32, (4, 8, 16), 0.5)
    run_dir = write_run(tmp_path / "outputs", TS, [spec])
    # the config claims another benchmark and k than the evaluator recorded
    write_config(
        run_dir,
        f"{TS}_4242",
        [model_cfg(spec.model_abbr, spec.model_path, 0.7)],
        [dataset_cfg(spec.dataset_abbr, "MATH500-L5", (4, 8), 32)],
    )
    collection = collect_runs([tmp_path])
    (run,) = collection.runs
    assert (run.benchmark, run.k) == ("AIME2025", (4, 8, 16))
    found = messages(collection)
    assert any("benchmark: the results says 'AIME2025'" in m and "'MATH500-L5'" in m for m in found)
    assert any("k: the results says (4, 8, 16), the saved config says (4, 8)" in m for m in found)


def test_the_newest_saved_config_describes_a_relaunch(tmp_path):
    spec = Spec("acme/m", "AIME2025", 0.7, 32, (16,), 0.5)
    run_dir = write_run(tmp_path / "outputs", TS, [spec], pid=1)
    old_config = run_dir / "configs" / f"{TS}_1.py"
    set_written(old_config, 1_000_000)
    write_config(
        run_dir,
        "20250214_090000_2",
        [model_cfg(spec.model_abbr, "acme/relaunched-name", 0.7)],
        [dataset_cfg(spec.dataset_abbr, "AIME2025", (16,), 32)],
    )
    (run,) = collect_runs([tmp_path]).runs
    assert run.display_name == "relaunched-name"


def test_entries_without_abbr_match_when_alone(tmp_path):
    """OpenCompass derives an abbr when a config gives none; a sole entry is then the one."""
    run_dir = tmp_path / "outputs" / TS
    model = model_cfg("unused", "acme/NoAbbr-7B", 0.0)
    del model["abbr"]
    dataset = dataset_cfg("unused", "AIME2025", (1,), 1)
    del dataset["abbr"]
    write_config(run_dir, f"{TS}_1", [model], [dataset])
    write_results(run_dir, "OpenAISDK_acme_NoAbbr-7B", "opencompass_LiveMathBench", {"accuracy": 50.0})
    (run,) = collect_runs([tmp_path]).runs
    assert (run.display_name, run.benchmark, run.greedy) == ("NoAbbr-7B", "AIME2025", True)


def test_evaluator_files_below_results_are_not_results(tmp_path):
    spec = standard_grid()[0]
    run_dir = write_run(tmp_path / "outputs", TS, [spec])
    cache = run_dir / "results" / spec.model_abbr / spec.dataset_abbr / "verdicts.json"
    cache.parent.mkdir()
    cache.write_text("{}", encoding="utf-8")
    collection = collect_runs([tmp_path])
    assert len(collection.runs) == 1 and messages(collection) == []


@pytest.mark.parametrize(
    "holder, expected_greedy",
    [
        ({"temperature": 0.0}, True),
        ({"generation_kwargs": {"do_sample": False}}, True),
        ({"gen_config": {"top_k": 1, "temperature": 0.8}}, True),
        ({"generation_kwargs": {"temperature": 0.7}}, False),
        ({}, False),
    ],
)
def test_greedy_needs_evidence_of_deterministic_decoding(tmp_path, holder, expected_greedy):
    run_dir = tmp_path / "outputs" / TS
    model = model_cfg("m", "acme/m", None)
    model.update(holder)
    write_config(run_dir, f"{TS}_1", [model], [dataset_cfg("d", "AIME2025", (1,), 1)])
    write_results(run_dir, "m", "d", {"accuracy": 40.0})
    collection = collect_runs([tmp_path])
    (run,) = collection.runs
    assert run.greedy is expected_greedy
    assert any("no record says decoding was greedy" in m for m in messages(collection)) is not expected_greedy


def test_paths_that_hold_no_runs(tmp_path):
    with pytest.raises(InputError, match="is not a directory"):
        collect_runs([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"no OpenCompass results under .*empty"):
        collect_runs([tmp_path / "empty"])


def test_a_broken_manifest_given_is_an_error_one_found_is_a_notice(tmp_path):
    write_run(tmp_path / "outputs", TS, standard_grid()[:1])
    broken = tmp_path / "manifest.json"
    broken.write_text('{"runs": [{"file": "x.py"}]}', encoding="utf-8")
    with pytest.raises(InputError, match="is not a generator manifest"):
        collect_runs([tmp_path / "outputs"], manifests=[broken])
    collection = collect_runs([tmp_path])  # found while looking around: reported, not fatal
    assert len(collection.runs) == 1
    assert any(m.startswith(f"ignored '{broken}' is not a generator manifest") for m in messages(collection))


def test_overlapping_paths_read_each_run_once(tmp_path):
    write_run(tmp_path / "outputs", TS, standard_grid()[:2])
    collection = collect_runs([tmp_path / "outputs", tmp_path / "outputs" / TS, tmp_path])
    assert len(collection.runs) == 2 and messages(collection) == []


# --- where the manifest is found ------------------------------------------------------------


def grid_launch_layout(tmp_path: Path, specs: list[Spec], launched: list[Spec]) -> tuple[Path, Path]:
    """``gpassk grid run configs/ -w work/``: one work dir per config, a launch log naming the config,
    results without a saved config (so only the manifest identifies them)."""
    configs = tmp_path / "configs"
    manifest = write_manifest(configs, specs, display_names={"acme/strong-math-7b": "Strong-Math"})
    for spec in launched:
        stem = f"{spec.model_abbr}@{spec.dataset_abbr}"
        run_dir = write_run(tmp_path / "work" / stem, TS, [spec], with_config=False)
        (run_dir / f"gpassk_launch_{TS}.log").write_text(
            f"# opencompass {configs / (stem + '.py')} -w {tmp_path / 'work' / stem} -r {TS}\n# start at {TS}\n",
            encoding="utf-8",
        )
    return manifest, tmp_path / "work"


def test_the_manifest_beside_the_launched_configs_is_found(tmp_path):
    specs = standard_grid()[:4]
    manifest, work = grid_launch_layout(tmp_path, specs, specs)
    collection = collect_runs([work])
    assert collection.manifests == (manifest,)
    assert sorted(run.display_name for run in collection.runs) == ["Strong-Math"] * 4
    assert collection.missing == ()


def test_runs_the_manifest_expects_without_results_are_listed(tmp_path, capsys):
    specs = standard_grid()[:4]
    manifest, work = grid_launch_layout(tmp_path, specs, specs[:3])
    collection = collect_runs([work])
    assert [(run.model_abbr, run.dataset_abbr, run.benchmark, run.manifest) for run in collection.missing] == [
        (specs[3].model_abbr, specs[3].dataset_abbr, "AIME2025", manifest)
    ]
    assert main(["leaderboard", str(work)]) == 1
    captured = capsys.readouterr()
    assert (
        f"WARNING: expected but without results: Strong-Math on AIME2025 (results/{specs[3].model_abbr}/"
        f"{specs[3].dataset_abbr}.json, listed in {manifest})"
    ) in captured.err
    assert "ERROR: missing: 1 run(s) the manifest lists have no results" in captured.err
    assert f"no results: Strong-Math on AIME2025 (results/{specs[3].model_abbr}" in captured.out
    assert main(["leaderboard", str(work), "--benchmarks", "LiveMathBench-202412"]) == 0  # not a wanted run
    assert "no results:" not in capsys.readouterr().out
    assert main(["leaderboard", str(work), "--format", "json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["missing"] == [
        {
            "model_abbr": specs[3].model_abbr,
            "dataset_abbr": specs[3].dataset_abbr,
            "display_name": "Strong-Math",
            "benchmark": "AIME2025",
            "manifest": str(manifest),
        }
    ]


def test_a_launch_log_naming_a_config_folder_without_manifest_is_a_notice(tmp_path):
    specs = standard_grid()[:1]
    _, work = grid_launch_layout(tmp_path, specs, specs)
    (tmp_path / "configs" / "manifest.json").unlink()
    collection = collect_runs([work])
    assert collection.runs == () and collection.manifests == ()
    assert any("says the run was launched from" in m and "--manifest" in m for m in messages(collection))


def test_manifest_given_overrides_the_ones_found(tmp_path):
    specs = standard_grid()[:2]
    write_run(tmp_path / "outputs", TS, specs, with_config=False)
    write_manifest(tmp_path / "outputs", specs, display_names={"acme/strong-math-7b": "Found"})
    given = write_manifest(tmp_path / "elsewhere", specs, display_names={"acme/strong-math-7b": "Given"})
    assert {run.display_name for run in collect_runs([tmp_path / "outputs"]).runs} == {"Found"}
    collection = collect_runs([tmp_path / "outputs"], manifests=[given])
    assert {run.display_name for run in collection.runs} == {"Given"} and collection.manifests == (given,)
