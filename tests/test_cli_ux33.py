"""Session 33's walk of the command tree as a new on-call engineer (README and --help only): what a person reads
at 3 a.m. -- no Python reprs or raw None, numbers with their units, the option or file named in every error, and
bad output paths refused before minutes of work, not after."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from opsbrain.cli import cli

REPR = re.compile(r"\bNone\b|\bnan\b|\{'|\('|(?<!\d)\d\.\d{5,}")  # a raw None/nan, a dict or tuple repr, 6+ decimals


def test_campaign_prose_has_no_raw_none_and_rounds_its_numbers(tmp_path: Path) -> None:
    """Runs with no fault have no accuracy and no hands-off share: '-' (was 'correct (None)', 'share None'); the
    auto-vs-manual lines round as the tables do and give reductions as percentages (were 0.993745, 705.260324 s,
    'reduced by 0.7539')."""
    quiet = CliRunner().invoke(cli, ["chaos", "campaign", "--days", "0.5", "--seeds", "2", "--workers", "1",
                                     "--data-dir", str(tmp_path / "a")])
    assert quiet.exit_code == 0, quiet.output
    line = next(x for x in quiet.output.splitlines() if "diagnosis:" in x)
    assert "0/0 correct (-)" in line and "hands-off share -;" in line
    assert "no fault in these runs" in quiet.output
    both = CliRunner().invoke(cli, ["chaos", "campaign", "--days", "2", "--seeds", "2", "--first-seed", "5",
                                    "--policy", "both", "--workers", "1", "--data-dir", str(tmp_path / "b")])
    assert both.exit_code == 0, both.output
    prose = [x for x in both.output.splitlines() if x.startswith(("auto vs manual", "  diagnosis", "  ttr of"))]
    assert len(prose) >= 5
    for x in prose:
        assert not REPR.search(x), x
    assert any(re.search(r"reduced by \d+\.\d%", x) for x in prose)
    for x in quiet.output.splitlines() + both.output.splitlines():
        assert not REPR.search(x), x
