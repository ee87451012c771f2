"""Environment listings pasted with a run: a variable and its value on a line of their own (session 50, tester50q).

Issue reports of Ascend projects carry the job's environment beside its log: vLLM's and vllm-ascend's bug template asks
for ``python collect_env.py``, whose ``ENV Variables:`` section prints every ``ASCEND_*``, ``ATB_*``, ``TORCH*`` /
``PYTORCH*`` and vLLM variable as ``"{}={}".format(k, v)``, one a line (vllm-project/vllm-ascend collect_env.py
``get_env_vars``, https://github.com/vllm-project/vllm-ascend/blob/main/collect_env.py; the template's "The output of
`python collect_env.py`", e.g. vllm-ascend#924, #2304, #3172); ``env`` / ``printenv`` print each variable as
``NAME=VALUE`` (GNU coreutils manual, "env invocation": "If no command name is specified following the environment
specifications, the resulting environment is printed. This is like specifying the printenv program."), as a
ModelArts job's ``my_env.log`` does (Ascend/ModelZoo-TensorFlow@a2c3332a TensorFlow/contrib/cv/
FaceBoxes_ID1074_for_TensorFlow/models/run00/my_env.log); a launch script sets them with ``export NAME=VALUE``
(POSIX Shell Command Language, ``export name[=word]``). Such a line states a setting the job started with. The words
the parsers key on are in its name (``LD_LIBRARY_PATH``, ``RANK_TABLE_FILE``, ``ASCEND_AICPU_PATH``) or in the
directories of its value (``/usr/local/seccomponent/lib`` holds "ecc"): the ModelArts ``env`` dump above read
config_error 0.71 from ``cfg:env`` on its ``LD_LIBRARY_PATH=...`` and ``cfg:ranktable`` on
``RANK_TABLE_FILE=/home/ma-user/rank_table/jobstart_hccl.json`` (session 50, tester50n). A line that says something of
the variable (``the environment variable RANK_TABLE_FILE is not set``, ``LD_LIBRARY_PATH: ...`` in an error, a log
record's head before it) is not of this shape and keeps its reading; so does a setting with spaces around ``=`` or a
``NAME: value`` form, which this shape leaves to :data:`opsbrain.ingest.benign.SETTING_LINE`."""

from __future__ import annotations

from opsbrain.lazyre import lazy_compile

ENV_ASSIGNMENT = lazy_compile(r"^\s*(?:export\s+)?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*=\S*\s*$")
"""A whole line that is one environment variable given its value, as ``env``, ``collect_env.py`` and ``export`` write
it: a name in capitals (``_`` between words), ``=`` with no space around it, a value without whitespace."""

__all__ = ["ENV_ASSIGNMENT"]
