"""The probe: what a jitted call did, read from JAX's own events.

``_jax`` is the only module that touches JAX's private names; the rest goes through it."""
