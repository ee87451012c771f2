"""The runtime's message templates read as their codes (opsbrain/ingest/parsers/templates.py), and settings named by
a failing line read as the environment's (framework.py CFG_ENV). Lines are in the format of hicann/runtime
error_code.json's ErrMessage (values ours)."""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.templates import MIN_FIXED, fixed_parts, holds, templates_of


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# EP0003: "Value %s for configuration item %s in configuration file %s is invalid. Reason: %s."
EP0003_TEXT = ("Value /data/dump for configuration item dump_path in configuration file /opt/app/acl.json is invalid. "
               "Reason: The path does not exist.")


def test_a_message_without_its_code_is_read_as_the_code() -> None:
    assert "err:EP0003" in kinds(EP0003_TEXT)


def test_a_line_that_prints_its_own_code_is_read_by_that_code_only() -> None:
    got = kinds("EE1001: " + EP0003_TEXT)
    assert "err:EE1001" in got and "err:EP0003" not in got


def test_the_parts_must_come_in_order() -> None:
    parts = fixed_parts("Value %s for configuration item %s in configuration file %s is invalid. Reason: %s.")
    assert parts == ["value", "for configuration item", "in configuration file", "is invalid. reason"]
    assert holds(EP0003_TEXT.lower(), parts)
    assert not holds("in configuration file x, value y for configuration item z is invalid. reason: q", parts)


def test_selection_rules() -> None:
    codes = {"cann_error_codes": [
        {"code": "EX0001", "category": "config_or_environment"},
        {"code": "EX0002", "category": "parameter_or_usage", "ambiguous": True},
        {"code": "EX0003", "category": "internal"},
        {"code": "EX0004", "category": "config_or_environment"},
        {"code": "EX0005", "category": "memory_exhausted"},
        {"code": "EX0006", "category": "operator_error"},
        {"code": "EX0007", "category": "operator_error"},
        {"code": "EX0009", "category": "config_or_environment", "template": "ordinary"}]}
    long = "The configuration of the widget %s could not be read"
    table = {"rows": [
        {"code": "EX0001", "template": long},
        {"code": "EX0002", "template": "Parameter %s of the widget is invalid here"},  # ambiguous code
        {"code": "EX0003", "template": "Internal error of the widget machinery %s"},  # says nothing of the cause
        {"code": "EX0004", "template": "%s failed. Reason: %s."},  # mostly placeholders
        {"code": "EX0005", "template": "Widget %s ran out of the memory it was given"},
        {"code": "EX0006", "template": "Widget %s ran out of the memory it was given"},  # same parts, other category
        {"code": "EX0007", "template": "Operator %s of widget %s failed to compile here"},
        {"code": "EX0008", "template": "A code without a row in codes.yaml at all %s"},
        {"code": "EX0009", "template": "Failed to open the widget file %s. Reason: %s."}]}  # ordinary wording
    got = dict((c, p) for c, p in templates_of(codes, table))
    assert sorted(got) == ["EX0001", "EX0007"]
    assert sum(map(len, fixed_parts("%s failed. Reason: %s."))) < MIN_FIXED


def test_the_shipped_templates_are_read() -> None:
    from opsbrain.kb.compiled import compiled_kb

    rows = compiled_kb().message_templates
    assert len(rows) > 200 and all(sum(map(len, parts)) >= MIN_FIXED for _c, parts in rows)


def test_a_documented_part_still_speaks_beside_the_code() -> None:
    # EE1024's message (AI CPU timeout with an OOM event; a code newer than the table's commit) holds E30008's
    # template (the plain AI CPU timeout), read as that code; the documented part "an OOM event occurred on the
    # device within" still names the memory exhaustion
    line = ("aclrtSynchronizeStream failed. Reason: AI CPU operator execution timed out on device 3. In addition, an "
            "OOM event occurred on the device within 30 seconds.")
    got = kinds(line)
    assert "err:E30008" in got and "msg:memory_exhausted" in got


def test_a_setting_named_by_a_failing_line_is_the_environment() -> None:
    # E20101 with an ATC option; a configuration file the runtime could not parse (acl.json)
    assert "cfg:env" in kinds("Value 0 for parameter --core_count is invalid. Reason: It must be a positive integer.")
    assert "cfg:env" in kinds("[ERROR] ASCENDCL: Failed to parse config file: /home/user/acl.json")
    assert "cfg:env" not in kinds("rtsBinaryLoadFromData failed. Parameter option.mode is invalid. Reason: x")


def test_a_setting_named_by_a_line_that_reports_no_failure_is_not_the_environment() -> None:
    # a launcher's start-up lines in the shape of MindIE pyMotor's controller log (values ours): the level sits after
    # the date, so the line is not read as INFO, and "MainProcess" passes the line gate; nothing failed
    head = "2025-03-02 10:11:12  [INFO][config][controller.py:229][proc:MainProcess]  "
    assert "cfg:env" not in kinds(head + "Loading configuration file: /opt/app/conf/user_config.json")
    assert "cfg:env" not in kinds(head + "Successfully loaded config file: /opt/app/conf/user_config.json")
    assert "cfg:env" not in kinds("[WARNING] worker process 7 uses the configuration item dump_path of acl.json")
    # the same settings on failing lines still are
    assert "cfg:env" in kinds(head.replace("INFO", "ERROR") + "Failed to load configuration file: /opt/app/u.json")
    assert "cfg:env" in kinds("[WARNING] config file /etc/app.yaml not found for process 7, using defaults")


