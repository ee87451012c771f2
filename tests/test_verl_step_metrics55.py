"""verl's metrics line of a step is no failing line for the error words in its metrics' names (session 55, tester55d).

verl's ``concat_dict_to_str`` (verl/utils/logger/aggregate_logger.py) prints ``step:<n>`` and each numeric metric as
``name:value``, joined by `` - ``. A GRPO run on Ascend that finished its fifth step (Weigaa/qwen30b_tpu_verl) read
framework_error 0.60 through the text fallback from ``response/aborted_ratio:0.0`` alone (blind b55d-03)."""

from __future__ import annotations

from opsbrain.diagnosis.realtext import TextView, has_error_word
from opsbrain.ingest.readouts import quiet_field, quiet_step_metrics

STEP = ("step:5 - actor/kl_loss:0.0021917338823326505 - actor/pg_clipfrac:0.0 - actor/grad_norm:0.1218631970974827 - "
        "critic/score/mean:0.23828125 - response_length/clip_ratio:0.25 - response_length_non_aborted/mean:416.75 - "
        "response/aborted_ratio:0.0 - timing_s/generation_timing/reduced:False - timing_s/generate_sequences:-1.0 - "
        "perf/total_num_tokens:252528 - perf/throughput:100.72677922970945")
OLD = "step:12 - critic/score/mean:0.512 - response/aborted_ratio:0.000 - timing_s/step:31.204"  # older `{v:.3f}`


def test_a_step_metrics_line_is_quiet() -> None:
    for line in (STEP, OLD):
        assert has_error_word(line) is not None
        assert quiet_step_metrics(line)
        assert quiet_field(line, has_error_word)


def test_a_nan_or_a_word_keeps_it_failing() -> None:
    assert not quiet_step_metrics(STEP.replace("actor/kl_loss:0.0021917338823326505", "actor/kl_loss:nan"))
    assert not quiet_step_metrics(OLD + " - error:failed")
    assert not quiet_step_metrics("step:3 - aborted")
    assert not quiet_step_metrics("Error at step:5 - response/aborted_ratio:0.0")


def test_the_text_view_sees_no_failing_line() -> None:
    view = TextView()
    view(STEP, "x.log", 1, "(TaskRunner pid=3888660) ")
    view("Epoch 0 completed in 817.48 seconds.", "x.log", 2, "(TaskRunner pid=3888660) ")
    assert not view.fails()


def test_a_hostile_line_stays_fast() -> None:
    assert not quiet_step_metrics("step:1" + " - a" * 20000)
    assert not quiet_step_metrics("step:1 - " + "a - " * 20000 + "b:1 x")
