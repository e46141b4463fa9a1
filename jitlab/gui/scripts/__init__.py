"""The script (IR) book: what JAX compiled for a card, shown as jaxpr, StableHLO and HLO."""
