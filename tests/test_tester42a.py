"""Session 42 (tester42a): a blind look at training-job software errors on Ascend where the thread says whether the
job's configuration or the framework was the cause. One reading fix: the MindSpore suites' Python logger
(mindspore-lab/mindcv mindcv/utils/logger.py, ``set_logger``: ``fmt = "%(asctime)s %(name)s %(levelname)s -
%(message)s"``, ``datefmt = "[%Y-%m-%d %H:%M:%S]"``; mindocr's tools/train.py logs through it) states each line's
level after the logger's name. An INFO line that names the environment variable a value came from was read as a
missing variable (``cfg:env``): mindocr#683's normal start read config_error 0.86."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.ctx import stated_level

# https://github.com/mindspore-lab/mindocr/issues/683 (a maintainer's reference log of a normal DBNet training start
# on Ascend 910B3, MindSpore r2.2.11)
MINDOCR_START = (
    "(MindSpore) [ma-user mindocr-main]$DEVICE_ID=2 python tools/train.py -c configs/det/dbnet/db_r50_icdar15.yaml\n"
    "[2024-03-21 16:42:06] mindocr.train INFO - Standalone training. Device id: 2, specified by environment variable "
    "'DEVICE_ID'.\n"
    "[2024-03-21 16:42:11] mindocr.data.builder INFO - Creating dataloader (training=True) for device 0. Number of "
    "data samples: 1000 per device (1000 total).\n"
    "[2024-03-21 16:42:39] mindocr.models.backbones.mindcv_models.utils INFO - Finish loading model checkpoint from: "
    "/home/ma-user/.mindspore/models/resnet50-e0733ab8.ckpt\n"
    "[2024-03-21 16:42:39] mindocr.utils.loss_scaler INFO - gradient_accumulation_steps > 1, scale_factor and "
    "scale_window are adjusted accordingly for dynamic loss scaler\n"
)
ENV_INFO = MINDOCR_START.splitlines()[1]


def test_the_suites_logger_states_its_level() -> None:
    assert stated_level(ENV_INFO, None) == 0
    # the same logger at its other levels (the format of set_logger; the levelname is upper case)
    assert stated_level("[2024-03-21 16:42:06] mindocr.train WARNING - x", None) == 1
    assert stated_level("[2024-03-21 16:42:06] mindocr.train ERROR - x", None) == 2


def test_an_info_line_naming_its_variable_is_no_missing_environment() -> None:
    assert "cfg:env" not in [s.kind for s in parse_line(ENV_INFO)]


def test_the_start_is_no_fault_an_error_still_reads(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "train.log"
    f.write_text(MINDOCR_START)
    got = diagnose_logs(str(f), engine)["diagnosis"]
    assert (got["fault_class"], got["confidence"]) == ("unknown", 0.0)
    # the level reader keeps an error at ERROR: a missing file the same logger reports still reads as configuration
    line = "[2024-03-21 16:42:06] mindocr.train ERROR - No such file or directory: 'configs/det/dbnet/x.yaml'"
    assert "cfg:env" in [s.kind for s in parse_line(line)]
