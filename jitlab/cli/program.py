"""What ``python ARGS`` would run, and running it as python would, inside ``jitlab watch``.

The program's interpreter options, script, folder, zip, ``-m`` module or ``-c`` command are
read as python reads them; the program runs as ``__main__`` with python's ``sys.path``,
exit status, ``sys.excepthook`` and thread joining, and its tracebacks without jitlab's frames.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import types
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from jitlab.cli._usage import fail, language, say

# -- what `python ARGS` would run ---------------------------------------------------------------
_INTERPRETER = re.compile(r"python(\d+(\.\d+)*)?[a-z]?(\.exe)?", re.IGNORECASE)
_NO_ARGUMENT = set("bBdEIOPqRsuv")  # options honoured by starting the interpreter with them
_WITH_ARGUMENT = set("WX")
# Options `python` takes that leave no program for watch to run, or that it cannot honour.
# Each is said by the catalogue's entry watch.opt.<letter>.
_CANNOT = set("iSxhV?")


@dataclass
class Program:
    mode: str  # "file", "main" (a folder or zip with __main__), "module", "command"
    target: str  # the script / folder / zip as given, the module name, or the command
    argv: list[str]  # sys.argv as python would set it
    options: list[str] = field(default_factory=list)  # interpreter options, as given
    # Another Python named in the command (``/usr/bin/python3 prog.py``): the program runs
    # there (:func:`run_elsewhere`), with ``words`` the command's words after its name.
    interpreter: str | None = None
    words: list[str] = field(default_factory=list)
    python: str = "python"  # the interpreter's name as given (``sys.orig_argv[0]``)
    given: list[str] = field(default_factory=list)  # the words after it, as given

    @property
    def file(self) -> bool:
        return self.mode in ("file", "main")

    @property
    def tail(self) -> list[str]:
        """What follows python's options: ``SCRIPT ARGS``, ``-m MODULE ARGS``, ``-c CODE ARGS``."""
        if self.mode in ("module", "command"):
            return [self.argv[0], self.target, *self.argv[1:]]
        return list(self.argv)


def _is_interpreter(word: str) -> bool:
    if _INTERPRETER.fullmatch(Path(word).name):
        return True
    try:
        return os.path.samefile(word, sys.executable)
    except OSError:
        return False


def _venv_of(path: str) -> str | None:
    """The virtual environment an interpreter at ``path`` starts in: where python finds
    ``pyvenv.cfg``, beside the executable or one folder up (symlinks not followed)."""
    here = os.path.dirname(os.path.abspath(path))
    for folder in (here, os.path.dirname(here)):
        if os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
            return folder
    return None


def is_this_interpreter(path: str) -> bool:
    """Is ``path`` the Python jitlab runs in: the same executable *and* the same environment
    (a venv's ``python`` and the base ``python3.11`` it links to are two interpreters)?"""
    if path == sys.executable:
        return True
    try:
        if not os.path.samefile(path, sys.executable):
            return False
    except OSError:
        return False
    return _venv_of(path) == _venv_of(sys.executable)


def _generic_names() -> set[str]:
    major, minor = sys.version_info[:2]
    return {"python", f"python{major}", f"python{major}.{minor}"}


def _runs_here(word: str) -> str | None:
    """None when the interpreter named by ``word`` is this one (``python``, ``python3`` and
    this version's name always are: the command's own Python); else its path ("" when there
    is no such program)."""
    separators = (os.sep, os.altsep or os.sep)
    name = word[:-4] if word.lower().endswith(".exe") else word
    if not any(sep in word for sep in separators) and name.lower() in _generic_names():
        return None
    found = word if any(sep in word for sep in separators) else shutil.which(word)
    if found is None or not os.path.isfile(found):
        return ""
    return None if is_this_interpreter(found) else os.path.abspath(found)


