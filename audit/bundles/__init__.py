"""Bundles coming in: the content digest, the demo and synthetic bundles, Hugging Face
and the publisher's own digest. The adapters of other formats are in audit.adapters."""
