"""Cython's NumPy ABI check, raised and warned (session 47, tester47j).

An extension compiled with Cython checks the size of NumPy's C types as it imports them (``__Pyx_ImportType`` in
Cython/Utility/ImportExport.c): a type smaller than the header the extension was built with raises ``ValueError:
numpy.<type> size changed, may indicate binary incompatibility. Expected N from C header, got M from PyObject`` (the
installed NumPy does not fit the extension: the versions installed), a larger one only warns with the same words,
the case NumPy itself filters as "Cython harmless warnings" (numpy/__init__.py; numpy/numpy#11634). Before, only the
``numpy.dtype`` text was read (both forms alike); MindSpore's FAQ shows gensim's ``numpy.ndarray`` error, which read
framework_error 0.50, and the harmless warning read config_error 0.66.
"""

from __future__ import annotations

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.text import ingest_text

# MindSpore FAQ "Execution Problems" (gensim import under MindSpore; fix: reinstall matching numpy and gensim),
# https://gitee.com/mindspore/docs/blob/master/docs/mindspore/source_en/faq/implement_problem.md
GENSIM = """\
>>> import gensim
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/home/miniconda3/envs/ci39_cj/lib/python3.9/site-packages/gensim/__init__.py", line 11, in <module>
    from gensim import parsing, corpora, matutils, interfaces, models, similarities, utils  # noqa:F401
  File "gensim/_matutils.pyx", line 1, in init gensim._matutils
ValueError: numpy.ndarray size changed, may indicate binary incompatibility. Expected 88 from C header, got 80 from PyObject
"""  # noqa: E501

WARNED = (
    # https://github.com/RRZE-HPC/OSACA/issues/10 ("the functionality of the tool is not affected")
    "/usr/lib/python3.5/importlib/_bootstrap.py:222: RuntimeWarning: numpy.dtype size changed, may indicate binary "
    "incompatibility. Expected 96, got 88",
    # https://github.com/desihub/desisim/issues/560 ("non-catastrophic warning")
    "<frozen importlib._bootstrap>:219: RuntimeWarning: numpy.ndarray size changed, may indicate binary "
    "incompatibility. Expected 80 from C header, got 88 from PyObject",
)


def kinds(text: str) -> set[str]:
    sigs, _ = ingest_text(text)
    return {s.kind for s in sigs}


def test_the_raised_check_is_the_versions_installed() -> None:
    assert "cfg:version" in kinds(GENSIM)
    assert "cfg:version" in kinds("ValueError: numpy.ufunc size changed, may indicate binary incompatibility. "
                                  "Expected 216 from C header, got 192 from PyObject\n")


def test_the_dtype_form_keeps_its_reading() -> None:
    assert "cfg:version" in kinds("ValueError: numpy.dtype size changed, may indicate binary incompatibility. "
                                  "Expected 96 from C header, got 88 from PyObject\n")


def test_the_warned_check_is_harmless() -> None:
    for line in WARNED:
        assert BENIGN.search(line), line
        assert kinds(line + "\n") == set(), line
        assert "incompatibility" not in excerpt_view(line + "\n")
