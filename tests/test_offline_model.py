"""OfflineOpenAISDK: generation against a local OpenAI-compatible URL with nothing downloaded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generated_configs import generate_configs
from gpassk_opencompass.errors import InputError
from gpassk_opencompass.plugin.token_estimate import estimate_tokens
from loopback_openai import last_user_message
from opencompass_e2e import read_predictions, run_opencompass
from tiny_data import default_livemathbench


@pytest.mark.parametrize(
    "text, chars_per_token, expected",
    [
        ("", 3.0, 0),
        ("abc", 3.0, 1),
        ("abcd", 3.0, 2),  # ceil(4 / 3)
        ("求和", 3.0, 2),  # one token per ideograph
        ("求x", 3.0, 2),  # 1 + ceil(1 / 3)
        ("カタカナ", 3.0, 4),  # kana
        ("한글", 3.0, 2),  # hangul
        ("，。", 3.0, 2),  # fullwidth comma, ideographic full stop
        ("abcdefgh", 4.0, 2),
        ("x" * 301, 3.0, 101),
    ],
)
def test_estimate_tokens_table(text, chars_per_token, expected):
    assert estimate_tokens(text, chars_per_token) == expected


@given(st.text(max_size=200), st.text(max_size=200))
def test_estimate_is_subadditive_and_monotone(a, b):
    assert estimate_tokens(a) <= estimate_tokens(a + b) <= estimate_tokens(a) + estimate_tokens(b)


def test_estimate_rejects_bad_ratio():
    with pytest.raises(InputError, match="chars_per_token must be > 0, got 0"):
        estimate_tokens("x", 0)


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No Hugging Face Hub, an empty tiktoken cache, no API key."""
    from huggingface_hub import constants as hub_constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", True)
    tiktoken_cache = tmp_path / "tiktoken-cache"
    tiktoken_cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tiktoken_cache))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return tiktoken_cache


def authorization(headers: dict) -> str:
    return {key.lower(): value for key, value in headers.items()}["authorization"]


def echo(body: dict) -> str:
    return f"echo: {last_user_message(body)}"


