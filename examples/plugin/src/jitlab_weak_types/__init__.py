"""A jitlab lesson: a Python float and a float32 array are two signatures to jax.jit."""
