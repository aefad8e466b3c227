"""Adapters: a published record in another format -> a bundle folder the audit reads.

``base`` holds what every adapter shares; each format is one module; ``formats`` is the
one table naming them (docs/intake.md, "Adding a format")."""
