"""The results file has one definition: the model writes it, reads it, and its JSON Schema is the one shipped.

No JSON Schema validator is installed with this package (``jsonschema`` is not a dependency of anything
installed), so a real ``gpassk score`` output is checked against the shipped schema by the model the schema is
generated from: the shipped schema must equal the model's, and the file must validate into the model and come
back out unchanged.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import pytest

from gpassk_opencompass.cli import EXIT_OK, main
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.judges.types import Verdict
from gpassk_opencompass.leaderboard.records import Interval as LeaderboardInterval
from gpassk_opencompass.scoring import ResultsFile, load_results, read_results
from gpassk_opencompass.scoring.results import REGENERATE_SCHEMA, SCHEMA_VERSION, Interval, results_schema
from gpassk_opencompass.scoring.results_io import json_document
from scoring_fixtures import generations, write_jsonl

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "shipped",
    [files("gpassk_opencompass") / "data" / "results.schema.json", ROOT / "docs" / "results.schema.json"],
    ids=["package data", "docs"],
)
def test_the_shipped_schema_is_the_generated_one(shipped):
    assert json.loads(shipped.read_text(encoding="utf-8")) == results_schema(), (
        f"the results model changed: regenerate the shipped schema with\n  {REGENERATE_SCHEMA}"
    )


def test_the_schema_is_versioned():
    schema = results_schema()
    assert schema["$id"] == f"gpassk-results-v{SCHEMA_VERSION}"
    assert schema["$defs"]["GPassKBlock"]["properties"]["schema_version"]["minimum"] == 0


@pytest.fixture(scope="module")
def scored_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("score")
    source = write_jsonl(folder / "gens.jsonl", generations([0, 3, 5, 8], n=8))
    output = folder / "results.json"
    assert (
        main(
            [
                "score",
                str(source),
                "--k",
                "2",
                "4",
                "--thresholds",
                "0.5",
                "1.0",
                "--interval",
                "both",
                "--output",
                str(output),
                "--quiet",
            ]
        )
        == EXIT_OK
    )
    return output


def test_a_real_score_output_validates_against_the_shipped_schema(scored_file):
    shipped = json.loads((files("gpassk_opencompass") / "data" / "results.schema.json").read_text(encoding="utf-8"))
    assert shipped == ResultsFile.model_json_schema(by_alias=True, mode="serialization") | {
        key: shipped[key] for key in ("$schema", "$id")
    }
    text = scored_file.read_text(encoding="utf-8")
    record = ResultsFile.model_validate_json(text)  # strict: the schema's types, no coercion
    assert json_document(record) == json.loads(text)  # nothing in the file that the model does not hold


def test_reading_gives_the_one_verdict_and_interval_types(scored_file):
    record = load_results(scored_file)
    verdict = record.details[0].verdicts[0]
    assert type(verdict) is Verdict and verdict.source == "rule"
    interval = record.uncertainty["mG-Pass@4"]
    assert type(interval) is Interval and LeaderboardInterval is Interval
    assert interval.low <= interval.high and interval.level == 0.95
    assert record.bayes["mG-Pass@4"].prior == (1.0, 1.0)


def test_a_metric_written_as_a_string_is_refused_in_one_line(scored_file):
    document = json.loads(scored_file.read_text(encoding="utf-8"))
    document["mG-Pass@4"] = "12.5"
    with pytest.raises(
        InputError,
        match=r"^r.json: mG-Pass@4 = '12.5': input should be a valid number$",
    ):
        read_results(document, "r.json")


def test_an_unknown_gpassk_field_is_named_with_a_suggestion(scored_file):
    document = json.loads(scored_file.read_text(encoding="utf-8"))
    document["gpassk"]["benchmrk"] = "AIME2025"
    with pytest.raises(InputError, match=r"^r.json: unknown field 'benchmrk'; did you mean 'benchmark'\?"):
        read_results(document, "r.json")
