"""``opsbrain kb``: list, show, validate, import, coverage, train, eval, text-cv, text-train."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from opsbrain.cli.base import (
    NON_EMPTY,
    _emit_json,
    _Finite,
    cli,
    data_dir_option,
    echo_errors,
    force_option,
    json_option,
)
from opsbrain.cli.output import Table, emit, output_option, resolve_format
from opsbrain.errors import InputError

model_option = click.option(
    "--model", "model", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE.npz",
    help="Use this model file (with its .json sidecar, checked as a pair) instead of the trained or shipped one.")


# ---- knowledge base (issue 5) --------------------------------------------------------------------------
@cli.group()
def kb() -> None:
    """The fault knowledge base: classes, vendor imports, the diagnosis model (train, eval)."""


@kb.command("list")
@output_option
@json_option
def kb_list_cmd(output: str | None, as_json: bool) -> None:
    """List the fault classes."""
    from opsbrain.kb import kb_list

    fmt = resolve_format(output, as_json)
    rows = kb_list()
    table = Table.of(["class", "handling", "runbook", "title"], title=f"fault classes ({len(rows)})", wrap=["title"])
    for r in rows:
        table.add(r.get("id"), r.get("handling"), r.get("runbook"), r.get("title"))
    emit(table, fmt, {"classes": rows})


@kb.command("show")
@click.argument("class_id")
@json_option
def kb_show_cmd(class_id: str, as_json: bool) -> None:
    """Show one fault class."""
    from opsbrain.kb import kb_show

    data = kb_show(class_id)
    if as_json:
        _emit_json(data)
        return
    from opsbrain.cli.output import yaml_text

    click.echo(yaml_text(data))


@kb.command("validate")
@click.argument("path", type=NON_EMPTY, required=False)
@json_option
def kb_validate_cmd(path: str | None, as_json: bool) -> None:
    """Validate the knowledge base (or the classes at PATH); every error with file and path."""
    from opsbrain.kb import validate_kb

    errors = [str(e) for e in validate_kb(path)]
    if as_json:
        _emit_json({"valid": not errors, "errors": errors})
    elif not errors:
        click.echo("knowledge base valid")
    echo_errors(errors if not as_json else [])
    if errors:
        sys.exit(2)


@kb.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(["mindcluster-faultcode", "mindcluster-kg"]))
@click.argument("path")
@data_dir_option
@json_option
def kb_import_cmd(fmt: str, path: str, data_dir: Path | None, as_json: bool) -> None:
    """Import vendor knowledge from PATH. FORMAT is mindcluster-faultcode (MindCluster's faultCode.json: fault codes
    and their handling levels) or mindcluster-kg (its kg-config.json: the fault knowledge graph of causes and
    suggestions). Imports go to $OPSBRAIN_HOME/kb_imports and are matched by diagnose."""
    from opsbrain.kb import kb_import

    rep = kb_import(fmt, path, data_dir=(data_dir / "kb_imports") if data_dir else None)
    if as_json:
        _emit_json(rep)
        return
    click.echo(f"{path}: {rep.get('imported')} imported, {rep.get('refused')} refused")
    for reason, where in (rep.get("refused_reasons") or {}).items():
        shown = ", ".join(map(str, where)) if isinstance(where, list | tuple) else str(where)
        click.echo(f"  refused {shown}: {reason}")


@kb.command("coverage")
@click.option("--table", "tables", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              metavar="FILE.yaml", help="Measure this documented code table (format of knowledge_base/code_tables/) "
              "instead of the shipped ones; repeatable.")
@click.option("--faultcode", "faultcodes", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              metavar="FILE.json", help="Also measure a MindCluster fault-level file (faultCode.json or "
              "SwitchFaultCode.json; read, not imported); repeatable.")
@click.option("--missing", is_flag=True, help="List the codes that are not known (with --json: in each table).")
@output_option
@json_option
def kb_coverage_cmd(tables: tuple[Path, ...], faultcodes: tuple[Path, ...], missing: bool, output: str | None,
                    as_json: bool) -> None:
    """Per documented code table: how many of its codes the knowledge base knows (reads as a class, as ambiguous, or
    as a category without a class), out of the codes in the table. Each code is written in its real log form and
    read by the ingestion layer, as a log line would be."""
    from opsbrain.kb.coverage import OUTCOMES, coverage, faultlevel_table, read_table, shipped_tables

    chosen = [read_table(p) for p in tables] if tables else shipped_tables()
    chosen += [faultlevel_table(p) for p in faultcodes]
    res = coverage(chosen)
    fmt = resolve_format(output, as_json)
    table = Table.of(["table", "known", "rows", "share", *OUTCOMES], title="documented code tables: codes known",
                     right=["known", "rows", "share", *OUTCOMES])
    for c in res:
        d = c.as_dict()
        table.add(d["table"], d["known"], d["rows"], "-" if d["share"] is None else f"{d['share']:.1%}",
                  *(d[o] for o in OUTCOMES))
    known, total = sum(c.known for c in res), sum(c.total for c in res)
    table.note(f"all tables: {known} / {total} known" + (f" ({known / total:.1%})" if total else "")
               + "; known = class + ambiguous + category")
    data = {"tables": [c.as_dict(missing) for c in res], "known": known, "rows": total}
    emit(table, fmt, data)
    if missing and fmt != "json":
        for c in res:
            for m in c.as_dict(True)["missing"]:
                click.echo(f"{c.table.id}\t{m['code']}\t{m['outcome']}\t{m['name']}")


@kb.command("train")
@click.option("--runs-per-class", default=30, show_default=True, type=click.IntRange(2, 10_000),
              help="Case runs per fault class.")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 256),
              help="Parallel case-run processes.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the model, a .npz name (its sidecar: the same name with .json; default: "
              "DATA_DIR/models/diagnosis.npz, which diagnosis then prefers; the shipped model is replaced only "
              "when named here with --force).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1),
              help="The forest's random seed (bootstrap and feature draws; the case library is the same at every "
              "seed): another seed on an unchanged knowledge base measures how far a refit moves answers by "
              "chance alone.")
@data_dir_option
@force_option
@json_option
def kb_train_cmd(runs_per_class: int, workers: int, out: Path | None, seed: int, data_dir: Path | None,
                 force: bool, as_json: bool) -> None:
    """Generate the case library (training seeds) and train the diagnosis model with its sidecar."""
    from opsbrain.diagnosis.model import sidecar
    from opsbrain.fsio import check_target, check_writable
    from opsbrain.kb.training import train_model, trained_model_path

    path = out or trained_model_path(data_dir)
    if path.suffix != ".npz":
        raise InputError(f"give a model name ending in .npz (its sidecar is the .json beside it), got "
                         f"{str(path)[:200]!r}", path="--out")
    if out is None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create the models directory: {exc.strerror or exc}",
                             file=str(path.parent)) from None
    for target in (path, sidecar(path)):  # refuse before minutes of training, not after
        check_target(target, "--out", force)
    check_writable(path.parent, "--out")
    model = train_model(per_kind=runs_per_class, workers=workers, seed=seed,
                        progress=None if as_json else _counter("case runs"))
    model.save(path, force=force)
    meta = {k: v for k, v in model.meta.items() if k != "features"} | {"path": str(path)}
    if as_json:
        _emit_json(meta)
        return
    click.echo(f"trained on {meta['cases']} cases, cross-validated accuracy {meta['cv_accuracy']}; wrote {path}")


def _counter(what: str) -> Any:
    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            click.echo(f"\r{what}: {done}/{total}", err=True, nl=done == total)

    return progress


@kb.command("eval")
@click.option("--runs-per-class", default=8, show_default=True, type=click.IntRange(1, 10_000),
              help="Held-out case runs per class.")
@click.option("--noise-days", default=1.0, show_default=True, type=_Finite(0, 3650, min_open=True),
              help="Noise-only pod-days for FPs.")
@click.option("--quick", is_flag=True, help="A smaller run (3 runs per class, 0.25 noise-only pod-days).")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 256),
              help="Parallel case-run processes.")
@click.option("--real", "real", type=NON_EMPTY, default=None, metavar="DIR|FILE",
              help="Score the real-log corpus instead (tests/data/real_logs in a checkout); with --split.")
@click.option("--split", type=click.Choice(["dev", "test", "all"]), default="dev", show_default=True,
              help="Which part of the real-log corpus to score (the test part only when the work is done).")
@click.option("--vendor-kg", "vendor_kg", default=None, metavar="FILE",
              help="With --real: match this MindCluster knowledge graph (kg-config.json) instead of the imports in the "
              "data directory (imported into a temporary directory; nothing of yours is written).")
@click.option("--vendor-faultcode", "vendor_faultcode", default=None, metavar="FILE",
              help="With --real: likewise a MindCluster fault-level file (faultCode.json).")
@click.option("--no-text-fallback", "no_text", is_flag=True,
              help="With --real: the signal verdict alone, without the real-text fallback (the engine's own figure).")
@click.option("--cross-fit", "cross_fit", type=click.Choice(["thread", "project"]), default=None,
              help="With --real --split dev: the real-text fallback reads each excerpt with a model fitted without "
              "the excerpt's fold (5 folds grouped by source thread or project), not the shipped one, which has read "
              "every dev excerpt.")
@click.option("--cross-fit-also", "cross_fit_also", type=NON_EMPTY, multiple=True, metavar="FILE",
              help="With --cross-fit: labelled excerpts from outside the corpus (a blind set's YAML) added to every "
              "fold's training, never scored; repeatable (as kb text-train --also).")
@click.option("--healthy", "healthy", type=NON_EMPTY, default=None, metavar="DIR|FILE",
              help="Count false alarms on real healthy logs instead (tests/data/healthy_logs in a checkout).")
@click.option("--text-model", "text_model", type=NON_EMPTY, default=None, metavar="FILE.json",
              help="With --real or --healthy: the real-text fallback reads with this text model (kb text-train --out) "
              "instead of the shipped one.")
@model_option
@data_dir_option
@json_option
def kb_eval_cmd(runs_per_class: int, noise_days: float, quick: bool, workers: int, real: str | None, split: str,
                vendor_kg: str | None, vendor_faultcode: str | None, no_text: bool, cross_fit: str | None,
                cross_fit_also: tuple[str, ...], healthy: str | None, text_model: str | None, model: Path | None,
                data_dir: Path | None, as_json: bool) -> None:
    """Evaluate the diagnosis on held-out worlds (axes training never saw); exit 1 below the bar (near-copy
    <= .20, fault-only top-1 .93, macro-F1 .90, localization .90, confident-wrong <= 2%).
    With --real: agreement on real log excerpts (exit 1 below 85% agreement or above 3% confident-wrong).
    With --healthy: false alarms on real logs of runs that went well (no bar; the figures are printed)."""
    from opsbrain.kb.heldout_eval import evaluate_heldout, shortfalls
    from opsbrain.kb.heldout_report import print_report
    from opsbrain.kb.training import load_engine

    if cross_fit_also and cross_fit is None:
        raise InputError("--cross-fit-also goes with --cross-fit")
    if text_model is not None and (cross_fit is not None or (real is None and healthy is None)):
        raise InputError("--text-model goes with --real or --healthy, not with --cross-fit")
    if text_model is not None and no_text:  # the model would read nothing (review46c)
        raise InputError("--text-model sets the text fallback that --no-text-fallback turns off: give one")
    with _served_text_model(text_model):
        if healthy is not None:
            if real is not None:
                raise InputError("give --real or --healthy, not both")
            _kb_eval_healthy(healthy, data_dir, as_json, model)
            return
        if real is not None:
            _kb_eval_real(real, split, data_dir, as_json, model, {"mindcluster-kg": vendor_kg,
                                                                  "mindcluster-faultcode": vendor_faultcode},
                          text_fallback=not no_text, cross_fit=cross_fit, cross_fit_also=cross_fit_also)
            return
    if vendor_kg or vendor_faultcode:
        raise InputError("--vendor-kg and --vendor-faultcode go with --real")
    if quick:
        runs_per_class, noise_days = 3, 0.25
    if runs_per_class < 1 or noise_days <= 0 or workers < 1:
        raise InputError("--runs-per-class must be >= 1, --noise-days > 0 and --workers >= 1")
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True), model=model)
    res = evaluate_heldout(engine, per_kind=runs_per_class, workers=workers, noise_days=noise_days,
                           progress=None if as_json else _counter("held-out runs"),
                           say=lambda m: click.echo(m, err=True), home=data_dir)
    short = shortfalls(res)
    res["passed"] = not short
    res["short"] = short
    if as_json:
        _emit_json(res)
    else:
        print_report(res, click.echo)
    if short:
        sys.exit(1)


def _matcher(data_dir: Path | None, imports: Path | None = None) -> Any:
    """The knowledge matcher with whatever vendor knowledge was imported (an unreadable import is skipped), from
    ``imports`` when given, else the data directory's."""
    from opsbrain.kb.compiled import compiled_kb
    from opsbrain.kb.importers import load_imported
    from opsbrain.kb.matcher import SignatureMatcher

    try:
        imported = load_imported(imports or ((data_dir / "kb_imports") if data_dir else None), strict=False)
    except InputError:
        imported = None
    return SignatureMatcher(compiled_kb(data_dir), imported)


