"""ascend-fd's job fixtures as operators also hand them over: worker directories named by IP address, every log
compressed on its own (``plog-<pid>_<stamp>.log.gz``, as log rotation and copy tools leave them), CANN's own log
directory copied in place of ``process_log`` (``<worker>/ascend/log/{debug,run}/plog/``), the whole bundle
as one ``.tar.gz`` (with a top folder or without), or one directory deeper. The root devices and the wait chain stay
those of the fixture as it is (tests/test_rootcluster.py::test_ascend_fd_fixtures_both_ways), and the workers keep
their names (``worker-0``, not ``collected/worker-0``, ``job.tar.gz:job/worker-0`` or ``job.tar.gz:worker-0``) whether
the bundle reader or ``--logs`` reads them."""

from __future__ import annotations

import gzip
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.test_rootcluster import FX, needs_fixtures

CASES = {  # case -> (root host, root device, chain), with worker-N written as {N}
    "st_event_timeout_testcase": ("{1}", 0, "{1} device 0 -> {0} device 0 -> {1} device 0"),
    "st_transport_init_testcase": ("{0}", 0, "{2} device 2 -> {1} device 1 -> {0} device 0"),
}


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _copy(case: str, dst: Path, worker_name: str) -> None:
    for w in sorted(p for p in (FX / case).iterdir() if p.is_dir()):
        shutil.copytree(w, dst / worker_name.format(w.name.removeprefix("worker-")))


def variant(case: str, how: str, tmp: Path) -> tuple[Path, str]:
    """The fixture written as ``how``, and the name a worker-N directory has in it."""
    names = "10.0.0.{}" if how == "ip" else "worker-{}"
    root = tmp / "job"
    _copy(case, root / "collected" if how == "nested" else root, names)
    if how == "gzip":
        for f in [p for p in root.rglob("*") if p.is_file()]:
            with f.open("rb") as src, gzip.open(f.with_name(f.name + ".gz"), "wb") as out:
                shutil.copyfileobj(src, out)
            f.unlink()
    if how == "cannlog":  # CANN's own log directory copied as it is: <worker>/ascend/log/{debug,run}/plog/
        for plogs in sorted(root.glob("*/process_log")):
            (plogs.parent / "ascend").mkdir()
            plogs.rename(plogs.parent / "ascend" / "log")
    if how == "cannhome":  # CANN's log directory copied with the home it sits in (tar czf - /root/ascend/log)
        for k, plogs in enumerate(sorted(root.glob("*/process_log"))):
            home = plogs.parent / ("root" if k % 2 else "home/ma-user") / "ascend"
            home.mkdir(parents=True)
            plogs.rename(home / "log")
    if how == "rotated":  # plogs renamed by logrotate or a copy script (.1), one of them compressed too (.1.gz)
        for k, f in enumerate(sorted(root.rglob("plog-*.log"))):
            f.rename(f.with_name(f.name + ".1"))
            if k == 0:
                with (f.with_name(f.name + ".1")).open("rb") as src, gzip.open(f.with_name(f.name + ".1.gz"),
                                                                                "wb") as out:
                    shutil.copyfileobj(src, out)
                f.with_name(f.name + ".1").unlink()
    if how == "asys":  # CANN's asys collection on each worker: <worker>/asys_output_<stamp>/dfx/log/host/cann/
        for plogs in sorted(root.glob("*/process_log")):
            (plogs.parent / "asys_output_20250619093000123" / "dfx" / "log" / "host").mkdir(parents=True)
            plogs.rename(plogs.parent / "asys_output_20250619093000123" / "dfx" / "log" / "host" / "cann")
    if how in ("targz", "flat"):  # flat: no top folder (tar czf job.tar.gz worker-0 worker-1 ...)
        tgz = tmp / "job.tar.gz"
        with tarfile.open(tgz, "w:gz") as t:
            for w, arc in ([(w, w.name) for w in sorted(root.iterdir())] if how == "flat" else [(root, "job")]):
                t.add(w, arcname=arc)
        return tgz, names
    return root, names


