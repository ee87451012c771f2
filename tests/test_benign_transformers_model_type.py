"""transformers' model-type notice at config load is no unsupported operator (session 45, tester45e).

``PretrainedConfig.from_pretrained`` (transformers configuration_utils.py, and the composite configs that copy it)
logs a warning when the checkpoint's ``model_type`` differs from the config class's: older releases ``... This is
not supported for all configurations of models and can yield errors.``, newer ones ``... This may be expected if you
are loading a checkpoint that shares a subset of the architecture (...), but is otherwise not supported and can yield
errors. ...``. The load goes on; an SGLang start of DeepSeek-V4 on 910C prints it once per rank
(sgl-project/sglang#23598) and read framework_error 0.62 from ``op:unsupported``.
"""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# https://github.com/sgl-project/sglang/issues/23598 (a DeepSeek-V4 start on 8 x 910C, 2026-05-08)
NEW = ("You are using a model of type `deepseek_v4` to instantiate a model of type ``. This may be expected if you "
       "are loading a checkpoint that shares a subset of the architecture (e.g., loading a `sam2_video` checkpoint "
       "into `Sam2Model`), but is otherwise not supported and can yield errors. Please verify that the checkpoint is "
       "compatible with the model you are instantiating.")
# the older text, transformers configuration_utils.py PretrainedConfig.from_pretrained (logger.warning)
OLD = ("You are using a model of type qwen2_vl to instantiate a model of type qwen2_5_vl. This is not supported for "
       "all configurations of models and can yield errors.")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_transformers_model_type_notice_gives_no_signal() -> None:
    for line in (NEW, OLD, "[transformers] " + NEW, "(APIServer pid=29592) " + NEW):
        assert BENIGN.search(line)
        assert kinds(line) == []


def test_an_unsupported_model_type_error_keeps_its_reading() -> None:
    # a raised error that the architecture is not supported (constructed, the words without the notice's text)
    line = "ValueError: Model architectures ['DeepseekV4ForCausalLM'] are not supported for now."
    assert not BENIGN.search(line)
    assert "op:unsupported" in kinds(line)
