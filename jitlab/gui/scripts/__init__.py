"""The script (IR) book: what JAX compiled for a card, shown as jaxpr, StableHLO and HLO.

A :class:`~jitlab.gui.scripts.window.ScriptWindow` shows one card's script
(:class:`~jitlab.gui.scripts.view.ScriptView`); a
:class:`~jitlab.gui.scripts.window.ScriptDiffWindow` compares two cards' scripts.

Scripts are made on the executor (``Executor.request_script``: JAX runs on that one thread
only) and cached per card by :class:`~jitlab.gui.scripts.book.ScriptBook`; the texts can be
long (a 100,000-line HLO), so they go into ``QPlainTextEdit`` (laid out lazily, no word wrap;
:mod:`~jitlab.gui.scripts.code_pane`) and are highlighted only where they are shown
(:class:`~jitlab.gui.scripts.lexers.LazyHighlighter`, Pygments tokens one line at a time).
:class:`~jitlab.gui.scripts.lessons.LessonScripts` keeps the cards a lesson compares.
"""
