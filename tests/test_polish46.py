"""Session 46's doubtful points of review46, decided from the programs' sources (polish46).

- An LLM-DataDist status that the caller handles, logged at INFO: ``LLM_ALREADY_LINK`` means the link the call asks
  for exists (LLMStatusCode: "已经建过链"); MindIE-LLM's SeparateDeploymentEngine.link returns it as
  TEXT_GENERATOR_PD_ALREADY_LINK and SeparateDeploymentWorker treats it as success ("已建链视为成功"); vllm-ascend's
  v0 LLMDataDistConnector logs link_clusters' per-cluster statuses at INFO unchecked (``logger.info(f"local_rank
  {self.local_rank} link, ret={ret}")``, vllm_ascend/distributed/llmdatadist_connector.py).
- hccn_tool's ping names the device it pinged from in its own header (``device %d PING %s``, hicann/driver
  hccn_product_ext/ds_net_ext.c), which a loop over the NPUs prints where the command line names none (``for i in
  {0..7}; do hccn_tool -i $i -ping -g address ...; done``, MindIE's multi-node checklist).
- The codes.yaml ``I/O error`` message (a block-device I/O error) is not read on the Rust io::Error wrapper line the
  kernel row declines (safetensors' ``Error while serializing: I/O error: ... (os error 95)``).
"""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.text import ingest_text

# the v0 connector's INFO line (vllm.logger's "INFO <date> <time> <file>:<line>] " head), its ret the list of
# LLMStatusCode members link_clusters returns (their repr; the enum's numbers are the wrapper's, illustrative here)
V0_LINK_INFO = ("INFO 05-20 10:00:00 llmdatadist_connector.py:169] local_rank 0 link, ret=[<LLMStatusCode.{}: "
                "1343242285>]")


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


def test_a_status_the_caller_handles_logged_at_info_is_no_failure() -> None:
    assert "msg:api_misuse" not in kinds(V0_LINK_INFO.format("LLM_ALREADY_LINK"))


def test_a_failed_link_logged_at_info_and_a_raised_already_link_still_read() -> None:
    # the link failed though the program logged it at INFO (it pulls over the link later)
    assert "msg:comm" in kinds(V0_LINK_INFO.format("LLM_LINK_FAILED"))
    # a program that does not handle it raises it (vllm-ascend's v1 connector: link() -> handle_llm_status)
    raised = ("llm_datadist.status.LLMException: [link] failed, error code is LLMStatusCode.LLM_ALREADY_LINK, "
              "{5: 0, 21: 1}.")
    assert "msg:api_misuse" in kinds(raised)


# hccn_tool's output as MindIE's multi-node checklist prints it for the loop (returns 3/3 there; the lost summary is
# the MindCluster FAQ's "3 packets transmitted, 0 received, 100.00% packet loss")
LOOP = "for i in {0..7}; do hccn_tool -i $i -ping -g address 11.12.165.80; done\n"
HEAD = "device {} PING 11.12.165.80\n"
LOST = "3 packets transmitted, 0 received, 100.00% packet loss\n"
ANSWERED = ("recv seq=0,time=0.114000ms\nrecv seq=1,time=0.067000ms\nrecv seq=2,time=0.063000ms\n"
            "3 packets transmitted, 3 received, 0.00% packet loss\n")


def test_the_ping_header_names_the_device_of_its_summary() -> None:
    text = LOOP + HEAD.format(0) + ANSWERED + HEAD.format(3) + LOST
    sigs = [s for s in ingest_text(text)[0] if s.kind == "hccn:net_health_fail"]
    assert [s.device for s in sigs] == [3]
    assert sigs[0].component is not None


def test_the_header_alone_without_a_loop_and_after_a_command_line() -> None:
    sigs = [s for s in ingest_text(HEAD.format(5) + LOST)[0] if s.kind == "hccn:net_health_fail"]
    assert [s.device for s in sigs] == [5]
    sigs = [s for s in ingest_text("hccn_tool -i 2 -ping -g address 10.0.0.21\n" + HEAD.format(2) + LOST)[0]
            if s.kind == "hccn:net_health_fail"]
    assert [s.device for s in sigs] == [2]


def test_a_wrapper_io_error_is_no_block_device_error() -> None:
    # https://github.com/safetensors/safetensors/issues/842 (one line as the library formats it)
    line = ("safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O error: Operation not "
            "supported (os error 95)")
    assert "msg:driver" not in {s.kind for s in parse_line(line)}
    assert "msg:driver" not in {s.kind for s in parse_line("Error while serializing: I/O error:")}


def test_a_kernel_io_error_and_a_wrapped_eio_keep_the_driver_message() -> None:
    for line in ("blk_update_request: I/O error, dev sda, sector 2048 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio "
                 "class 0",  # linux v5.15 block/blk-core.c print_req_error
                 "Buffer I/O error on dev sda1, logical block 0, async page read",  # fs/buffer.c
                 "Error while serializing: I/O error: Input/output error (os error 5)"):  # EIO itself (constructed)
        assert "msg:driver" in {s.kind for s in parse_line(line)}, line
