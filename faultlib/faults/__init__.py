"""Fault kinds, fault models and injectors."""
