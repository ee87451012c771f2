"""TensorFlow's graph optimizer (grappler) giving up one pass is no fault of a TF Adapter job (session 48, tester48c).

TensorFlow 1.15, the version the TF Adapter (npu_bridge) runs on, rewrites each graph with grappler before the TF
Adapter hands it to the NPU. When one optimizer of the meta optimizer fails, ``MetaOptimizer::RunOptimizer`` swaps the
graph from before that pass back (``optimized_graph->Swap(&optimized_item->graph)``), logs ``LOG(ERROR) <<
optimizer->name() << " failed: " << message`` (a deadline: ``LOG(WARNING)``) and returns ``Status::OK()`` unless
``fail_on_optimizer_errors`` is set; the dependency optimizer logs ``Iteration = N, topological sort failed with
message: ...`` and skips only the transitive reduction (tensorflow/core/grappler/optimizers/meta_optimizer.cc and
dependency_optimizer.cc, https://github.com/tensorflow/tensorflow/blob/r1.15/tensorflow/core/grappler/optimizers/
meta_optimizer.cc). The committed NPU run of Ascend ModelZoo-TensorFlow's Transferring-GAN port prints both between
graph compilations and finishes its 50k-image evaluation; it read config_error 0.47 through the text fallback.
"""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# https://github.com/Ascend/ModelZoo-TensorFlow/blob/5622e1935efbafea7343af0ec59409844081a0e1/TensorFlow/contrib/cv/
# Transferring-GAN_ID1252_for_Tensorflow/test/output/0/train_0.log (a healthy TF-adapter run on the NPU)
GRAPPLER = (
    "2022-05-25 16:35:22.814407: E tensorflow/core/grappler/optimizers/dependency_optimizer.cc:697] Iteration = 0, "
    "topological sort failed with message: The graph couldn't be sorted in topological order.",
    "2022-05-25 16:35:22.841248: E tensorflow/core/grappler/optimizers/meta_optimizer.cc:533] model_pruner failed: "
    "Invalid argument: MutableGraphView::MutableGraphView error: node 'concat_1' has self cycle fanin 'concat_1'.",
    "2022-05-25 16:35:22.868489: E tensorflow/core/grappler/optimizers/meta_optimizer.cc:533] arithmetic_optimizer "
    "failed: Invalid argument: The graph couldn't be sorted in topological order.",
)


def test_grappler_pass_failures_are_benign() -> None:
    for line in GRAPPLER:
        assert BENIGN.search(line), line
        assert [s.kind for s in parse_line(line)] == [], line


def test_a_failed_session_run_keeps_its_reading() -> None:
    # the error a TF session raises when the graph itself cannot run is no optimizer log line
    line = ("tensorflow.python.framework.errors_impl.InvalidArgumentError: The graph couldn't be sorted in "
            "topological order.")
    assert not BENIGN.search(line)


def test_the_tf_adapters_own_optimizer_is_not_a_skipped_pass() -> None:
    """review48: the TF Adapter registers NpuOptimizer as a grappler custom optimizer; its failure is kept (a line
    constructed in meta_optimizer.cc's format, not a quoted log)."""
    from opsbrain.ingest.benign import BENIGN

    line = ("2023-03-02 10:11:12.345678: E tensorflow/core/grappler/optimizers/meta_optimizer.cc:502] "
            "NpuOptimizer failed: Internal: GE graph build failed")
    assert BENIGN.search(line) is None
    assert BENIGN.search(line.replace("NpuOptimizer", "layout")) is not None
