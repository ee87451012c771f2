"""The Ascend HDK driver and firmware run packages' installer (session 42, tester42c). Its scripts print every line as
``[Driver] [<date>] <text>`` (or ``[Firmware] ...``): hicann/driver scripts/package/driver/common/scripts/install.sh
@ef377e950a32b1641c108c59481e39e9643b7d63, ``log`` / ``drvEcho`` / ``drvColorEcho``. The component tag says which
package is being installed, not that a driver call failed: before this parser the tag's word "Driver" with any
"not" / "error" / "fail" later on the line read as a failed driver management call (``drv:api_error``), so the
installer's own warning ``[WARNING]Do not power off or restart the system during the installation/upgrade`` made a
successful installation a driver fault and its check that the run user exists a driver fault too.

The installer's numbered errors are its checks of what the package needs before it touches the driver
(``errorUsage 1 "[ERROR]ERR_NO:0x0091;ERR_DES:${username} not exists! Please add ${username}"``, install.sh and
scripts/package/custom/driver/common/scripts/args_parse.sh): 0x0002 an answer typed at a prompt, 0x0003 the install
path, 0x0004 the command-line parameters, 0x0089 the shell environment it sets, 0x0091 the run user or group (absent,
empty, not allowed), 0x0093 root permission, 0x0094 another installation running or an all-in-one package already
installed, 0x0095 / 0x0096 a user or group other than the last installation's. Each names a setting of the host or
of the command, ``cfg:env``; so does the environment check's ``[ERROR]The list of missing tools: lspci,ifconfig,``
(scripts/package/custom/driver/common/scripts/env_check.sh, ``checkEnvTool``: a command the installer needs is not
installed). The uninstall errors (0x0080, 0x0090) and a failed DKMS build (``[ERROR]dkms install failed``,
run_driver_install.sh: the printer names no cause) are left to the other parsers, as before. The installer's INFO and
WARNING lines are its progress and advice (``[INFO]upgradePercentage:90%``): fully explained, no signal.

Session 42 (tester42d): the installer's check that the driver can run on this kernel is a setting of the host too
(hicann/driver scripts/package/driver/common/scripts/run_driver_install.sh @ef377e95, ``drv_vermagic_check`` and
``drv_dkms_env_check``). When the kernel modules built into the package do not match the running kernel it logs
``[ERROR]current kernel primary version(<uname -r>) is different from the driver(<vermagic>).``, ``[ERROR]driver ko
vermagic(...) is different from the os(...), need rebuild driver`` or ``[ERROR]driver in run packet test load failed,
need rebuild driver`` and then ``[ERROR]driver vermagic check failed.``; it tries that check only when the tools to
rebuild the modules (dkms, gcc, the kernel headers: ``drv_dkms_dependent_check``, whose misses are WARNING lines) are
absent, and the install stops with ``[ERROR]Drv_dkms_env_check failed, details in : <log>`` (``drvColorEcho``, red
on a terminal). The vendor's troubleshooting page for that line names the same two causes, a kernel the package was
not built for or DKMS tools not installed, and the fix on the host (https://www.hiascend.com/document/detail/zh/
canncommercial/601/troublemanagement/troubleshooting/troubleshooting_0053.html): all five give ``cfg:env``. The page
quotes the last one without the package tag and date (its figure caption), and the check's name is the installer's
own, so that line gives ``cfg:env`` without the tag as well.

Session 43 (diag43): ``[WARNING]The crc check of the flash version is abnormal.`` stays a progress line (no signal).
The installer prints it in ``is_flash_version_check`` (hicann/driver
scripts/package/driver/common/scripts/install.sh) when ``upgrade-tool --device_index -1 --hw_base_version`` answers
``crc_error`` for the devices' flash version, and then skips that check and installs on, as after its other WARNING
lines there (the query timed out, the tool cannot query, no version). No public Huawei document found (the search
corpora's docs and pages, English and Chinese) says what a flash version's CRC error means for the device; read as a
firmware fault it would be a guess.

Session 47 (tester47d): the CANN run packages' installers (Toolkit, kernels, NNAL: ``[Toolkit] [20250912-21:52:11]
[ERROR] ...``, a tag of the package and a date of their own) check the host before they install, and three of their
refusals are documented as settings of the host or of the command: ``There is no python3.7,python3.8,python3.9,
python3.10,python3.11 in the current environment !`` (the vendor's case "安装CANN包时提示Python版本不满足", https://www.
hiascend.com/document/caselibrary/detail/canncase_0023: the Python in use is not one CANN supports, set PATH /
LD_LIBRARY_PATH to a supported one or install one; the case quotes it without the package tag and date, so it reads
without them too); ``/etc/Ascend/ascend_cann_install.info exists ! 'install-path' parameter are not supported.`` (the
MindX DL container-image guide: the first CANN package installed records its path there and the later ones install
under it, so ``--install-path`` must be dropped: its image-building section's 出现原因, in a GitHub-hosted copy of the
guide the code-search index holds as id 53581501201 without naming its repository; before, its "are not supported"
read as an unsupported operator, ``op:unsupported``); and pip's
``ERROR: Can not combine '--user' and '--target'`` when the package installs its Python parts (the vendor's case
"安装toolkit包,报错Can not combine '--user' and '--target'",
https://www.hiascend.com/document/caselibrary/detail/installcase_0002: ``user = true`` in pip.conf; pip's own option
check, pip/_internal/commands/install.py). All three give ``cfg:env``.

Session 48 (tester48t): the driver package's refusal to install, upgrade or uninstall while its device nodes are held,
``[ERROR]The davinci nodes are occupied by some processes, please stop processes and install or uninstall again,
details in : <log>`` (hicann/driver scripts/package/custom/driver/common/scripts/driver_install.sh and uninstall.sh
@ef377e95, ``exitInstallInfo``; printed after ``checkUserProcess`` / ``checkUserDocker`` in common.sh find a process
using /dev/davinci*, /dev/davinci_manager, /dev/devmm_svm or /dev/hisi_hdc, or a running container mapping them, whose
WARNING is ``<dev> has used by docker``). Huawei Cloud's driver upgrade page gives the same cause and fix (business
processes or containers occupy the Davinci nodes; stop them, or ``--upgrade --force``:
https://support.huaweicloud.com/bestpractice-aics/aics_bp_0106.html). The device allocation, read like the other
device-in-use texts: ``cfg:device``, with or without the package's tag (the page and users' notes quote it without).
"""

