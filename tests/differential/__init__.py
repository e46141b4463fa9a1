"""The differential test: generated programs, run watched and as a Probe, against JAX's own log."""
