"""MindSpore's start-up and notebook notices that read as faults are harmless (session 50, tester50a).

``DlsymAscend`` (mindspore/ccsrc/utils/dlopen_macro.h) logs ``Dynamically load symbol X failed, result = ...`` at
WARNING and returns a null pointer for an optional ACL entry point the installed CANN lacks; the required ones go
through ``DlsymWithCast``, which raises (``MS_LOG(EXCEPTION)``) with the same words and keeps its reading.
``Location::ToString`` (mindspore/core/utils/info.cc) reads a node's source line through ``FileUtils::GetRealPath``
for debug text; a Jupyter cell's file (ipykernel's ``/tmp/ipykernel_<pid>/<hash>.py``) is not on disk, so MindSpore
logs ``Get realpath failed`` / ``may not exists`` and goes on without the source line. The lines below are cut from
mindspore-courses/step_into_llm and orange-pi-mindspore notebooks whose runs finished (Ascend 910 / 310B).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.text import ingest_text

# https://github.com/mindspore-courses/step_into_llm/blob/721248326ff1d9c84788b4b32a60d6ee51d08a07/Season1.step_into_chatgpt/4.GPT2/gpt2_summarization.ipynb
DLSYM = """\
[WARNING] GE_ADPT(12319,ffffaba360b0,python):2024-12-03-21:03:05.821.904 [mindspore/ccsrc/utils/dlopen_macro.h:163] DlsymAscend] Dynamically load symbol aclmdlBundleGetModelId failed, result = /usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so: undefined symbol: aclmdlBundleGetModelId
[WARNING] GE_ADPT(12319,ffffaba360b0,python):2024-12-03-21:03:05.822.193 [mindspore/ccsrc/utils/dlopen_macro.h:163] DlsymAscend] Dynamically load symbol aclrtMemUceRepair failed, result = /usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so: undefined symbol: aclrtMemUceRepair
[WARNING] GE_ADPT(12319,ffffaba360b0,python):2024-12-03-21:03:05.823.653 [mindspore/ccsrc/utils/dlopen_macro.h:163] DlsymAscend] Dynamically load symbol acltdtCleanChannel failed, result = /usr/local/Ascend/ascend-toolkit/latest/lib64/libacl_tdt_channel.so: undefined symbol: acltdtCleanChannel
"""  # noqa: E501

# https://github.com/mindspore-courses/orange-pi-mindspore/blob/a3afde60ef555fb94604738d1483e0e9c50d0a6f/Online/inference/12-Diffusion/mindspore_diffusion.ipynb
REALPATH = """\
sampling loop time step:   0%|          | 0/200 [00:00<?, ?it/s]
[ERROR] CORE(348401,e7ffe4d08020,python):2024-07-27-15:51:47.137.721 [mindspore/core/utils/file_utils.cc:253] GetRealPath] Get realpath failed, path[/tmp/ipykernel_348401/3360577342.py]
[WARNING] CORE(348401,e7ffe4d08020,python):2024-07-27-15:51:47.137.889 [mindspore/core/utils/info.cc:120] ToString] The file '/tmp/ipykernel_348401/3360577342.py' may not exists.
[ERROR] CORE(348401,e7ffe4d08020,python):2024-07-27-15:51:47.138.771 [mindspore/core/utils/file_utils.cc:253] GetRealPath] Get realpath failed, path[/tmp/ipykernel_348401/3797039485.py]
[WARNING] CORE(348401,e7ffe4d08020,python):2024-07-27-15:51:47.138.799 [mindspore/core/utils/info.cc:120] ToString] The file '/tmp/ipykernel_348401/3797039485.py' may not exists.
"""  # noqa: E501

# built from dlopen_macro.h's DlsymWithCast (MS_LOG(EXCEPTION), same words): a required symbol, a real failure
REQUIRED = ("RuntimeError: Dynamically load symbol aclrtMalloc failed, result = /usr/local/Ascend/ascend-toolkit/"
            "latest/lib64/libascendcl.so: undefined symbol: aclrtMalloc")
# built: a realpath that is not a notebook cell's file keeps its place in the fallback's text
CKPT = ("[ERROR] CORE(1,ffff,python):2024-07-27-15:51:47.137.721 [mindspore/core/utils/file_utils.cc:253] "
        "GetRealPath] Get realpath failed, path[/home/user/ckpt/net.ckpt]")


def test_optional_acl_symbols_give_no_signal() -> None:
    sigs, _ = ingest_text(DLSYM)
    assert sigs == []
    for line in DLSYM.splitlines():
        assert BENIGN.search(line), line


def test_notebook_cell_realpath_lines_are_harmless() -> None:
    for line in REALPATH.splitlines()[1:]:
        assert BENIGN.search(line), line
    assert "realpath" not in excerpt_view(REALPATH)


def test_required_symbol_and_other_paths_keep_their_reading() -> None:
    assert not BENIGN.search(REQUIRED)
    assert not BENIGN.search(CKPT)
    assert "realpath" in excerpt_view(CKPT)


def test_the_notebook_runs_raise_no_alarm(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    for name, text in (("dlsym.log", DLSYM), ("realpath.log", REALPATH)):
        f = tmp_path / name
        f.write_text(text)
        assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] in ("unknown", None), name


# https://github.com/mindspore-courses/step_into_llm/blob/721248326ff1d9c84788b4b32a60d6ee51d08a07/Season2.step_into_llm/16.Practical-cases/difussion/mindspore_diffusion.ipynb
SKIPPED = ("[WARNING] MD(2087,fffb11ffb0e0,python):2024-11-22-08:07:31.342.048 [mindspore/ccsrc/minddata/dataset/"
           "engine/datasetops/source/image_folder_op.cc:192] PrescanWorkerEntry] ImageFolder operator unsupported "
           "file found: ./image_cat/jpg/.ipynb_checkpoints, extension: .ipynb_checkpoints.")
# ImageFolderOp::PrescanMasterEntry's error when nothing was left to read (image_folder_op.cc): keeps its reading
NOTHING = ("RuntimeError: Invalid data, no valid data matching the dataset API ImageFolderDataset. Please check file "
           "path or dataset API validation first.")


def test_a_skipped_file_of_an_image_folder_is_no_fault() -> None:
    # PrescanWorkerEntry logs the skip at WARNING and leaves the file out (mindspore-ai/mindspore image_folder_op.cc)
    assert BENIGN.search(SKIPPED)
    sigs, _ = ingest_text(SKIPPED + "\n")
    assert sigs == []
    assert not BENIGN.search(NOTHING)
