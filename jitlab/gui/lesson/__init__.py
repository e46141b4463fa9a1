"""The lesson window: a scenario's pages (start, execute, monitor, complete), its controls
and code pane."""
