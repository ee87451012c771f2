"""Lines a healthy run prints that read like faults: documented as harmless, they give no signal (the ingestion
layer's parsers) and are left out of the text the fallback reads (:class:`opsbrain.diagnosis.realtext.TextView`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from opsbrain.ingest.hfnotices import LIBRARY_NOTICES
from opsbrain.ingest.runnotices import RUN_NOTICES
from opsbrain.ingest.servenotices import SERVE_NOTICES
from opsbrain.lazyre import lazy_compile

BENIGN = lazy_compile(r"Failed to import from vllm\._C with|"
                    r"^\s*TensorFlow installation not found - running with reduced feature set\.\s*$|"
                    r"The model has a long context length \(\d+\)\. This may cause OOM|"
                    r"\bOOM killer (?:disabled|enabled)\.?\s*$|"
                    r"(?i:\bdcmi\b.{0,160}?\berror code:?\s*-(?:8255|99998)\b)|"
                    r"(?i:\berror (?:log|message)s?\b.{0,80}?\bcan be (?:safely )?ignored)|"
                    r"expandable_segments feature is not supportted\s+and the possible cause is that driver and "
                    r"firmware packages do not match|"
                    r"The torch\.cuda\.DoubleTensor is replaced with torch\.npu\.FloatTensor cause the double type is "
                    r"not supported now|"
                    r"Compilation level \S+ is not supported on NPU now, forcing compilation level to NO_COMPILATION|"
                    r"Prefix caching is not supported for V1 now, disable prefix caching|"
                    r"\bparameter=\w+, (?:value=[^,]{1,80}, )?action: resetting to \S|"
                    r": module verification failed: signature and/or required key missing - tainting kernel|"
                    r": loading out-of-tree module taints kernel\.|"
                    r"(?i:\((?:this is |which is )?(?:normal|expected) under (?![~<>=+-]?\s?\d)[^()]{1,80}\)\s*$)|"
                    r"(?i:\s(?:\u2014|--?)\s*(?:this is )?(?:normal|expected) under (?![~<>=+-]?\s?\d)\S[^()]{0,80}$)|"
                    r"\bMethods [\w,]+ not implemented in <[\w.]+ object at 0x[0-9a-fA-F]+>|"
                    r"The HCCL execution timeout \d+ms is bigger than watchdog timeout \d+ms which is set by "
                    r"init_process_group! The plog may not be recorded\.|"
                    r"The watchdog timeout \d+ms\(which is set by init_process_group\) is less than or equal to HCCL "
                    r"execution timeout \d+ms! The plog may not be recorded\.|"
                    r"The HCCL execution timeout was set to 0\(never timeout\), so it is bigger than watchdog timeout|"
                    r"The old environment variable \w+ will be deprecated on [\d/]+\. Please use the new environment "
                    r"variable \w+ as soon as possible\.|"
                    r"The environment variable HOST_IP is deprecated and ignored, as it is often used by Docker and "
                    r"other software to ?interact with the container's network stack\.|"
                    r"Device do not support double dtype now, dtype cast rep(?:la|al)ce with float\.|"
                    r"device_hot_reset\.sh: line \d+: echo: write error: No such device\s*$|"
                    r"^\s*Error Correction Type: (?:Other|Unknown|None|Parity|Single-bit ECC|Multi-bit ECC|CRC)\s*$|"
                    r"^\s*(?:Host|Media) SNR Lane\d+\s*:\s*not supported\s*$|"
                    r"\bFormat:Free/Total\s+NA: Currently, query is not supported\.|"
                    r"You are using a model of type `?\w*`? to instantiate a model of type `?\w*`?\. (?:This is not "
                    r"supported for all configurations of models and can yield errors\.|This may be expected if you "
                    r"are loading a checkpoint that shares a subset of the architecture)|"
                    r"\bThe configName \w+ is not found, use default value\.\s*$|"
                    r"\bFailed to load generation config for \S+: .{0,400}?\. ?Proceeding without generation "
                    r"config\.\s*$|"
                    r"\bFailed to load tokenizer vocab for template detection: .{0,300}?\. Vocab-dependent detection "
                    r"rules will be skipped\.\s*$|"
                    r"Ignored parameter '\w+'\. This is a GPU-specific feature not supported on Ascend\. Resetting "
                    r"to False\.|"
                    r"\* A known problem is that capturing too many batch sizes can lead to OOM\s*$|"
                    r"\* \(Out of Memory\) errors or inference hangs\. If you encounter such issues,|"
                    r"^\s*No (?:Memory|Memory failure|PCIe AER|ARM processor|NVIDIA(?: Vera)?|CXL [\w ]{1,40}|Extlog|"
                    r"devlink|disk|MCE) errors\.\s*$|"
                    r"\berror: (?:Corrected|Deferred) error, no action required\., |"
                    r"^\s*This device does not support (?:querying |setting )?[\w -]{1,40}\.\s*$|"
                    r"\bprofiler\.py: Failed to get acl to npu flow events\.|"
                    r"^\s*import error: No module named '?triton(?:\.\w+){0,8}'?\s*$|"
                    r"^\s*+(?:\[[\w.@:~/-]{1,80}\][#$]|[\w.-]+@[\w.-]+:[^\s#$]*+[#$]|[#$])?\s*+(?:sudo\s++)?(?:\S*/)?"
                    r"ras-mc-ctl(?:\s++--(?:summary|errors|error-count|vendor-platforms|since=\S++)){1,8}\s*$|"
                    r"\bit takes more than \d+ seconds to generator\.__next__ new row, which might cause `GetNext` "
                    r"timeout problem when sink_mode=True|"
                    r"\bSystem clock wrong by -?\d+(?:\.\d+)? seconds, adjustment started\s*$|"
                    r"\bchronyd\[\d+\]: Selected source [\w.:-]+(?: \([\w.-]+\))?\s*$|"
                    r"\bstream_executor/(?:platform/default/dso_loader\.cc:\d+\] Could not load dynamic library "
                    r"'lib(?:cuda|cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|cudnn|nvinfer|nvinfer_plugin)"
                    r"\.so[\d.]*'|cuda/cuda_driver\.cc:\d+\] failed call to cuInit: |cuda/cuda_diagnostics\.cc:\d+\] "
                    r"kernel driver does not appear to be running on this host \([^()]*\): /proc/driver/nvidia/version "
                    r"does not exist)|"
                    r"\[GePlugin\] can not find Environment variable : JOB_ID\s*$|"
                    r"\bgrappler/optimizers/(?:dependency_optimizer\.cc:\d+\] Iteration = \d+, topological sort "
                    r"failed with message: |meta_optimizer\.cc:\d+\] (?!NpuOptimizer\b)\w+ failed: )|"
                    r"\[hdcdrv\].{0,120}?\bSession has already closed\. \(session=\d+; dev_id=\d+; "
                    r"service_type=\"service_dmp\";\s?local_close_state=\"closed_by_user\";|"
                    r"\[hdcdrv\].{0,120}?\bCommand executed Failed\. \(dev=\d+; cmd=2; error_code=-22\)|"
                    r"^\s*load_backend: failed to find ggml_backend_init in \S[^\n]{0,400}$|"
                    r"^\s*[A-Z][A-Z0-9_]{0,40}\([^\n]{0,800}?\): not supported \[\w[\w.:-]{0,40}\]\s*$|"
                    r"\bUnable to register cu(?:DNN|FFT|BLAS) factory: Attempting to register factory for plugin "
                    r"cu(?:DNN|FFT|BLAS) when one has already been registered\s*$|"
                    r"Warning: numpy\.(?:dtype|ufunc|ndarray) size changed, may indicate binary incompatibility|"
                    r"\bNPU warning, error code is 100037\b|\[Finalize\]\[Acl\]repeatedly finalized\b|"
                    r"^\s*\[Error\]: Repeated deinitialization\.\s*$|"
                    r"^\s*Check whether the acl\.finalize interface is repeatedly invoked for deinitialization\.\s*$|"
                    r"\bfailed to find task <[^<>\s]{1,300}> on host <[^<>\s]{1,300}>|"
                    r"\bO0 mode fails to be compiled, the O2 mode is used\s*$|"
                    r"\[WARNING\] (?:\[Progress:\s*\d{1,3}\.\d\d%\]\s+)?(?:[\w.]{1,200} in line \d+ ~ \d+ is not "
                    r"supported\s*$|line: \d+ ~ \d+\s+Operation Type: UNSUPPORTED\s+Message: [^\n]{1,500}$)|"
                    r"\bGet key \"(?:labelPath|postProcessConfigPath)\" (?:and \"postProcessConfigContent\" )?failed\. "
                    r"No postprocess (?:label|config) will be read\.\s*$|"
                    r"\bFail to read CHECK_MODEL_FLAG from config, default is true\s*$|"
                    r"" + RUN_NOTICES + "|" + SERVE_NOTICES + "|" + LIBRARY_NOTICES)
"""Warnings a healthy start prints, each documented as harmless; their words (an import that failed, "OOM") are no
fault. vLLM's ``Failed to import from vllm._C with ModuleNotFoundError(...)`` (vllm/_custom_ops.py): the CUDA
kernels' module, absent on every other platform and printed at each vllm-ascend start (vllm-ascend#1033: "the whole
process was not disturbed"; HabanaAI/vllm-fork#326 silences it on HPU). vLLM's ``The model has a long context
length (N). This may cause OOM during the initial memory profiling phase ...`` (vllm/engine/arg_utils.py): advice
before any memory is used, not an out-of-memory. A line holding one of them gives no signal and is left out of the
text the fallback reads. vLLM's ``The environment variable HOST_IP is deprecated and ignored, as it is often used
by Docker and other software to interact with the container's network stack. Please use VLLM_HOST_IP instead ...``
(vllm/utils.py ``get_ip()``, a ``logger.warning`` whenever a container sets HOST_IP; the value is ignored and the
address found as without it; older vLLM spells it ``tointeract``, vllm-ascend#382): session 44, tester44d, a long
failed log whose start printed it read config_error 0.49 from it over the collective timeout it ended in.
vllm-ascend's corrections of the settings it does not run (``GPU-specific parameter is not supported on Ascend.
parameter=disable_cascade_attn, value=True, action: resetting to False.`` and the other ``parameter=NAME[, value=V],
action: resetting to X`` warnings of ``_fix_incompatible_config``, vllm_ascend/platform.py: "log a warning and reset
them to safe values"): the serve goes on with the safe value (session 45, tester45a: a start that went on to serve,
vllm-ascend#11514, read framework_error 0.76 from the first, through EK0005's template and the "not supported"
reading). An ERROR line that says of itself that it ``can be ignored``: torch_npu's caching allocator
before it frees its cache and retries (``Get a block from the existing pool failed. Try to free cached blocks and
reallocate. This error log can be ignored.``, Ascend/pytorch NPUCachingAllocator.cpp, seen in Ascend/pytorch#108's
healthy run), its process group once a delayed work is dispatched (``Process group work %s, seq_num %u dispatch
sucess. This error log can be ignored.``, ProcessGroupHCCL.cpp), HCCL's client once it reconnected
(``[OpRetryConnection][Init] Client reconnect %u times to success, so the above or this error log can be
ignored``) and its snapshot recovery banner (``THE ABOVE AND THIS ERROR LOG CAN BE IGNORED``); ascend-fd reads
the phrase as a retry marker too (ascend_fd cann_log_parser). The same holds for a program's announcement of an
error message to come (sglang's ``The following error message 'operation scheduled before its operands' can be
ignored.``, printed at each healthy start of the server, sglang#3781). The kernel's ``OOM killer disabled.`` and
``OOM killer enabled.`` (kernel/power/process.c, around freezing and thawing tasks at every suspend or hibernation)
say that no OOM kill can happen meanwhile, not that memory ran out. A DCMI call that fails with -8255 ("Device
ID/function is not supported") or -99998 ("The called function is missing, please upgrade the driver"; MindCluster
ascend-common/devmanager/dcmi/common.go @22bb3d98) asked for what this chip or driver does not offer: NodeD's
pingmesh probe prints ``dcmi get hccs ping mesh state failed ... error code: -99998`` at every start on such a node
and goes on without pingmesh (noded/pkg/pingmesh/executor/dev_manager.go), a healthy start. torch_npu's caching
allocator, when the driver does not offer the virtual-memory reservation expandable segments need
(``aclrtReserveMemAddress`` fails), warns once ``expandable_segments feature is not supportted and the possible
cause is that driver and firmware packages do not match.`` and goes on with expandable segments off
(Ascend/pytorch torch_npu/csrc/core/npu/NPUCachingAllocator.cpp, ``CachingAllocatorConfig``, TORCH_NPU_WARN_ONCE;
session 40: printed at import by mmcv's environment report, open-mmlab/mmcv#3216): a feature off, no driver call of
the job's that failed. torch_npu's ``transfer_to_npu`` announces at each import, as one ImportWarning, what it
redirects from CUDA to the NPU, among it ``The torch.cuda.DoubleTensor is replaced with torch.npu.FloatTensor cause
the double type is not supported now..`` (Ascend/pytorch torch_npu/contrib/transfer_to_npu.py, ``init`` /
``_init``: ``warning_fn`` of a fixed text; session 40, tester40e: an sglang start on the NPU read framework_error
0.60 from it, sgl-project/sglang#29853): a mapping the module applies, not an operator or dtype a job hit.
vllm-ascend's platform, as it checks the engine's configuration at start (vllm_ascend/platform.py,
``NPUPlatform.check_and_update_config``), warns ``Compilation level N is not supported on NPU now, forcing
compilation level to NO_COMPILATION`` and sets the level itself, and (V1 engine) ``Prefix caching is not supported
for V1 now, disable prefix caching`` and turns the option off: a setting it corrects and goes on with (session 41,
tester41c: the v0.7.3 release check run of vllm-ascend#644 read framework_error 0.60 from the first). Its other
``... is not supported on NPU now.`` texts are raised errors (``LoRA model is not supported on NPU now.``), not
these. The kernel's notices as it loads a module built outside its tree, as DKMS builds the Ascend driver's
(``drv_vascend_stub: module verification failed: signature and/or required key missing - tainting kernel``,
kernel/module/signing.c ``module_sig_check`` when signatures are not enforced, and ``...: loading out-of-tree module
taints kernel.``, kernel/module/main.c; https://github.com/torvalds/linux/blob/v6.6/kernel/module/signing.c): the
module is loaded and the taint flag set, nothing failed (session 42, tester42c: a driver installation note on
openEuler 24.03 SP3 calls it a warning with no effect; it read config_error 0.46 from the text model). A line
that ends by saying it is normal or expected under a stated condition, as a self-check annotates what it knows to be
harmless there: pypto-doctor in a container started with ``--runtime=ascend`` (the Ascend Docker Runtime) prints
``warn  driver libs present but version.info is not exposed (normal under --runtime=ascend)`` and ``warn  npu-smi:
npu get board type failed. ret is -9005 \u2014 expected under --runtime=ascend``, which its guide calls expected,
"neither means the environment is broken" (hw-native-sys/pypto#2755: the driver's ``version.info`` stays on the
host, and ``npu-smi`` enumerates every board while only the exposed cards are in the container; session 43,
tester43b: driver_firmware_error 0.59 from the first). Only as the line's closing note (in parentheses, or after a
dash): ``value expected under 8`` inside an error is no such note, and neither is a bound the line ends with,
``value 12 (expected under 8)``, ``- expected under 8``: a condition that begins with a number is a value's limit,
not a setting the line is normal under (review43). Volcano's scheduler cache, when a pod it no longer holds on
that node is deleted, warns ``failed to find task <ns/pod> on host <node>`` (volcano-sh/volcano
pkg/scheduler/api/node_info.go ``RemoveTask``; event_handlers.go wraps it as ``Failed to delete task: errors:  1:
...``): volcano#1325 and volcano#4649 see it at every ordinary ``kubectl delete`` of a job's pods, and later Volcano
logs it with ``klog.Warningf`` and returns nil (session 48, tester48k: the deletion of a healthy tfjob read
config_error 0.54 from the text model). ``... in job <...>`` (a task lost with its node, volcano#1226, which did
restart a finished task) is not this warning.
vLLM's ``warn_for_unimplemented_methods`` (vllm/utils.py, v0.8: a class decorator that replaces ``abc.ABC``; after
each ``__init__`` it lists the public methods whose source still raises ``NotImplementedError`` and logs ``Methods
%s not implemented in %s`` as a warning; https://github.com/vllm-project/vllm/blob/v0.8.5/vllm/utils.py) names, at
every start of a platform's worker, the optional worker methods the plugin leaves to the base class: ``Methods
add_lora,cache_config,...,speculative_config not implemented in <vllm_ascend.v1.npu_worker.NPUWorker object at
0xfffe673357e0>``. A warning about methods never called, not an operator or feature a job hit (session 43,
tester43d: a healthy vllm-ascend serve log, shen-shanshan/cs-self-learning V1_Engine/Dev/log.md, read
framework_error 0.61 from it alone).
chronyd's notices as it corrects the host's clock: ``Selected source 81.19.96.148`` and ``System clock wrong by
1721.913772 seconds, adjustment started`` (chrony logs an adjustment over its ``logchange`` threshold, 1 s by default,
and slews the clock: chrony.conf(5) ``logchange``, https://chrony-project.org/doc/4.5/chrony.conf.html#logchange).
Time sync doing its job after the clock was set by hand, "the expected behavior" (NethServer/dev#5062; session 46,
tester46c: read config_error 0.60 by the text model). Not chrony's failures to synchronise (``Can't synchronise: no
majority``, ``no selectable sources``): there the hosts' clocks may drift apart.
Session 43, tester43f (Chinese-language sources), four notices of a run that goes on. torch_npu's process group,
when ``HCCL_EXEC_TIMEOUT`` is longer than init_process_group's watchdog timeout, warns at its construction ``The
HCCL execution timeout 1800000ms is bigger than watchdog timeout 300000ms which is set by init_process_group! The
plog may not be recorded.`` (Ascend/pytorch torch_npu/csrc/distributed/ProcessGroupHCCL.cpp, TORCH_NPU_WARN in
``ProcessGroupHCCL::ProcessGroupHCCL``): two settings compared, no collective that timed out (a MindIE 2.0.T3.1
start, https://www.hiascend.com/forum/thread-0275180660620754100-1-1.html, read collective_timeout_sw 0.58 from
three ranks' copies). Its later releases word it ``The watchdog timeout 90000ms(which is set by init_process_group) is
less than or equal to HCCL execution timeout 1836000ms! The plog may not be recorded.`` and, for an execution timeout
of 0, ``The HCCL execution timeout was set to 0(never timeout), so it is bigger than watchdog timeout ...``
(Ascend/pytorch@9e73e708, the same constructor; session 50, tester50n: a passing 8-rank HCCL smoke test committed in
chiro2001/deepseek-v4.1-flash-ascend910B, every rank ``hccl_ok``, read collective_timeout_sw 0.69).
MindIE's ``CheckLogEnv`` prints ``The old environment variable MINDIE_LLM_LOG_LEVEL will be
deprecated on 2025/12/31. Please use the new environment variable MINDIE_LOG_LEVEL as soon as possible.`` for each
old log variable that is set (MindIE-LLM log_config.cpp; the renaming: MindIE-LLM
docs/zh/user_guide/user_manual/logging_configuration.md): a notice, no missing variable (a mindieservice_daemon
start, https://www.hiascend.com/forum/thread-02166212303760696077-1-1.html, read config_error 0.74). torch_npu's
``Device do not support double dtype now, dtype cast repalce with float.`` (TORCH_NPU_WARN_ONCE where a tensor is
cast to double; the cast is made to float and the call goes on; later releases spell it "replace"), as
transfer_to_npu's DoubleTensor notice above (a CSDN note on a 310B1,
https://blog.csdn.net/qq_65562738/article/details/145454887: framework_error 0.43 from the text model). torch_npu's
legacy ``torch.save`` warning (its alternative is tester50b's, below) is also printed by healthy verl runs each time
weights are synced: verl-ascend-recipe's 100-step 910B3 log (session 50, tester50d), where it was one of the three
lines a healthy log's text fallback read as config_error 0.48 (Ascend/pytorch torch_npu/utils/serialization.py
``save`` @b7dbf37e). The driver
package's hot-reset step, ``/usr/local/Ascend/driver/script/device_hot_reset.sh: line 269: echo: write error: No
such device``, within the output Huawei Cloud's CCE FAQ shows for a successful upgrade ("若回显结果如下，则说明升级
成功", https://support.huaweicloud.com/cce_faq/cce_faq_00494.md; it read drv:api_error, driver_firmware_error 0.59):
the script's write to a device node that is already gone, the upgrade goes on. The installer's own failures
(``[ERROR]...``) still read.

SGLang's start notices for what a model directory leaves out: ``Failed to load generation config for /data/weights/
grok-2: ... does not appear to have a file named generation_config.json. ... Proceeding without generation config.``
(``get_generation_config``, python/sglang/srt/utils/hf_transformers_utils.py: a ``logger.warning`` on the OSError,
then None) and ``Failed to load tokenizer vocab for template detection: 'TiktokenTokenizer' object has no attribute
'get_vocab'. Vocab-dependent detection rules will be skipped.`` (``build_detection_context``,
python/sglang/srt/parser/template_detection.py @eb4befd8: a warning, an empty vocabulary, the start goes on). A
Grok-2 start on Ascend that then served its benchmark (sgl-project/sglang#29853) read config_error 0.60 from them
through the text fallback (session 48, tester48s). Its ``NPU custom kernel packages unavailable: No module named
'custom_ops'`` keeps its reading, for the reason vllm_ascend_C's does below: the cause where a model needs the kernels.
Not here: vllm-ascend's own ``Failed to import vllm_ascend_C: ...`` (its custom operators), harmless when they are
not used (vllm-ascend#703) but the cause where sleep mode's allocator needs them (corpus_q q016, corpus_zk zk004).
dmidecode's ``Error Correction Type: Single-bit ECC`` (or ``Multi-bit ECC``, ``Parity``, ...)
is an inventory field, SMBIOS (DMTF DSP0134) type 7's cache and type 16's memory array error-correction kind
(dmidecode.c ``dmi_cache_ec_type``, ``dmi_memory_array_ec_type``): the ECC the hardware has, not an error it
reported (session 44, tester44f: a Dell server's ``dmidecode`` read hbm_ce_storm 0.77 from it).
``hccn_tool -i N -optical -g``'s ``Host SNR Lane0       : not supported`` (ascend-fd's fixture, Ascend/mind-cluster
@22bb3d98 component/ascend-faultdiag/test/st_module_testcase/kg_parse/npu_info_before.txt): a figure the module does
not measure, no operator a job called (session 44, optread44: four such lines read framework_error 0.57 from one
port's optical answer; :mod:`opsbrain.ingest.commands` leaves such values out as well).
``npu-smi info -t info-vnpu``'s table legend, ``| Format:Free/Total                   NA: Currently, query is not
supported.    |``, printed above every vNPU resource table (MindCluster ToolBox guide, "MindCluster ToolBox Is
Successfully Installed But Ascend DMI Fails to Be Used", https://www.hiascend.com/document/detail/en/mindcluster/730/
toolbox/toolboxug/toolboxug_0104.html, and npu-smi's ``printf_vnpu_free_resoure_info``): what ``NA`` in the table's
cells means, no query that failed (session 45, tester45g: the guide's table alone read framework_error 0.62 from
``op:unsupported``).
transformers' model-type notice: ``PretrainedConfig.from_pretrained`` (transformers configuration_utils.py, and the
composite configs that copy it) logs, when the checkpoint's ``model_type`` differs from the config class's, ``You are
using a model of type X to instantiate a model of type Y. This is not supported for all configurations of models and
can yield errors.`` (newer releases: ``... This may be expected if you are loading a checkpoint that shares a subset
of the architecture (e.g., loading a `sam2_video` checkpoint into `Sam2Model`), but is otherwise not supported and can
yield errors. ...``), a ``logger.warning`` and the load goes on. Its "not supported" is no operator or feature a job
hit (session 45, tester45e: a DeepSeek-V4 start of SGLang on 8 x 910C, sgl-project/sglang#23598, printed it per rank
and read framework_error 0.62 from ``op:unsupported``). A raised error that an architecture is not supported keeps
its reading.
MindIE's configuration manager, for an optional integer setting config.json leaves out, prints ``The configName
speculationGamma is not found, use default value.`` and takes the default (Ascend/MindIE-LLM
src/config_manager/param_checker.cpp ``ParamChecker::GetIntegerParamDefaultValue`` @8b4871ad): a setting not given,
no file or module missing (session 45, tester45c: a 300I Duo MindIE 2.2.RC1 start that ends in ``Daemon start
success!``, https://www.hiascend.com/forum/thread-02111201427162926575-1-1.html, read config_error 0.60 from it).
Its siblings in the same function, ``The value of configName X for  uint32_t is invalid, use default value.`` and
``The type of configName X should be integer, ...``, say a value the operator wrote was not taken, and still read.
vllm-ascend's reset of a GPU-only option: ``_fix_incompatible_config`` (vllm_ascend/platform.py) logs ``Ignored
parameter 'disable_flashinfer_prefill'. This is a GPU-specific feature not supported on Ascend. Resetting to False.``
(@a5b099c7, vllm-ascend#6005; later ``GPU-specific parameter is not supported on Ascend. parameter=
disable_cascade_attn, value=True, action: resetting to False.``, @182b75ea) for every attention flag of vLLM's that
has no Ascend kernel, then goes on with the flag off; vllm-ascend's installation guide shows the first line in the
output of a working install (docs/source/installation.md @d320733c). Its "not supported" is no operator a job hit
(session 45, tester45f: a MiniMax-M2.7 start read framework_error 0.62 from ``op:unsupported``, vllm-ascend#8213;
the later text read framework_error 0.76 from the profiler's ``Parameter %s is not supported.`` template, EK0005; that
later text is read by tester45a's ``parameter=NAME[, value=V], action: resetting to X`` alternative above).
vllm-ascend's full-graph banner: when FULL_DECODE_ONLY graph mode is chosen, vllm_ascend/platform.py (@41ddb065;
earlier vllm_ascend/utils.py) logs a fixed ``* WARNING: You have enabled the *full graph* feature.`` box whose
lines ``* A known problem is that capturing too many batch sizes can lead to OOM`` and ``* (Out of Memory) errors or
inference hangs. If you encounter such issues,`` are advice printed at every such start, before any memory is used
(session 45, tester45f: the box alone read npu_oom 0.73 from two ``mem:oom``, vllm-ascend#6076). A real
out-of-memory (``NPU out of memory. Tried to allocate ...``) keeps its reading.
rasdaemon's ``ras-mc-ctl --summary`` / ``--errors`` print, for each error table that holds no record, ``No Memory
errors.``, ``No PCIe AER errors.``, ``No Memory failure errors.``, ``No MCE errors.`` and the like (mchehab/rasdaemon
util/ras-mc-ctl.in @769593be, the ``print "No ... errors.\n"`` of ``summary`` and ``errors``): a table with no error
(session 45, tester45h: ``No Memory failure errors.`` read ``ecc:uce`` from "Memory failure", and a host whose
rasdaemon held only corrected MCE records, NixOS/infra#523, read hbm_uce 0.62). Its MCE records of errors the
hardware corrected or deferred, ``1 2024-12-19 03:52:38 +0000 error: Corrected error, no action required., CPU 2,
bank Unified Memory Controller (bank=17), ... mci CECC, ...`` (``error: $msg`` of ras-mc-ctl's ``errors``; the
message is rasdaemon mce-amd.c's for a status that is neither uncorrected nor fatal): no action, as they say (the
same excerpt's three records then read config_error 0.32 through the text fallback).
npu-smi's answer to a query or setting the product does not offer, a sentence alone on its line: ``This device does not
support querying version.`` (``npu-smi upgrade -b vdm -i 0``, Ascend 950 npu-smi manual, "Querying the Firmware
Version": https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/docs/en/Ascend_950_npu-smi/
Ascend_950_npu-smi/querying-the-firmware-version.md), ``This device does not support querying hccs.`` and ``This device
does not support hccs topo.`` (``npu-smi info -t hccs ...``, Atlas 200I A2 npu-smi manual,
https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2550/re/npu/topic_0000002481386286.html and
topic_0000002513466059.html, printed as the commands' usage examples): what the device is, no query that failed and no
operator a job called (session 46, tester46e: the line alone read config_error 0.46 through the text fallback, the 950
manual's two firmware-version outputs pasted without their commands 0.43). torch_npu's profiler, as it parses a
collected profile, prints ``[ERROR] [pid] profiler.py: Failed to get acl to npu flow events.`` when the CANN side of the
profile holds no ACL-to-NPU flow records (Ascend/pytorch
torch_npu/profiler/analysis/prof_parse/_fwk_cann_relation_parser.py @d217d46d ``get_kernel_dict``, through
prof_common_func/_constant.py ``print_error_msg``) and goes on: "All profiling data parsed" follows (vllm-ascend#1210),
the step ranges and the flow arrows are what is missing from the views. A gap in the profile, not the job's nor the
device's failure (session 46, tester46e: that excerpt read framework_error 0.60 through the text fallback). The
profiler's other errors keep their reading.
Session 46 (fa46), three more of session 45's blind healthy set. torchao's optional Triton kernels: torchao/kernel/
intmm.py (v0.8.0, v0.9.0; https://github.com/pytorch/ao/blob/v0.9.0/torchao/kernel/intmm.py) imports
``torchao.kernel.intmm_triton`` in a ``try`` and on ``ImportError as e`` does ``print("import error:", e)`` ("On
cpu-only builds might not be available") and sets ``intmm_triton = None``; every process that imports torchao (as
torchtune does) then prints ``import error: No module named 'triton'`` on a host without Triton, an NPU host always, and
goes on (v0.10.0 turned it into a warning, "Detected no triton, on systems without Triton certain kernels will not
work"). Session 45, tester45d: a working torchtune LoRA DPO run on 2 NPUs (meta-pytorch/torchtune#2646) read
config_error 0.72 from ``cfg:env``. Only that whole line: a raised ``ModuleNotFoundError: No module named 'triton'`` and
the print for another module keep ``cfg:env``. rasdaemon's command line, ``[root@haumea:~]# ras-mc-ctl --errors`` (a
prompt, ``sudo`` and a path allowed; the options ``--summary``, ``--errors``, ``--error-count``, ``--vendor-platforms``,
``--since=DATE`` alone): the operator's query, whose ``--errors`` is the option's name (ras-mc-ctl's usage: ``--errors
Shows the errors stored at the error database.``, mchehab/rasdaemon util/ras-mc-ctl.in @769593be); with the readout's
empty tables and corrected records above, NixOS/infra#523 read framework_error 0.42 through the text fallback from that
line alone. MindData's slow-generator hint, ``[WARNING] MD(...) [.../generator_op.cc:220] operator()] Bad performance
attention, it takes more than 25 seconds to generator.__next__ new row, which might cause `GetNext` timeout problem when
sink_mode=True. You can increase the parameter num_parallel_workers in GeneratorDataset / optimize the efficiency of
obtaining samples in the user-defined generator function.`` (mindspore
ccsrc/minddata/dataset/engine/datasetops/source/generator_op.cc, a ``MS_LOG(WARNING)`` when a ``__next__`` took over 25
s, divided by the workers; the row is then used): MindSpore's data-processing debugging tutorial shows it in a run
"actually going on, just slower" (mindspore-ai/docs @9e844dc6 tutorials/
source_en/debug/error_analysis/minddata_debug.md); a performance hint. Its WARNING head keeps it from the failing lines
when it is one line; pasted over three lines (session 45, tester45j's excerpt of that tutorial), its middle line, with
"timeout" and no level, read framework_error 0.60 through the text fallback. The GetNext timeout it warns of,
``RuntimeError: For 'GetNext', get data timeout. ...``, still reads; DataQueueOp's batch-time hints (``... to fetch a
batch of data from dataset pipeline, which might result `GetNext` timeout problem``) are left as they were
(blind44.yaml's faults hold one). Session 46, tester46i: TensorFlow's CUDA probe,
which TF 1.15 (the TF Adapter's, npu_bridge) runs at session start on every host: ``Could not load dynamic library
'libcuda.so.1'; dlerror: ...`` (stream_executor/platform/default/dso_loader.cc, the CUDA libraries only), ``failed
call to cuInit: UNKNOWN ERROR (303)`` (stream_executor/cuda/cuda_driver.cc ``InternalInit``, which then calls
``Diagnostician::LogDiagnosticInformation``) and its INFO line ``kernel driver does not appear to be running on this
host (HOST): /proc/driver/nvidia/version does not exist`` (stream_executor/cuda/cuda_diagnostics.cc,
https://github.com/tensorflow/tensorflow/blob/0f4829a13fc9669ac67c4fc69668f67a24e9692d/tensorflow/stream_executor/
cuda/cuda_diagnostics.cc): no NVIDIA GPU on an NPU host, the graph runs on the NPU. The committed NPU training logs of
Ascend ModelZoo-TensorFlow ports print them and train on (CPC_ID0921 cpc_npu.log, PCN_ID0997 run.log); both read
config_error 0.49 from ``cfg:env`` and ``drv:api_error``. The same loader failing on an Ascend library
(``libascendcl.so``) keeps its reading. The TF Adapter's ``[GePlugin] can not find Environment variable : JOB_ID``
(tf_adapter/util/ge_plugin.cc ``GePlugin::Init``, a warning when JOB_ID is unset, after which it leaves the job id
empty and goes on to GEInitialize; https://github.com/Ascend/tensorflow/blob/027d64c832dcf081de238fe93dfc8fc1e8a92c7a/
tf_adapter/util/ge_plugin.cc): printed at each start on a bare host outside a scheduler, PCN_ID0997's among them (it
read config_error 0.78 from it once the CUDA lines were read as harmless). The host-device channel driver's note
that a device's connect reply came for a session the user's process had already closed: ``[hdcdrv] [ERROR]
[hdcdrv_session_alive_check ...] Session has already closed. (session=N; dev_id=N; service_type="service_dmp";
local_close_state="closed_by_user"; ...)`` and its ``[hdcdrv_ctrl_msg_recv_exception_report ...] Command executed
Failed. (dev=N; cmd=2; error_code=-22)`` (cmd 2 = HDCDRV_CTRL_MSG_TYPE_CONNECT_REPLY, hdcdrv_core_com.h; -22 =
HDCDRV_SESSION_HAS_CLOSED, hdcdrv_cmd_ioctl.h): the late reply is dropped; the newer driver prints the first as a
warning only for other services and nothing for the device-management (DMP) one, the second as a warning ``Command
executed unexpected`` (https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/src/sdk_driver/
hdc/pcie/common/hdcdrv_core.c ``hdcdrv_session_alive_check``, ``hdcdrv_ctrl_msg_recv_exception_report``). Session 46,
tester46j: the dmesg of vllm-ascend#9873 (an A3 host whose job failed in HCCL's AIV kernel) read framework_error 0.53
from them. A session another close state ended (a release, a device reset) keeps its reading.
Session 47, tester47a: two lines of ggml (llama.cpp, whisper.cpp; the CANN backend on Ascend among them). Its backend
loader, scanning the executable's directory, logs ``load_backend: failed to find ggml_backend_init in PATH`` for each
backend library built without dynamic loading (ggml/src/ggml-backend-reg.cpp ``load_backend``: ``GGML_LOG_ERROR``,
then ``return nullptr``; https://github.com/ggml-org/llama.cpp/blob/f5eee972d77bb253c1d10a0ea104164523f6110d/ggml/src/
ggml-backend-reg.cpp): the backends are linked in and registered already (``register_backend: registered backend CANN
(8 devices)`` above it), and the maintainer: "These messages just indicate that the backend was not built with dynamic
loading support" (ggml-org/llama.cpp#11700); ggml's own CI prints it in runs that PASS. llama.cpp#15759's registration
block (8 x 910B3) read config_error 0.6 through the text fallback. The loader's other errors (``failed to initialize
backend from ...``, a library ``dlopen`` refused) keep their reading. test-backend-ops prints ``  ROPE(type=f32,...):
not supported [CANN0] `` for a case the backend does not implement and skips it (tests/test-backend-ops.cpp
``print_test_console``: ``if (!result.supported) { printf("not supported [%s] ", ...); ... return; }``, beside ``OK``
and ``FAIL``; https://github.com/ggml-org/llama.cpp/blob/bc5195c585e2aeaf987c400a0b31bd6d4766d5b5/tests/
test-backend-ops.cpp): an operator the backend leaves to another, no failure (the CANN ROPE PR's test listing,
llama.cpp#10540, read framework_error 0.60 from ``op:unsupported``). Only the whole line of that form: a case that
failed prints ``FAIL``, and a raised "not supported" error keeps ``op:unsupported``.
Session 47, tester47c: XLA's stream-executor plugin registration, printed at import by TensorFlow/JAX builds on a
CUDA host (and by tools that import them, Ultralytics' DDP start among them), ``E0000 ... cuda_dnn.cc:8310] Unable
to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered``
and its cuFFT and cuBLAS twins: ``PluginRegistry::RegisterFactoryInternal`` returns kAlreadyExists when a factory
for that plugin id is already in the registry, and the registered one stays in use
(xla/stream_executor/plugin_registry.cc,
https://github.com/openxla/xla/blob/0dc513b903fadfe4f214402fa9c63774d8f4846c/xla/stream_executor/plugin_registry.cc;
tensorflow/tensorflow#62075, openxla/xla#20803). In ultralytics#21765's YOLOv10x DDP start the line read
config_error 0.47 through the text fallback. Other start-up failures of the same libraries keep their readings.
Session 47, tester47j: Cython's NumPy ABI check printed as a warning, ``RuntimeWarning: numpy.dtype size changed, may
indicate binary incompatibility. Expected 96, got 88`` (and its ``numpy.ufunc`` and ``numpy.ndarray`` twins): an
extension compiled with Cython checks the size of NumPy's types as it imports them and only warns when the type in
memory is larger than the header it was built with (``__Pyx_ImportType``, Cython/Utility/ImportExport.c,
``PyErr_WarnEx``), a newer NumPy the extension works with; NumPy itself filters exactly these three as "Cython harmless
warnings" (numpy/__init__.py, ``warnings.filterwarnings("ignore", message="numpy.dtype size changed")`` and the other
two, numpy/numpy#11634; NumPy's developers in bokeh/bokeh#8165: "It is safe to ignore"), so they show only where that
filter is reset or the import precedes NumPy's (RRZE-HPC/OSACA#10, desihub/desisim#560: the tool works on). Before, the
line read ``cfg:version`` (config_error 0.66) like the raised form. The raised form (``ValueError: numpy.ndarray size
changed, ...``, a type smaller than the header: the extension cannot work) keeps ``cfg:version``
(:data:`opsbrain.ingest.parsers.framework.RE_BUILT_FOR_OTHER`).
Session 47, tester47n: a second ``aclFinalize`` of a process whose ACL environment was already finalized. CANN's
``aclFinalizeImpl`` returns ACL_ERROR_REPEAT_FINALIZE (100037) at once when ``aclFinalizeFlag`` is set, which only a
finalize that succeeded sets, and logs ``[Finalize][Acl]repeatedly finalized`` (hicann/runtime
src/acl/aclrt_impl/acl.cpp @681ef761,
https://github.com/hicann/runtime/blob/681ef7610df13c8128982901142a2c869ddbb53e/ src/acl/aclrt_impl/acl.cpp; the API
reference: one aclFinalize clears aclInit's reference count,
docs/zh/api_ref/02_initialization_and_deinitialization.md). torch_npu reports the code through ``NPU_CHECK_WARN``
(``NPU warning, error code is 100037[Error]: `` / ``[Error]: Repeated deinitialization.`` / ``Check whether the
acl.finalize interface is repeatedly invoked for deinitialization.`` and the ACL error message, Ascend/pytorch
torch_npu/csrc/core/npu/NPUException.h @f38af786): the program's exit after a library finalized ACL itself, nothing
left to free. wangYzh0912/npu-nvme's README shows the block after each run,
"正常的，不用在意"; it read framework_error 0.60 from ``err:EH9999`` and the code. The block's generic lines
(``EH9999: Inner Error!``, ``TraceBack ...``, the closing ``(function operator())``) are read by
:class:`opsbrain.ingest.recovered.RecoveredScan`. Other EH9999 errors keep their reading.
Session 48, tester48c: TensorFlow's graph optimizer giving up one pass. TF 1.15 (the TF Adapter's) runs grappler on
each graph before the adapter hands it to the NPU; when one optimizer fails, ``MetaOptimizer::RunOptimizer`` swaps the
graph from before that pass back, logs ``<optimizer> failed: <status>`` (``LOG(ERROR)``; ``LOG(WARNING)`` for a
deadline) and returns OK unless ``fail_on_optimizer_errors`` is set, and the dependency optimizer logs ``Iteration =
N, topological sort failed with message: ...`` and skips only its transitive reduction (tensorflow/core/grappler/
optimizers/meta_optimizer.cc, dependency_optimizer.cc; https://github.com/tensorflow/tensorflow/blob/r1.15/tensorflow/
core/grappler/optimizers/meta_optimizer.cc). Ascend ModelZoo-TensorFlow's Transferring-GAN NPU run prints both between
graph compilations and completes its evaluation (test/output/0/train_0.log); it read config_error 0.47 through the
text fallback. A session that fails raises its own error, which keeps its reading. Not the TF Adapter's own
``NpuOptimizer`` (a grappler custom optimizer, npu_bridge): its failure is the adapter's, not a pass TF can drop
(review48's note; the lead, session 48). TensorBoard's ``TensorFlow installation not found - running with reduced
feature set.``, printed at each start where only the stub of TensorFlow is present (tensorflow/tensorboard
tensorboard/main_lib.py ``global_init`` @8a1dd4dbcf3ecbfd8ce7a70d414507bd95bc37a0: ``if getattr(tf, "__version__",
"stub") == "stub": print(...)``) before it serves as usual: MindRLHF's reward-model tutorial shows it after a
successful training run, then ``TensorBoard 2.11.2 at http://localhost:6006/`` (mindspore-lab/mindrlhf
examples/reward_model_train_tutorial/llama_reward_model_tutorial.md); alone it read config_error 0.60 through the
text fallback (session 49, tester49h). The operator compiler's retry notice ``O0 mode fails to be compiled, the O2
mode is used``: printed when a kernel's debug compile (``-O0 -g``, asked by ``op_debug_config`` / ``tbe_debug_level``)
fails, before the compiler swaps ``-O0`` for ``-O2``, drops ``-g`` and compiles again; a failed retry is returned as
the compile's failure and reported by its own lines (mirror-cann/asc-devkit @82b89a15
tools/build/asc_op_compile_base/common/ccec.py ``switching_compilation_mode``, asc_op_compiler/ascendc_common_utility.py
``run_cmd_ascendc``). CANN 5.x prints it as ``[WARNING] TBE:<time> [cce_api_pass.cc:181] ...``: the FCN port's
ModelArts run quoted in Ascend/ModelZoo-TensorFlow's FCN_ID1610 Readme.md trains on to step 3000 after it, and read
framework_error 0.57 from it as ``op:compile`` (session 49, tester49k).
The PyTorch migration tool's analysis notes: ``ms_fmk_transplt`` (msFmkTransplt, CANN toolkit tools/ms_fmk_transplt,
"PyTorch GPU2Ascend": https://hiascend.com/document/detail/zh/canncommercial/63RC2/devtools/auxiliarydevtool/
atlasfmkt_16_0014.html) reads a GPU script's source and logs to ``msFmkTranspltlog.txt`` each API it cannot map, by the
script's line range: ``[WARNING] torch.nn.PReLU in line 68 ~ 68 is not supported`` (2021), ``[WARNING] line: 55 ~ 55
Operation Type: UNSUPPORTED  Message: torch.manual_seed is not supported now!`` (late 2021), ``[WARNING] [Progress:
20.00%]  line: ...`` (2022), and ends ``MsFmkTransplt run success, welcome to the next use.``: a report on source
code, no operator a job ran. Ascend/ModelZoo-PyTorch commits the log beside thirteen ported models (@6a2804a3, e.g.
PyTorch/dev/cv/image_classification/AdaFM-Net_ID1101_for_PyTorch/msFmkTranspltlog.txt); three read framework_error
0.58-0.60 from ``op:unsupported`` (session 49, tester49n). A raised "not supported" and the tool's ``[ERROR]`` lines
keep their reading. MindX SDK's post-processing defaults: ``PostProcessBase::LoadConfigData`` warns ``Get key
"labelPath" failed. No postprocess label will be read.`` (or ``... "postProcessConfigPath" and
"postProcessConfigContent" failed. No postprocess config will be read.``) and returns ``APP_ERR_OK``;
``TextObjectPostProcessBase::Init`` warns ``<error text> Fail to read CHECK_MODEL_FLAG from config, default is true``
and returns ``APP_ERR_OK`` (Ascend/VisionSDK @ad53ae41 / @86dc823b mxBase/src/mxbase/module/Infer/PostProcess/
PostProcessBases/PostProcessBase.cpp, TextObjectPostProcessBase.cpp): an option not given, its default taken. The
EAST port's SDK inference shown in mindspore-ai/models research/cv/east/infer/README_CN.md prints both, then its boxes,
and read config_error 0.49 through the text fallback (session 49, tester49n); ``LoadLabels failed. ...``, a label file
given and not read, keeps its reading. Session 50's run notices are in :mod:`opsbrain.ingest.runnotices`, the
Hugging Face and PyTorch libraries' notices in :mod:`opsbrain.ingest.hfnotices` (joined here)."""


SETTING_LINE = lazy_compile(r"""^\s*(?:export\s+|set\s+|setenv\s+|os\.environ\[["'](?=[A-Z]))?"""
                          r"""[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?:["']\])?\s*[=:]\s*["']?[\w./:,+-]*["']?\s*$""")
"""An environment variable given a plain value, as a launch script, ``env`` or a settings dump shows it (``export
HCCL_EXEC_TIMEOUT=1836``, ``ASCEND_GLOBAL_LOG_LEVEL=3``, ``os.environ["HCCL_EXEC_TIMEOUT"] = "3600"``): the words
of its name (``TIMEOUT``, ``ERROR``) are no error of the run's: no HCCL timeout (:mod:`opsbrain.ingest.parsers.hccl`)
and no error line of the text fallback (:class:`opsbrain.diagnosis.realtext.TextView`)."""


LONG_OPTION = lazy_compile(r"(?<![\w-])--[A-Za-z][\w-]*+")
"""A command's long option name, ``--name`` (its ``=value`` or the next word is the value): GNU's long options (GNU C
Library manual, "Program Argument Syntax Conventions", https://www.gnu.org/software/libc/manual/html_node/
Argument-Syntax.html), as Python's argparse reads them."""


def option_words_only(text: str, error_word: Callable[[str], object]) -> bool:
    """Whether a line's error words are all in long option names (:data:`LONG_OPTION`): a launch command pasted with
    the run, not a failure. ms-swift's ``--ignore_args_error`` ("Used for compatibility with Jupyter Notebook",
    modelscope/ms-swift docs/source_en/Instruction/Command-line-parameters.md), Megatron's
    ``--distributed-timeout-minutes`` (``help='Timeout minutes for torch.distributed.'``, NVIDIA/Megatron-LM
    megatron/training/arguments.py ``_add_distributed_args``): ms-swift#8127's command of a healthy SFT on 16 NPUs
    read framework_error 0.60 through the text fallback (session 50, tester50f). An error word outside the names
    (``error: unrecognized arguments: --x``, ``invalid int value``) keeps the line failing. No error line of the
    fallback (:class:`opsbrain.diagnosis.realtext.TextView`)."""
    if "--" not in text:
        return False
    bare = LONG_OPTION.sub(" ", text)
    return bare != text and error_word(bare) is None


COUNTER_LINE = lazy_compile(r"^\s*[A-Za-z](?>[\w .()/-]*?(?:num|cnt|count|counts|total)\b)[\w .()/-]*+\s*:\s*"
                          r"(?:0x[0-9a-fA-F]+|\d+)\s*$", re.I)
"""A tool's counter, a name and a number alone on a line (session 40): ``decoded_fail_block_num: 0x0`` and
``st_fec_decoding_fail_num: 0x4`` (Ascend 950 ``hccn_tool -g -port_info`` / ``-g -bit_err``, "MAC RX FEC
decoding_fail statistics", "number of post-FEC error frames": https://github.com/hicann/driver/blob/
ef377e950a32b1641c108c59481e39e9643b7d63/docs/en/Ascend_950_HCCN_Tool/Ascend_950_HCCN_Tool/querying-the-port-status.md,
querying-the-number-of-port-bit-errors.md), ``HBM Double Bit Error Count : 0`` (``npu-smi info -t ecc``, same
repository, docs/en/Ascend_950_npu-smi/Ascend_950_npu-smi/querying-the-ecc-error-count-of-a-device.md). The error
word is the counter's name: a zero says nothing failed, and a count above zero is a measurement of the hardware,
no program's failure the words could class (the text fallback answers software classes only). No error line of
the fallback (:class:`opsbrain.diagnosis.realtext.TextView`); a status or error code (``Error Code : 80E01801``)
is no counter and stays one."""

SELF_FAILURE = lazy_compile(r"\bget npu (?:link status|link speed|link stat|stat inf|interface traffic) failed\b", re.I)
"""A monitoring component's own failure: npu-exporter could not run ``hccn_tool`` to read the NPUs' RoCE links
(Ascend/ascend-npu-exporter ``devmanager/hccn/hccn_tool.go``: ``hccnToolGetInfo`` checks
``/usr/local/Ascend/driver/tools/hccn_tool`` with ``utils.CheckPath``, then runs it; ``GetNPULinkStatus``,
``GetNPULinkSpeed``, ``GetNPULinkUpNum``, ``GetNPUStatInfo`` / ``GetNPUOpticalInfo`` and ``GetNPUInterfaceTraffic``
log ``get npu link status failed, %s``, ``get npu link speed failed``, ``get npu link stat failed``, ``get npu stat
inf failed``, ``get npu interface traffic failed`` with the error, e.g. ``no such file or directory``). The
exporter, not the job, failed: the vendor's knowledge graph files it as an exporter entry (AISW_MindX_Npu_Exporter_03,
"unable to obtain network information": hccn_tool abnormal or its path a soft link), and its link metrics then read
DOWN / 0 for want of the tool, not from the links. Such a line is the component's own kind (:data:`COMPONENT_SELF`),
never the job's environment (its "no such file or directory" is not ``cfg:env``), and is left out of the text the
fallback reads, as :data:`BENIGN` lines are."""

COMPONENT_SELF: dict[str, tuple[str, str, str]] = {
    "mon:exporter_read": (
        "npu-exporter", "could not run hccn_tool to read the NPUs' links ('get npu link ... failed')",
        "check that /usr/local/Ascend/driver/tools/hccn_tool exists on the host and is not a symbolic link (the "
        "exporter refuses a linked path); until then its link metrics are not readings of the links"),
}
"""Signal kinds of a monitoring component's own failures: kind -> (component, what failed, what to check). No class
takes them (a job-level class would blame the job for its monitor's problem): a verdict whose only findings they are
says so, as the vendor map gives the exporter's own entries no class (knowledge_base/vendor_map.yaml)."""