def _served_text_model(path: str | None) -> Any:
    """A context in which the real-text fallback reads with the text model at ``path`` (none: the shipped one)."""
    import contextlib
    import json

    from opsbrain.diagnosis.realtext import FORMAT, model_from_doc, serving

    if path is None:
        return contextlib.nullcontext()
    try:
        doc = json.loads(Path(path).read_bytes())
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"not a text model of format {FORMAT}")
        return serving(model_from_doc(doc))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a readable text model ({exc})", file=path) from None


def _kb_eval_real(real: str, split: str, data_dir: Path | None, as_json: bool, model: Path | None = None,
                  vendor: dict[str, str | None] | None = None, text_fallback: bool = True,
                  cross_fit: str | None = None, cross_fit_also: tuple[str, ...] = ()) -> None:
    import tempfile

    from opsbrain.kb import kb_import
    from opsbrain.kb.realeval import evaluate_real
    from opsbrain.kb.training import load_engine

    root = Path(real)
    if not root.exists():
        raise InputError("no such file or directory", file=real)
    if cross_fit is not None and (split != "dev" or not text_fallback):
        raise InputError("--cross-fit goes with --split dev and the text fallback on")
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True), model=model)
    if not text_fallback:
        from opsbrain.diagnosis.engine import Engine
        from opsbrain.diagnosis.params import DiagnosisParams

        engine = Engine(engine.model, DiagnosisParams(text_fallback=False))
    given = {fmt: path for fmt, path in (vendor or {}).items() if path}
    with tempfile.TemporaryDirectory(prefix="opsbrain-vendor-") as tmp:
        for fmt, path in given.items():
            kb_import(fmt, path, data_dir=tmp)
        res = evaluate_real(engine, _matcher(data_dir, Path(tmp) if given else None), root, split=split,
                            cross_fit=cross_fit, cross_fit_also=[Path(p) for p in cross_fit_also])
    res["vendor"] = sorted(given.values())
    head = res["firm_or_likely"]
    ok = (head.get("agreement") or 0) >= 0.85 and head.get("confident_wrong", 1) <= 0.03
    if as_json:
        _emit_json(res)
    else:
        if cross_fit:
            click.echo(f"text fallback cross-fitted: each excerpt read by a model fitted without its fold "
                       f"(5 folds grouped by {cross_fit}); the parsers and knowledge base stay in-sample"
                       + (f"; every fold also fitted on {', '.join(cross_fit_also)}" if cross_fit_also else ""))
        for name in ("firm_or_likely", "all", "symptom_only"):
            b = res[name]
            click.echo(f"{name}: n {b['n']}, agreement {b.get('agreement')}, abstention {b.get('abstention')}, "
                       f"confident-wrong {b.get('confident_wrong')}, evidence cited {b.get('evidence_cited')}, "
                       f"root device {b.get('root_device')}, traps right {b.get('traps_right')}")
        if (res["firm_or_likely"].get("reliability") or {}).get("bins"):
            from opsbrain.kb.heldout_report import reliability_line

            click.echo(f"firm_or_likely answers, {reliability_line(res['firm_or_likely']['reliability'])}")
        click.echo(f"{'class':24} {'n':>3} {'right':>5} {'unknown':>7}  wrong")
        for c, v in res["per_class"].items():
            click.echo(f"{c:24} {v['n']:>3} {v['right']:>5} {v['unknown']:>7}  {v['wrong'] or ''}")
    if not ok:
        raise SystemExit(1)


