"""Benchmark (session 39): per-line cost of ASCII and non-ASCII (Chinese console) lines, and a 100,000-line bundle
of Chinese console lines as a whole process.

Usage: ``env -u PYTHONDONTWRITEBYTECODE .venv/bin/python benchmarks/bench_wide_lines.py [--lines 2000]
[--bundle] [--src DIR]``

1. in process: the parsers (``parse_line``) and the knowledge matcher (``match``, the vendor knowledge imported as
   ``bench_bundle_match.py`` does) on generated lines: ASCII console lines, Chinese console lines (Chinese locale
   messages, paths, comments), and Chinese lines that carry an error code; microseconds a line (best of 3);
2. with ``--bundle``: ``opsbrain diagnose --bundle`` on the node-crash-training bundle padded to 100,000 lines with
   Chinese console lines (built under a temporary directory, removed after), as a new process: warm-up + p50 of 3.

``--src DIR`` runs the same against another source tree (e.g. ``git archive main | tar -x -C DIR``: the before
figures). Goal: issue 14's 100,000-line bundle <= 2 s whole-process; an ASCII line no slower than before.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]

ZH = ["训练进度：第 {n} 步，损失 {f:.4f}，学习率 {g:.2e}，用时 {m} 毫秒", "正在加载检查点 /data/模型/检查点_{n}.ckpt",
      "# 设置环境变量 ASCEND_RT_VISIBLE_DEVICES=0,1,2,3（只用前四张卡）",
      "数据集预处理完成，样本数 {n}，耗时 {f:.1f} 秒",
      "信息：日志写入 /var/log/训练/rank_{m}.log", "评估结果：准确率 {f:.2%}，召回率 {g:.2%}",
      "保存模型到 /home/用户/输出/第{m}轮/model.safetensors", "当前显存占用 {m} MB，峰值 {n} MB",
      "\u3000\u3000第 {m} 个批次已下发", "配置文件 /etc/训练/配置.yaml 读取成功，共 {m} 项"]
ZH_CODES = ["错误：EI0002 任务执行超时，设备 {m}", "[ERROR] 运行时错误码 507053，设备 {m} 上的算子执行失败",
            "故障：0x80E01801 设备 {m} HBM 多比特错误", "HCCL 通信失败，错误码 EI9999，rank {m}"]
ASCII = ["step {n}/1000000 loss {f:.4f} lr {g:.2e} time {m} ms", "loading checkpoint /data/model/ckpt_{n}.ckpt",
         "dataset preprocessed: {n} samples in {f:.1f} s", "[INFO] writing log to /var/log/train/rank_{m}.log",
         "eval: accuracy {f:.2%} recall {g:.2%}", "current device memory {m} MB, peak {n} MB"]


def lines(templates: list[str], n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [f"2026-03-01 10:{rng.randrange(60):02d}:{rng.randrange(60):02d} " +
            rng.choice(templates).format(n=rng.randrange(10**6), f=rng.random() * 3, g=rng.random() / 100,
                                         m=rng.randrange(8)) for _ in range(n)]


def per_line(n: int) -> None:
    from bench_bundle_match import VENDOR, import_vendor

    from opsbrain.ingest.parsers import parse_line
    from opsbrain.kb import SignatureMatcher, load_imported, load_kb

    tmp = Path(tempfile.mkdtemp(prefix="bench-wide-"))
    try:
        import_vendor(VENDOR, tmp)
        m = SignatureMatcher(load_kb(), load_imported(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sets = {"ASCII console": lines(ASCII, n), "Chinese console": lines(ZH, n),
            "Chinese + error code": lines(ZH_CODES, n)}
    parse_line(sets["ASCII console"][0])
    m.match(sets["ASCII console"][0])
    print(f"{'lines':24} {'parse_line us':>14} {'match us':>10}")
    for name, texts in sets.items():
        best = []
        for fn in (parse_line, m.match):
            runs = []
            for _ in range(3):
                t0 = time.perf_counter()
                for t in texts:
                    fn(t)
                runs.append((time.perf_counter() - t0) / len(texts) * 1e6)
            best.append(min(runs))
        print(f"{name:24} {best[0]:>14.1f} {best[1]:>10.1f}")


def chinese_bundle(tmp: Path, total: int) -> Path:
    """The node-crash-training bundle (vendor knowledge imported into ``tmp/home``) padded with Chinese console
    lines in each worker's rank logs up to ``total`` lines."""
    from bench_bundle_match import VENDOR, import_vendor

    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    import_vendor(VENDOR, tmp / "home" / "kb_imports")
    journal = run_plan(chaos.plan("node-crash-training"), load_engine(), bundle_dir=tmp / "bundles")
    entry = next((b for b in journal["bundles"] if b["incident"].startswith("f")), journal["bundles"][0])
    bundle = Path(entry["path"])
    import json

    man = json.loads((bundle / "bundle.json").read_text())
    t0 = datetime.fromisoformat(man["window"]["start"])
    span = max(1.0, (datetime.fromisoformat(man["window"]["end"]) - t0).total_seconds())
    files = [p for p in bundle.rglob("*") if p.is_file() and p.name != "bundle.json"]
    have = sum(len(p.read_text(errors="replace").splitlines()) for p in files)
    rng = random.Random(7)
    workers = sorted(man["workers"])
    need = max(0, total - have)
    per: dict[Path, list[tuple[datetime, str]]] = {}
    body = lines(ZH, need, 7)
    for i, text in enumerate(body):
        dt = t0 + timedelta(seconds=rng.uniform(0.0, span))
        path = bundle / workers[i % len(workers)] / f"rank-{rng.randrange(8)}.log"
        per.setdefault(path, []).append((dt, f"[{dt:%Y-%m-%d %H:%M:%S}] " + text.split(" ", 2)[2]))
    for path, rows in per.items():
        old = path.read_text(errors="replace").splitlines() if path.exists() else []
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(old + [t for _dt, t in sorted(rows)]) + "\n", encoding="utf-8")
    return bundle


def whole(total: int) -> None:
    import os

    from bench_startup import run_once

    tmp = Path(tempfile.mkdtemp(prefix="bench-wide-bundle-"))
    try:
        bundle = chinese_bundle(tmp, total)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["OPSBRAIN_HOME"] = str(tmp / "home")
        args = ["diagnose", "--bundle", str(bundle)]
        first = run_once(args, env, None)
        runs = [run_once(args, env, None) for _ in range(3)]
        print(f"diagnose --bundle ({total:,} lines, Chinese console): first {first[0]:.2f} s; wall p50 "
              f"{statistics.median(r[0] for r in runs):.2f} s, cpu p50 {statistics.median(r[1] for r in runs):.2f} s"
              f" (goal 2 s; exit {runs[-1][2]}; load {os.getloadavg()[0]:.1f})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=2000, help="lines of each kind timed in process")
    ap.add_argument("--bundle", action="store_true", help="also the 100,000-line Chinese bundle, whole process")
    ap.add_argument("--total", type=int, default=100_000, help="lines of that bundle")
    ap.add_argument("--src", type=Path, default=None, help="time the opsbrain of this source tree instead")
    args = ap.parse_args(argv)
    if args.src is not None:
        import bench_startup

        sys.path.insert(0, str(args.src.resolve()))
        bench_startup.SRC = args.src
    per_line(args.lines)
    if args.bundle:
        whole(args.total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
