"""Notices the Hugging Face / PyTorch ecosystem prints on runs that go on (session 50, tester50r): part of
:data:`opsbrain.ingest.benign.BENIGN`, so a line holding one gives no signal and is left out of the text the fallback
reads. Each is a fixed text of the library's own source, matched as that text (not as a loose phrase), and each says
of itself what the library does next: it carries on.

transformers (https://github.com/huggingface/transformers, v4.45-v4.57):

- ``PreTrainedModel.can_generate`` (src/transformers/modeling_utils.py) warns, for a model class that defines
  ``prepare_inputs_for_generation`` without inheriting ``GenerationMixin`` (the remote code of many hub models),
  ``X has generative capabilities, as `prepare_inputs_for_generation` is explicitly overwritten|defined. However, it
  doesn't directly inherit from `GenerationMixin`. ...`` and three advice bullets, ``- If you're using
  `trust_remote_code=True`, you can get rid of this warning by loading the model with an auto class. ...``, ``- If you
  are the owner of the model architecture code, please modify your model class such that it inherits from
  `GenerationMixin` (after `PreTrainedModel`, otherwise you'll get an exception).`` and ``- If you are not the owner
  of the model architecture class, please contact the model code owner to update it.``; then returns False and the
  load goes on (mindnlp's port prints the same text without the v4.50 clause). A healthy 74-line mindnlp
  fine-tune committed beside its example (mindspore-lab/mindnlp examples/transformers/finetune/blenderbot_small/
  mindNLPPersonaTenLog.txt, tester50n's b50n-11) read framework_error 0.60 from the bullets' words ("exception",
  "owner ... update") through the text fallback; so did an Emu3.5 inference start (baaivision/Emu3.5#53, "Model
  loaded successfully"), 0.60. A run that then fails says so in its own lines (REaLTabFormer#89: the notice, then
  ``Killed`` of a CUDA OOM), which keep their reading.
- ``GenerationMixin._prepare_special_tokens`` (src/transformers/generation/utils.py) warns, when ``generate`` is
  called without a pad token or attention mask, ``The attention mask and the pad token id were not set. As a
  consequence, you may observe unexpected behavior. Please pass your input's `attention_mask` to obtain reliable
  results.``, ``Setting `pad_token_id` to `eos_token_id`:<id> for open-end generation.`` and (``warning_once``) ``The
  attention mask is not set and cannot be inferred from input because pad token is same as eos token. As a
  consequence, ...``: it sets the pad token itself and generates. Maintainers answer "just ignore it"
  (QwenLM/Qwen3#133), "it should not affect the result" (manycore-research/SpatialLM#69); the three lines alone read
  framework_error 0.45-0.48 through the text fallback.
- ``Qwen2DecoderLayer.__init__`` (src/transformers/models/qwen2/modeling_qwen2.py; Qwen2-VL and the models copied
  from Qwen2 carry the same lines) warns once ``Sliding Window Attention is enabled but not implemented for `sdpa`;
  unexpected results may be encountered.`` when the config enables a sliding window and the attention is not flash
  attention 2: the layer is built and runs with full attention. Qwen2-family starts print it (Ascend/pytorch#68's
  model load on 910B2C); it read ``op:unsupported``, as an unsupported operator.

DeepSpeed (https://github.com/deepspeedai/DeepSpeed): the op builders' compatibility checks, run by ``ds_report`` and at
the import of DeepSpeed's ops on a host without libaio (ms-swift#4030's deploy on the NPU prints them), print
``[WARNING] async_io requires the dev libaio .so object and headers but these were not found.``, ``[WARNING] async_io:
please install the libaio-dev package with apt`` (or ``libaio-devel`` with ``yum``) and ``[WARNING] If libaio is already
installed (perhaps from source), try setting the CFLAGS and LDFLAGS environment variables to where it can be found.``
(op_builder/async_io.py ``AsyncIOBuilder.is_compatible`` / ``check_for_libaio_pkg``; op_builder/npu/async_io.py on the
NPU), and ``[WARNING] Please specify the CUTLASS repo directory as environment variable $CUTLASS_PATH``
(op_builder/evoformer_attn.py ``EvoformerAttnBuilder.is_compatible``): an optional op marked not compatible in the
report (``async_io ... [NO] ....... [NO]``), which only NVMe offload and Evoformer attention use (DeepSpeed's DeepNVMe
tutorial gives the first as the tip to install libaio when async_io is wanted). The first read as an error line of the
text fallback, the CUTLASS one as ``cfg:env``, a missing variable. A job that does need the op fails in its own words
(``RuntimeError: Unable to JIT load the async_io op due to it not being compatible ...``), which keep their reading.

torch_npu (https://github.com/Ascend/pytorch, torch_npu/contrib/transfer_to_npu.py ``jit_script``): importing
``transfer_to_npu`` replaces ``torch.jit.script`` with a function that returns the object unscripted and warns
``torch.jit.script will be disabled by transfer_to_npu, which currently does not support it.`` (later ``torch.jit.script
and torch.jit.script_method will be disabled by transfer_to_npu, which currently does not support them, if you need
to enable them, please do not use transfer_to_npu.``), beside the import notice of the redirections that is benign
since session 40: the model runs eagerly. Printed at each vllm-ascend and sglang start on the NPU, it read as
an error line ("does not support").

vLLM (https://github.com/vllm-project/vllm, vllm/envs.py ``validate_environ(hard_fail)``): at engine start it walks
the environment and, for each ``VLLM_``-prefixed variable it does not know, logs ``Unknown vLLM environment variable
detected: NAME`` (``logger.warning``, so the line carries the logger's ``[envs.py:N]`` head) and goes on; only with
``fail_on_environ_validation`` does it raise ``ValueError: Unknown vLLM environment variable detected: NAME``, which
keeps its reading. Deployments that export their own ``VLLM_*`` switches print it at every start: a vllm-ascend TP8
serve on 910 that went on to answer requests (session 52, tester52f, b52f-01: chiro2001/deepseek-v4.1-flash-ascend910B
evidence/ced_dram_20261009/v10-p-serve.log) read config_error 0.71 from its two lines (``cfg:env``, "environment
variable"). Matched as the whole line (after the logger's head, which the reader takes off, or with it) with
nothing after the name, so the raise's ``ValueError: ...`` is not it.

huggingface/tokenizers (https://github.com/huggingface/tokenizers, bindings/python/src/lib.rs ``child_after_fork``,
registered with ``pthread_atfork``): when a process forks after the Rust thread pool was used and
``TOKENIZERS_PARALLELISM`` is not set, the child prints ``huggingface/tokenizers: The current process just got forked,
after parallelism has already been used. Disabling parallelism to avoid deadlocks...``, ``To disable this warning, you
can either:``, ``\t- Avoid using `tokenizers` before the fork if possible`` and ``\t- Explicitly set the environment
variable TOKENIZERS_PARALLELISM=(true | false)``, then calls ``set_parallelism(false)``: the tokenizer goes on
serially (session 52, tester52g). Every DataLoader or dataset ``map`` worker forked after a fast tokenizer ran prints
it; the last bullet read ``cfg:env`` (a variable the job lacks), config_error 0.71 on a lerobot fine-tune start
(huggingface/lerobot#1444) and an inference run that ended ``Done.`` (nv-tlabs/lyra#55). The bullets are matched as
whole lines, with this variable and these words only.
huggingface_hub's download retry (session 56, tester56b): when reading a file's body fails, ``http_get`` logs
``Error while downloading from <url>: <error>`` and, on the next line of the same warning, ``Trying to resume
download...``, waits a second and goes on from the bytes it has (huggingface/huggingface_hub src/huggingface_hub/
file_download.py, ``logger.warning("Error while downloading from %s: %s\nTrying to resume download...", ...)``);
out of retries it logs ``Max retries exceeded.`` there instead and raises, and the raised exception keeps its reading. A
MindNLP fine-tune on Ascend whose dataset download timed out once and then finished (mindspore-lab/mindnlp, b56b-03)
read framework_error 0.60 through the text fallback. Both lines, the first after a progress bar on the same line too.
"""

