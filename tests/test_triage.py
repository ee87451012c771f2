"""The software triage (opsbrain.diagnosis.triage): where the model abstains and no hardware evidence is present."""

from __future__ import annotations

import io

import pytest

from opsbrain.diagnosis.params import DiagnosisParams, TriageParams, VoteParams
from opsbrain.diagnosis.triage import software_classes, triage
from opsbrain.kb.compiled import compiled_kb

SOFTWARE = software_classes(compiled_kb())
CLASSES = tuple(compiled_kb().ids())
P, V = TriageParams(), VoteParams()


def test_the_software_family_is_read_from_the_knowledge_base() -> None:
    assert {"framework_error", "config_error", "npu_oom"} <= SOFTWARE
    assert not {"hbm_uce", "link_down", "aicore_hang", "npu_off_bus"} & SOFTWARE


def test_ambiguous_program_errors_alone_go_to_the_generic_class() -> None:
    t = triage({"kb:framework_error:ambiguous": 0.69, "kb:npu_oom:ambiguous": 0.69, "kb:hbm_uce:ambiguous": 0.69},
               P, V, SOFTWARE, CLASSES)
    assert t is not None and t.cls == "framework_error" and t.confidence == P.confidence


def test_hardware_evidence_stops_the_triage() -> None:
    feats = {"kb:framework_error:ambiguous": 0.69, "kb:hbm_uce:primary": 0.69}
    assert triage(feats, P, V, SOFTWARE, CLASSES) is None
    assert triage({"kb:framework_error:secondary": 0.69, "kb:aicore_hang:secondary": 0.69}, P, V, SOFTWARE,
                  CLASSES) is None


def test_a_category_speaking_for_two_software_classes_stays_undecided() -> None:
    """parameter_or_usage supports framework and configuration errors alike: the documents do not say which."""
    assert triage({"kb:framework_error:secondary": 0.69, "kb:config_error:secondary": 0.69}, P, V, SOFTWARE,
                  CLASSES) is None


def test_a_named_software_class_that_leads_is_given() -> None:
    t = triage({"kb:config_error:primary": 0.69, "kb:framework_error:ambiguous": 0.69}, P, V, SOFTWARE, CLASSES)
    assert t is not None and t.cls == "config_error"


def test_ambiguous_signals_of_another_class_only_do_not_triage() -> None:
    """A kind that counts for no software class at all, or more for another class, gives no software answer."""
    assert triage({"kb:collective_timeout_sw:ambiguous": 0.69, "kb:roce_port_down:ambiguous": 0.69}, P, V,
                  SOFTWARE, CLASSES) is None
    assert triage({}, P, V, SOFTWARE, CLASSES) is None
    assert triage({"kb:framework_error:ambiguous": 0.69}, TriageParams(enabled=False), V, SOFTWARE, CLASSES) is None


def _diagnose(text: str, params: DiagnosisParams | None = None) -> dict:  # type: ignore[type-arg]
    from opsbrain.cli.kb_cmds import _matcher
    from opsbrain.diagnosis.engine import Engine
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    engine = load_engine(None, say=lambda m: None)
    if params is not None:
        engine = Engine(engine.model, params)
    return diagnose_logs("-", engine, _matcher(None), stdin=io.BytesIO(text.encode()))["diagnosis"]


LONE = "RuntimeError: Exceed function call depth limit 1000, (function call depth: 1001, simulate call depth: 997).\n"


def test_a_lone_python_error_is_triaged_and_says_so() -> None:
    """A real MindSpore error line (its documentation's call-depth example) whose exception type is printed for
    many causes: the model alone abstains; the triage names the software class, at its fixed confidence."""
    d = _diagnose(LONE)
    assert d["fault_class"] == "framework_error" and d["confidence"] == pytest.approx(TriageParams().confidence)
    assert any("software triage" in e for e in d["evidence"]) and d["evidence_lines"]
    off = _diagnose(LONE, DiagnosisParams(triage=TriageParams(enabled=False), text_fallback=False))
    assert off["fault_class"] == "unknown"