@needs_fixtures
@pytest.mark.parametrize("how", ["ip", "gzip", "targz", "flat", "nested", "cannlog", "cannhome", "rotated", "asys"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_fixture_handed_over_otherwise_keeps_its_root_and_chain(case: str, how: str, tmp_path: Path,
                                                                   engine: Any) -> None:
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    path, names = variant(case, how, tmp_path)
    host, device, chain = CASES[case]
    worker = [names.format(i) for i in range(4)]
    for rep in (diagnose_bundle(path, engine), diagnose_logs(str(path), engine)):
        d = rep["diagnosis"]
        assert d["fault_class"] == "collective_timeout_sw", how
        assert (d["root"]["host"], d["root"]["device"]) == (host.format(*worker), device), how
        assert d["root_cluster"]["chain"] == chain.format(*worker), how


HEADS = {  # how a paste of several hosts' or containers' output names each line's source
    "syslog": "Jun 19 09:29:39 {host} python3[1]: ",
    "kubectl": "[pod/{host}/main] ",  # kubectl logs --prefix
    "compose": "{host}  | ",  # docker compose logs
    "pdsh": "{host}: ",  # pdsh / clush / ansible
}


@needs_fixtures
@pytest.mark.parametrize("head", sorted(HEADS))
def test_one_pid_on_every_host_of_a_paste_is_one_process_per_host(head: str, tmp_path: Path, engine: Any) -> None:
    """Containers give each host's training process the same small pid. Pasted together under heads that name their
    hosts or containers, the processes stay apart (keyed by the head's host or container), and the root is the
    directory layout's."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    case = FX / "st_transport_init_testcase"
    lines = []
    for w in ("0", "1", "2"):
        for f in sorted((case / f"worker-{w}").rglob("plog-*.log")):
            own = f.name.split("_")[0].removeprefix("plog-")
            text = f.read_text().replace(f"({own},", "(1,").replace(f"[{own}]", "[1]").replace("(903,", "(1,")
            lines += [HEADS[head].format(host=f"node-{w}") + ln for ln in text.splitlines()]
    paste = tmp_path / "paste.txt"
    paste.write_text("\n".join(lines) + "\n")
    d = diagnose_logs(str(paste), engine)["diagnosis"]
    assert d["fault_class"] == "collective_timeout_sw"
    assert (d["root"]["host"], d["root"]["device"]) == ("node-0", 0)
    assert d["root_cluster"]["chain"].endswith("node-1 device 1 -> node-0 device 0")


def concatenated(root: Path, how: str) -> list[str]:
    """The files below ``root`` as one text, the way ``how`` prints several files: ``grep -r ""`` (each line behind
    its file's name), ``grep -rn`` (and its line number), ``tail -n +1`` (a ``==> name <==`` header per file)."""
    lines: list[str] = []
    for f in sorted(root.rglob("*")):
        if f.is_file():
            rel, text = f.relative_to(root).as_posix(), f.read_text().splitlines()
            if how == "tail":
                lines += ([""] if lines else []) + [f"==> {rel} <=="] + text
            else:
                lines += [f"{rel}:{n}:{ln}" if how == "grep-n" else f"{rel}:{ln}" for n, ln in enumerate(text, 1)]
    return lines


@needs_fixtures
@pytest.mark.parametrize("how", ["grep", "grep-n", "tail"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_job_concatenated_keeps_its_root_and_chain(case: str, how: str, tmp_path: Path, engine: Any) -> None:
    """``grep -r "" worker-*``, ``grep -rn`` or ``tail -n +1`` of a job's files, handed over as one file: each line is
    read as its file's, which names its worker and its process (plog-<pid>); the root and the wait chain are the
    directory's."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    lines = concatenated(FX / case, how)
    paste = tmp_path / "grep.txt"
    paste.write_text("\n".join(lines) + "\n")
    host, device, chain = CASES[case]
    worker = [f"worker-{i}" for i in range(4)]
    got = diagnose_logs(str(paste), engine)["diagnosis"]
    want = diagnose_logs(str(FX / case), engine)["diagnosis"]
    assert got["fault_class"] == want["fault_class"] == "collective_timeout_sw"
    assert (got["root"]["host"], got["root"]["device"]) == (host.format(*worker), device)
    assert got["root_cluster"]["chain"] == chain.format(*worker)
    assert abs(got["confidence"] - want["confidence"]) <= 0.05  # the root's own lines are found in the paste (0 if
    # not: the paste's lines were nobody's)


@needs_fixtures
@pytest.mark.parametrize("kind", ["tar.gz", "tar", "zip"])
def test_an_archive_piped_on_stdin_is_read_as_its_path_would_be(kind: str, tmp_path: Path, engine: Any) -> None:
    """``ssh node 'tar czf - -C job .' | opsbrain diagnose --logs -``: the archive's members, not its bytes as text
    (before, the tar headers were read as lines and the root was a stray address's)."""
    import io
    import zipfile

    from opsbrain.diagnosis.oneclick import diagnose_logs

    case = "st_transport_init_testcase"
    buf = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buf, "w") as z:
            for f in sorted((FX / case).rglob("*")):
                if f.is_file():
                    z.write(f, f.relative_to(FX / case).as_posix())
    else:
        with tarfile.open(fileobj=buf, mode="w:gz" if kind == "tar.gz" else "w") as t:
            t.add(FX / case, arcname=".")
    got = diagnose_logs("-", engine, stdin=io.BytesIO(buf.getvalue()))
    host, device, chain = CASES[case]
    worker = [f"worker-{i}" for i in range(4)]
    d = got["diagnosis"]
    assert (d["root"]["host"], d["root"]["device"]) == (host.format(*worker), device)
    assert d["root_cluster"]["chain"] == chain.format(*worker)
    assert any("archive" in n and "member by member" in n for n in got["limits"])
    assert not any("empty member name" in n for n in got["limits"])  # the archive's own ./ is no member
