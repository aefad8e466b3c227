"""Injected-perturbation controls: predictions, stamps, perturbed bundles, checks."""
