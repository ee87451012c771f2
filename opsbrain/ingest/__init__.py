"""The ingestion layer: every text source an operator has (pasted text, stdin, files, directories, Ascend log
bundles, the twin's live telemetry) becomes the same typed :class:`Signal` stream. Detection, diagnosis, the
bundle reader and sweeps consume only these signals. One small parser per source lives in ``parsers/``; the
formats understood are listed in docs/formats.md with a real example line and its source."""

from opsbrain.ingest.history import NO_HISTORY, LinkRecords
from opsbrain.ingest.jobs import JOB_KINDS, parse_job_event
from opsbrain.ingest.parsers import MAX_LINE, parse_line
from opsbrain.ingest.signal import DOWN, UP, Signal, dark_links, last_downs, link_of
from opsbrain.ingest.text import LineReader, TextStats, ingest_text
from opsbrain.ingest.textpaths import ingest_path
from opsbrain.ingest.timestamps import parse_time

__all__ = ["DOWN", "JOB_KINDS", "MAX_LINE", "NO_HISTORY", "UP", "LineReader", "LinkRecords", "Signal", "TextStats",
           "dark_links", "ingest_path", "ingest_text", "last_downs", "link_of", "parse_job_event", "parse_line",
           "parse_time"]
