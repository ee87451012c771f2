"""The compact form of saved vendor imports (:mod:`opsbrain.kb.imported_cache`) reads as the imports do.

- written beside each import on the first read; the next read takes it and gives the same knowledge (levels,
  entries, sources, warnings) as the full read and check;
- an edited import, a damaged or foreign compact file, an edit of the code's key: the full read serves (and a damaged
  import still raises its error, whatever compact file lies beside it);
- a compact file whose import is gone is removed; an unwritable directory is no error;
- the real vendor files (when ../shared is there) read the same both ways.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opsbrain.errors import KnowledgeBaseError
from opsbrain.kb import imported_cache as C
from opsbrain.kb.importers import ImportedKnowledge, import_faultcode, import_kg, load_imported

FIX = Path(__file__).parent / "fixtures" / "vendor_small"
VENDOR = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "vendor"


def _full(d: Path, monkeypatch: pytest.MonkeyPatch, strict: bool = True) -> ImportedKnowledge:
    """load_imported without the compact form (neither read nor written)."""
    with monkeypatch.context() as m:
        m.setattr(C, "read_compact", lambda f, key: None)
        m.setattr(C, "write_compact", lambda f, key, saved: None)
        return load_imported(d, strict=strict)


def _same(a: ImportedKnowledge, b: ImportedKnowledge) -> None:
    assert a.levels == b.levels and a.sources == b.sources and a.warnings == b.warnings
    assert list(a.entries) == list(b.entries) and a.entries == b.entries


@pytest.fixture
def imports(tmp_path: Path) -> Path:
    d = tmp_path / "kb_imports"
    import_kg(FIX / "kg_good.json", d)
    import_faultcode(FIX / "faultcode_good.json", d)
    import_faultcode(FIX / "faultcode_switch.json", d)
    return d


def test_the_compact_form_is_written_then_read_and_reads_as_the_imports(imports: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    full = _full(imports, monkeypatch)
    assert not (imports / C.DIR_NAME).exists()
    first = load_imported(imports)  # the full read, which writes the compact forms
    compact = sorted(p.name for p in (imports / C.DIR_NAME).iterdir())
    assert compact == sorted(p.name for p in imports.glob("*.json")) and len(compact) == 3
    read = []
    real_read = C.read_compact
    monkeypatch.setattr(C, "read_compact", lambda f, key: read.append(f.name) or real_read(f, key))
    second = load_imported(imports)
    assert sorted(read) == compact
    _same(first, full)
    _same(second, full)
    assert any(e.regex for e in second.entries.values()) and any(e.groups for e in second.entries.values())


def test_an_edited_import_is_read_in_full_again(imports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_imported(imports)
    f = next(p for p in imports.glob("*.json") if "kg" in p.name)
    doc = json.loads(f.read_text())
    doc["entries"][0]["cause"] = "edited after the compact form was written"
    f.write_text(json.dumps(doc))
    got = load_imported(imports)
    assert doc["entries"][0]["cause"] in {e.cause for e in got.entries.values()}
    _same(got, _full(imports, monkeypatch))
    _same(load_imported(imports), got)  # the compact form was replaced


@pytest.mark.parametrize("junk", [b"", b"[1, 2", b"[]", b'{"format": 1}', b"\xff\xfe",
                                  b'{"format": 1, "key": "KEY", "fields": "FIELDS", "levels": {}, "source": "s", '
                                  b'"entries": [[1]]}'])
def test_a_damaged_compact_file_is_no_error(imports: Path, monkeypatch: pytest.MonkeyPatch, junk: bytes) -> None:
    load_imported(imports)
    for p in (imports / C.DIR_NAME).iterdir():
        key = C.content_key((imports / p.name).read_bytes())
        p.write_bytes(junk.replace(b"KEY", key.encode()).replace(b'"FIELDS"', json.dumps(C._field_names()).encode()))
    got = load_imported(imports)
    _same(got, _full(imports, monkeypatch))
    assert got.entries  # read in full: the knowledge is all there


def test_a_damaged_import_raises_whatever_lies_beside_it(imports: Path) -> None:
    load_imported(imports)
    f = next(p for p in imports.glob("*.json") if "kg" in p.name)
    f.write_text('{"levels": {"80E01801": "Reboot"}}')
    with pytest.raises(KnowledgeBaseError) as exc:
        load_imported(imports)
    assert exc.value.file == str(f) and exc.value.path == "levels.80E01801"
    assert "Reboot" in load_imported(imports, strict=False).warnings[0]


def test_a_new_code_key_reads_in_full(imports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_imported(imports)
    monkeypatch.setattr(C, "_code_hash", lambda: b"other code")
    read = []
    real_parse = C.write_compact
    monkeypatch.setattr(C, "write_compact", lambda f, key, saved: read.append(f.name) or real_parse(f, key, saved))
    load_imported(imports)
    assert len(read) == 3  # every import read in full and its compact form replaced


def test_a_removed_import_loses_its_compact_form(imports: Path) -> None:
    load_imported(imports)
    gone = next(p for p in imports.glob("*.json") if "switch" in p.name)
    gone.unlink()
    other = next(p for p in imports.glob("*.json") if "kg" in p.name)
    other.write_text(other.read_text() + "\n")  # a new key: written again, and the directory pruned
    load_imported(imports)
    assert sorted(p.name for p in (imports / C.DIR_NAME).iterdir()) == sorted(p.name for p in imports.glob("*.json"))


def test_an_unwritable_directory_costs_only_the_full_read(imports: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (imports / C.DIR_NAME).write_text("a file where the directory would be")
    got = load_imported(imports)
    _same(got, _full(imports, monkeypatch))
    assert got.entries and (imports / C.DIR_NAME).read_text() == "a file where the directory would be"


@pytest.mark.skipif(not (VENDOR / "kg-config.json").is_file(), reason="../shared/reference/vendor is absent")
def test_the_real_vendor_files_read_the_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "kb_imports"
    import_kg(VENDOR / "kg-config.json", d)
    import_faultcode(VENDOR / "faultCode.json", d)
    full = _full(d, monkeypatch)
    load_imported(d)
    again = load_imported(d)
    assert len(again.entries) > 1000
    _same(again, full)
