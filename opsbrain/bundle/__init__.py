"""Log bundles in the real Ascend layout (facts.md §7): the twin writes them, opsbrain reads and diagnoses them."""

from opsbrain.bundle.diagnose import check_bundle, compare, diagnose_bundle
from opsbrain.bundle.layout import BundleParams, classify
from opsbrain.bundle.reader import BundleLine, read_bundle, scan_bundle
from opsbrain.bundle.writer import regenerate, write_bundle, write_incident_bundle, write_run_bundles

__all__ = ["BundleLine", "BundleParams", "check_bundle", "classify", "compare", "diagnose_bundle", "read_bundle",
           "regenerate", "scan_bundle", "write_bundle", "write_incident_bundle", "write_run_bundles"]
