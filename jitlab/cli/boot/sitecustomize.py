"""``jitlab watch``'s start in the program's own interpreter (see ``jitlab/cli/launch.py``).

Python imports this module as it starts, as it imports any ``sitecustomize``, because the
command put this folder first on ``PYTHONPATH``. It takes the folder out of ``sys.path`` at
once (the command's settings out of the environment, ``PYTHONPATH`` as it was), starts the
watch, then runs the user's own ``sitecustomize`` where python would have found one.
"""

import os
import sys


def _start() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if not p or os.path.abspath(p) != here]
    sys.path_importer_cache.pop(here, None)
    settings = os.environ.pop("JITLAB_WATCH_BOOT", None)
    if settings is None:  # the folder put on PYTHONPATH by hand: nothing to start
        return
    try:
        from jitlab.cli import watch
    except ImportError:  # jitlab imported from its folder, not installed: from there
        root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
        sys.path.insert(0, root)
        try:
            from jitlab.cli import watch
        finally:
            sys.path.remove(root)
    watch.begin_launched(settings)


def _theirs() -> None:
    """The ``sitecustomize`` python would have imported (this one was first on the path)."""
    import importlib.machinery
    import importlib.util

    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", sys.path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module  # `import sitecustomize` gives theirs
    spec.loader.exec_module(module)  # what it raises, site says as under python


_start()
_theirs()
