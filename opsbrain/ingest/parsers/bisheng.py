"""Triton kernels that BiSheng failed to compile, as triton-ascend reports them (session 47, fix47c), and kernels the
compiler itself crashed on (session 50, tester50g); kept out of :mod:`.framework`, which reads them in its ``TEXTS``
table as ``op:compile``, to keep that module under ~500 lines."""

from __future__ import annotations

from opsbrain.ingest.screen import screened

RE_BISHENG_COMPILE = screened(
    r"\bCalledProcessError: Command '\['(?:[^']*/)?(?:bishengir(?:-hivm)?-compile|triton-adapter-opt)'"
    r"|\bub overflow, requires \d+ bits while \d+ bits ava(?:li|il)able\b"
    r"|\bFailed to run BiSheng(?:IR|HIR)(?: HIVM)? pipeline\b")
"""A Triton kernel that failed to compile for the NPU. triton-ascend compiles each kernel by running its compilers as
subprocesses (triton-lang/triton-ascend triton/backends/ascend/compiler.py: ``ttir_to_linalg`` runs
``triton-adapter-opt`` on ``kernel.ttir.mlir``, ``linalg_to_bin_enable_npu_compile`` runs BiSheng's
``bishengir-compile`` on ``kernel.ttadapter.mlir``, both ``subprocess.run(cmd_list, capture_output=True,
check=True)``), so a failed compile raises Python's ``subprocess.CalledProcessError: Command '['/.../bishengir-compile',
...]' returned non-zero exit status 1.`` (or ``died with <Signals.SIGSEGV: 11>.``) and triton's
``MLIRCompilationError`` quotes the compiler's own lines: ``error: ub overflow, requires N bits while M bits
avaliable!`` (sic: the kernel's live buffers exceed the core's Unified Buffer; triton-ascend
docs/en/debug_guide/ub_overflow.md: cut the block size or split the kernel) and ``error: Failed to run BiShengHIR
HIVM pipeline`` / ``[ERROR] Failed to run BiShengIR pipeline``. The kernel failed to compile (``op:compile``), as a
graph's ``build graph failed`` does. Lines: Ascend/pytorch#102 (torch_npu inductor, CANN toolkit ``bishengir-compile``,
``ub overflow, requires 1966848 bits while 1572864 bits avaliable!``), triton-lang/triton-ascend#302 (CANN 8.5.0
``tools/bishengir/bin/bishengir-compile``; its title spells ``available``), modelscope/mcore-bridge#188 (``Failed to run
BiShengIR pipeline``). Not any other ``CalledProcessError`` (the command is another program's)."""

RE_LLVM_BACKEND_FATAL = screened(r"\bfatal error: error in backend: (?!IO failure on output stream\b)\S|"
                                 r"\bfrontend command failed with exit code 70\b|"
                                 r"^\s*LLVM ERROR: (?!IO failure on output stream\b|out of memory\b)\S")
"""A kernel the compiler crashed on. BiSheng (the CANN compiler of Ascend C kernels) is built on clang/LLVM: a fatal
error inside LLVM (an instruction selection that cannot lower an operation, ``Cannot select: i64 = fp_to_uint``) is
reported by clang's handler as the fatal diagnostic ``error in backend: %0`` (llvm/llvm-project
clang/include/clang/Basic/DiagnosticFrontendKinds.td, ``err_fe_error_backend``, ``DefaultFatal``: printed ``fatal
error: error in backend: ...``), after which the frontend exits with status 70, "an internal software error"
(clang/tools/driver/cc1_main.cpp, ``LLVMErrorHandler``: ``exit(GenCrashDiag ? 70 : 1)``), which the driver reports as
``<driver>: error: clang frontend command failed with exit code 70`` (DiagnosticDriverKinds.td,
``err_drv_command_failed``). hicann/shmem!412 (@0bd9f7dc): ``bisheng: error: clang frontend command failed with exit
code 70`` after ``fatal error: error in backend: Cannot select: i64 = fp_to_uint`` in a device template that cast a
float, fixed in the code. The kernel failed to compile (``op:compile``), whatever the compiler's message; it read
config_error 0.56 through the text fallback. Not a frontend that failed with another code (exit 1 is an ordinary
compile error, whose own lines say which). Not LLVM's ``IO failure on output stream: <errno message>`` (or, older,
``IO failure on output stream.``), which clang prints with the same words: ``raw_fd_ostream``'s destructor reports a
write it could not finish (llvm/llvm-project llvm/lib/Support/raw_ostream.cpp, ``report_fatal_error(... ,
/*gen_crash_diag=*/false)``, so the frontend exits with 1): a full disk (alisw/alidist#1953, google/fuzzbench#1091,
android-rpi/device_brcm_rpi3#74 "ran out of hdd space"), not a kernel the compiler could not lower (review50).
The same fatal error in a program that installs no handler of its own (an MLIR-based kernel compiler such as
triton-ascend's): LLVM's default handler prints ``LLVM ERROR: <reason>`` at the start of a line and aborts
(llvm/llvm-project llvm/lib/Support/ErrorHandling.cpp, ``report_fatal_error``). Session 56, tester56m's b56m-02
(triton-ascend#2353): ``[ConvertLinalgRToBinary] encounters error:`` then ``LLVM ERROR: The buffer memory has been
released and cannot be used again!`` on a valid kernel, a compiler bug, read config_error 0.41 (blind51's b51b-07,
``LLVM ERROR: Failed to obtain op buffer shape size which should be static.``, was right from its other lines). Not
its ``out of memory`` (LLVM's allocation failure: the host's memory) nor the IO failure above."""
