"""The recording window: a watched program's recording, followed live or opened later."""
