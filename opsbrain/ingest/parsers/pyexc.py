"""Python exceptions a line states without the ``Name: message`` line :data:`.framework.RE_EXC` reads: a C++
exception nobody caught, Paddle's rethrown check, an uncaught ``StopIteration``, and CPython's own messages of a call
that does not fit the function's signature. Each is read as the Python exception its program raises (split from
:mod:`.framework`, which reads them, in session 58)."""

from __future__ import annotations

from opsbrain.ingest.screen import screened

RE_CPP_UNCAUGHT = screened(r"terminate called after throwing an instance of '([\w:]*)")
"""A C++ exception nobody caught: libstdc++'s verbose terminate handler, the default of g++ programs, prints
``terminate called after throwing an instance of 'c10::Error'`` and aborts (GCC libstdc++ manual, "Verbose Terminate
Handler"). It is the error a Python caller would have seen as ``RuntimeError``: pybind11 translates ``std::exception``
and the subclasses it does not name otherwise (:data:`CPP_TO_PY`) to ``RuntimeError`` (pybind11 docs, "Exceptions:
built-in C++ to Python exception translation"),
PyTorch its ``c10::Error`` likewise; here it escaped in a C++ thread (a collective's, a data loader's) instead. Read as
that exception: the program's own failure, which names no cause (a bare RuntimeError counts as little)."""
RE_PADDLE_ENFORCE = screened(r"\braises an EnforceNotMet exception\b")
"""An operator or grad node that failed one of Paddle's checks (``PADDLE_ENFORCE``): the executor logs it at glog
WARNING and rethrows it (PaddlePaddle/Paddle paddle/fluid/framework/new_executor/pir_interpreter.cc: ``LOG(WARNING)
<< instr_node->Name() << " raises an EnforceNotMet exception " ...`` then ``exception_holder_.Catch(...)``, which the
run rethrows; ``Instruction OP id: 0, Ir OP id: 1100, pd_op.conv3d raises an EnforceNotMet exception
common::enforce::EnforceNotMet`` in Paddle#75300; the eager backward's ``W0120 ... backward.cc:462] While running Node
(MultiplyGradNode) raises an EnforceNotMet exception`` followed by the traceback, PaddleX#4920). Despite its WARNING
level the run fails: read as the exception the Python caller gets, ``py:RuntimeError`` at error severity (a program's
own failure that names no cause, as :data:`RE_CPP_UNCAUGHT`); a stronger line of the same failure (an ACL code, an
out-of-memory message) still decides."""
RE_STOP_ITERATION = screened(r"^\s*(?:\[rank\d+\]:\s*)?StopIteration(?::|\s*$)")
"""A traceback's last line for an uncaught ``StopIteration``, which no other exception line names (its name ends in
none of :data:`.framework.RE_EXC`'s words): ``next()`` on an exhausted iterator outside a generator ends the program
(the Python reference, "Built-in Exceptions": raised by ``next()`` and an iterator's ``__next__()``; inside a generator
it becomes ``RuntimeError: generator raised StopIteration``, PEP 479). Ascend/pytorch's porting guide FAQ shows
mmdetection's training stop there, in torch's module ``__call__`` hook (``var = next((v for v in var.values() if
isinstance(v, torch.Tensor)))``): the program's failure, ``py:StopIteration`` (session 47, the lead: tester47k's
b47k-05 read nothing but the traceback header and abstained; now framework_error 0.60). Only the exception line
itself, not a frame's ``raise StopIteration`` nor a sentence naming it. The knowledge base gives it no signature: one
would refit the engine, and that refit lost 3 dev answers in-sample and 3 cross-fitted by project."""
CPP_TO_PY = {"std::bad_alloc": "MemoryError", "std::domain_error": "ValueError", "std::invalid_argument": "ValueError",
             "std::length_error": "ValueError", "std::range_error": "ValueError", "std::out_of_range": "IndexError",
             "std::overflow_error": "OverflowError"}
"""The standard exceptions pybind11 translates to another Python type than ``RuntimeError`` (pybind11 docs,
"Built-in C++ to Python exception translation"): ``std::bad_alloc`` is the host's memory (``MemoryError``), not the
program's RuntimeError."""
RE_CALL_SIGNATURE = screened(r"(?:^|[\s:'\"(])[A-Za-z_][\w.<>]{0,200}\(\) (?:missing \d{1,3} required "
                             r"(?:positional|keyword-only) arguments?: '|got an unexpected keyword argument '|"
                             r"got multiple values for argument '|takes (?:from )?\d{1,3}(?: to \d{1,3})? "
                             r"positional arguments? but \d{1,3} (?:positional arguments? \(and \d{1,3} "
                             r"keyword-only arguments?\) )?(?:was|were) given)")
"""CPython's messages of a call that does not fit the function it calls, which are always a ``TypeError``
(CPython Python/ceval.c ``missing_arguments``: ``%U() missing %i required positional argument%s: %U``; the
keyword-only form; ``%U() got an unexpected keyword argument '%S'``, ``%U() got multiple values for argument '%S'``,
``too_many_positional``: ``%U() takes %U positional argument%s but %zd%U %s given``; since 3.10 the name is the
function's qualified name, ``npu_wrapper_preprocess.<locals>._preprocess()``). Servers print the exception's
message without its class: sglang's OpenAI entry point logs ``Error in request: {e}`` before the traceback
(sglang/srt/entrypoints/openai/serving_base.py ``handle_request``), and sgl-kernel-npu#468's Qwen-VL request failed
with ``Error in request: npu_wrapper_preprocess.<locals>._preprocess() missing 1 required positional argument:
'interpolation'`` (an NPU patch that did not match the newer processor API, fixed in sglang#25130; session 58,
tester58q's b58q-08, read nothing but the traceback's head). Read as ``py:TypeError`` where the line names no
exception class of its own."""
