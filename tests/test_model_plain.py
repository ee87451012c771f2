"""The model served without numpy: the plain .npz reader gives numpy's arrays, the plain forest gives numpy's
probabilities bit for bit, and a tie for the first place breaks as numpy's argsort (that a diagnosis imports no numpy:
tests/test_kb_compiled.py)."""

from __future__ import annotations

import hashlib
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

from opsbrain.diagnosis.engine import ranked
from opsbrain.diagnosis.forest import ArrayForest, f32
from opsbrain.diagnosis.npzplain import CACHE_PREFIX, load_npz, load_npz_cached
from opsbrain.kb.training import shipped_model_path

LEAF = -1


def _numpy_arrays() -> dict[str, np.ndarray]:
    with np.load(shipped_model_path(), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_the_plain_reader_reads_what_numpy_reads() -> None:
    want = _numpy_arrays()
    got = load_npz(shipped_model_path().read_bytes())
    assert set(got) == set(want)
    for k, a in want.items():
        assert got[k].shape == a.shape
        assert got[k].tolist() == a.ravel().tolist(), k


def test_the_cached_arrays_are_the_inflated_ones(tmp_path: Path) -> None:
    """Session 36: the raw copy in the cache (written by the first load, read by the next) gives the arrays the
    model file gives, value for value and type for type; a damaged or foreign copy is not read (the file is
    inflated again and the copy rewritten); an unwritable cache directory is no error."""
    data = shipped_model_path().read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    want = load_npz(data)

    def same(got: dict) -> bool:
        return set(got) == set(want) and all(
            got[k].shape == a.shape and got[k].data.typecode == a.data.typecode and got[k].data == a.data
            for k, a in want.items())

    assert same(load_npz_cached(data, digest, tmp_path))  # inflated, and written
    (copy,) = tmp_path.glob(f"{CACHE_PREFIX}*")
    assert same(load_npz_cached(b"not read: the copy is", digest, tmp_path))
    raw = bytearray(copy.read_bytes())
    raw[-5] ^= 0x40  # one bit of the leaf values
    copy.write_bytes(bytes(raw))
    with pytest.raises(zipfile.BadZipFile):  # the damaged copy is refused: the (empty) model file is read instead
        load_npz_cached(b"", digest, tmp_path)
    assert same(load_npz_cached(data, digest, tmp_path)) and copy.read_bytes() != bytes(raw)  # rewritten
    other = "0" * 64
    assert same(load_npz_cached(data, other, tmp_path))  # another model's digest: its own copy
    assert len(list(tmp_path.glob(f"{CACHE_PREFIX}*"))) == 2
    (tmp_path / "file").write_text("x")
    assert same(load_npz_cached(data, digest, tmp_path / "file" / "sub"))  # no cache directory can be made there


def _numpy_proba(arrays: dict[str, np.ndarray], row: dict[int, float]) -> np.ndarray:
    """The numpy walk this module replaced (float32 features, mean of the float32 leaf rows)."""
    feature, threshold = arrays["feature"].tolist(), arrays["threshold"].tolist()
    left, right = arrays["left"].tolist(), arrays["right"].tolist()
    leaves = []
    for node in arrays["roots"].tolist():
        while left[node] != LEAF:
            node = left[node] if float(np.float32(row.get(feature[node], 0.0))) <= threshold[node] else right[node]
        leaves.append(node)
    return np.asarray(arrays["value"][leaves].mean(axis=0), dtype=np.float64)


def test_plain_probabilities_equal_numpys_bit_for_bit() -> None:
    arrays = _numpy_arrays()
    plain = ArrayForest(load_npz(shipped_model_path().read_bytes()))
    from_numpy = ArrayForest(arrays)
    rng = random.Random(7)
    n_feat = int(arrays["feature"].max()) + 1
    for _ in range(400):
        row = {rng.randrange(n_feat): rng.choice([0.0, 0.5, 0.6931471805599453, 1.0986122886681098,
                                                  rng.uniform(0, 6), rng.uniform(-1e3, 1e3)])
               for _ in range(rng.randrange(1, 40))}
        want = _numpy_proba(arrays, row).tolist()
        assert plain.proba(row) == want
        assert from_numpy.proba(row) == want


def test_float32_rounding_is_numpys() -> None:
    with np.errstate(over="ignore"):
        for x in (0.1, 1 / 3, 2.0 ** -149, 3.4028235e38, 3.5e38, -3.5e38, 1e300, -0.0, 7.0):
            assert f32(x) == float(np.float32(x))


def test_the_ranking_is_numpys_where_the_answer_reads_it() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        probs = [rng.choice([0.0, 0.005, 0.025, 0.05, 0.1, 0.2, 0.3, 0.45]) for _ in range(23)]
        want = [int(i) for i in np.asarray(probs).argsort()[::-1]]
        got = ranked(probs)
        assert got[0] == want[0]
        assert sorted(got) == list(range(23))
        assert [probs[i] for i in got] == sorted(probs, reverse=True)  # alternatives by falling probability