def test_a_template_whose_text_is_glued_to_a_placeholder_is_read() -> None:
    # EZ0001 "OP[%s] %sth input has incorrect shape[: %s], it should be[: %s]." (error_code.json): the ordinal's
    # "th" belongs to the number, so the fixed text is found as whole words ("1th input has ...")
    assert fixed_parts("OP[%s] %sth input has incorrect shape[: %s]")[1] == "input has incorrect shape"
    assert fixed_parts("Line one\nline two %s") == ["line one", "line two"]  # a newline is no placeholder
    assert "err:EZ0001" in kinds("OP[Conv2D] 1th input has incorrect shape[: 8,3,224], it should be[: 8,3,224,224].")


def test_the_format_doc_states_the_number_of_templates_read() -> None:
    import re
    from pathlib import Path

    import yaml

    from opsbrain.kb.compiled import compiled_kb

    root = Path(__file__).resolve().parents[1]
    m = re.search(r"is not fixed text: (\d+) of (\d+)\)", (root / "docs" / "formats.md").read_text())
    tables = [yaml.safe_load(p.read_text()) for p in sorted((root / "knowledge_base" / "code_tables").glob("*.yaml"))]
    assert m is not None
    assert int(m.group(1)) == len(compiled_kb().message_templates)
    assert int(m.group(2)) == sum(isinstance(r.get("template"), str) for t in tables for r in t["rows"])


def test_ordinary_wording_is_not_read_as_a_ge_code() -> None:
    # lines other programs print with the fixed parts of GE templates (codes.yaml template: ordinary): git fetch
    # before v2.36 (builtin/fetch.c), libelektra's resource error ("Failed to open file %s. Reason: %s"), a model
    # loading script; the GE codes themselves still read when printed
    assert not any(k.startswith("err:") for k in kinds("fatal: --deepen and --depth are mutually exclusive"))
    assert not any(k.startswith("err:") for k in kinds(
        "Failed to open file /etc/app/settings.ini. Reason: No such file or directory"))
    assert not any(k.startswith("err:") for k in kinds("[ERROR] Failed to load the model from /models/best.pt."))
    assert "err:E10047" in kinds("E10047: --dynamic_batch_size and --dynamic_dims are mutually exclusive.")


def test_the_lower_cased_scan_finds_what_the_catalog_regex_finds() -> None:
    # messages.lowered() runs on the lower-cased line, case-sensitive (2.5 times faster than IGNORECASE on ~400
    # alternatives): the same texts as the catalog's own case-insensitive regex, on every shipped text and template
    # anchor written in mixed case, glued to a word (no match) and between words
    from opsbrain.ingest.parsers.messages import _words, catalog, lowered

    rx, cats = catalog()
    scan = lowered()
    assert rx is not None and scan is not None
    for w in _words(cats):
        for line in (f"[ERROR] x: {w.upper()}.", f"[ERROR] {w.title()}", f"x{w}", f"{w}9 tail"):
            assert [m.group(0).lower() for m in rx.finditer(line)] == [m.group(0) for m in scan.finditer(
                line.lower())], line


def _lowered_words() -> list[str]:
    from opsbrain.ingest.parsers.messages import _words, catalog

    return sorted({w.lower() for w in _words(catalog()[1])})


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    _GLUE = st.sampled_from([" ", ", ", ": ", "x", "9", "_", "-", "é", "中", "", ". error ", "(", ")"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(_GLUE, st.sampled_from(_lowered_words())), min_size=1, max_size=5), _GLUE)
    def test_the_re2_scan_of_messages_gives_the_exact_regexs_texts(parts: list[tuple[str, str]], tail: str) -> None:
        # messages_in() (RE2 without look-arounds, the exact regex where a text is glued to a word) equals lowered()
        # on lines of documented texts between separators, glued to letters and digits, overlapping
        from opsbrain.ingest.parsers.messages import lowered, messages_in

        low = "".join(g + w for g, w in parts) + tail
        scan = lowered()
        assert scan is not None
        assert messages_in(low) == [m.group(0) for m in scan.finditer(low)]
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass


def test_a_line_of_documented_texts_between_word_boundaries_never_compiles_the_exact_regex() -> None:
    import subprocess
    import sys

    code = ("from opsbrain.ingest.parsers import messages as m\n"
            "from opsbrain.multiscan import _re2\n"
            "w = sorted(m._words(m.catalog()[1]))[:3]\n"
            "got = m.messages_in(('[error] ' + ': '.join(w) + '.').lower())\n"
            "assert len(got) == 3, got\n"
            "print(_re2 is None or m.lowered.cache_info().currsize == 0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr[-2000:]


def test_a_line_with_a_lone_surrogate_is_read_as_re_reads_it() -> None:
    # JSON keeps an unpaired "\udcff" escape as a lone surrogate (Python json docs, "Standard Compliance and
    # Interoperability": such code points are accepted), so an incident file's line may hold one; google-re2's
    # wrapper encodes the line to UTF-8 and cannot: the exact regex reads that line, and parse_line never raises
    import json

    from opsbrain.ingest.parsers.messages import lowered, messages_in

    line = json.loads('"[ERROR] \\udcff ' + EP0003_TEXT + '"')
    low = line.lower()
    scan = lowered()
    assert scan is not None
    assert messages_in(low) == [m.group(0) for m in scan.finditer(low)] != []
    assert "err:EP0003" in kinds(line)
