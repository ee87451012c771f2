"""Run campaign tasks on a Dask distributed cluster (optional extra ``opsbrain[dask]``).

With a scheduler address the tasks go to that cluster (its workers need opsbrain installed, same version); without
one a ``LocalCluster`` of ``workers`` single-threaded worker processes is started for the campaign and closed after
it. Results stream back as tasks finish, so the caller stores each one at once (resumable after a kill).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from opsbrain.errors import InputError

Task = tuple[str, int, str, str | None]


def _distributed() -> Any:
    try:
        import dask.distributed as dd
    except ImportError:
        raise InputError("the dask executor needs dask.distributed: pip install 'opsbrain[dask]'",
                         path="--executor") from None
    return dd


def run_on_dask(tasks: list[Task], workers: int, scheduler: str | None = None) -> Iterator[dict[str, Any]]:
    """Yield ``run_task`` results (``{"record", "journal"}``) in completion order."""
    from opsbrain.campaign.runner import run_task_packed

    dd = _distributed()
    cluster = None
    if scheduler:
        try:
            client = dd.Client(scheduler, timeout="30s")
        except (OSError, ValueError, TypeError) as e:  # unreachable, refused, or not an address dask can parse
            raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {e}", path="--scheduler") from None
    else:
        cluster = dd.LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40)
        client = dd.Client(cluster)
    futures: list[Any] = []
    try:
        futures = client.map(run_task_packed, tasks, pure=False, retries=1)
        for fut in dd.as_completed(futures):
            yield fut.result()
    finally:
        for f in futures:
            if not f.done():
                f.cancel()
        client.close()
        if cluster is not None:
            cluster.close()