def _kb_eval_healthy(healthy: str, data_dir: Path | None, as_json: bool, model: Path | None) -> None:
    from opsbrain.kb.healthyeval import evaluate_healthy
    from opsbrain.kb.training import load_engine

    root = Path(healthy)
    if not root.exists():
        raise InputError("no such file or directory", file=healthy)
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True), model=model)
    res = evaluate_healthy(engine, _matcher(data_dir), root)
    if as_json:
        _emit_json(res)
        return
    click.echo(f"healthy excerpts: n {res['n']}, false alarms {res['false_alarms']} (rate {res['false_alarm_rate']}), "
               f"confident false alarms {res['confident_false_alarms']}; by class {res['by_class']}")
    click.echo(f"{'program':24} {'n':>3} {'alarms':>6}")
    for p, c in res["by_program"].items():
        click.echo(f"{p:24} {c.get('n', 0):>3} {c.get('alarms', 0):>6}")


@kb.command("text-train")
@click.option("--real", "real", type=NON_EMPTY, default=None, metavar="DIR|FILE",
              help="The real-log corpus (default: tests/data/real_logs in a checkout). Only its dev split is read.")
@click.option("--out", type=NON_EMPTY, default=None, metavar="FILE.json",
              help="Where to write the model (default: the shipped knowledge_base/model/realtext.json, with --force).")
