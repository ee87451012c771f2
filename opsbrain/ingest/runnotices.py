"""Notices of runs that went on, documented as harmless, found in session 50's blind looks (notebooks, whole committed
logs, CANN's repositories, serving and training runs): part of :data:`opsbrain.ingest.benign.BENIGN` (joined there),
kept here to keep that module small. Each alternative's source:

MindSpore's optional ACL entry points: ``DlsymAscend`` logs ``Dynamically load
symbol X failed, result = ...: undefined symbol: X`` at WARNING and returns a null pointer when the installed CANN
lacks a newer function (aclrtMemUceRepair, aclmdlBundleUnload, acltdtCleanChannel ...); a required symbol goes
through ``DlsymWithCast``, which raises with the same words, and keeps its reading (mindspore-ai/mindspore
mindspore/ccsrc/utils/dlopen_macro.h). MindSpore's debug text of a node reads its source line through
``FileUtils::GetRealPath`` (``Location::ToString``, mindspore/core/utils/info.cc); a Jupyter cell's file
(``/tmp/ipykernel_<pid>/<hash>.py``, ipykernel's cell file names) is not on disk, so it logs ``[ERROR] ... GetRealPath]
Get realpath failed, path[/tmp/ipykernel_...]`` and ``The file '...' may not exists.`` and goes on without the line.
mindspore-courses/step_into_llm and orange-pi-mindspore notebooks whose runs finished on Ascend read config_error
0.57-0.71 from them (session 50, tester50a). MindSpore's image-folder dataset skips a file whose extension it does
not read and says so at WARNING (``ImageFolder operator unsupported file found: ./image_cat/jpg/.ipynb_checkpoints,
extension: .ipynb_checkpoints.``, ``ImageFolderOp::PrescanWorkerEntry``, mindspore/ccsrc/minddata/dataset/engine/
datasetops/source/image_folder_op.cc); a folder left with nothing raises ``Invalid data, no valid data matching the
dataset API ImageFolderDataset``, which keeps its reading (the same session: a diffusion notebook that trained to the
end read config_error 0.41 from ``op:unsupported``). torch_npu's advice when ``torch.save`` is called with the legacy
format,
``('Warning: torch.save with "_use_new_zipfile_serialization = False" is not recommended for npu tensor, ...')``
(Ascend/pytorch torch_npu/utils/serialization.py, ``save``: a warning, then the save goes on), printed by the
serving engines' workers on every healthy run that pickles a tensor this way (vLLM and LMDeploy outputs shown in
issues), and torch's ``UserWarning: barrier(): using the device under current context. You can specify `device_id`
in `init_process_group` to mute this warning.`` (torch/distributed/distributed_c10d.py, ``barrier``: warned once,
the barrier runs on the current device): a running sglang server on the main-cann9.0.0-910b image (sglang#28628,
"can run") read framework_error 0.59 from the two through the text fallback (session 50, tester50b). MindSpore's
start-up environment check on Ascend (``AscendEnvChecker._check_env``,
mindspore/python/mindspore/run_check/_check_version.py)
warns ``Can not find the tbe operator implementation(need by mindspore-ascend). Please check whether the Environment
Variable PYTHONPATH is set.`` (and ``ccec_compiler`` / PATH, ``driver so`` / LD_LIBRARY_PATH, ``opp path`` /
ASCEND_OPP_PATH) when a fixed path string is not a substring of the variable: it checks the string, not the library,
so an install that finds its operators another way warns at every start and runs (a third-party MindSpore project's
notes on the warning: "影响: 无 ... 可以安全忽略", impact none, safe to ignore). Four notebooks of mindspore-courses/
step_into_llm and orange-pi-mindspore whose runs trained to the end on Ascend read config_error 0.57-0.71 from it
(session 50, tester50a's excerpts; the lead's reading). What is really missing fails later in its own words
(``No module named 'te'``, ``libascend_hal.so: cannot open shared object file``), which keep their readings. Later
releases spell it ``Cannot find`` (review50 saw that form), read the same.
GNU tail's notices when ``tail -f`` cannot get inotify watches (session 51, tester51i): ``tail: inotify resources
exhausted`` (``error (0, 0, ...)`` where ``inotify_add_watch`` fails with ENOSPC, "We revert to polling below") and
``tail: inotify cannot be used, reverting to polling`` (``error (0, errno, ...)``, with the errno's text after a colon
in later releases, then ``tail_forever``: the file is followed by polling), coreutils src/tail.c
(https://github.com/coreutils/coreutils/blob/master/src/tail.c, ``tail_forever_inotify`` and ``main``). Launch
scripts that follow their ranks' logs with ``tail -f`` print them on a host short of inotify watches; a 4-rank
MindSpore training that ran its 100 epochs to ``Training time`` read framework_error 0.60 from them through the text
fallback (mindspore-courses/competition @0ad8b871, summer-ospp/MindMoMaOrb/print_batch64_parallel.log). Read only as
the whole line, with or without the program's path.
Session 50 (tester50g): asys's notice before a live stack export, ``This command
sends signal 35 to the process:<pid>. If the process is executed to disable signal receiving through the environment
variable ASCEND_COREDUMP_SIGNAL=none, the process:<pid> will be killed.``, logged at WARNING at every ``asys collect
-r=stacktrace --remote=<pid>`` before the export starts (hicann/oam-tools @ea0ce91e
src/asys/collect/stacktrace/stacktrace_collect.py, the ``log_warning`` before ``_set_trace_work_path``; the run of
docs/zh/asys/stack_export.md goes on to ``collect task execute finish.``): a conditional about a setting, not a
variable the job lacks; it read config_error 0.71 as ``cfg:env``. pytest's ``XFAIL``, a test marked as expected to fail
that failed (docs.pytest.org, how-to/skipping.html: "XFAIL ... expected to fail"; ``-v`` prints it after the test id,
``-rx`` as ``XFAIL <test id> - <reason>``, and the session's summary counts it as ``1 xfailed``, not as a failure):
hicann/catlass!684's run of 19 passed, 1 xfailed (``XFAIL (native example 49 fails head_dim=64 (Compare failed); ...``)
read framework_error 0.57 through the text fallback from the reason's words. Not a line that also says ``XPASS``
(``[XPASS(strict)]`` fails the run). pytest's closing summary when nothing failed, ``==== 19 passed, 1 xfailed in 9.63s
====``: the counts pytest prints there are of its outcome keys, ``failed``, ``passed``, ``skipped``, ``deselected``,
``xfailed``, ``xpassed``, ``warnings``, ``error`` (pytest src/_pytest/terminal.py ``KNOWN_TYPES`` and
``build_summary_stats_line``); a line that counts none of ``failed`` / ``error`` says the session passed (its exit
status is 0), while "xfailed" reads as a failure's word. A summary with a ``failed`` or ``error`` count keeps its
reading. Under ``-q`` the same counts are written without the ``=`` rules (``summary_stats``: ``display_sep =
self.verbosity >= 0``, else ``write_line``): ``19 passed, 1 xfailed in 9.63s`` alone on its line (review50).
Session 51 (review50's leftovers): pytest before 5.x wrote the time as ``in 0.08 seconds`` (``=== 3 passed in 0.08
seconds ===`` in public pytest tutorials of that time), and pytest-xdist's ``-v`` heads a record with its worker and
progress (``[gw0] [ 50%] XFAIL test_x.py::test_y``, the form testruns.PASSED_RECORD reads for PASSED).
torch_npu's ``Cannot create tensor with interal format while allow_internel_format=False, tensor will be
created with base format.`` (sic): with internal formats switched off (``torch.npu.config.allow_internal_format =
False``), ``empty_with_format`` takes the base format instead and warns once (Ascend/pytorch
torch_npu/csrc/aten/common/TensorFactories.cpp, ``TORCH_WARN_ONCE`` before ``empty_with_format``; the warning names
the file, ``Triggered internally at ../torch_npu/csrc/aten/common/TensorFactories.cpp:340``): the tensor is made, in
another layout. pytest's ``-v`` output can print it after a test's id, where no level heads the line: the catlass run
above does, and its test passed.
Two TensorFlow 1.x notices of a graph that runs (session 50, tester50n, whole ModelZoo-TensorFlow logs read
framework_error 0.64 from them as ``op:unsupported``): the placer's ``W .../colocation_graph.cc:983] Failed to place
the graph without changing the devices of some resources. Some of the operations (that had to be colocated with
resource generating operations) are not supported on the resources' devices. Current candidate devices are [...]``,
a LOG(WARNING) of ``ColocationGraph::GetSoftDeviceCandidates`` after soft placement found devices for the group
(tensorflow core/common_runtime/colocation_graph.cc; a placement that finds none raises ``Could not satisfy explicit
device specification`` / ``No OpKernel was registered``, which keep their readings); and the ``Instructions for
updating:`` line of ``disable_resource_variables`` (``@deprecation.deprecated(None, "non-resource variables are not
supported in the long term")``, tensorflow python/ops/variable_scope.py, printed by
``tf.compat.v1.disable_v2_behavior``), read only as the whole line.
Session 51 (tester51e): the graph engine's W11001 after a model conversion, errTitle
``Performance_Not_Optimal_Operator``, ``Op %s does not hit the high-priority operator information library, which might
result in compromised performance.`` (hicann/metadef @afc8ede2 error_manager/error_code.json): an operator the
preferred engine does not take is placed on a lower-priority one and the build goes on (``ATC run success`` precedes
it). Older CANN printed the same code as ``W11001: High-priority service of op[%s] is invalid, low-priority service is
used. It can work normally but may affect performance.`` (Ascend/ModelZoo-PyTorch @05360171
ACL_PyTorch/contrib/cv/segmentation/ICNet/readme.md lines 427-428, after ``ATC run success``; the OM then ran with
its accuracy unchanged); its "is invalid" read framework_error 0.45 through the text fallback on that healthy
conversion (session 51, tester51e). Either wording, with or without the ``[PID: n] <time>`` head of newer releases.
Session 51 (tester51k): the file-security check of MindIE's components logged at WARN, ``[llm] [WARN]
[param_checker.cpp:98]  Check Other group permission failed: .../config.json current permission is 4, but required no
greater than 0. Required permisssion is 750, but got permission is 644``. The check builds the message and returns it
to its caller (Ascend/MindIE-LLM src/utils/log/file_utils.cpp, ``FileUtils::ConstrainPermission``), which picks the
level: at ERROR the file is refused and the service stops (the MindIE LLM FAQ "Check_path: config.json failed", read
``cfg:env``, session 47), while MindIE LLM's parameter checker logs the model's config.json at WARN and the daemon goes
on to profiling and HCCL set-up (gpustack/gpustack#3153 and #3352, which fail later for other reasons). Read only with
the bracketed WARN level and ``[file:line]`` head of MindIE's log format before the check's own words.
Session 52 (tester52e): xllm-service's first-start master election. ``Scheduler::Scheduler`` asks etcd for
``XLLM:SERVICE:MASTER`` and, when the get fails because no master holds the key yet, sets it and logs ``Set current
service as master!``; ``EtcdClient::get`` logs every failed get at ERROR (``etcd get <key> failed: <message>``), so the
first service of a deployment prints ``etcd get XLLM:SERVICE:MASTER failed: etcd-cpp-apiv3: key not found`` on a start
that goes on (jd-opensource/xllm-service xllm_service/scheduler/scheduler.cpp, scheduler/etcd_client/etcd_client.cpp).
A start that served requests read config_error 0.56 from it through the text fallback (xLLM-AI/xllm#376). Only that
key with etcd-cpp-apiv3's "key not found"; another key, or another failure of the get, keeps its reading.
Session 55 (tester55b): the hint printed under a warning about an object that was not released, when tracemalloc is
off. pytest's warnings summary ends an unraisable-exception or resource warning's entry with ``Enable tracemalloc to
get traceback where the object was allocated.`` and a ``See https://docs.pytest.org/...#resource-warnings`` line
(pytest src/_pytest/tracemalloc.py ``tracemalloc_message``); CPython's warnings module writes ``ResourceWarning: Enable
tracemalloc to get the object allocation traceback`` (or ``RuntimeWarning: ...`` after a coroutine never awaited) under
the warning itself (Lib/warnings.py ``_formatwarnmsg_impl``). Advice on how to see more, not a failure: an operator
check whose pytest run ended ``12 passed, 12 deselected, 146 warnings`` read config_error 0.60 through the text fallback
from its word ``traceback`` (LeleCheung/Ascend-Optimization, blind b55b-02). Read only as the whole line.
Session 55 (tester55g): Hydra's footer under an exception that escaped a ``@hydra.main`` job, ``Set the environment
variable HYDRA_FULL_ERROR=1 for a complete stack trace.`` (facebookresearch/hydra hydra/_internal/utils.py
``run_and_report``: without the variable Hydra strips its own frames from the traceback and writes this line). It is
printed under every failure of a Hydra program, whatever its cause (verl's trainers are Hydra jobs), and names no
variable the job lacks: read as ``cfg:env``, it outweighed a RuntimeError and a 507035 vector-core error of two verl +
MindSpeed failures fixed in code (ji-huazhong/verl@6ae8a79 bugfix.md, blind b55g-04 and b55g-05). The exception above
it keeps its reading. Only as the whole line.
torch_npu's warning when a component's version string it reads cannot be parsed (``[W105 17:14:39 ...
compiler_depend.ts:117] Warning: Driver Version: 9 is invalid or not supported yet. (function operator())``): torch_npu
reads the versions from the installation's info files (the driver's from /etc/ascend_install.info and
driver/version.info; Ascend/pytorch docs, ``torch_npu.npu.utils.get_cann_version``, whose module list is the words
matched) to gate version-dependent features, and warns once where a string is not of a known form (in a container the
driver's file is often absent or short). A warning, not a stop: a verl GRPO run on Ascend that printed it at start
trained its 58 steps to the end (session 56, tester56h's b56h-05, Watsontao/mindrlhf, read config_error 0.71 as
``cfg:version``); a vLLM-Ascend disaggregation run's log carries it with an empty version (the dev excerpt za012,
whose failure is another's). A chip torch_npu cannot run fails in its own words (``Unsupported soc version``), which
keep their reading. The whole warning only.
MindSpore's check of the driver version before it turns its virtual-memory (VMM) allocator on
(``CheckVmmDriverVersion``, mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_vmm_adapter.h, the file and
function each line names): at WARNING it says ``Open file /etc/ascend_install.info failed.`` where the install-info
file is not in the container, and ``Driver version is less than 24.0.0, vmm is disabled by default, drvier_version:
23.0.6`` (sic) where the driver is older; MindSpore then allocates without VMM. A fine-tune on Ascend that went on to
0.99 accuracy read driver_firmware_error 0.59 from the first as a failed driver call (session 56, tester56j's
b56j-01, a MindSpore notebook). The two whole lines only.
Session 57 (tester57g, tester57d):
- MindSpore's distributed start's default, ``[WARNING] HCCL_ADPT(...) [.../hccl_adapter.cc:63] GenHcclOptions] The
  environment variable DEPLOY_MODE is not set. Now set to default value 0`` (the file and function the line names; it
  is on every HCCL start of MindSpore's CANN error-case pages, before the failures that keep their own codes). A
  MindFormers LoRA fine-tune of Qwen-14B that trained to "Training Over!" read framework_error 0.58 from it and from
  the start-up advice above it, ``Reserved memory size for other components(1073741824) is less than recommend
  size(4006430464), It may lead to Out Of Memory in HCCL or other components, ...`` (lincenying/ai-fae@43bc9da1
  logs/qwen/14b/mindformer.log, blind b57g-05); that advice gives no ``mem:oom`` by the general rule for advice that
  memory may run out (:data:`opsbrain.ingest.parsers.memtexts.RE_OOM_ADVICE`). The whole warning only.
- torchvision's warning when its image extension does not load, ``UserWarning: Failed to load image Python extension:
  '<reason>'If you don't plan on using image functionality from `torchvision.io`, you can ignore this warning. ...``
  (torchvision/io/image.py, at import; the text says it may be ignored). MindCluster's quick start shows it in the log
  of a ResNet50 job it calls successful (Ascend/mind-cluster@22bb3d98 docs/zh/scheduling/02_quick_start/
  quick_start.md, blind b57d-07, read config_error 0.72 as ``cfg:env``). The warning's line only: a job that uses
  ``torchvision.io`` fails later in its own words.
- needrestart's notices after a package install, ``Failed to check for processor microcode upgrades.`` and ``Failed
  to retrieve available kernel versions.`` (liske/needrestart@63c0f1bb ``needrestart``: ``$ui->notice(__ 'Failed to
  check for processor microcode upgrades.')`` where no microcode check is available, as on Arm hosts and in WSL).
  MindIE LLM's docker install guide shows them in the output of an install it calls successful (Ascend/MindIE-LLM@
  8b4871ad docs/zh/user_guide/install/source/docker_installation.md, blind b57d-10, read config_error 0.56). The
  whole lines only.
Session 58 (the left list of session 57: blind b55l-09, b56b-06, b57j-05):
- MindSpore's start-up package check (``AscendEnvChecker.check_version`` and ``check_deps_version``,
  mindspore/python/mindspore/run_check/_check_version.py, the file each line names): it reads the major.minor of the
  installed CANN package and of its ``te`` / ``hccl`` wheels (``topi`` in 1.x) and compares them with a fixed list of
  the releases MindSpore was tested with (``self.version = ["8.2", "8.3", "8.5"]`` in one release); a release not in
  the list gives ``MindSpore version 2.4.10 and Ascend AI software package (Ascend Data Center Solution)version 7.3
  does not match, ...`` and ``MindSpore version 2.4.10 and "te" wheel package version 7.3 does not match. ...`` at
  WARNING, then ``Please pay attention to the above warning, countdown: 3`` .. ``1`` a second apart, and the import
  goes on: nothing is raised. Five healthy runs of the blind sets print them (three read config_error 0.70-0.72 from
  them alone: MindSpore 1.1.1 on Ascend with a "te" 1.0 wheel whose BERT pre-training logs steps, MindNLP notebooks
  on ModelArts that trained to the end), and no fault excerpt rests on them alone but y010 (a symptom-only label,
  whose traceback is cut before its exception). A release that really does not fit fails in its own words (an
  undefined symbol, ``libge_runner.so: cannot open shared object file``, an operator missing), which keep their
  readings. The check's message only, with its two package forms, to the install guide's address that ends it
(review58: text after it on the same line keeps its reading).
Session 59 (tester59d, and blind50's b50a-10):
- pip's report of dependency conflicts it left after an install, logged at CRITICAL (printed ``ERROR: ``) and followed
  by ``Successfully installed ...``: ``pip's dependency resolver does not currently take into account all the packages
  that are installed. This behaviour is the source of the following dependency conflicts.`` (the legacy resolver's
  ``pip's legacy dependency resolver does not consider dependency conflicts when selecting packages. ...``), then one
  line a conflict, ``<name> <version> requires <requirement>, but you have <name> <version> which is incompatible.``
  (``you'll have`` in the legacy form) or ``... requires <requirement>, which is not installed.`` (pypa/pip
  src/pip/_internal/commands/install.py ``_warn_about_conflicts``: ``logger.critical`` of the joined parts; the install
  has been made and the command goes on to its summary). A warning about packages the run may never import: two
  healthy notebooks (a MindSpore BLIP caption demo on an Orange Pi, a ModelArts Gradio install) read framework_error
  0.53 and config_error 0.60 from them through the text fallback. A package that really does not fit fails later in
  its own words (``ImportError``, ``No module named``), which keep their readings. The whole lines only, the head
  also after a collector's prefix (docker build's ``#12 5.123``, a ``--log`` time; review59), a conflict line from its
  start, its versions starting with a digit (PEP 440), as the older releases print them too: pip 20.2's head
  ``After October 2020 you may experience errors when installing or updating packages. This is because pip will
  change the way that it resolves dependency conflicts.`` and pip 19-20.1's one ``ERROR:`` line a conflict, ``<name>
  <version> has requirement <requirement>, but you'll have <name> <version> which is incompatible.`` (review59).
- TensorFlow's ``NodeDef mentions attribute <attr> which is not in the op definition: <op> This may be expected if
  your graph generating binary is newer  than this binary. Unknown attributes will be ignored. NodeDef: ...``, logged
  at ERROR (glog's ``E``) by ``ValidateNodeDef`` (tensorflow/core/framework/node_def_util.cc, ``LOG_EVERY_N_SEC(ERROR,
  5)`` then ``continue``: the attribute is skipped and the node is built). The same notebook printed it on its way to
  a caption. The whole message, to its ``NodeDef: {{node ...}}`` (one or more nodes), from the line's start or after
  glog's head (review59: a failure earlier on the line, or text after the message, keeps its reading).
- MindInsight's ``start`` where an instance already serves the same summary folder on the port: ``Reusing MindInsight
  on port 10004. (pid 1133012, Use "mindinsight stop --port 10004" to stop it.)`` and the web address, logged at ERROR
  (mindspore-ai/mindinsight@e233ee19 mindinsight/scripts/start.py: ``PortReuseException`` where a listening
  connection on the port serves ``SUMMARY_BASE_DIR`` already; a port held by another folder or program raises
  ``MindInsight could not bind to port ...``, which keeps its reading). The board the user asked for is up: a
  Sepformer project's MindInsight start log read config_error 0.60 from it (tester59d, 2024-MindSpore-1/Code3).
  The whole message only (``pid None`` where psutil cannot see another user's socket), from the line's start or after
  MindInsight's log head.
- mssanitizer's notice that it skips the checks a kernel was not built for: ``[mssanitizer] WARN: racecheck and
  synccheck is not supported on the kernel that without `--cce-enable-sanitizer' compiler option, thus it's
  temporarily ignored.`` (Ascend/mssanitizer csrc/core/framework/checker.cpp, the sanitizer's start banner: the other
  checks run, and the end banner says whether they found anything). The tool's developers' own run, ending ``Sanitizer
  finished on kernel Catlass::KernelAdapter. No error detected.``, read framework_error 0.62 from it as
  ``op:unsupported`` (tester59a, the message of Ascend/mssanitizer!27). The whole line only; the checker's reports
  keep their reading (``rt:aicore_sw``, :data:`opsbrain.ingest.parsers.framework.RE_MSSANITIZER_REPORT`).
- pytest's header line of the plugins it loaded, ``plugins: asyncio-1.3.0, cov-7.1.0, rerunfailures-16.1, anyio-4.13.0,
  xdist-3.8.0`` (pytest src/_pytest/terminal.py ``pytest_report_header``: ``"plugins: " + ", ".join(
  _plugin_nameversions(...))``, each a distribution's name and version, ``pytest-`` dropped): names, not events.
  pytest-rerunfailures' name holds a failure's word, and a Liger-Kernel NPU test run of 45 items that passed, skipped
  and xfailed read framework_error 0.54 from it through the text fallback (tester59f, Liger-Kernel PR #1219's test
  block). The whole line only, of up to 16 plugins (the shape test's bound on a repeat inside a repeat).
"""