from __future__ import annotations

LIBRARY_NOTICES = (
    r"\bhas generative capabilities, as `prepare_inputs_for_generation` is explicitly (?:overwritten|defined)\. "
    r"However, it doesn't directly inherit from `GenerationMixin`\.|"
    r"(?:^|\s)-\s+If you're using `trust_remote_code=True`, you can get rid of this warning by loading the model "
    r"with an auto class\.|"
    r"(?:^|\s)-\s+If you are the owner of the model architecture code, please modify your model class such that it "
    r"inherits from `GenerationMixin` \(after `PreTrainedModel`, otherwise you'll get an exception\)\.\s*$|"
    r"(?:^|\s)-\s+If you are not the owner of the model architecture class, please contact the model code owner to "
    r"update it\.\s*$|"
    r"\bThe attention mask and the pad token id were not set\. As a consequence, you may observe unexpected "
    r"behavior\. Please pass your input's `attention_mask` to obtain reliable results\.|"
    r"\bSetting `pad_token_id` to `eos_token_id`:[^\n]{1,80}? for open-end generation\.|"
    r"\bThe attention mask is not set and cannot be inferred from input because pad token is same as eos token\. "
    r"As a consequence, you may observe unexpected behavior\.|"
    r"\bSliding Window Attention is enabled but not implemented for `\w+`; unexpected results may be encountered\.|"
    r"\[WARNING\]\s+async_io requires the dev libaio \.so object and headers but these were not found\.|"
    r"\[WARNING\]\s+async_io: please install the libaio(?:-dev|-devel)? package with \w+\s*$|"
    r"\[WARNING\]\s+If libaio is already installed \(perhaps from source\), try setting the CFLAGS and LDFLAGS "
    r"environment variables to where it can be found\.|"
    r"\[WARNING\]\s+Please specify the CUTLASS repo directory as environment variable \$CUTLASS_PATH\s*$|"
    r"\btorch\.jit\.script (?:and torch\.jit\.script_method )?will be disabled by transfer_to_npu, which currently "
    r"does not support (?:it|them)\b|"
    r"(?:^\s*|\benvs\.py:\d+\] )Unknown vLLM environment variable detected: VLLM_\w+\s*$|"
    r"\bhuggingface/tokenizers: The current process just got forked, after parallelism has already been used\. "
    r"Disabling parallelism to avoid deadlocks\.\.\.\s*$|"
    r"^\s*To disable this warning, you can either:\s*$|"
    r"(?:^|\s)-\s+Avoid using `tokenizers` before the fork if possible\s*$|"
    r"(?:^|\s)-\s+Explicitly set the environment variable TOKENIZERS_PARALLELISM=\(true \| false\)\s*$|"
    r"\bError while downloading from https?://\S{1,2000}: [^\n]{0,2000}$|"
    r"^\s*Trying to resume download\.\.\.\s*$"
)
"""The notices above as one alternation (plain ``re`` syntax), joined into :data:`opsbrain.ingest.benign.BENIGN`."""


__all__ = ["LIBRARY_NOTICES"]