@click.option("--force", is_flag=True, help="Allow replacing the package's own data (the shipped text model).")
@click.option("--also", "also", type=NON_EMPTY, multiple=True, metavar="FILE",
              help="Also fit on the labelled excerpts of this YAML file from outside the corpus (a blind set: "
              "tests/data/blind/blind<N>.yaml, or blind<N>_healthy.yaml read as 'other'); repeatable. An id or text "
              "also in the corpus is refused.")
@json_option
def kb_text_train_cmd(real: str | None, out: str | None, force: bool, also: tuple[str, ...], as_json: bool) -> None:
    """Fit the real-text fallback on the real-log corpus' dev excerpts (tf-idf + logistic regression) and write it
    as the plain JSON the diagnosis serves; prints its chronological check (each later part scored by a model of
    the earlier ones, on the dev parts alone)."""
    from opsbrain.diagnosis.realtext import MODEL_FILE
    from opsbrain.fsio import check_target, check_writable
    from opsbrain.kb.realeval import default_corpus_dir
    from opsbrain.kb.realtext_fit import fit_text_model, write_model

    root = Path(real) if real else default_corpus_dir()
    if root is None or not root.exists():
        raise InputError("no such file or directory (give --real DIR)", file=str(real or "tests/data/real_logs"))
    target = Path(out) if out else MODEL_FILE
    if not target.name.endswith(".json"):
        raise InputError("the text model is a .json file", path="--out")
    check_writable(check_target(target, "--out", force).parent, "--out")  # before the fit, not after it
    doc = fit_text_model(root, engine=_engine_alone_answers(root), also=[Path(p) for p in also])
    write_model(doc, target, force=force)
    meta = doc["meta"]
    if as_json:
        _emit_json({"out": str(target), **meta})
        return
    check = meta["chronological_check"]
    click.echo(f"fitted on {meta['excerpts']} dev excerpts ({len(doc['classes'])} classes, {len(doc['vocab'])} "
               f"tokens); wrote {target}")
    for a in meta.get("also", []):
        click.echo(f"also fitted on {a['excerpts']} {a['kind']} excerpts of {a['file']} {a['labels']}; left out: "
                   f"{len(a['left_out_no_class'])} of no class of the model, {a['left_out_no_token']} with no token")
    click.echo(f"chronological check (firm/likely, parts {', '.join(check['parts'])}): answered "
               f"{check['answered']}/{check['n']}, right {check['right']} (precision {check['precision']})")
    so = meta["second_opinion_check"]
    click.echo(f"second-opinion check (the same readings against the shipped engine's answers without the fallback, "
               f"below {so['below']}, words at >= {so['at']}): {so['changed']} of {so['n']} answers change, "
               f"{so['to_right']} to right, {so['from_right']} from right")


