"""The desktop app: Qt views over the headless packages, with all JAX work on one worker thread.

``app`` holds every event-loop entry point, ``executor`` the only thread that runs JAX;
``views`` are shared by the windows in ``lesson``, ``scripts``, ``recording`` and ``quiz``.
"""
