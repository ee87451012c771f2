"""Workloads: fluid (rate) models of training jobs and inference services."""