def test_a_device_fault_code_beside_the_python_error_is_not_triaged() -> None:
    """The kbox line is real (CANN troubleshooting 'HBM multi-bit ECC', corpus_b.yaml)."""
    from opsbrain.diagnosis.features import incident_features
    from opsbrain.ingest.text import ingest_text

    kbox = "[2454.830701] {6}[Hardware Error]  error_type: 3, multi-bit ECC\n"
    d = _diagnose(kbox + LONE)
    assert d["fault_class"] != "framework_error"
    # the model answers this input itself (the triage is not reached): ask the triage too, on the same features
    both, lone = ingest_text(kbox + LONE)[0], ingest_text(LONE)[0]
    assert triage(incident_features(lone, 0.0), P, V, SOFTWARE, CLASSES) is not None
    assert triage(incident_features(both, 0.0), P, V, SOFTWARE, CLASSES) is None


def test_an_ai_core_fault_event_of_the_device_is_hardware_not_a_program_error() -> None:
    """The device's fault manager reporting 0x80C98000 (AI Core iCache data failing verification; CANN
    troubleshooting 'iCache Data Verification Fault', MindCluster level RestartRequest) is the chip's own hardware
    report: never the program's framework error (tester U, session 30: it was framework_error 0.50 by the triage,
    and HBM UCE in a bundle beside the runtime's 507015)."""
    line = ("[ERROR] DRV(2211,fault_manager):2025-03-01-09:06:00.000.000 [fault_manager.c:812][fault_manager] "
            "event_id: [0x80C98000], node type: AICORE, event state: The AI Core instruction data fails to be "
            "verified\n")
    d = _diagnose(line)
    assert d["fault_class"] not in ("framework_error", "hbm_uce")
    assert not any("software triage" in e for e in d["evidence"])
    sync = ("[ERROR] ASCENDCL(20203,python3):2025-03-01-09:06:01.150.000 [stream.cpp:105]20203 aclrtSynchronizeStream: "
            "synchronize stream failed, runtime result = 507015\n")
    assert _diagnose(line + sync)["fault_class"] in ("aicore_hang", "unknown")


def test_the_report_says_when_no_host_or_device_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from opsbrain.cli import cli

    r = CliRunner().invoke(cli, ["diagnose", "--logs", "-", "--data-dir", str(tmp_path)], input=LONE)
    assert r.exit_code == 0, r.output
    first = r.output.splitlines()[0]
    assert first.startswith("diagnosis: framework_error at no host or device named (confidence 0.50)"), first


def test_a_hardware_report_the_knowledge_base_gives_no_role_stops_the_triage() -> None:
    """A device fault event with an undocumented code, a switch port down, a node heartbeat lost: hardware evidence
    even though no class lists the kind (review 14)."""
    ambiguous = {"kb:framework_error:ambiguous": 0.69, "kb:hbm_uce:ambiguous": 0.69, "kb:npu_oom:ambiguous": 0.69,
                 "n:py:RuntimeError": 0.69}
    assert triage(ambiguous, P, V, SOFTWARE, CLASSES) is not None
    for kind in ("dev:80E0F0F1", "sw:down", "agent:node_hb", "os:hw_error"):
        assert triage(ambiguous | {f"n:{kind}": 0.69}, P, V, SOFTWARE, CLASSES) is None, kind
    assert triage(ambiguous | {"n:sw:up": 0.69, "n:hccn:tls_off": 0.69}, P, V, SOFTWARE, CLASSES) is not None


def test_a_kernel_hardware_error_beside_the_python_error_is_not_triaged() -> None:
    """The kernel's machine-check line (Linux arch/x86/kernel/cpu/mce/core.c: "Machine check events logged", with
    its "[Hardware Error]: " prefix) is ``os:hw_error``, a kind no class lists."""
    d = _diagnose("[  123.456789] mce: [Hardware Error]: Machine check events logged\n" + LONE)
    assert d["fault_class"] != "framework_error"


def test_a_traceback_of_a_stopped_run_is_not_a_program_failure() -> None:
    """A run stopped with Ctrl-C at its end prints a traceback ending in ``KeyboardInterrupt`` (CPython's own
    report of an uncaught KeyboardInterrupt): only its header is a signal, and it says no program failed."""
    text = ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    main()\n"
            "KeyboardInterrupt\n")
    assert _diagnose(text)["fault_class"] == "unknown"
    assert triage({"kb:framework_error:ambiguous": 0.69, "n:py:traceback": 0.69}, P, V, SOFTWARE, CLASSES) is None


