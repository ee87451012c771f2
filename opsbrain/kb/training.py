"""Train, persist and load the diagnosis model (its held-out evaluation: :mod:`opsbrain.kb.heldout_eval`).

A model ships in the package (``knowledge_base/model``) with its sidecar and is never written by default:
``opsbrain kb train`` writes ``$OPSBRAIN_HOME/models/diagnosis.npz``, which the engine then prefers. The engine
takes, in order: an explicit ``--model`` file, the trained model in the data directory, the shipped model, a
first-use model cached in the data directory. When no sidecar matches this install (an edited knowledge base,
another model format), it trains a smaller model on first use, caches it and says so once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.diagnosis.engine import Engine
from opsbrain.diagnosis.model import DiagnosisModel, ModelMismatch
from opsbrain.store import default_home

if TYPE_CHECKING:
    from opsbrain.diagnosis.params import DiagnosisParams

log = logging.getLogger(__name__)
Say = Callable[[str], None]
FIRST_USE_PER_KIND = 12
TEXT_CASES_PER_CLASS = 150


def shipped_model_path() -> Path:
    return Path(str(resources.files("knowledge_base"))) / "model" / "diagnosis.npz"


def trained_model_path(home: Path | None = None) -> Path:
    """Where ``opsbrain kb train`` writes by default (the shipped model stays read-only)."""
    return (home or default_home()) / "models" / "diagnosis.npz"


def cached_model_path(home: Path | None = None) -> Path:
    return (home or default_home()) / "model" / "diagnosis.npz"


def kb_hash() -> str:
    """The knowledge base's hash, with the code/message tables that feed the features: codes.yaml, the category
    tables, and the documented code tables (code_tables/*.yaml: their message templates are read as codes). The
    vendor map is not in it: it is read at diagnosis time only (a vendor match becomes a ``vendor:<class>`` signal, a
    kind every class has whatever the map says), so no training case depends on it and a reviewed map needs no
    retrained model."""
    import hashlib

    from opsbrain.kb.loader import load_kb

    h = hashlib.sha256(load_kb().hash().encode())
    base = Path(str(resources.files("knowledge_base")))
    for name in ("codes.yaml", "categories.yaml", "fd_categories.yaml"):
        p = base / name
        h.update(p.read_bytes() if p.exists() else b"")
    for table in sorted((base / "code_tables").glob("*.yaml")):
        h.update(table.name.encode() + b"\0" + table.read_bytes())
    return h.hexdigest()[:16]


def training_library(per_kind: int = 30, workers: int = 2, progress: Callable[[int, int], None] | None = None,
                     text_per_class: int = TEXT_CASES_PER_CLASS) -> dict[str, Any]:
    """The training set: twin case runs from training seeds (live and text views) and knowledge-base text cases,
    with one group per run (cross-validation folds never split a run) and the generation time."""
    from opsbrain.kb import cases as case_lib  # the simulator: imported by training only, never by diagnosis

    t0 = time.perf_counter()
    cases = case_lib.generate(case_lib.TRAIN_SEEDS, per_kind=per_kind, workers=workers, progress=progress,
                              text_views=True)
    gen_s = time.perf_counter() - t0
    from opsbrain.diagnosis.knowledge import default_table
    from opsbrain.kb import textcases
    from opsbrain.kb.loader import load_kb

    texts = textcases.generate(default_table(), per_class=text_per_class,
                               families={c.id: c.family for c in load_kb()})
    return {"features": [c.features for c in cases] + [c.features for c in texts],
            "labels": [c.label for c in cases] + [c.label for c in texts],
            "groups": [f"twin-{c.run_seed}" for c in cases] + [c.group for c in texts],
            "text_cases": len(texts), "generation_s": round(gen_s, 1)}


def train_model(per_kind: int = 30, workers: int = 2, seed: int = 0,
                progress: Callable[[int, int], None] | None = None) -> DiagnosisModel:
    """Generate the case library from training seeds and fit the model on it (grouped by run for CV); the
    library's discrete-feature signatures ride with the model (near-copy rate of ``kb eval``)."""
    from opsbrain.kb import cases as case_lib
    from opsbrain.kb import nearcopy, textcases

    lib = training_library(per_kind, workers, progress)
    model = DiagnosisModel.train(lib["features"], lib["labels"], kb_hash(), seed=seed, groups=lib["groups"],
                                 extra={"case_runs_per_kind": per_kind, "case_seeds": "0..9999 (training range)",
                                        "views": "live (controller) and text (pasted logs: no metrics, no jobs)",
                                        "text_cases": lib["text_cases"], "text_cases_per_class": TEXT_CASES_PER_CLASS,
                                        "text_seed": textcases.TRAIN_SEED, "text_streams": "one per class",
                                        "forest_seed": seed, "case_generation_s": lib["generation_s"],
                                        "sibling_links": case_lib.TRAIN_WORLD.sibling_links,
                                        "healed_link_downs": case_lib.TRAIN_WORLD.healed_link_downs})
    model.arrays.update(nearcopy.signature_arrays(lib["features"], lib["labels"], model.classes))
    return model


def training_signatures(model: DiagnosisModel, workers: int = 2, say: Say | None = None,
                        home: Path | None = None) -> set[tuple[int, str]]:
    """The (signature, label) pairs of the model's training library: stored with the model, else regenerated from
    the sidecar's recipe (same seeds, so the same library) and cached in the data directory for this model."""
    import io

    import numpy as np

    from opsbrain.fsio import write_atomic
    from opsbrain.kb import nearcopy

    stored = nearcopy.stored_pairs(model.arrays, model.classes)
    if stored is not None:
        return stored
    cache = cached_model_path(home).parent / f"train_signatures-{str(model.meta.get('arrays_sha256'))[:16]}.npz"
    try:
        with np.load(cache, allow_pickle=False) as z:
            cached = nearcopy.stored_pairs({k: z[k] for k in z.files}, model.classes)
        if cached is not None:
            return cached
    except (OSError, ValueError, KeyError, IndexError):
        pass  # no cache yet, or unreadable: regenerate
    per_kind = int(model.meta.get("case_runs_per_kind", 30))
    text_per_class = int(model.meta.get("text_cases_per_class", TEXT_CASES_PER_CLASS))
    if say:
        say(f"opsbrain: the model carries no training signatures; regenerating its training library "
            f"({per_kind} runs per class, once; cached in {cache.parent}) for the near-copy rate")
    lib = training_library(per_kind, workers, None, text_per_class)
    arrays = nearcopy.signature_arrays(lib["features"], lib["labels"], model.classes)
    buf = io.BytesIO()
    np.savez_compressed(buf, train_sig=arrays["train_sig"], train_sig_label=arrays["train_sig_label"])
    cache.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(cache, buf.getvalue(), mode=0o644)
    return nearcopy.pairs_of(lib["features"], lib["labels"])


def load_model_file(path: Path) -> DiagnosisModel:
    """An explicit model file and its sidecar, checked as a pair (digest) and against this install; bad: InputError."""
    from opsbrain.errors import InputError

    if path.suffix != ".npz":
        raise InputError("give a model file ending in .npz (its sidecar is the .json beside it)", file=str(path),
                         path="--model")
    try:
        return DiagnosisModel.load(path, kb_hash())
    except ModelMismatch as exc:
        raise InputError(str(exc), file=str(path), path="--model") from None
    except Exception as exc:  # noqa: BLE001 - an unreadable file is bad input, one line
        raise InputError(f"not a readable model: {type(exc).__name__}: {exc}", file=str(path), path="--model") from None


def load_engine(home: Path | None = None, say: Say | None = None, params: DiagnosisParams | None = None,
                model: Path | None = None) -> Engine:
    """The engine with ``model`` (only that file), else the trained model in the data directory, the shipped model,
    a cached one, or one trained now (announced through ``say``)."""
    if model is not None:
        engine = Engine(load_model_file(Path(model)), params)
        log.info("diagnosis model loaded", extra={"path": str(model), "given": True})
        return engine
    from opsbrain.kb.compiled import cache_path, compiled_kb

    h = compiled_kb(home).kb_hash  # = kb_hash(), compiled once (no pydantic at diagnosis time)
    cache = cache_path(home).parent
    reasons = []
    trained = trained_model_path(home)
    candidates = ([trained] if trained.exists() else []) + [shipped_model_path(), cached_model_path(home)]
    for path in candidates:
        try:
            engine = Engine(DiagnosisModel.load(path, h, cache), params)
            log.info("diagnosis model loaded", extra={"path": str(path)})
            return engine
        except ModelMismatch as exc:
            reasons.append(str(exc))
        except Exception as exc:  # an unreadable file is a cache miss, not a crash
            reasons.append(f"{path}: {type(exc).__name__}: {exc}")
    log.warning("no usable diagnosis model; training one", extra={"reasons": reasons})
    if say:
        say(f"opsbrain: no usable diagnosis model ({reasons[0]}); training one now on "
            f"{FIRST_USE_PER_KIND} case runs per fault class (once; cached in {cached_model_path(home).parent})")
    fresh = train_model(per_kind=FIRST_USE_PER_KIND)
    fresh.save(cached_model_path(home))
    return Engine(fresh, params)
