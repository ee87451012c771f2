"""The scheduled health-sweep service (issue 7): ``opsbrain sweep run``.

- :mod:`opsbrain.service.live`: :class:`~opsbrain.service.live.LivePod`, a simulated pod whose clock follows the
  wall clock x speed, swept on demand (thread-safe);
- :mod:`opsbrain.service.scheduler`: :class:`~opsbrain.service.scheduler.SweepService` and
  :func:`~opsbrain.service.scheduler.run_service` (APScheduler 3.x; the only module importing apscheduler);
- :mod:`opsbrain.service.metrics`: :class:`~opsbrain.service.metrics.SweepMetrics`, Prometheus metrics in a private
  registry, served on loopback.
"""