def _engine_alone_answers(root: Path) -> dict[str, tuple[str, float]]:
    """The shipped engine's answers without the text fallback on the corpus' dev excerpts (no vendor imports)."""
    import tempfile

    from opsbrain.kb.realtext_fit import engine_answers
    from opsbrain.kb.training import load_engine, shipped_model_path

    engine = load_engine(model=shipped_model_path())
    with tempfile.TemporaryDirectory(prefix="opsbrain-no-imports-") as tmp:
        return engine_answers(root, engine, _matcher(None, Path(tmp)))


@kb.command("text-cv")
@click.option("--real", "real", type=NON_EMPTY, default=None, metavar="DIR|FILE",
              help="The real-log corpus (default: tests/data/real_logs in a checkout). Only its dev split is read.")
@click.option("--variant", "variants", multiple=True, type=click.Choice(["words", "words+signals", "words+signals+kb"]),
              help="Cross-validate only this variant (repeatable; default: all three).")
@click.option("--strength", default=10.0, show_default=True, type=_Finite(0, 1e6, min_open=True),
              help="Inverse regularisation of the logistic regression (scikit-learn's C).")
@model_option
@data_dir_option
@json_option
def kb_text_cv_cmd(real: str | None, variants: tuple[str, ...], strength: float, model: Path | None,
                   data_dir: Path | None, as_json: bool) -> None:
    """Grouped cross-validation, on the real-log corpus' dev split only, of a text classifier learned from the real
    excerpts (folds grouped by corpus part and by source project): per threshold on its top probability, coverage
    and precision overall and where the signal engine abstains, and what answering there would do."""
    from opsbrain.kb.realeval import default_corpus_dir
    from opsbrain.kb.textcv import VARIANTS, text_cv
    from opsbrain.kb.training import load_engine

    root = Path(real) if real else default_corpus_dir()
    if root is None or not root.exists():
        raise InputError("no such file or directory (give --real DIR)", file=str(real or "tests/data/real_logs"))
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True), model=model)
    res = text_cv(root, engine, _matcher(data_dir), variants or tuple(VARIANTS), strength)
    if as_json:
        _emit_json(res)
        return
    click.echo(f"dev excerpts {res['n']} ({res['parts']} parts, {res['projects']} projects); the engine abstains on "
               f"{res['engine_abstains']}; C={res['strength']}")
    for v, by in res["variants"].items():
        for g, rows in by.items():
            click.echo(f"== {v}, grouped by {g}")
            click.echo(" tau | all cov prec | firm/likely cov prec | engine abstains n cov prec | "
                       "combined firm/likely agree abst prec | veto overruled (engine wrong)")
            for r in rows:
                a, f, e, c, w = (r[k] for k in ("all", "firm_or_likely", "engine_abstains",
                                                  "combined_firm_or_likely", "veto"))
                click.echo(f" {r['tau']:.1f} | {a['coverage']} {a['precision']} | {f['coverage']} {f['precision']} | "
                           f"{e['answered']} {e['coverage']} {e['precision']} | {c['agreement']} {c['abstention']} "
                           f"{c['answered_precision']} | {w['engine_answers_overruled']} ({w['of_them_engine_wrong']})")
