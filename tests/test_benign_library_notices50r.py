"""Notices of transformers, DeepSpeed and torch_npu's transfer_to_npu that runs going on print (session 50,
tester50r): no signal, no error line of the text fallback. Sources and the runs that read them as faults beside
:data:`opsbrain.ingest.hfnotices.LIBRARY_NOTICES`."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# transformers PreTrainedModel.can_generate (modeling_utils.py); https://github.com/baaivision/Emu3.5/issues/53
MIXIN = [
    "Emu3ForCausalLM has generative capabilities, as `prepare_inputs_for_generation` is explicitly overwritten. "
    "However, it doesn't directly inherit from `GenerationMixin`. From 👉v4.50👈 onwards, `PreTrainedModel` will NOT "
    "inherit from `GenerationMixin`, and this model will lose the ability to call `generate` and other related "
    "functions.",
    "  - If you're using `trust_remote_code=True`, you can get rid of this warning by loading the model with an auto "
    "class. See https://huggingface.co/docs/transformers/en/model_doc/auto#auto-classes",
    "  - If you are the owner of the model architecture code, please modify your model class such that it inherits "
    "from `GenerationMixin` (after `PreTrainedModel`, otherwise you'll get an exception).",
    "  - If you are not the owner of the model architecture class, please contact the model code owner to update it.",
]
# the later wording (kijai/ComfyUI-Florence2#151) and the bullet as a Ray worker prefixes it
MIXIN_DEFINED = ("Florence2LanguageForConditionalGeneration has generative capabilities, as "
                 "`prepare_inputs_for_generation` is explicitly defined. However, it doesn't directly inherit from "
                 "`GenerationMixin`. From 👉v4.50👈 onwards, `PreTrainedModel` will NOT inherit from "
                 "`GenerationMixin`, and this model will lose the ability to call `generate` and other related "
                 "functions.")
# transformers GenerationMixin._prepare_special_tokens (generation/utils.py); manycore-research/SpatialLM#69
SPECIAL = [
    "The attention mask and the pad token id were not set. As a consequence, you may observe unexpected behavior. "
    "Please pass your input's `attention_mask` to obtain reliable results.",
    "Setting `pad_token_id` to `eos_token_id`:None for open-end generation.",
    "The attention mask is not set and cannot be inferred from input because pad token is same as eos token. As a "
    "consequence, you may observe unexpected behavior. Please pass your input's `attention_mask` to obtain reliable "
    "results.",
]
# transformers Qwen2DecoderLayer.__init__ (models/qwen2/modeling_qwen2.py); Ascend/pytorch#68 (a 910B2C model load)
SLIDING = "Sliding Window Attention is enabled but not implemented for `sdpa`; unexpected results may be encountered."
# DeepSpeed op_builder/async_io.py, op_builder/evoformer_attn.py is_compatible; modelscope/ms-swift#4030 (an NPU
# deploy) and deepspeedai/DeepSpeed#7235 (ds_report)
DEEPSPEED = [
    " [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.",
    " [WARNING]  async_io: please install the libaio-devel package with yum",
    " [WARNING]  async_io: please install the libaio-dev package with apt",
    " [WARNING]  If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS environment "
    "variables to where it can be found.",
    " [WARNING]  Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH",
]
# torch_npu/contrib/transfer_to_npu.py jit_script, both wordings (vllm-ascend serve logs in vllm-ascend's issues)
JIT = [
    "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/contrib/transfer_to_npu.py:247: RuntimeWarning: "
    "torch.jit.script and torch.jit.script_method will be disabled by transfer_to_npu, which currently does not "
    "support them, if you need to enable them, please do not use transfer_to_npu.",
    "torch.jit.script will be disabled by transfer_to_npu, which currently does not support it.",
]


@pytest.mark.parametrize("line", [*MIXIN, MIXIN_DEFINED, "(pid=21628) " + MIXIN[2].strip(), *SPECIAL, SLIDING,
                                  *DEEPSPEED, *JIT])
def test_the_library_notice_gives_no_signal(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


# the run of b50n-11: mindnlp examples/transformers/finetune/blenderbot_small/mindNLPPersonaTenLog.txt
# (https://github.com/mindspore-lab/mindnlp/blob/7dd3e355d3f383c352ee94184ce0b208ad50abd6/examples/transformers/
# finetune/blenderbot_small/mindNLPPersonaTenLog.txt, lines 8-11; mindnlp's port words it without the v4.50 clause)
MINDNLP = "\n".join([
    "BlenderbotSmallForConditionalGeneration has generative capabilities, as `prepare_inputs_for_generation` is "
    "explicitly overwritten. However, it doesn't directly inherit from `GenerationMixin`.`PreTrainedModel` will NOT "
    "inherit from `GenerationMixin`, and this model will lose the ability to call `generate` and other related "
    "functions.",
    "  - If you are the owner of the model architecture code, please modify your model class such that it inherits "
    "from `GenerationMixin` (after `PreTrainedModel`, otherwise you'll get an exception).",
    "  - If you are not the owner of the model architecture class, please contact the model code owner to update it.",
    "模型和分词器加载完成",
]) + "\n"


@pytest.mark.parametrize("text", [MINDNLP, "\n".join(MIXIN) + "\n", "\n".join(SPECIAL) + "\n"])
def test_the_notices_alone_read_no_fault(engine: Any, text: str) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


def test_a_failure_after_the_notice_keeps_its_own_reading(engine: Any) -> None:
    # worldbank/REaLTabFormer#89: the notice, then the shell's Killed of a run that ran out of device memory
    text = "\n".join([MIXIN_DEFINED, "", MIXIN[2].strip(), "", "Killed"]) + "\n"
    d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "npu_oom", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # the failures the notices speak of, raised: they keep their words (DeepSpeed op_builder/builder.py jit_load;
    # transformers once PreTrainedModel no longer inherits GenerationMixin)
    "RuntimeError: Unable to JIT load the async_io op due to it not being compatible due to hardware/software issue.",
    "AttributeError: 'Emu3ForCausalLM' object has no attribute 'generate'",
    "ImportError: cannot import name 'GenerationMixin' from 'transformers.generation'",
    # a notice's words inside another error are not the notice
    "RuntimeError: Sliding Window Attention is enabled but not implemented for this device",
    "ERROR: async_io requires the dev libaio and the build failed",
])
def test_the_failures_are_not_notices(line: str) -> None:
    assert not BENIGN.search(line)
    assert view_of(line).failing or parse_line(line)