def parse_program(program: list[str]) -> Program:
    """``[python] [OPTIONS] (SCRIPT | -m MODULE | -c COMMAND) ARGS`` as python reads them."""
    if program and program[0] == "--":
        program = program[1:]
    python = "python"
    if program and _is_interpreter(program[0]):
        elsewhere = _runs_here(program[0])
        if elsewhere == "":
            fail(say("watch.no_interpreter", python=program[0]))
        if elsewhere is not None:  # another Python: it runs the program (run_elsewhere)
            return Program("elsewhere", "", [], interpreter=elsewhere, words=program[1:])
        python, program = program[0], program[1:]  # it runs in this interpreter, as the watch
    else:  # `jitlab watch -- train.py ARGS`: no interpreter, no interpreter options
        program = ["--", *program] if program else program
    if not program:
        fail(say("watch.no_program"))
    given = program[1:] if program[0] == "--" and not program[1:2][0].startswith("-") else program
    options: list[str] = []
    i = 0
    while i < len(program):
        word = program[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if word.startswith("--"):
            name, _, value = word.partition("=")
            if name != "--check-hash-based-pycs":
                fail(say("watch.option_runs_nothing", option=name))
            if not value:
                i += 1
                if i >= len(program):
                    fail(say("watch.needs_value", option=name))
                value = program[i]
            options += [name, value]
            i += 1
            continue
        j = 1
        while j < len(word):
            letter = word[j]
            if letter in ("m", "c"):
                rest = word[j + 1 :] or (program[i + 1] if i + 1 < len(program) else None)
                if rest is None:
                    key = "watch.needs_module" if letter == "m" else "watch.needs_command"
                    fail(say(key, option=f"-{letter}"))
                after = program[i + (1 if word[j + 1 :] else 2) :]
                mode = "module" if letter == "m" else "command"
                return Program(
                    mode, rest, [f"-{letter}", *after], options, python=python, given=given
                )
            if letter in _WITH_ARGUMENT:
                value = word[j + 1 :]
                if not value:
                    i += 1
                    if i >= len(program):
                        fail(say("watch.needs_value", option=f"-{letter}"))
                    value = program[i]
                options.append(f"-{letter}{value}")
                break
            if letter in _CANNOT:
                fail(say("watch.cannot_honour", option=say(f"watch.opt.{letter}")))
            if letter not in _NO_ARGUMENT:
                fail(say("watch.unknown_option", option=f"-{letter}"))
            options.append(f"-{letter}")
            j += 1
        i += 1
    argv = program[i:]
    if not argv:
        fail(say("watch.no_program"))
    target = argv[0]
    if target == "-":
        fail(say("watch.stdin"))
    path = Path(target)
    if path.is_dir() or (path.is_file() and zipfile.is_zipfile(path)):
        main = path / "__main__.py" if path.is_dir() else None
        if main is not None and not main.exists() and not main.with_suffix(".pyc").exists():
            fail(say("watch.no_main", target=repr(target)))
        return Program("main", target, argv, options, python=python, given=given)
    if not path.is_file():
        fail(say("watch.no_script", target=target))
    return Program("file", target, argv, options, python=python, given=given)


def own_options(args: argparse.Namespace) -> list[str]:
    """``jitlab watch``'s own options as given (``--out`` apart), for the command started
    again in another interpreter or image."""
    own = ["--include-internal"] * args.include_internal
    own += ["--scripts"] * args.scripts + ["--script-texts"] * args.script_texts
    own += ["--verbose"] * getattr(args, "verbose", False)
    if getattr(args, "warn_after", None) is not None:  # watch's recompile-limit, as given
        own += ["--warn-after", str(args.warn_after)]
    return [*own, "--lang", language()]  # the started one speaks the command's language


def run_elsewhere(args: argparse.Namespace, program: Program) -> None:
    """The command names another Python (``/usr/bin/python3 prog.py``): the program runs
    there, as the command said, under that interpreter's own ``jitlab watch`` (this
    interpreter is replaced); one that cannot import jitlab is refused in one line."""
    python = program.interpreter or ""
    try:
        check = subprocess.run(
            [python, "-c", "import jitlab.cli"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
            check=False,
        )
        runs = check.returncode == 0
    except (OSError, subprocess.SubprocessError):
        runs = False
    if not runs:
        fail(say("watch.other_interpreter", python=python, here=sys.executable))
    out = os.path.abspath(args.out)  # the same file, whatever folder the other one starts in
    argv = [python, "-m", "jitlab.cli", "watch", "--out", out, *own_options(args)]
    exec_or_fail(python, [*argv, "--", "python", *program.words])


def exec_or_fail(python: str, argv: list[str], env: dict[str, str] | None = None) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        if env is None:
            os.execv(python, argv)
        os.execve(python, argv, env)
    except OSError as exc:
        fail(say("watch.cannot_start", python=python, error=exc.strerror or exc))


def reexec(args: argparse.Namespace, program: Program) -> None:
    """Start this interpreter again with the program's interpreter options (``-X dev``,
    ``-W error``, ``-O``, ``-u``, …): most act only at start-up, and then they hold exactly as
    under plain python (sys.flags, warnings, buffering), for jitlab's code as for the program's."""
    own = ["--out", args.out, *own_options(args)]  # exec keeps the working directory
    own += ["--after-exec"] * getattr(args, "after_exec", False)  # an exec'd image's, on
    if getattr(args, "words_fd", None) is not None:
        own += ["--words-fd", str(args.words_fd)]
    argv = [sys.executable, *program.options, "-m", "jitlab.cli", "watch", *own, "--", "python"]
    exec_or_fail(sys.executable, argv + program.tail)


def hook_exec(
    on_exec: Callable[[Any, list[Any], Any], tuple[str, list[str]] | None],
) -> Callable[[], None]:
    """While the program runs, ``os.execv`` and ``os.execve`` (which ``os.execl*`` and
    ``os.execvp*`` call) first ask ``on_exec(path, argv, env)`` what to run instead (None:
    as asked). An exec that cannot start (no such file, not executable, no arguments) is
    left to the real function, which raises as under python, and on_exec is not asked.
    Returns what puts python's own functions back (those the program set stand)."""
    real_execv, real_execve = os.execv, os.execve

    def execv(path: Any, argv: Any) -> NoReturn:
        _run(path, argv, None)

    def execve(path: Any, argv: Any, env: Any) -> NoReturn:
        _run(path, argv, env)

    def _run(path: Any, argv: Any, env: Any) -> NoReturn:
        args: list[Any] = list(argv) if isinstance(argv, (list, tuple)) else []
        runnable = isinstance(path, int) or (
            isinstance(path, (str, bytes, os.PathLike))
            and os.access(path, os.X_OK)
            and not os.path.isdir(path)
        )
        instead = on_exec(path, args, env) if args and args[0] and runnable else None
        target, new_argv = instead if instead is not None else (path, argv)
        if env is None:
            real_execv(target, new_argv)
        real_execve(target, new_argv, env)

    os.execv, os.execve = execv, execve

    def unhook() -> None:
        if os.execv is execv:
            os.execv = real_execv
        if os.execve is execve:
            os.execve = real_execve

    return unhook


_HELD = "__jitlab_program_main__"


def _fresh_main(**names: Any) -> types.ModuleType:
    """A ``__main__`` module as python makes it, installed as ``sys.modules["__main__"]``.

    At exit python wipes the globals of ``__main__`` (closing the program's files, running
    its objects' ``__del__``) only while the module object is alive; JAX and the modules it
    imports keep ``import __main__`` — the module python started with, which under watch is
    jitlab's own, imported before the program. So the program's module is held by that one:
    alive exactly when python's would be, its globals wiped by python itself, at its time.
    """
    import builtins

    main = types.ModuleType("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=builtins, **names)
    started_with = sys.modules.get("__main__")
    if started_with is not None:
        with contextlib.suppress(Exception):
            vars(started_with)[_HELD] = main
    sys.modules["__main__"] = main
    return main


def run_program(program: Program) -> tuple[int, bool]:
    """Run it as ``python ARGS`` would: (exit status, whether Ctrl-C ended it)."""
    import runpy

    sys.argv = list(program.argv)
    safe_path = getattr(sys.flags, "safe_path", False)
    if program.mode == "file":
        path = os.path.abspath(program.target)
        first = os.path.dirname(os.path.realpath(path))
    elif program.mode == "main":
        path = first = os.path.abspath(program.target)
    elif program.mode == "module":
        path, first = "", os.getcwd()
    else:
        path, first = "", ""
    # Python puts the program's place first (where jitlab's own entry was); with -P or -I
    # only a folder or zip is put there (python must import its __main__ from it).
    if not safe_path and sys.path:
        sys.path[0] = first
    elif not safe_path or program.mode == "main":
        sys.path.insert(0, first)
    try:
        if program.mode == "file":
            from importlib.machinery import SourceFileLoader, SourcelessFileLoader

            pyc = path.endswith((".pyc", ".pyo"))
            loader = (SourcelessFileLoader if pyc else SourceFileLoader)("__main__", path)
            main = _fresh_main(__loader__=loader, __file__=path, __cached__=None)
            if pyc:
                code = loader.get_code("__main__")
            else:
                with io.open_code(path) as f:
                    source = f.read()
                code = compile(source, path, "exec", dont_inherit=True)
            _exec(code, main.__dict__)
        elif program.mode == "command":
            import importlib

            main = _fresh_main(__loader__=importlib.machinery.BuiltinImporter)
            _exec(compile(program.target, "<string>", "exec", dont_inherit=True), main.__dict__)
        else:  # what python itself calls for a folder, a zip or -m (its frames show as then)
            import importlib

            _fresh_main(__loader__=importlib.machinery.BuiltinImporter)
            name = "__main__" if program.mode == "main" else program.target
            _run_as_main(runpy, name, program.mode == "module")
    except SystemExit as exc:
        return _exit_status(exc), False
    except BaseException as exc:  # as python: the program's own sys.excepthook, from its frames
        _unhandled(exc)
        return 1, isinstance(exc, KeyboardInterrupt)
    finally:
        _join_threads()
    return 0, False


def _exec(code: Any, namespace: dict[str, Any]) -> None:
    exec(code, namespace)  # the traceback's first frame here is dropped (see _unhandled)


def _run_as_main(runpy: Any, name: str, alter_argv: bool) -> None:
    runpy._run_module_as_main(name, alter_argv=alter_argv)  # what `python -m` calls


_OUR_FRAMES = {"_exec", "_run_as_main"}


def _our_files() -> set[str]:
    """The files whose frames a watched call passes through (the stand-in, the probe): every
    module of jitlab.watching and jitlab.probe loaded, whichever of them a call passes."""
    import jitlab.watching.recorder  # noqa: F401  # loads the stand-in and the probe

    ours = {__file__}
    for name, module in list(sys.modules.items()):
        if name == "jitlab.cli.watch" or name.startswith(("jitlab.watching.", "jitlab.probe.")):
            ours.add(str(getattr(module, "__file__", "") or ""))
    ours.discard("")
    return ours


def _unhandled(exc: BaseException) -> None:
    tb = exc.__traceback__
    # Drop jitlab's frames: the traceback starts where python's would (the program's code,
    # or runpy's for -m and folders, as under plain python).
    while tb is not None and (
        tb.tb_frame.f_code.co_filename == __file__ or tb.tb_frame.f_code.co_name in _OUR_FRAMES
    ):
        seen = tb.tb_frame.f_code.co_name in _OUR_FRAMES
        tb = tb.tb_next
        if seen:
            break
    exc.__traceback__ = tb
    with contextlib.suppress(Exception):  # and those of the watched calls on the way
        from jitlab.probe.frames import strip_chain

        strip_chain(exc, _our_files().__contains__)
    tb = exc.__traceback__
    sys.last_type, sys.last_value, sys.last_traceback = type(exc), exc, tb
    try:
        sys.excepthook(type(exc), exc, tb)
    except BaseException as hook_error:  # as python says it
        err = sys.stderr
        if err is not None:
            with contextlib.suppress(Exception):
                print("Error in sys.excepthook:", file=err)
                sys.__excepthook__(type(hook_error), hook_error, hook_error.__traceback__)
                print("\nOriginal exception was:", file=err)
                sys.__excepthook__(type(exc), exc, tb)


def _exit_status(exc: SystemExit) -> int:
    """What python exits with for ``SystemExit(code)`` (a message printed, then 1)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    err = sys.stderr
    if err is not None:
        with contextlib.suppress(Exception):
            print(code, file=err)
    return 1


def _join_threads() -> None:
    """Python waits for the program's non-daemon threads before it ends: so does watch."""
    import threading

    for _ in range(10_000):
        alive = [
            t
            for t in threading.enumerate()
            if t is not threading.current_thread() and not t.daemon and t.is_alive()
        ]
        if not alive:
            return
        for thread in alive:
            thread.join()
