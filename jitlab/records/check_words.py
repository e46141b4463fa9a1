"""The words of ``jitlab check`` (:mod:`jitlab.cli.check`), in English and Chinese: entries of
:data:`jitlab.records.messages.CATALOGUE` kept in their own table, as the quiz's are. Each
entry is ``(en, zh)`` or ``(en, zh, en_plural)`` (imports nothing: the catalogue takes it in).
"""

WORDS: dict[str, tuple[str, ...]] = {
    "check.title": ("{title} · {id} ({origin})", "{title} · {id}（{origin}）"),
    "check.broken": ("✘ {id} does not load: {error}", "✘ {id} 无法加载：{error}"),
    "check.spec_ok": ("✔ The spec is well-formed.", "✔ 场景的声明没有问题。"),
    "check.spec_bad": (
        "✘ The spec has {n} problem:",
        "✘ 场景的声明有 {n} 处问题：",
        "✘ The spec has {n} problems:",
    ),
    "check.run": ("{variant}, on the lesson's calls", "{variant}，用本课的调用"),
    "check.no_win": (
        "✘ The fix does not do better than the pitfall on what this lesson measures ({measure}).",
        "✘ 就本课衡量的指标（{measure}）而言，修正版并不比陷阱版好。",
    ),
    "check.raised": (
        "✘ Call #{index} ({variant}): the scenario's own code raised {type}: {where}",
        "✘ 第 #{index} 次调用（{variant}）：场景自己的代码抛出了 {type}：{where}",
    ),
    "check.question": ("The question: {question}", "题目：{question}"),
    "check.question_run": (
        "Its own run ({variant}) counts {count} ({counted}).",
        "它自己的那次运行（{variant}）数出 {count}（{counted}）。",
    ),
    "check.counted.compiles": ("compiles", "编译次数"),
    "check.counted.printed": ("lines printed", "打印的行数"),
    "check.no_question_run": (
        "The question is not settled by a count (no question_run).",
        "这道题不是靠计数判定的（没有 question_run）。",
    ),
    "check.exercise_ok": (
        "✔ exercise {id}: the run answers {value}, as its author expects",
        "✔ 练习 {id}：运行给出 {value}，与作者的预期一致",
    ),
    "check.exercise_bad": (
        "✘ exercise {id}: the run answers {value}; its author expects {expected}",
        "✘ 练习 {id}：运行给出 {value}；作者预期的是 {expected}",
    ),
    "check.exercise_said": (
        "· exercise {id}: the run answers {value} (no expected answer written)",
        "· 练习 {id}：运行给出 {value}（作者没有写预期答案）",
    ),
    "check.exercise_broke": (
        "✘ exercise {id}: the run broke: {why}",
        "✘ 练习 {id}：运行出了意外：{why}",
    ),
    "check.exercise_skipped": ("· exercise {id}: skipped: {why}", "· 练习 {id}：已跳过：{why}"),
    "check.passed": ("jitlab check: {id} passed", "jitlab check：{id} 通过"),
    "check.failed": (
        "jitlab check: {id} failed ({n} problem)",
        "jitlab check：{id} 未通过（{n} 处问题）",
        "jitlab check: {id} failed ({n} problems)",
    ),
    "check.not_found": (
        "no scenario file or scenario named {target} (installed: {ids})",
        "没有名为 {target} 的场景文件或场景（已安装：{ids}）",
    ),
    "check.no_file": ("{path}: no such file", "{path}：文件不存在"),
}
