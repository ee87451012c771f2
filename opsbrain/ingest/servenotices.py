"""Notices the serving engines print on Ascend while the run goes on (session 52, tester52l: committed logs of
serving runs that passed): part of :data:`opsbrain.ingest.benign.BENIGN` (joined there), kept here to keep that
module small. Each alternative's source:

vLLM's optional ``triton_kernels`` import: where ``has_triton_kernels()`` is true, vllm/model_executor/layers/
fused_moe/config.py and gpt_oss_triton_kernels_moe.py try to import the package and, when that fails, log
``Failed to import Triton kernels. Please make sure your triton version is compatible. Error: %s`` at ERROR and go on
(``logger.error`` in an ``except (ImportError, AttributeError)``; older releases without the error's text). The
kernels serve only the GPT-OSS Triton MoE path; a vLLM-Ascend soak of RWKV7 that printed it twice at start ended
``"status": "PASS"`` (rwkv-rs/rwkv7-ascend-npu @7fc54902 benchmarks/results/serving_soak_20260724/vllm.log) and read
config_error 0.71 as ``cfg:env``. A verl user saw it on a job that ran on (vllm-project/vllm, "Triton kernel import
fails with triton 3.6.0": "The job does not crash").

SGLang's model registry imports every module of ``sglang.srt.models`` and, when one fails, logs ``Ignore import
error when loading <module>: <error>`` at WARNING and skips it (python/sglang/srt/models/registry.py,
``import_model_classes``; the same words in srt/multimodal/processors, ``import_processors``). A model that is then
asked for and absent fails in its own words (``Model architectures [...] are not supported``), which keep their
reading. SGLang's grammar backend, when XGrammar cannot build its tokenizer info, logs ``Grammar backend disabled
because tokenizer is not supported by XGrammar: <e>. Falling back to grammar_backend='none'. Structured outputs ...
will not be available.`` and serves without structured output (python/sglang/srt/constrained/base_grammar_backend.py,
``create_grammar_backend``). Both were in an SGLang soak on Ascend that ended ``"status": "PASS"`` (the same
repository @3b5dd82b .../sglang.log), read framework_error 0.50.

vLLM's worker, when ``kv_cache_memory_bytes`` is set, logs at INFO ``Initial free memory X GiB, reserved Y GiB ... for
KV Cache as specified by kv_cache_memory_bytes ... skipped memory profiling. ... If OOM'ed, check the difference of
initial free memory ...`` (vllm/v1/worker/gpu_worker.py, ``determine_available_memory``; vllm-ascend's worker words
it ``skipping``): advice before any memory is used. vllm-ascend's worker, when its CPU binding raises (no ``npu-smi``
in the container, no ``taskset``), logs ``Bind cpus failed in rank%s: %s Skip binding cpu.`` at WARNING and goes on
unbound (vllm_ascend/worker/worker_v1.py, ``_init_device``; its CPU-binding guide lists the warning and calls it a
failed binding step). A sampler's ``Custom op npu_apply_top_k_top_p is unavailable (op is not registered); falling
back to the pytorch implementation.`` and vllm-ascend's ``NPU Triton causal_conv1d_update is unavailable (...);
falling back to the PyTorch implementation`` (vllm_ascend/patch/worker/patch_triton.py) run the operator another
way. The three were in a retained vLLM-Ascend pressure run on 910B2 whose results are reported
(intellistream/vllm-ascend-hust-legacy-20260831 @71a7762a benchmarks/evidence/pr153/pressure-20260802/
retained-01-native/server.log; README.md there), read config_error 0.48 (``mem:oom`` from "OOM'ed", ``cfg:env``) and
framework_error 0.64 (``op:unsupported``). A custom op that is raised as unavailable, with no fallback, keeps its
reading.

vLLM's client, when its engine-core process ends before the client shut it down, logs ``Engine core proc
EngineCore_DP0 died unexpectedly, shutting down client.`` at ERROR (vllm/v1/engine/core_client.py, the engine
monitor). vLLM Ascend's installation guide shows it at the end of an offline inference that went well and says these
lines are the process exiting and do not affect the inference (vllm-project/vllm-ascend @182b75ea
docs/source/installation.md; the real-log corpus' n039). Where the engine core did fail, its own lines say how (a
traceback, an out-of-memory), and those keep their reading; the client's line names no cause either way. Session 54:
read as a failure once a line's ERROR head counted (``realtext.stated_error``), it gave two healthy offline runs
framework_error (blind50 b50c-08 and n039 under cross-fitting).

llama.cpp's start-up, when the context's memory cannot shift (a model whose KV cache or recurrent state does not
allow it), turns context shifting off and goes on: ``common_init_from_params: KV cache shifting is not supported for
this context, disabling KV cache shifting`` (ggml-org/llama.cpp common/common.cpp, ``LOG_WRN`` where ``params.ctx_shift
&& !llama_memory_can_shift(...)``, then ``params.ctx_shift = false``), after the context's own ``get_kv_self:
llama_context_base does not have a KV cache`` / ``llama_context::get_kv_self() is not supported`` warnings of the
releases that print them (public llama.cpp runs show the ``W`` level; a paste often drops it). Session 55,
tester55h: llama-server with GGML_CANN on 8 x 910B4 serving gpt-oss-20b, which went on to listen and answer, read
framework_error 0.64 from it as ``op:unsupported`` (wang-junjian.github.io, "华为 Atlas 800I A2 大模型部署实战
（十一）"). A generation that then runs out of context fails in its own words.
Hugging Face's text-embeddings-inference and text-generation-inference Python back-ends import their flash-attention
models in a ``try`` and, on ``ImportError``, log ``Could not import Flash Attention enabled models: <error>`` at
WARNING, set ``FLASH_ATTENTION = False`` and serve the other models (huggingface/text-embeddings-inference
backends/python/server/text_embeddings_server/models/__init__.py; text-generation-inference
server/text_generation_server/models/__init__.py; lorax alike). On Ascend the CUDA extension (``dropout_layer_norm``)
is never there, so every start prints it: a TEI rerank container on NPU that went on to ``Ready`` and to answer
requests read config_error 0.71 as ``cfg:env`` (stephenfuyuxin/npuAdapter @5aee89ba bge-reranker-large-NPUMig/README.md;
blind55's b55j-07, session 56). Only that warning's line; a model that then needs the import fails in its own words.
"""

