"""The auditor tests itself: a catalogue of faults injected into the contestants.

``python -m audit self-test`` builds mutated copies of one contestant at a
time from ``faults.yaml``, runs the pipeline's stages on each bundle and writes
the kill matrix (docs/self-test.md)."""
