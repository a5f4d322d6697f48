"""No value becomes code: hostile template values are refused, or written as inert data.

Each case generates configs with ``save_opencompass_configs.py`` (``--set`` takes Python
literals, so ``'\\n'`` is a real newline) and then loads every file it wrote the way
OpenCompass does (mmengine's ``Config.fromfile``, the real one).  The injected code would
create a marker file; it never exists, and an accepted value reads back unchanged.
"""

from __future__ import annotations

import shutil

import pytest
from mmengine.config import Config

from test_save_configs import REPO, generate, read_manifest

QUICKSTART = REPO / "opencompass_config_templates" / "quickstart.py"


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    """The payloads write ``marker`` in the working directory (a name without ``/``: it fits in a file name)."""
    monkeypatch.chdir(tmp_path)


def payload(marker) -> str:
    return f"open({marker.name!r}, 'w').close()"


# (field named in the error, the --set assignment built from the payload)
REFUSED = [
    ("models[0].path", lambda code: f"models=[{{'path': {('m' + chr(10) + code)!r}}}]"),
    ("models[0].path", lambda code: f"models=[{{'path': {('m' + chr(13) + code)!r}}}]"),
    ("models[0].path", lambda code: f"models=[{{'path': {('m' + chr(0x2028) + code)!r}}}]"),
    ("models[0].path", lambda code: f"models=[{{'path': {('m' + chr(0x85) + code)!r}}}]"),
    ("models[0].path", lambda code: f"models=[{{'path': {('m' + chr(9) + 'x')!r}}}]"),
    ("models[0].path", lambda code: "models=[{'path': '{{$HOME:x}}'}]"),
    ("models[0].name", lambda code: f"models=[{{'path': 'm', 'name': {('n' + chr(10) + code)!r}}}]"),
    ("models[0].url", lambda code: f"models=[{{'path': 'm', 'url': {('http://h/v1' + chr(10) + code)!r}}}]"),
    ("model_url", lambda code: f"model_url={('http://h/v1' + chr(13) + chr(10) + code)!r}"),
    ("eval_model_name", lambda code: f"eval_model_name={('j' + chr(10) + code)!r}"),
    ("eval_urls[0]", lambda code: f"eval_urls=[{('http://j/v1' + chr(0x2029) + code)!r}]"),
]


@pytest.mark.parametrize("field, assignment", REFUSED, ids=[f"{field}-{i}" for i, (field, _) in enumerate(REFUSED)])
def test_control_characters_are_refused_in_one_line_before_anything_is_written(tmp_path, capsys, field, assignment):
    marker = tmp_path / "marker"
    code = generate(tmp_path, "--set", assignment(payload(marker)))
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert f"{QUICKSTART}: {field} = " in err and "remove it" in err
    assert not (tmp_path / "out").exists() and not marker.exists()


def quote_breakers(code: str) -> list[str]:
    """Model paths that try to close the string literal (or the comment) they are written into."""
    return [
        f"m'); {code}; ('",
        f'm"); {code}; ("',
        f"m''' + {code} + '''",
        f'm""" + {code} + """',
        f"m\\'); {code}; #",
        f"m\\\\'); {code}; #",
        f"m # {code}",
        "m\\",
    ]


def load_every_config(out) -> list:
    runs = read_manifest(out)["runs"]
    return [(run, Config.fromfile(str(out / run["file"]))) for run in runs]


def test_quotes_and_backslashes_stay_data_when_loaded_like_opencompass(tmp_path):
    marker = tmp_path / "marker"
    paths = quote_breakers(payload(marker))
    models = [{"path": path, "name": f"model{i}'\"x"} for i, path in enumerate(paths)]
    assert (
        generate(
            tmp_path,
            "--set",
            f"models={models!r}",
            "eval_model_name=j'); " + payload(marker) + "; ('",
            "judge=cascade",
            "eval_urls=[\"http://j/v1?q='x'\"]",
        )
        == 0
    )
    loaded = load_every_config(tmp_path / "out")
    assert len(loaded) == 2 * len(paths)
    for run, config in loaded:
        (model,) = config.models
        assert model.path == run["model_path"] and model.path in paths
        assert model.abbr == run["model_abbr"] and "'" not in model.abbr and '"' not in model.abbr
        evaluator = config.datasets[0].eval_cfg.evaluator
        assert evaluator.model_name == "j'); " + payload(marker) + "; ('"
        assert evaluator.url == ["http://j/v1?q='x'"]
    assert not marker.exists()


