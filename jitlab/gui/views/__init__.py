"""Views shared by the app's windows: the run model, chart, kitchen, log, ledger, shape
histogram, reason words and export."""
