"""Monte Carlo campaigns (``opsbrain chaos campaign``): many seeds x policies of a cluster under a fault profile.

- :mod:`~opsbrain.campaign.spec`: the set-up (:class:`CampaignSpec`) and one plan per (seed, policy);
- :mod:`~opsbrain.campaign.runner`: parallel, resumable execution and the campaign tables of the run store;
- :mod:`~opsbrain.campaign.dask_exec`: the same on a Dask cluster (optional extra ``opsbrain[dask]``);
- :mod:`~opsbrain.campaign.summary`: per-run records and the summary (ETTR, interruptions, ttr, auto vs manual);
- :mod:`~opsbrain.campaign.validation`: ``python -m opsbrain.campaign.validation`` (docs/validation.md).
"""

from opsbrain.campaign.runner import Options, run_campaign
from opsbrain.campaign.spec import CampaignSpec, campaign_plan

__all__ = ["CampaignSpec", "Options", "campaign_plan", "run_campaign"]