from __future__ import annotations

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_INSTALLER = screened(r"^\s*\[(?:Driver|Firmware)\] (?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] )?\[(INFO|WARNING|ERROR)\]")
"""An installer line: the package tag, the date the scripts add (notes that quote a line sometimes drop it) and the
level the scripts write right after it."""
RE_SETTING_ERROR = screened(r"\bERR_NO:\s*0x00(?:02|03|04|89|91|93|94|95|96)\s*;\s*ERR_DES:|"
                            r"\bThe list of missing tools:|"
                            r"\bDrv_dkms_env_check failed\b|\bdriver vermagic check failed\b|"
                            r"\bcurrent kernel primary version\(.*?\) is different from the driver\b|"
                            r"\bdriver ko vermagic\(.*?\) is different from the os\b|"
                            r"\bdriver in run packet test load failed\b")
RE_KERNEL_CHECK = screened(r"\bDrv_dkms_env_check failed, details in\b")
"""The kernel-compatibility check's last line as quoted without the installer's tag and date."""
RE_CANN_SETTING = screened(r"\bThere is no python3\.\d+(?:\s*,\s*python3\.\d+)* in the current environment\b|"
                           r"\bascend_cann_install\.info exists ! 'install-path' parameter|"
                           r"\bCan not combine '--user' and '--target'")
"""The CANN run packages' documented refusals of the host's Python, of ``--install-path`` once a CANN package recorded
its path, and of pip's options (session 47): with or without the package's tag."""

RE_NODES_HELD = screened(r"\bThe davinci nodes are occupied by some processes\b")
"""The driver installer's refusal while processes or containers hold its device nodes (session 48): with or without
the package's tag."""

_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    """An installer line with a setting error gives ``cfg:env`` (its refusal while the device nodes are held,
    ``cfg:device``); one of its progress lines (INFO, WARNING) is fully explained with no signal; its other errors go
    on to the later parsers."""
    if not _ANY.may(ctx.text):
        return False
    if RE_NODES_HELD.search(ctx.text):
        ctx.add("cfg:device", ctx.node, 2)
        return True
    if not (m := RE_INSTALLER.match(ctx.text)):
        if RE_KERNEL_CHECK.search(ctx.text) or RE_CANN_SETTING.search(ctx.text):
            ctx.add("cfg:env", ctx.node, 2)
            return True
        return False
    if RE_SETTING_ERROR.search(ctx.text):
        ctx.add("cfg:env", ctx.node, 2)
        return True
    return m.group(1) != "ERROR"
