"""The headless core: probe, records, scenarios and the engine. Never imports Qt."""
