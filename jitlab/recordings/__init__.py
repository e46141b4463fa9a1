"""Reading recordings back: the strict reader, summaries, the signature ledger, bucket
suggestions, processes and comparisons (JAX-free: reading a file never imports JAX)."""
