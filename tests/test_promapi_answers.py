"""What a Prometheus query API answers, as a sweep reads it (session 33): an element that is not the API's
``{"metric": ..., "value": [t, "v"]}`` is one line and exit 2 (was exit 70), and a server holding no npu-exporter
series is exit 2 (was a healthy cluster)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from opsbrain.errors import InputError
from opsbrain.sources.base import sweep_source
from opsbrain.sources.promapi import PrometheusQuerySource
from tests.test_sources_http import reply, serving


@pytest.mark.parametrize("element", [
    {"metric": {"__name__": "npu_chip_info_temperature", "id": "0"}},  # no value
    {"metric": None, "value": [1, "4"]},
    {"metric": {"__name__": "npu_chip_info_temperature", "id": "0"}, "value": [1]},
    {"metric": {"__name__": "npu_chip_info_temperature", "id": "0"}, "value": [1, "abc"]},
])
def test_an_element_that_is_no_sample_is_one_line(element: dict[str, Any]) -> None:
    body = {"status": "success", "data": {"resultType": "vector", "result": [element]}}
    with serving(reply(json.dumps(body).encode())) as url, pytest.raises(InputError) as err:
        sweep_source(PrometheusQuerySource(url))
    assert "not a Prometheus query answer: a vector element that is not" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_server_without_exporter_series_is_bad_input_not_a_healthy_cluster(tmp_path: Path) -> None:
    empty = {"status": "success", "data": {"resultType": "vector", "result": []}}
    with serving(reply(json.dumps(empty).encode())) as url:
        got = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", "--source", "prometheus-api",
                              "--url", url, "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert got.returncode == 2, got.stdout + got.stderr
    assert got.stderr.count("\n") == 1 and "holds no npu-exporter series" in got.stderr
