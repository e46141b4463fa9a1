"""The quiz window: predict-then-run questions and interviews."""
