"""Session 49's blind look at the MindSpore-ecosystem repositories (tester49h): MindSpore's pointer to the IR it dumps
when a graph fails to compile (``analyze_fail.dat`` / ``analyze_fail.ir``), and TensorBoard's start-up notice when
TensorFlow is not installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_tester40b import failing, kinds

# mindyolo#168 (https://github.com/mindspore-lab/mindyolo/issues/168), yolov7 training on Ascend with MindSpore 1.8.1:
# the static-analysis block as pasted, cut after the stack; the same loss's stack of mixed dtypes was fixed in
# mindyolo#219 by a cast. Before: unknown 0.11 (no signal; the header "Exception happened" alone).
ANALYZE_FAIL = (
    "The function call stack (See file '/home/ma-user/work/mindyolo/rank_0/om/analyze_fail.dat' for more details. "
    "Get instructions about `analyze_fail.dat` at https://www.mindspore.cn/search?inputValue=analyze_fail.dat):\n")
STACK = "\n".join([
    "ERROR] ANALYZER(77504,ffffa12a0a40,python3):2023-07-11-18:21:39.720.409 [mindspore/ccsrc/pipeline/jit/"
    "static_analysis/async_eval_result.cc:66] HandleException] Exception happened, check the information as below.",
    "",
    ANALYZE_FAIL.rstrip("\n"),
    "# 0 In file /home/ma-user/work/mindyolo/mindyolo/models/losses/yolov7_loss.py(81)",
    "        for pp in p:",
    "# 2 In file /home/ma-user/work/mindyolo/mindyolo/models/losses/yolov7_loss.py(123)",
    "        return _loss * bs, ops.stop_gradient(ops.stack((_loss, lbox, lobj, lcls)))",
    "Traceback (most recent call last):",
    '  File "train.py", line 290, in <module>',
    "    train(args)",
]) + "\n"
# MindSpore 2.x spells the file analyze_fail.ir (a MindSpore issue's graph-mode report of a Tensor method's default).
ANALYZE_FAIL_IR = (" (See file '<temporary_workdir>/rank_0/om/analyze_fail.ir' for more details. Get instructions "
                   "about `analyze_fail.ir` at https://www.mindspore.cn/search?inputValue=analyze_fail.ir)\n")
# A note that names the file without pointing to a dump of a failed compile.
IR_NOTE = "The file analyze_fail.ir shows the parsed IR; see file 'analyze_fail.ir' later.\n"

# MindRLHF's reward-model tutorial (https://github.com/mindspore-lab/mindrlhf/blob/master/examples/
# reward_model_train_tutorial/llama_reward_model_tutorial.md): the loss line of a successful training run, then
# TensorBoard started on its log. Before: framework_error 0.55 (TensorBoard's notice alone: config_error 0.60).
TB_NOTICE = "TensorFlow installation not found - running with reduced feature set.\n"
TB_RUN = "\n".join([
    "print_output_info: Epoch:[  1/  2], step:[    2/29134], loss: 0.744, time:68580.279 ms, lr:8e-08, overflow "
    "cond: False, loss_scale: 128.0",
    TB_NOTICE.rstrip("\n"),
    "I0112 16:17:43.688263 281471413912032 plugin.py:429] Monitor runs begin",
    "Serving TensorBoard on localhost; to expose to the network, use a proxy or pass --bind_all",
    "TensorBoard 2.11.2 at http://localhost:6006/ (Press CTRL+C to quit)",
]) + "\n"


def test_the_analyze_fail_pointer_is_a_graph_that_did_not_compile() -> None:
    assert kinds(ANALYZE_FAIL) == ["op:compile"]
    assert kinds(ANALYZE_FAIL_IR) == ["op:compile"]


def test_a_sentence_naming_the_file_is_no_compile_failure() -> None:
    assert "op:compile" not in kinds(IR_NOTE)
    assert "op:compile" not in kinds("Get instructions about `analyze_fail.ir` at https://www.mindspore.cn\n")


def test_tensorboard_s_notice_is_no_failure() -> None:
    assert kinds(TB_NOTICE) == []
    assert failing(TB_NOTICE) == 0
    assert failing("ModuleNotFoundError: No module named 'tensorflow'\n") == 1  # a missing TF the job needs stays


@pytest.mark.parametrize("text, want", [(STACK, "framework_error"), (TB_RUN, "unknown")])
def test_the_blind_excerpts_read(tmp_path: Path, engine: Any, text: str, want: str) -> None:
    log = tmp_path / "paste.log"
    log.write_text(text)
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["fault_class"] == want
