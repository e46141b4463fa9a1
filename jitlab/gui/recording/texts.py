"""What the recording window writes about the files it follows: its status line, its info
box, the divergence banner and a function's tip, rendered from the follower's facts.

The words keep the window's translation context ("RecordingWindow"), as when they were
its methods; rich text made here escapes every recorded string.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication

from jitlab.gui import i18n, plain
from jitlab.recordings.follower import Follower, Lane
from jitlab.recordings.processes import Divergence
from jitlab.recordings.reader import MAX_LINE_BYTES, newer_format_text
from jitlab.recordings.summary import FunctionSummary
from jitlab.records.diagnoses import (
    Diagnosis,
    explain_command,
    in_order,
    page,
    page_url,
    sentence,
)
from jitlab.records.messages import say
from jitlab.records.text import format_ms

CHANGES_LISTED = 8  # a function's "what changed" list: the most telling, then how many more
_escape = plain.escape  # a recorded string in rich text, shown as written


def files_name(follower: Follower) -> str:
    first = follower.sources[0].path.name
    if not follower.multi:
        return first
    return (
        QCoreApplication.translate("RecordingWindow", "%1 processes (%2 …)")
        .replace("%1", str(len(follower.sources)))
        .replace("%2", first)
    )


def title(follower: Follower, picked: Lane | None) -> str:
    name = ""
    if picked:
        name = f" — {picked[0]}"
        if picked[2] is not None:
            name += f" (p{picked[2]})"
    # The platform appends the application's name (" — jitlab") after this.
    text = QCoreApplication.translate("RecordingWindow", "Recording %1")
    return text.replace("%1", files_name(follower)) + name


def info(follower: Follower, summaries: list[FunctionSummary]) -> str:
    """The info box (rich text): the files, the program, the totals."""
    start = follower.recording.start
    argv = " ".join(start.argv) if start else ""
    parts = [f"<b>{_escape(files_name(follower))}</b>"]
    if argv:
        parts.append(
            QCoreApplication.translate("RecordingWindow", "program: %1").replace(
                "%1", _escape(argv)
            )
        )
    if start is not None and start.jax:
        parts.append(
            QCoreApplication.translate("RecordingWindow", "JAX %1").replace(
                "%1", _escape(start.jax)
            )
        )
    compiles = sum(s.executables for s in summaries)
    lost = sum(s.compile_ms for s in summaries)
    parts.append(
        QCoreApplication.translate(
            "RecordingWindow", "%1 functions, %2 compiles, %3 spent compiling"
        )
        .replace("%1", str(len(summaries)))
        .replace("%2", str(compiles))
        .replace("%3", format_ms(lost))
    )
    if follower.multi:
        hosts = {
            s.recording.start.host
            for s in follower.sources
            if s.recording.start is not None and s.recording.start.host
        }
        parts.append(
            QCoreApplication.translate(
                "RecordingWindow", "one lane per process and function; hosts: %1"
            ).replace("%1", str(len(hosts) or "?"))
        )
    return "<br>".join(parts)


def status(follower: Follower, loading: bool, following: bool, skipped: str = "") -> str:
    """Where the files stand: still being written, finished, cut off; ``skipped``: how many
    unreadable lines were (its plural forms are the window's ``tr``)."""
    if follower.missing:
        return QCoreApplication.translate(
            "RecordingWindow", "The file %1 does not exist (yet): waiting for it."
        ).replace("%1", ", ".join(str(p) for p in follower.missing))
    if follower.refused:
        return QCoreApplication.translate(
            "RecordingWindow",
            "%1 is not a recording file (a named pipe, a device or a socket): only "
            "regular files are read.",
        ).replace("%1", ", ".join(str(p) for p in follower.refused))
    if follower.newer:
        path, version = follower.newer[0]
        return f"{path}: {newer_format_text(version, i18n.language())}"
    if loading:
        state = QCoreApplication.translate(
            "RecordingWindow", "Reading the file: %1% so far…"
        ).replace("%1", str(int(100 * follower.progress())))
    elif follower.ended:
        state = QCoreApplication.translate(
            "RecordingWindow", "The program finished; the recording is complete."
        )
    elif following:
        state = QCoreApplication.translate(
            "RecordingWindow", "Following: new compiles appear as the program writes them."
        )
    else:  # an abrupt end is said, as `jitlab summary` says it, never passed off as complete
        state = QCoreApplication.translate(
            "RecordingWindow",
            "%1 has no end line: the program was killed or ended with os._exit (or it is "
            "still running); its counts are those written before.",
        ).replace("%1", ", ".join(str(p) for p in follower.unended))
    extra = []
    if follower.partial_line:
        extra.append(
            QCoreApplication.translate(
                "RecordingWindow",
                "The last line is incomplete (still being written, or the program was "
                "killed); it is skipped until it ends.",
            )
        )
    if skipped:
        extra.append(skipped)
    if follower.long_lines:
        extra.append(
            QCoreApplication.translate("RecordingWindow", "Lines longer than %1 MiB, not read: %2.")
            .replace("%1", str(MAX_LINE_BYTES >> 20))
            .replace("%2", str(follower.long_lines))
        )
    return " ".join([state, *extra])


def banner(divergences: tuple[Divergence, ...]) -> tuple[str, str]:
    """The divergence banner's rich text and tip."""
    n = len(divergences)
    head = (
        QCoreApplication.translate("RecordingWindow", "The processes diverged in %1 place:")
        if n == 1
        else QCoreApplication.translate("RecordingWindow", "The processes diverged in %1 places:")
    ).replace("%1", str(n))
    lines = [f"<b>⚠ {_escape(head)}</b>"]
    lines += [f"• {_escape(d.message)}" for d in divergences[:4]]
    if n > 4:
        more = QCoreApplication.translate("RecordingWindow", "… and %1 more")
        lines.append(_escape(more.replace("%1", str(n - 4))))
    tip = QCoreApplication.translate(
        "RecordingWindow",
        "In SPMD code every process should compile the same programs; a collective "
        "may wait on a process that is still compiling. Highlighted rows: the "
        "functions concerned; ⚠: the process that compiled what the others did not.",
    )
    return "<br>".join(lines), tip


def function_tip(s: FunctionSummary, lane: Lane | None, divergence: Divergence | None) -> str:
    """A function's tip and details (rich text): where it is defined, what changed."""
    lines = [
        f"<b>{_escape(s.function)}</b>",  # escaped here, the others below
        QCoreApplication.translate("RecordingWindow", "defined at %1").replace(
            "%1", s.defined_at or "?"
        ),
    ]
    if lane is not None and lane[2] is not None:
        lines.append(
            QCoreApplication.translate("RecordingWindow", "in process %1").replace(
                "%1", str(lane[2])
            )
        )
    if s.change_counts:
        # Ranked by how many compiles each explains; how many there are said first (in view
        # however short the column), never dropped silently.
        words = s.change_words(i18n.language()).most_common()
        head = QCoreApplication.translate("RecordingWindow", "What changed between its compiles:")
        if len(words) > CHANGES_LISTED:
            head = (
                QCoreApplication.translate(
                    "RecordingWindow",
                    "What changed between its compiles: the %1 that explain the most compiles, "
                    "of %2 (the ledger lists every compile):",
                )
                .replace("%1", str(CHANGES_LISTED))
                .replace("%2", str(len(words)))
            )
        lines.append(head)
        lines += [f"• {change} ×{n}" for change, n in words[:CHANGES_LISTED]]
    elif s.executables == 1:
        lines.append(
            QCoreApplication.translate("RecordingWindow", "Compiled once: nothing to fix here.")
        )
    if divergence is not None:
        lines.append("⚠ " + divergence.message)
    return "<br>".join(_escape(line) if i else line for i, line in enumerate(lines))


def diagnoses(found: Sequence[Diagnosis]) -> str:
    """A function's diagnoses (rich text, every recorded string escaped): each id, its
    sentence, a link to its page where the page is on this machine (opened in the app) and
    the command that prints it; the problems first (⚠), then those shown for information
    (ℹ). Any id; one from a newer jitlab by its id and page."""
    if not found:
        return ""
    lang = i18n.language()
    heading = QCoreApplication.translate("RecordingWindow", "Diagnoses")
    lines = [f"<b>{_escape(heading)}</b>"]
    for d in in_order(found):
        url, shown = page_url(d.id), page(d.id)
        command = f"<code>{_escape(explain_command(d.id))}</code>"
        if url is None:
            missing = QCoreApplication.translate("RecordingWindow", "%1 (not on this machine)")
            link = f"<i>{_escape(missing.replace('%1', shown))}</i>"
        else:
            link = f'<a href="{html.escape(url)}">{_escape(shown.rsplit("/", 1)[-1])}</a>'
        mark = "⚠" if d.problem else "ℹ"
        note = "" if d.problem else " " + _escape(say("diagnosis.information", lang))
        text = _escape(sentence(d, lang))
        lines.append(f"{mark} <b>{_escape(d.id)}</b>{note}: {text} {link} · {command}")
    return "<br>".join(lines)


def no_scripts() -> str:
    return QCoreApplication.translate(
        "RecordingWindow",
        "This recording keeps no scripts. Record the program with `jitlab watch "
        "--scripts` (figures) or `jitlab watch --script-texts` (jaxpr, StableHLO and HLO "
        "too) to read them here.",
    )


def events_only() -> str:
    return QCoreApplication.translate(
        "RecordingWindow",
        "This function was jitted before the watch began: jitlab saw only JAX's "
        "compile events, so it has no script.",
    )


def no_script() -> str:
    return QCoreApplication.translate("RecordingWindow", "No script was recorded for this compile.")
