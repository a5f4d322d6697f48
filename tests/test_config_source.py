"""python_source: the written module evaluates back to the data, imports classes, stays narrow."""

from __future__ import annotations

import ast
import keyword
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpassk_opencompass.grid.python_source import ImportPath, python_source


def run(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "<config>", "exec"), namespace)
    return namespace


identifiers = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))
scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
)


def _containers(children, text_keys: bool):
    containers = (
        st.lists(children, max_size=5)
        | st.tuples(children)
        | st.tuples(children, children)
        | st.dictionaries(identifiers, children, max_size=5)
    )
    return containers | st.dictionaries(st.text(max_size=5), children, max_size=3) if text_keys else containers


values = st.recursive(scalars, lambda children: _containers(children, text_keys=True), max_leaves=30)
# dict keys that are identifiers only: every line then starts with a name= / name = prefix or nothing
plain_values = st.recursive(scalars, lambda children: _containers(children, text_keys=False), max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(identifiers, values, min_size=1, max_size=4), st.integers(20, 120))
def test_round_trip(variables, width):
    namespace = run(python_source(variables, width=width))
    assert {name: namespace[name] for name in variables} == variables


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(identifiers, plain_values, min_size=1, max_size=4), st.integers(20, 80))
def test_lines_longer_than_the_width_hold_no_splittable_container(variables, width):
    for line in python_source(variables, width=width).splitlines():
        if len(line) <= width:
            continue
        body = re.sub(r"^(\w+ = |\w+=)", "", line.strip()).rstrip(",")
        if body.endswith(("[", "(", "{", "dict(")):
            continue  # the opening line of a split container, after a long prefix
        value = {} if body == "dict()" else ast.literal_eval(body)
        assert not isinstance(value, (list, tuple, dict)) or len(value) == 0, line


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_classes_become_imports_with_aliases_on_clash():
    from opencompass.openicl.icl_retriever import ZeroRetriever

    source = python_source(
        {
            "models": [dict(type=ImportPath("opencompass.models", "OpenAISDK"))],
            "datasets": [
                dict(type=ImportPath("opencompass.datasets", "OpenAISDK"), retriever=dict(type=ZeroRetriever))
            ],
        }
    )
    assert source.splitlines()[:4] == [
        "from opencompass.datasets import OpenAISDK as OpenAISDK_2",
        "from opencompass.models import OpenAISDK",
        f"from {ZeroRetriever.__module__} import ZeroRetriever",
        "",
    ]
    assert "type=OpenAISDK_2" in source and "type=ZeroRetriever" in source


@pytest.mark.e2e  # runs OpenCompass's own code (imports it): the e2e step
def test_imported_classes_resolve():
    from opencompass.models import OpenAISDK

    namespace = run(python_source({"m": dict(type=ImportPath("opencompass.models", "OpenAISDK"))}))
    assert namespace["m"]["type"] is OpenAISDK


def test_non_identifier_keys_use_braces():
    assert python_source({"x": {"a b": 1, "class": 2}}) == "x = {'a b': 1, 'class': 2}\n"
    assert run(python_source({"x": {"ª": 1}}))["x"] == {"ª": 1}  # not dict(ª=1), which Python reads as 'a'


def test_one_element_tuple_and_empty_containers():
    source = python_source({"t": (1,), "e": [], "d": {}, "u": ()})
    assert run(source)["t"] == (1,) and source.count("\n") == 4


def test_unsupported_values_are_refused():
    with pytest.raises(TypeError, match=r"cannot write .*set"):
        python_source({"x": {1, 2}})
