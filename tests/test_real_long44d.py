"""Long logs of runs that failed (session 44, tester44d): a start-up warning of vLLM that names an environment
variable is no configuration fault, so it cannot outweigh the failure a long log ends in. Every line is copied from
the source its comment names."""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# https://github.com/vllm-project/vllm-ascend/issues/382 (vLLM 0.7.3, its old spelling "tointeract")
OLD = ("WARNING 03-24 17:02:40 utils.py:447] The environment variable HOST_IP is deprecated and ignored, as it is "
       "often used by Docker and other software tointeract with the container's network stack. Please use "
       "VLLM_HOST_IP instead to set the IP address for vLLM processes to communicate with each other.")
# the same warning of a later vLLM (vllm/utils.py get_ip(), logger.warning), as a vllm-ascend serve prints it
NEW = ("WARNING 06-24 19:42:39 [utils.py:579] The environment variable HOST_IP is deprecated and ignored, as it is "
       "often used by Docker and other software to interact with the container's network stack. Please use "
       "VLLM_HOST_IP instead to set the IP address for vLLM processes to communicate with each other.")


def test_vllms_host_ip_warning_is_no_environment_fault() -> None:
    for line in (OLD, NEW):
        assert BENIGN.search(line)
        assert kinds(line) == []


def test_a_job_that_cannot_read_its_environment_keeps_its_reading() -> None:
    # the warning's words without its "deprecated and ignored" (constructed): an environment variable the job
    # needs, not vLLM's notice, so it keeps the reading the framework parser gives it
    line = "ERROR 06-24 19:42:39 [utils.py:579] The environment variable HOST_IP is not set"
    assert not BENIGN.search(line)