def test_a_template_path_with_quotes_stays_in_its_comment(tmp_path):
    marker = tmp_path / "marker"
    folder = tmp_path / f"t'); {payload(marker)}; #"
    folder.mkdir()
    template = folder / "quick'start.py"
    shutil.copy(QUICKSTART, template)
    assert generate(tmp_path, "-tc", str(template)) == 0
    loaded = load_every_config(tmp_path / "out")
    assert loaded and all(config.models[0].path == run["model_path"] for run, config in loaded)
    assert not marker.exists()


def test_a_template_path_with_a_newline_is_refused(tmp_path, capsys):
    marker = tmp_path / "marker"
    template = tmp_path / f"t\n{payload(marker)}\n.py"
    shutil.copy(QUICKSTART, template)
    assert generate(tmp_path, "-tc", str(template)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the template path = " in err and "U+000A" in err
    assert not (tmp_path / "out").exists() and not marker.exists()


@pytest.mark.e2e  # the real `opencompass --dry-run`: it loads the config, dumps it and loads the data
def test_hostile_values_stay_data_through_a_real_opencompass_dry_run(tmp_path):
    from generated_configs import generate_configs
    from test_opencompass_dry_run import dry_run
    from tiny_data import write_aime2025

    marker = tmp_path / "work" / "marker"  # where the payloads would write it: the dry run's directory
    code = payload(marker)
    # every free-text value a template can carry, each trying to end its literal or be substituted
    data = write_aime2025(tmp_path / f"d'''{code}${{HOME}}{{x}}\\", [("what is 1 + 1?", "2"), ("2 + 2?", "4")])
    values = {
        "path": f"m''' + {code} + '''${{HOME}}{{}}\\",
        "tokenizer_path": f'tok"""); {code}; #',
        "url": "http://127.0.0.1:9/v1?q='${HOME}'",
        "eval_model_name": f"j'); {code}; ('",
        "eval_urls": ["http://j/v1#{x}\\'"],
    }
    (run,) = generate_configs(
        "self_served.py",
        tmp_path / "configs",
        f"models=[{{'path': {values['path']!r}, 'tokenizer_path': {values['tokenizer_path']!r}, "
        f"'url': {values['url']!r}}}]",
        f"eval_model_name={values['eval_model_name']!r}",
        f"eval_urls={values['eval_urls']!r}",
        "judge=cascade",
        "benchmarks=[AIME2025]",
        "greedy=False",
        "n=2",
        "k=[1]",
        f"data_paths={{'AIME2025': {str(data)!r}}}",
    )
    result = dry_run(tmp_path / "configs" / run["file"], tmp_path / "work", tmp_path / "empty-cache")
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "Traceback" not in output, output[-3000:]
    assert not marker.exists()
    # OpenCompass loaded the data from the hostile path (2 questions x n = 2) and dumped the config
    # its tasks read; that dump reads back with every value unchanged.
    assert (tmp_path / "work" / ".cache" / "dataset_size.json").read_text().count(": 4") == 1
    (dumped,) = (tmp_path / "work" / "outputs").glob("*/configs/*.py")
    config = Config.fromfile(str(dumped))
    (model,), (dataset,) = config.models, config.datasets
    assert (model.path, model.tokenizer_path, model.openai_api_base) == (
        values["path"],
        values["tokenizer_path"],
        values["url"],
    )
    assert dataset.path == str(data)
    evaluator = dataset.eval_cfg.evaluator
    assert (evaluator.model_name, evaluator.url) == (values["eval_model_name"], values["eval_urls"])
    assert not marker.exists()