def test_the_root_cluster_reads_the_model_on_the_root_lines_without_the_triage() -> None:
    """multirank rule 3 is the model's answer on the root devices' own lines: the triage, which rests on the absence
    of hardware evidence in the whole input, does not answer for a part of it (nor is its fixed confidence passed
    off as the model's probability)."""
    from opsbrain.diagnosis.multirank import decide_class
    from opsbrain.diagnosis.rootcluster import RootCluster
    from opsbrain.ingest.text import ingest_text
    from opsbrain.kb.training import load_engine

    engine = load_engine(None, say=lambda m: None)
    own, _ = ingest_text(LONE)
    assert engine.diagnose_signals(own, 0.0).fault_class == "framework_error"  # the whole input: triaged
    cls, conf, how = decide_class(RootCluster(kind="exec", roots=[], chain=[]), own, own, engine, 0.0)
    assert not how.startswith("the diagnosis model") and conf != pytest.approx(P.confidence), (cls, conf, how)


def test_a_vendor_entry_of_a_hardware_class_joins_where_only_the_triage_would_answer() -> None:
    """vendor_votes reads the input's own verdict first; a triaged answer (no hardware evidence) must not keep out
    an imported entry mapped to a hardware class, which is hardware evidence."""
    from opsbrain.diagnosis.oneclick import vendor_votes
    from opsbrain.ingest import Signal
    from opsbrain.ingest.text import ingest_text
    from opsbrain.kb.training import load_engine

    engine = load_engine(None, say=lambda m: None)
    own, _ = ingest_text(LONE)
    entry = Signal(0.0, "vendor:hbm_uce", None, None, 2, "a line a vendor entry matched")
    assert vendor_votes(engine, own, [(entry, True)], 0.0) == [entry]
    d = engine.diagnose_signals(own + [entry], 0.0)
    assert not any("software triage" in e for e in d.evidence)


@pytest.mark.parametrize("line", [
    "WARNING:root:RuntimeError: could not load the optional plugin, falling back",  # Python logging's default form
    "WARNING 08-13 15:31:21 [platform.py:1] RuntimeError: could not load the optional plugin, falling back",  # vLLM
    "[W compiler_depend.ts:133] Warning: RuntimeError: could not load the optional plugin (function operator())",
])
def test_an_exception_a_program_reports_below_error_is_not_triaged(line: str) -> None:
    """An exception named on a line the program logged as a warning: it went on, nothing failed (the same line
    without its level is an error, and triaged)."""
    from opsbrain.ingest.text import ingest_text

    sigs, _ = ingest_text(line + "\n")
    assert [(s.kind, s.severity) for s in sigs] == [("py:RuntimeError", 1)]
    assert _diagnose(line + "\n")["fault_class"] == "unknown"
    assert [s.severity for s in ingest_text(LONE)[0]] == [2]


def test_a_generic_class_outside_the_software_family_is_never_given() -> None:
    """A misconfigured ``generic`` (a hardware class) must not turn program errors into a hardware verdict."""
    feats = {"kb:framework_error:ambiguous": 0.69, "kb:hbm_uce:ambiguous": 0.69}
    assert triage(feats, TriageParams(generic="hbm_uce"), V, SOFTWARE, CLASSES) is None


def test_a_class_below_the_answer_bar_says_so_in_the_verdict_line() -> None:
    # a documented rule may decide a class the model gives little probability (tester U, session 30: a root cluster's
    # RDMA completion errors gave roce_port_down at 0.35 with its runbook, while its incident said "escalate")
    from opsbrain.cli.diagnose_cmd import _verdict_line

    low = {"fault_class": "roce_port_down", "confidence": 0.35, "runbook": "rb-roce-port-down",
           "root": {"host": "node-36", "device": 4}}
    assert _verdict_line(low, 0.4) == ("diagnosis: roce_port_down at host node-36, device 4 (confidence 0.35, "
                                  "below the 0.40 answer bar: confirm before acting), runbook rb-roce-port-down "
                                  "once confirmed")
    assert _verdict_line({**low, "confidence": 0.6}, 0.4).endswith("(confidence 0.60), runbook rb-roce-port-down")


