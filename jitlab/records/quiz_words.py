"""The words of ``jitlab quiz`` (:mod:`jitlab.cli.quiz`), in English and Chinese: entries of
:data:`jitlab.records.messages.CATALOGUE` kept in their own table so that the catalogue stays
one module of readable size. Each entry is ``(en, zh)`` or ``(en, zh, en_plural)``, read by
``say()`` like every other (imports nothing: the catalogue takes it in).
"""

WORDS: dict[str, tuple[str, ...]] = {
    # -- jitlab quiz ----------------------------------------------------------------------
    "quiz.exercise": ("Exercise", "练习"),
    "quiz.claim": ("Claim", "说法"),
    "quiz.prompt_number": ("Your prediction (a whole number)", "你的预测（一个整数）"),
    "quiz.prompt_choice": ("Your prediction (a letter)", "你的预测（一个字母）"),
    "quiz.prompt_error": (
        "Your prediction (an exception name, a letter, or none)",
        "你的预测（异常名、字母或 none）",
    ),
    "quiz.right": ("✓ Right.", "✓ 答对了。"),
    "quiz.close": ("✓ Right — precisely, it is {value}.", "✓ 答对了——确切地说是 {value}。"),
    "quiz.wrong": ("✗ Not this time.", "✗ 这次没猜中。"),
    "quiz.late": ("⏱ Too late: not scored", "⏱ 超时：不计分"),
    "quiz.late_after": ("⏱ Too late: not scored ({s} s).", "⏱ 超时：不计分（{s} 秒）。"),
    "quiz.run_says": ("The run says: {value}", "实际运行结果：{value}"),
    "quiz.skipped": ("Skipped: {why}", "已跳过：{why}"),
    "quiz.broken": ("The run broke: {why}", "运行出了意外：{why}"),
    "quiz.play": ("Play with it: {command}", "动手试试：{command}"),
    "quiz.score": ("Score: {score}/{total}", "得分：{score}/{total}"),
    "quiz.review": ("To review:", "需要复习："),
    "quiz.nothing": ("Nothing to review: well done.", "没有需要复习的，干得好。"),
    "quiz.stopped": ("Stopped. Score: {score}/{total}", "已停止。得分：{score}/{total}"),
    "quiz.seconds_left": ("{s}s left", "剩 {s} 秒"),
    "quiz.quit": ("(q to stop)", "（输入 q 退出）"),
    "quiz.lab": (
        "# lab.jit is jax.jit with jitlab's probe around it; lab.note keeps a value",
        "# lab.jit 就是套上 jitlab 探针的 jax.jit；lab.note 记下一个值",
    ),
    "quiz.you": ("You predicted: {value}", "你的预测：{value}"),
    "quiz.seed": ("seed {seed}: {ids}", "随机种子 {seed}：{ids}"),
    "quiz.left_out": ("jitlab quiz: {problem} (left out)", "jitlab quiz：{problem}（已略去）"),
    "quiz.kind.number": ("number", "数字"),
    "quiz.kind.choice": ("choice", "选择"),
    "quiz.kind.error": ("error", "异常"),
    "quiz.kind.misconception": ("misconception", "误区"),
    "quiz.err.scenario": (
        "unknown scenario {scenario}; scenarios with exercises: {valid}",
        "没有场景 {scenario}；有练习的场景：{valid}",
    ),
    "quiz.err.exercise": (
        "unknown exercise {exercise}; valid exercises: {valid} (see `jitlab quiz --list`)",
        "没有练习 {exercise}；可用的练习：{valid}（见 `jitlab quiz --list`）",
    ),
    "quiz.err.no_match": (
        "no exercise matches --exercise and --scenario together",
        "没有同时符合 --exercise 和 --scenario 的练习",
    ),
    "quiz.err.modes": (
        "choose one of --list, --solve and --interview, not {modes}",
        "--list、--solve 和 --interview 只能选一个，不能同时用 {modes}",
    ),
    "quiz.err.answer_mode": ("--answer does not apply to --{mode}", "--answer 不适用于 --{mode}"),
    "quiz.err.interview_select": (
        "--interview draws from all exercises: drop --exercise/--scenario",
        "--interview 从全部练习中抽题：请去掉 --exercise/--scenario",
    ),
    "quiz.err.seed_seconds": (
        "--seed and --seconds apply to --interview only",
        "--seed 和 --seconds 只用于 --interview",
    ),
    "quiz.err.seconds": (
        "--seconds must be positive and finite, not {value}",
        "--seconds 必须是有限的正数，而不是 {value}",
    ),
    "quiz.json_lists": (
        "jitlab quiz: --json with no --answer or --solve lists the exercises (as --list)",
        "jitlab quiz：--json 没有 --answer 或 --solve 时列出练习（同 --list）",
    ),
    "quiz.err.json_interview": (
        "--json needs --answer (one per question)",
        "--json 需要 --answer（每题一个）",
    ),
    "quiz.err.answers": (
        "got {got} --answer for {n} question; give one each",
        "给了 {got} 个 --answer，但有 {n} 道题；每题给一个",
        "got {got} --answer for {n} questions; give one each",
    ),
    "quiz.parse.number": (
        "{exercise} expects a whole number, not {value}",
        "{exercise} 需要一个整数，而不是 {value}",
    ),
    "quiz.parse.negative": (
        "{exercise} expects a whole number ≥ 0, not {value}",
        "{exercise} 需要 ≥ 0 的整数，而不是 {value}",
    ),
    "quiz.parse.choice": (
        "{exercise} expects one of {allowed}, not {value}",
        "{exercise} 需要 {allowed} 之一，而不是 {value}",
    ),
    "quiz.parse.error": (
        "{exercise} expects one of {allowed} or an exception name, not {value}",
        "{exercise} 需要 {allowed} 之一或一个异常名，而不是 {value}",
    ),
    "quiz.err.interview": ("--interview: {error}", "--interview：{error}"),
}