def build(url: str, **overrides):
    from gpassk_opencompass.plugin.models import OfflineOpenAISDK

    settings = dict(
        path="loopback-model",
        openai_api_base=url,
        temperature=1.0,
        max_seq_len=4096,
        query_per_second=100,
        retry=1,
        openai_extra_kwargs=dict(top_p=0.8),
        extra_body=dict(top_k=50, repetition_penalty=1.0),
    )
    return OfflineOpenAISDK(**{**settings, **overrides})


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_generates_against_a_local_url_with_nothing_downloaded(offline, loopback_openai):
    server = loopback_openai(echo)
    model = build(server.url)
    assert model.tokenizer is None and model.get_token_len("abcdef") == 2
    assert model.generate(["What is 1+1?", "Name a prime."], max_out_len=100) == [
        "echo: What is 1+1?",
        "echo: Name a prime.",
    ]
    assert len(server.requests) == 2
    for body in server.requests:
        assert (body["model"], body["temperature"], body["top_p"], body["top_k"]) == ("loopback-model", 1.0, 0.8, 50)
        assert body["max_tokens"] == 100 and "seed" not in body
    assert {authorization(headers) for headers in server.headers_seen} == {"Bearer EMPTY"}
    assert list(offline.iterdir()) == []


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_prompt_length_estimate_clips_the_answer_budget(offline, loopback_openai):
    server = loopback_openai(echo)
    model = build(server.url, max_seq_len=400)
    model.generate(["y" * 300], max_out_len=500)
    # 300 characters = 100 estimated tokens; OpenCompass keeps 100 tokens of margin: 400 - 100 - 100
    assert server.requests[0]["max_tokens"] == 200


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_key_comes_from_the_environment(offline, loopback_openai, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-secret")
    server = loopback_openai(echo)
    build(server.url).generate(["hi"], max_out_len=10)
    assert authorization(server.headers_seen[0]) == "Bearer sk-local-secret"


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_opencompass_openaisdk_would_fetch_a_tokenizer(offline, loopback_openai):
    """The control: under the same conditions the stock class reaches for a download."""
    from opencompass.models import OpenAISDK

    server = loopback_openai(echo)
    try:
        OpenAISDK(path="loopback-model", openai_api_base=server.url, key="EMPTY")
        fetched = any(offline.iterdir())  # with network: tiktoken's gpt-4 encoding lands in the cache
    except Exception:  # noqa: BLE001 - without network: the download fails and the constructor raises
        fetched = True
    assert fetched


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_bad_chars_per_token(offline):
    from gpassk_opencompass.plugin.models import OfflineOpenAISDK

    with pytest.raises(InputError, match="chars_per_token must be > 0"):
        OfflineOpenAISDK(path="m", openai_api_base="http://127.0.0.1:9/v1", chars_per_token=0)


@pytest.mark.e2e
def test_generated_config_runs_inference_offline_through_opencompass(tmp_path, loopback_openai):
    """`opencompass FILE -m infer` on a self_served.py config: every replica is a request, nothing fetched."""
    server = loopback_openai(lambda body: f"The answer is \\boxed{{{len(last_user_message(body))}}}.")
    cache = tmp_path / "cache"
    files = default_livemathbench(cache, questions_per_file=1)
    configs = tmp_path / "configs"
    (run,) = generate_configs(
        "self_served.py",
        configs,
        f"model_url={server.url}",
        "benchmarks=[LiveMathBench-202412]",
        "n=3",
        "k=[1,2,3]",
        "greedy=False",
    )

    workdir = tmp_path / "outputs"
    workdir.mkdir()
    # offline: HF_HUB_OFFLINE=1 and TIKTOKEN_CACHE_DIR=<workdir>/no-tiktoken, which a fetch would create
    run_dir = run_opencompass(configs / run["file"], workdir, cache, "-m", "infer", "--debug")
    assert not (workdir / "no-tiktoken").exists()

    predictions = read_predictions(run_dir, run["model_abbr"], run["dataset_abbr"])
    questions = [q for (split, _), rows in files.items() if split != "hard" for q, _ in rows]  # 4 splits x 2
    assert len(predictions) == len(questions) * 3 == len(server.requests)
    prompts = [last_user_message(body) for body in server.requests]
    for question in questions:  # n = 3 requests for every question
        assert sum(question in prompt for prompt in prompts) == 3
    for record in predictions:
        assert record["prediction"] == f"The answer is \\boxed{{{len(record['origin_prompt'][0]['prompt'])}}}."
    for body in server.requests:
        assert (body["temperature"], body["top_p"], body["top_k"], body["repetition_penalty"]) == (1.0, 0.8, 50, 1.0)
        assert "seed" not in body


STANDARD_FIELDS = {"model", "messages", "max_tokens", "n", "temperature"}


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
@pytest.mark.parametrize(
    "server, top_k, repetition_penalty, extra_fields",
    [
        ("vllm", 50, 1.05, {"top_k": 50, "repetition_penalty": 1.05}),
        ("sglang", 50, 1.05, {"top_k": 50, "repetition_penalty": 1.05}),
        ("lmdeploy", 50, 1.05, {"top_k": 50, "repetition_penalty": 1.05}),
        ("llama.cpp", 50, 1.05, {"top_k": 50, "repeat_penalty": 1.05}),
        ("ollama", None, None, {}),
        ("openai", None, None, {}),
    ],
)
def test_the_request_body_carries_each_setting_under_the_servers_name(
    offline, loopback_openai, server, top_k, repetition_penalty, extra_fields
):
    """Generated config -> OpenCompass's model builder -> HTTP body: exactly the run's settings, server's names."""
    from opencompass.utils.build import build_model_from_cfg

    from gpassk_opencompass.grid.spec import expand, parse_template
    from gpassk_opencompass.grid.writer import model_config
    from gpassk_opencompass.plugin.models import OfflineOpenAISDK

    http = loopback_openai(echo)
    template = parse_template(
        dict(
            backend="openai-local",
            server=server,
            model_url=http.url,
            models=[dict(path="loopback-model")],
            benchmarks=["AIME2025"],
            temperatures=[0.7],
            k=[2],
            n=2,
            max_out_len=64,
            greedy=True,
            top_p=0.9,
            top_k=top_k,
            repetition_penalty=repetition_penalty,
        )
    )
    greedy, sampled = expand(template)
    for run in (sampled, greedy):
        config = model_config(run, template)
        assert config["type"].name == "OfflineOpenAISDK"
        model = build_model_from_cfg({**config, "type": OfflineOpenAISDK})
        model.generate(["What is 1+1?"], max_out_len=run.max_out_len)
    sampled_body, greedy_body = http.requests
    sampled_fields = {"temperature": 0.7, "top_p": 0.9, **extra_fields}
    assert {
        key: sampled_body[key] for key in set(sampled_body) - {"model", "messages", "max_tokens", "n"}
    } == sampled_fields
    assert set(sampled_body) == STANDARD_FIELDS | set(sampled_fields)
    greedy_extra = {key: value for key, value in extra_fields.items() if key != "top_k"}
    assert {key: greedy_body[key] for key in set(greedy_body) - {"model", "messages", "max_tokens", "n"}} == {
        "temperature": 0.0,
        **greedy_extra,
    }
    assert sampled_body["model"] == greedy_body["model"] == "loopback-model"