# ---- documented runtime timeouts (tester AB case 07: ERR00100 ... 507048 read framework_error 0.44) ---------------
def _timeout_trace(code: str, reason: str) -> str:
    """torch_npu's relay of a runtime code (vllm-ascend#2800's shape: ERR00100, the code's description, EH9999 with
    the runtime's reason and the code) for one documented timeout code."""
    return (f"[ERROR] 2025-09-07-01:11:09 (PID:961, Device:1, RankID:-1) ERR00100 PTA call acl api failed\n"
            f"[Error]: The execution of the internal task times out.\n"
            f"EH9999: Inner Error!\n"
            f"        rtStreamSynchronizeWithTimeout execute failed, reason=[{reason}][FUNC:FuncErrorReason]"
            f"[FILE:error_message_manage.cc][LINE:53]\n"
            f"EH9999: [PID: 961] 2025-09-07-01:11:09.333.567 synchronize stream failed, runtime result = {code}"
            f"[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n")


def test_every_documented_timeout_code_is_known_with_its_meaning() -> None:
    kinds = compiled_kb().timeout_kinds
    assert {"rt:507014", "rt:507017", "rt:507034", "rt:507046", "rt:507047", "rt:507048"} <= set(kinds)
    assert "FFTS_PLUS_TIMEOUT" in kinds["rt:507048"] and "rt:507015" not in kinds  # an exception is no timeout


def test_torch_npu_call_acl_api_failed_names_no_class() -> None:
    """ERR00100 relays the CANN code printed with it (torch_npu error_code_information.md, ERR**100): it was read as
    a parameter error supporting framework_error, which tipped every relayed timeout to that class."""
    from opsbrain.diagnosis.knowledge import default_table

    assert default_table().of("err:ERR00100") == [("framework_error", "ambiguous")]


@pytest.mark.parametrize(("code", "reason"), [("507048", "fftsplus timeout"), ("507014", "aicore timeout"),
                                              ("507034", "vector core timeout"), ("507017", "aicpu timeout"),
                                              ("507046", "stream sync timeout"), ("507047", "event sync timeout")])
def test_a_lone_documented_timeout_is_not_triaged_to_a_program_error(code: str, reason: str) -> None:
    from opsbrain.diagnosis.features import incident_features
    from opsbrain.diagnosis.triage import undecided_timeouts
    from opsbrain.ingest.text import ingest_text

    sigs = ingest_text(_timeout_trace(code, reason))[0]
    assert f"rt:{code}" in {s.kind for s in sigs} and "rt:aicore_exception" not in {s.kind for s in sigs}
    feats = incident_features(sigs, 0.0)
    assert undecided_timeouts(feats) == [f"rt:{code}"]
    assert triage(feats, P, V, SOFTWARE, CLASSES) is None
    d = _diagnose(_timeout_trace(code, reason))
    assert not any("software triage" in e for e in d["evidence"])
    assert not any("documented signatures favour framework_error" in e for e in d["evidence"])
    if d["fault_class"] == "unknown" or any("text fallback" in e for e in d["evidence"]):
        # the engine abstained and says why; the words may still answer, capped (oneclick.text_fallback)
        assert any(e.startswith("documented timeout, cause undecided: " + code) for e in d["evidence"])
        assert d["confidence"] <= 0.6


def test_a_timeout_beside_a_named_cause_is_decided_as_before() -> None:
    """A notify wait (collective_timeout_sw secondary) or an AI Core error text names a class: the timeout does not
    hold the triage back."""
    from opsbrain.diagnosis.triage import undecided_timeouts

    assert undecided_timeouts({"n:rt:507048": 1.0, "kb:collective_timeout_sw:secondary": 0.69}) == []
    assert undecided_timeouts({"n:rt:507015": 1.0, "kb:framework_error:ambiguous": 0.69}) == []
    assert triage({"n:rt:507048": 1.0, "kb:framework_error:secondary": 0.69}, P, V, SOFTWARE, CLASSES) is not None
