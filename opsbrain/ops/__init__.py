"""Superpod operations beyond repair: elastic prefill/decode autoscaling, day/night schedules, tenant slices."""
