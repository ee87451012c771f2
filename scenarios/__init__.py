"""Built-in chaos scenarios (YAML package data). Loaded and validated by opsbrain.scenario; imports nothing."""

from pathlib import Path


def directory() -> Path:
    return Path(__file__).parent
