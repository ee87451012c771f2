"""The generators that rewrite docs (``python -m opsbrain.campaign.validation``, ``python -m opsbrain.recovery.params``)
replace the document in one step through :func:`opsbrain.fsio.write_atomic`, not a plain ``write_text`` that a
reader (or a crash) can catch half-written (session 35)."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.campaign import validation
from opsbrain.recovery import params


@pytest.fixture
def no_plain_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Path, *a: object, **k: object) -> int:
        raise AssertionError(f"plain write_text of {self}")

    monkeypatch.setattr(Path, "write_text", refuse)


def test_the_validation_section_is_written_atomically(tmp_path: Path, no_plain_writes: None) -> None:
    doc = tmp_path / "validation.md"
    doc.write_bytes(b"# Validation\n\nother text\n")
    validation.write_section(doc, f"{validation.BEGIN}\nfigures\n{validation.END}\n")
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Validation\n\nother text\n") and "figures" in text
    assert [p.name for p in tmp_path.iterdir()] == ["validation.md"]  # no temporary file left


def test_the_recovery_params_block_is_written_atomically(tmp_path: Path, no_plain_writes: None,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "recovery.md"
    doc.write_bytes(f"head\n{params.BEGIN}\nold\n{params.END}\ntail\n".encode())
    assert params.main(doc) == 0
    text = doc.read_text(encoding="utf-8")
    assert params.doc_block(text) == params.render_markdown() and text.endswith("tail\n")


def test_a_doc_that_is_a_symlink_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(f"{params.BEGIN}\n{params.END}\n".encode())
    (tmp_path / "recovery.md").symlink_to(real)
    assert params.main(tmp_path / "recovery.md") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "symlink" in err[0], err
