"""Log bundles in the real Ascend layout (facts.md §7): the twin writes them, opsbrain reads and diagnoses them.

The writer's names are imported on first use: reading and diagnosing a bundle (``opsbrain diagnose --bundle``) do not
need the twin's line formats it imports."""

from typing import Any

from opsbrain.bundle.diagnose import diagnose_bundle
from opsbrain.bundle.layout import BundleParams, classify
from opsbrain.bundle.reader import BundleLine, read_bundle, scan_bundle
from opsbrain.bundle.roundtrip import check_bundle, compare

_WRITER = ("regenerate", "write_bundle", "write_incident_bundle", "write_run_bundles")


def __getattr__(name: str) -> Any:
    if name in _WRITER:
        from opsbrain.bundle import writer

        return getattr(writer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BundleLine", "BundleParams", "check_bundle", "classify", "compare", "diagnose_bundle", "read_bundle",
           "regenerate", "scan_bundle", "write_bundle", "write_incident_bundle", "write_run_bundles"]
