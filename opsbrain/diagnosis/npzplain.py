"""Read the model's ``.npz`` arrays without numpy: a zip of ``.npy`` files (format 1.0-3.0: a magic string, a
header dict literal, raw little-endian data), each returned as a flat :class:`array.array` with its shape.

Only what the model stores is read (C-ordered little-endian int32/int64/uint64/float32/float64); anything else
raises :class:`NotPlain` and the caller reads the file with numpy instead.

Inflating the shipped model's arrays (6.8 MB of leaf values, deflated to 1.3 MB) took ~25 ms of every diagnosis, a
twentieth of a 5-line one: :func:`load_npz_cached` keeps the arrays raw in the data directory's cache, named
by the model file's digest, and reads them from there (~3 ms) -- session 36.
"""

from __future__ import annotations

import ast
import io
import struct
import sys
import zipfile
from array import array
from pathlib import Path
from typing import Any

MAGIC = b"\x93NUMPY"
_TYPECODES = {"<i4": "i", "<i8": "q", "<u8": "Q", "<f4": "f", "<f8": "d", "|u1": "B", "|i1": "b"}


class NotPlain(ValueError):
    """An array this reader does not handle (the caller falls back to numpy)."""


class PlainArray:
    """A flat array with a shape (row-major), enough for serving: ``tolist()``, ``len()``, ``shape``, indexing."""

    __slots__ = ("data", "shape")

    def __init__(self, data: array[Any], shape: tuple[int, ...]) -> None:
        self.data = data
        self.shape = shape

    def tolist(self) -> list[Any]:
        return self.data.tolist()

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 1

    def __iter__(self) -> Any:
        return iter(self.data)

    def __getitem__(self, i: int) -> Any:
        return self.data[i]


def _npy(raw: bytes, name: str) -> PlainArray:
    if not raw.startswith(MAGIC) or len(raw) < 10:
        raise NotPlain(f"{name}: not an .npy array")
    major = raw[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", raw[8:10]), 10
    elif major in (2, 3):
        (hlen,), start = struct.unpack("<I", raw[8:12]), 12
    else:
        raise NotPlain(f"{name}: .npy format {major}")
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    descr, fortran, shape = header.get("descr"), header.get("fortran_order"), tuple(header.get("shape", ()))
    code = _TYPECODES.get(descr) if isinstance(descr, str) else None
    if code is None or fortran or sys.byteorder != "little" or array(code).itemsize != int(descr[2:]):
        raise NotPlain(f"{name}: dtype {descr!r}, fortran order {fortran}")
    data = array(code)
    data.frombytes(raw[start + hlen:])
    n = 1
    for d in shape:
        n *= d
    if len(data) != n:
        raise NotPlain(f"{name}: {len(data)} values for shape {shape}")
    return PlainArray(data, shape)


def load_npz(data: bytes) -> dict[str, PlainArray]:
    """Every array of an ``.npz`` file's bytes, by name (raises NotPlain, or zipfile/OS errors for a bad file)."""
    out: dict[str, PlainArray] = {}
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            name = info.filename.removesuffix(".npy")
            out[name] = _npy(z.read(info), name)
    return out


CACHE_PREFIX = "model-arrays-"


def load_npz_cached(data: bytes, digest: str, cache_dir: Path | None) -> dict[str, PlainArray]:
    """:func:`load_npz` of ``data`` (an ``.npz`` whose sha256 is ``digest``), through a raw copy of its arrays in
    ``cache_dir`` (:mod:`opsbrain.rawcache`): read from there when it is whole, else inflated from ``data`` and
    written there for the next process. The arrays are the same either way."""
    if cache_dir is None:
        return load_npz(data)
    from opsbrain import rawcache

    path = rawcache.path_for(cache_dir, CACHE_PREFIX, digest)
    got = rawcache.read(path, digest)
    if got is not None:
        shapes = got[0]["shapes"]
        return {k: PlainArray(a, tuple(shapes[k])) for k, a in got[1].items()}
    out = load_npz(data)
    rawcache.store(path, digest, {"shapes": {k: list(a.shape) for k, a in out.items()}},
                   {k: a.data for k, a in out.items()})
    return out
