"""The lab: scenario specs, the lab handle, the engine that runs a scenario's steps, the
event stream, discovery of built-in and plugin scenarios, and lesson verdicts."""