from __future__ import annotations

SERVE_NOTICES = (
    r"\bFailed to import Triton kernels\. Please make sure your triton version is compatible\.|"
    r"\bIgnore import error when loading sglang\.srt\.[\w.]{1,200}: |"
    r"\bGrammar backend disabled because tokenizer is not supported by XGrammar: [^\n]{0,2000}?Falling back to "
    r"grammar_backend='none'\.|"
    r"\bfor KV Cache as specified by kv_cache_memory_bytes(?: config and|,) skipp(?:ed|ing) memory profiling\.|"
    r"\bBind cpus failed in rank\d+: [^\n]{0,600}? Skip binding cpu\.\s*$|"
    r"\b(?:Custom op|NPU Triton) \w{1,120} is unavailable \([^\n]{1,600}?\); falling back to the [Pp]y[Tt]orch "
    r"implementation\b|"
    r"\bEngine core proc \w{1,80} died unexpectedly, shutting down client\.\s*$|"
    r"\bcommon_init_from_params: KV cache shifting is not supported for this context, disabling KV cache shifting\s*$|"
    r"\bget_kv_self: llama_context(?:_base)? does not have a KV cache\s*$|"
    r"\bget_kv_self: llama_context::get_kv_self\(\) is not supported\s*$|"
    r"\bCould not import Flash Attention enabled models(?:: [^\n]{0,600}|\s*)$"
)
"""The alternatives (a regular-expression fragment, joined into :data:`opsbrain.ingest.benign.BENIGN`)."""
