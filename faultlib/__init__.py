"""faultlib: the simulated superpod (the plant). It knows nothing of opsbrain."""
