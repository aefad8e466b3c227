"""Bundles coming in: the content digest, the demo and synthetic bundles, Hugging Face,
the intake adapters and the publisher's own digest."""
