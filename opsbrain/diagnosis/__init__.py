"""Diagnosis: signals from telemetry, incident features, the classifier, topology localization."""