from __future__ import annotations

from opsbrain.lazyre import lazy_compile

RUN_NOTICES = (
    r"^\s*(?:\S*/)?tail: inotify (?:resources exhausted|cannot be used, reverting to polling"
    r"(?:: [A-Za-z](?:[\w ]{0,60}\w)?)?)\s*$|"
    r"\bDlsymAscend\] Dynamically load symbol \w+ failed, result = |"
    r"\b(?:GetRealPath\] Get realpath failed, path\[|ToString\] The file ')/tmp/ipykernel_\d+/\d+\.py"
    r"(?:\]|' may not exists\.)\s*$|"
    r"\b(?:ImageFolder|Image folder) operator unsupported file found: [^\n]{1,500}?, "
    r"extension: [^\n]{0,100}\.\s*$|"
    r"Warning: torch\.save with \"_use_new_zipfile_serialization = False\" is not recommended for "
    r"npu tensor|\bUserWarning: barrier\(\): using the device under current context\. You can "
    r"specify `device_id` in `init_process_group` to mute this warning\.|"
    r"\bCan ?not find (?:ccec_compiler|the tbe operator implementation|driver so|opp path) ?"
    r"\(need by mindspore-ascend\)\. Please check |"
    r"\bThis command sends signal 35 to the process:\d+\. If the process is executed to disable "
    r"signal receiving through the environment variable ASCEND_COREDUMP_SIGNAL=none, the process:\d+ "
    r"will be killed\.|"
    r"^\s*(?:\[gw\d+\] (?:\[\s*\d+%\] )?)?(?:[^\s:]{1,500}::\S{1,1000}\s)?XFAIL\b(?!.*\bXPASS)|"
    r"^\s*(?:=+ )?(?:\d{1,9} (?:passed|skipped|xfailed|xpassed|deselected|warnings?)"
    r"(?:, |(?= in ))){1,8} in [\d.]+(?:s| seconds)(?: \(\d+:\d\d:\d\d\))?(?: =+)?\s*$|"
    r"\bCannot create tensor with interal format while allow_internel_format=False, tensor will be "
    r"created with base format\.|"
    r"Failed to place the graph without changing the devices of some resources\. Some of the "
    r"operations \(that had to be colocated with resource generating operations\) are not supported|"
    r"^\s*non-resource variables are not supported in the long term\s*$|"
    r"\bW11001: (?:\[PID: \d+\] [\d:.-]+ )?(?:Op ?\[[^\]\n]{1,500}\] does not hit the high-priority operator "
    r"information library, which might result in compromised performance\.|High-priority service of op\[[^\]\n]{1,500}"
    r"\] is invalid, low-priority service is used\. It can work normally but may affect performance\.)|"
    r"\[WARN(?:ING)?\]\s*\[\w+\.(?:cpp|cc|h):\d+\]\s+Check (?:Owner|Owner group|Other group) permission failed\b|"
    r"\betcd get XLLM:SERVICE:MASTER failed: etcd-cpp-apiv3: key not found\s*$|"
    r"^\s*(?:Enable tracemalloc to get traceback where the object was allocated\.|"
    r"(?:Resource|Runtime)Warning: Enable tracemalloc to get the object allocation traceback)\s*$|"
    r"^\s*Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace\.\s*$|"
    r"\bWarning: (?:Driver|CANN|RUNTIME|COMPILER|HCCL|TOOLKIT|OPP|OPP_KERNEL) Version: \S{0,80} is invalid or not "
    r"supported yet\.(?: \(function \w+\(\)\))?\s*$|"
    r"\bCheckVmmDriverVersion\] (?:Open file /etc/ascend_install\.info failed\.|Driver version is less than "
    r"[\d.]{1,20}, vmm is disabled by default, drvier_version: \S{0,40})\s*$|"
    r"\bGenHcclOptions\] The environment variable DEPLOY_MODE is not set\. Now set to default value \d{1,3}\s*$|"
    r"\bUserWarning: Failed to load image Python extension: |"
    r"^\s*Failed to (?:check for processor microcode upgrades|retrieve available kernel versions)\.\s*$|"
    r"\bMindSpore version [\w.+-]{1,40} and (?:Ascend AI software package \(Ascend Data Center Solution\) ?version|"
    r"\"(?:te|hccl|topi)\" wheel package version) [\w.+-]{0,40} does not match[,.] [^\n]{0,300}?"
    r"https://www\.mindspore\.cn/install\S{0,100}\s*$|"
    r"(?:^|\s)(?:ERROR: )?(?:pip's (?:dependency resolver does not currently take into account all the packages "
    r"that are installed|legacy dependency resolver does not consider dependency conflicts when selecting packages)\. "
    r"This behaviour is the source of the following dependency conflicts\.|After October 2020 you may experience "
    r"errors when installing or updating packages\. This is because pip will change the way that it resolves "
    r"dependency conflicts\.)\s*$|"
    r"^\s*(?:ERROR: )?[A-Za-z0-9][\w.-]{0,100} \d[\w.+!-]{0,59} (?:requires|has requirement) [^\n]{1,300}?, "
    r"(?:but you(?:'ll)? have [A-Za-z0-9][\w.-]{0,100} \d[\w.+!-]{0,59} which is incompatible|which is not "
    r"installed)\.\s*$|"
    r"^\s*(?:(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [EWIF] |[EWIF]\d{4} \d\d:\d\d:[\d.]+ +\d+ )?\S*"
    r"node_def_util\.cc:\d+\] )?NodeDef mentions attribute \w+ which is not in the op definition: [^\n]{0,4000}? "
    r"This may be expected if your graph generating binary is newer {1,2}than this binary\. Unknown attributes will "
    r"be ignored\.(?: NodeDef: \{\{node [^{}\n]{1,1000}\}\}(?:, \{\{node [^{}\n]{1,1000}\}\}){0,15})?\s*$|"
    r"^\s*(?:\[[A-Z]{4,8}\] MI\([^()\n]{1,100}\):[\d.:-]{1,40} \[[^\]\n]{1,200}\]\[\w{1,40}\] )?Reusing MindInsight "
    r"on port \d{1,5}\. \(pid (?:\d{1,10}|None), Use \"mindinsight stop --port \d{1,5}\" to stop it\.\)"
    r"(?:\s*Web address: \S{1,300})?\s*$|"
    r"^\s*\[mssanitizer\] WARN: [\w ,]{1,200} is not supported on the kernel that without `--cce-enable-sanitizer' "
    r"compiler option, thus it's temporarily ignored\.\s*$|"
    r"^\s*plugins: [\w.+-]{1,100}(?:, [\w.+-]{1,100}){0,15}\s*$"
)
"""The alternatives (a regular-expression fragment, joined into :data:`opsbrain.ingest.benign.BENIGN`)."""

EXIT_NOTICES = lazy_compile(r"\bTBE Subprocess\[task_distribute\] raise error\[\], main process disappeared!")
"""Lines a run prints as it ends that state no failure of their own, though their words do: not a failing line of the
text view nor of the "went on" scan, but read (unlike :data:`RUN_NOTICES`), as they tell what happened to the main
process. CANN's TBE compile workers (``task_distribute``), when the process that started them is gone, each log
``[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!`` and end: vLLM Ascend's users see
the lines "when the task ends" of runs that finished (vllm-project/vllm-ascend#1706, closed; #787, the inference
done), and a verl GRPO run printed them after its final validation metrics ("seems training is ok"). Where the main
process was killed they follow the kill: msModelSlim's FAQ pairs them with the shell's ``Killed`` (host memory), whose
reading stays. Session 54: read as failing lines, three healthy runs of the blind sets (b48g-05, b50c-09, b52j-04)
were answered framework_error or config_error from them."""
