<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BreakingLabel</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
<context>
    <name>CallCard</name>
    <message>
        <source>variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>lower</source>
        <translation>降级</translation>
    </message>
    <message>
        <source>compile</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>execute</source>
        <translation>执行</translation>
    </message>
    <message>
        <source>signature</source>
        <translation>签名</translation>
    </message>
    <message>
        <source>why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>pitfall</source>
        <translation>陷阱</translation>
    </message>
    <message>
        <source>fix</source>
        <translation>修正</translation>
    </message>
</context>
<context>
    <name>CallLog</name>
    <message>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>latency ms</source>
        <translation>耗时 ms</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>lower</source>
        <translation>降级</translation>
    </message>
    <message>
        <source>compile</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>execute</source>
        <translation>执行</translation>
    </message>
    <message>
        <source>parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>reason / error</source>
        <translation>原因 / 错误</translation>
    </message>
    <message>
        <source>Right-click the row for the full difference.</source>
        <translation>右键单击这一行，查看完整差异。</translation>
    </message>
</context>
<context>
    <name>CallSitesView</name>
    <message>
        <source>… %1 more call sites</source>
        <translation>……另有 %1 个调用点</translation>
    </message>
    <message>
        <source>process</source>
        <translation>进程</translation>
    </message>
    <message>
        <source>call site</source>
        <translation>调用点</translation>
    </message>
    <message>
        <source>compiles</source>
        <translation>编译次数</translation>
    </message>
    <message>
        <source>compile time</source>
        <translation>编译耗时</translation>
    </message>
    <message>
        <source>share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>costliest function</source>
        <translation>最耗时的函数</translation>
    </message>
    <message>
        <source>Each compile is charged to the line of the program that made the call (trace + lower + compile time, summed per line); share: of all compile time. Click a row to show its costliest function.</source>
        <translation>每次编译都记在发起调用的那一行程序上（追踪 + 降级 + 编译的耗时按行相加）；占比：占全部编译时间的比例。点击一行即可查看它最耗时的函数。</translation>
    </message>
</context>
<context>
    <name>ChartView</name>
    <message>
        <source>Now try the fix →</source>
        <translation>现在试试修正版 →</translation>
    </message>
    <message>
        <source>Switch to the fix and make the same calls: the chart marks where it begins.</source>
        <translation>切换到修正版，做同样的调用：图上会标出它从哪里开始。</translation>
    </message>
    <message>
        <source>Compare pitfall and fix →</source>
        <translation>对比陷阱与修正 →</translation>
    </message>
    <message>
        <source>④ Complete: the two runs side by side, and what the fix changed.</source>
        <translation>④ 完成：两次运行并排对比，看修正改变了什么。</translation>
    </message>
    <message>
        <source>%1 · caches cleared</source>
        <translation>%1 · 缓存已清空</translation>
    </message>
    <message>
        <source>latency (ms, log scale)</source>
        <translation>耗时（毫秒，对数坐标）</translation>
    </message>
    <message>
        <source>call number</source>
        <translation>调用序号</translation>
    </message>
    <message>
        <source>Move a slider on the left or press Step</source>
        <translation>拖动左边的滑块，或按“单步”</translation>
    </message>
    <message>
        <source>Every call so far failed: no latency to plot (see the row above)</source>
        <translation>到目前为止每次调用都失败了：没有耗时可画（见上面一行）</translation>
    </message>
    <message>
        <source>ms, log scale</source>
        <translation>毫秒，对数坐标</translation>
    </message>
    <message>
        <source>One point per call. Hover a point for its phases, signature and reason. Drag or scroll to zoom; double-click to follow the newest calls again.</source>
        <translation>每次调用一个点。悬停查看各阶段耗时、签名和原因。拖动或滚轮可缩放；双击恢复跟随最新的调用。</translation>
    </message>
    <message>
        <source>Colour: what JAX did for the call. Shape: which variant made it. A dashed vertical line marks where a run begins; failed calls are marked in their own row above the plot, never at a latency.</source>
        <translation>颜色：JAX 对这次调用做了什么。形状：哪个变体发出的调用。竖直虚线标出一次运行从哪里开始；失败的调用标在图上方单独的一行，从不画成耗时。</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>failed call (own row)</source>
        <translation>失败的调用（单独一行）</translation>
    </message>
    <message>
        <source>pitfall variant</source>
        <translation>陷阱变体</translation>
    </message>
    <message>
        <source>fix variant</source>
        <translation>修正变体</translation>
    </message>
    <message>
        <source>another variant</source>
        <translation>其他变体</translation>
    </message>
</context>
<context>
    <name>CodeView</name>
    <message>
        <source>Code that runs</source>
        <translation>实际运行的代码</translation>
    </message>
    <message>
        <source>Fix vs pitfall (diff)</source>
        <translation>修正 vs 陷阱（差异）</translation>
    </message>
    <message>
        <source>The source of the current variant, exactly as it runs.</source>
        <translation>当前变体的源代码，和实际运行的一模一样。</translation>
    </message>
    <message>
        <source>What the fix changes, as a diff against the pitfall.</source>
        <translation>修正版改了什么：相对陷阱版的差异。</translation>
    </message>
</context>
<context>
    <name>ErrorView</name>
    <message>
        <source>Call #%1 (%2) raised:</source>
        <translation>调用 #%1（%2）抛出了错误：</translation>
    </message>
    <message>
        <source>failed after %1</source>
        <translation>%1 后失败</translation>
    </message>
    <message>
        <source>What</source>
        <translation>报错</translation>
    </message>
    <message>
        <source>JAX&apos;s message</source>
        <translation>JAX 的原始报错</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>argument(s): %1</source>
        <translation>需要具体值的参数：%1</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Call #%1 raised:</source>
        <translation>调用 #%1 抛出了错误：</translation>
    </message>
    <message>
        <source>Raised by the scenario&apos;s own code (%1), not by JAX.</source>
        <translation>由场景自己的代码（%1）抛出，不是 JAX。</translation>
    </message>
    <message>
        <source>The scenario&apos;s exception</source>
        <translation>场景自己的异常</translation>
    </message>
    <message>
        <source>Fix</source>
        <translation>改法</translation>
    </message>
    <message>
        <source>while tracing</source>
        <translation>追踪时</translation>
    </message>
    <message>
        <source>before tracing</source>
        <translation>追踪之前</translation>
    </message>
    <message>
        <source>while running</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>operation: %1</source>
        <translation>出错的操作：%1</translation>
    </message>
    <message>
        <source>① Python stack — your frames only</source>
        <translation>① Python 调用栈（只留你自己的代码）</translation>
    </message>
    <message>
        <source>② Tracing context</source>
        <translation>② 追踪上下文</translation>
    </message>
    <message>
        <source>③ Abstract values</source>
        <translation>③ 抽象值</translation>
    </message>
    <message>
        <source>The same call under jax.disable_jit()</source>
        <translation>在 jax.disable_jit() 下重跑同一调用</translation>
    </message>
    <message>
        <source>jax.make_jaxpr of the fixed function</source>
        <translation>修复后函数的 jax.make_jaxpr</translation>
    </message>
    <message>
        <source>Runs without error: the problem is tracing, not the math.</source>
        <translation>不报错：问题出在追踪，而不在计算本身。</translation>
    </message>
    <message>
        <source>No error so far. A call that raises shows its error here.</source>
        <translation>目前没有错误。调用一旦出错，错误信息会显示在这里。</translation>
    </message>
    <message>
        <source>The last error a call raised.</source>
        <translation>最近一次调用抛出的错误。</translation>
    </message>
</context>
<context>
    <name>ExecutablesView</name>
    <message>
        <source>No count of live executables for this function: the recording was made by an older jitlab, or this JAX cannot list them.</source>
        <translation>这个函数没有存活可执行程序的计数：这份记录是旧版 jitlab 录的，或者这个版本的 JAX 无法列出它们。</translation>
    </message>
    <message>
        <source>Executables of this function alive after each compile: now %1 (at most %2), holding %3. A count that only grows means old programs are kept alive.</source>
        <translation>每次编译之后这个函数仍存活的可执行程序：现在 %1 个（最多 %2 个），共占 %3。只增不减的计数说明旧程序一直没被释放。</translation>
    </message>
    <message>
        <source>an amount JAX did not say</source>
        <translation>JAX 没有给出的大小</translation>
    </message>
    <message>
        <source>live executables</source>
        <translation>存活的可执行程序</translation>
    </message>
    <message>
        <source>their memory</source>
        <translation>它们占用的内存</translation>
    </message>
    <message>
        <source>seconds into the recording</source>
        <translation>录制开始后的秒数</translation>
    </message>
</context>
<context>
    <name>ExerciseCard</name>
    <message>
        <source>Claim to test: “%1”</source>
        <translation>待检验的说法：“%1”</translation>
    </message>
    <message>
        <source>Predict this answer.</source>
        <translation>预测这个答案。</translation>
    </message>
    <message>
        <source>Your prediction:</source>
        <translation>你的预测：</translation>
    </message>
    <message>
        <source>The code that runs. lab.jit is jax.jit with jitlab&apos;s probe around it; lab.note keeps a value for the verdict.</source>
        <translation>实际运行的代码。lab.jit 就是套上 jitlab 探针的 jax.jit；lab.note 记下一个值，供判定使用。</translation>
    </message>
    <message>
        <source>Your prediction: a whole number. Enter runs it.</source>
        <translation>你的预测：一个整数。按回车运行。</translation>
    </message>
    <message>
        <source>Pick the exception you expect, or type another exception name; “none” if the code runs cleanly. Enter runs it.</source>
        <translation>选择你预计会出现的异常，或输入别的异常名；如果认为代码能顺利跑完，填 “none”。按回车运行。</translation>
    </message>
    <message>
        <source>exception name, or none</source>
        <translation>异常名，或 none</translation>
    </message>
    <message>
        <source>The exact code the check runs, with empty JAX caches.</source>
        <translation>检查时原样运行的代码，JAX 缓存先清空。</translation>
    </message>
    <message>
        <source>A common belief about jit. The real run confirms or refutes it.</source>
        <translation>一个关于 jit 的常见看法。真实运行会证实或推翻它。</translation>
    </message>
</context>
<context>
    <name>ExercisesPage</name>
    <message>
        <source>Misconception to test: %1</source>
        <translation>待检验的误区：%1</translation>
    </message>
    <message>
        <source>Needs %1 devices; JAX sees %2 here. Start jitlab from the command line (it asks for 8 simulated CPU devices) to run it.</source>
        <translation>需要 %1 台设备；这里 JAX 只看到 %2 台。从命令行启动 jitlab（它会请求 8 台模拟 CPU 设备）即可运行。</translation>
    </message>
    <message>
        <source>This exercise needs %1 devices and JAX sees %2 here.</source>
        <translation>这道题需要 %1 台设备，而这里 JAX 只看到 %2 台。</translation>
    </message>
    <message>
        <source>The check itself failed:</source>
        <translation>检查本身出错了：</translation>
    </message>
    <message>
        <source>▶ Run it</source>
        <translation>▶ 运行验证</translation>
    </message>
    <message>
        <source>Run the code for real, with empty JAX caches, and compare what happens with your prediction.</source>
        <translation>清空 JAX 缓存后真实运行这段代码，把结果和你的预测对比。</translation>
    </message>
    <message>
        <source>Running the real code under the probe…</source>
        <translation>正在探针下运行真实代码…</translation>
    </message>
    <message>
        <source>JAX is tracing, compiling and running the snippet.</source>
        <translation>JAX 正在追踪、编译并运行这段代码。</translation>
    </message>
    <message>
        <source>Exercises grouped by pitfall. ⚖ marks a common belief to test.</source>
        <translation>按陷阱分组的练习。⚖ 表示一个待检验的常见看法。</translation>
    </message>
    <message>
        <source>Loading the exercises (this imports JAX)…</source>
        <translation>正在加载练习（需要导入 JAX）…</translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find in this text (Ctrl+F)</source>
        <translation>在此文本中查找（Ctrl+F）</translation>
    </message>
    <message>
        <source>Previous</source>
        <translation>上一个</translation>
    </message>
    <message>
        <source>Next</source>
        <translation>下一个</translation>
    </message>
    <message>
        <source>line %1</source>
        <translation>第 %1 行</translation>
    </message>
    <message>
        <source>not found</source>
        <translation>未找到</translation>
    </message>
</context>
<context>
    <name>InterviewView</name>
    <message>
        <source>%1 s left</source>
        <translation>还剩 %1 秒</translation>
    </message>
    <message>
        <source>Time is up: the answer scores nothing</source>
        <translation>时间到：这题作答不再计分</translation>
    </message>
    <message>
        <source>Score: %1 / %2</source>
        <translation>得分：%1 / %2</translation>
    </message>
    <message>
        <source>Seed %1 (enter it to replay this round), %2 s per question.</source>
        <translation>种子 %1（填入它可重玩这一轮），每题 %2 秒。</translation>
    </message>
    <message>
        <source>Stopped after %1 of %2 questions.</source>
        <translation>共 %2 题，答到第 %1 题时结束。</translation>
    </message>
    <message>
        <source>To review</source>
        <translation>需要复习</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你的答案</translation>
    </message>
    <message>
        <source>The real run</source>
        <translation>真实运行</translation>
    </message>
    <message>
        <source>Scenario</source>
        <translation>场景</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source>(late)</source>
        <translation>（超时）</translation>
    </message>
    <message>
        <source>Double-click to open this scenario and play with it.</source>
        <translation>双击打开这个场景，动手试试。</translation>
    </message>
    <message>
        <source>What to review (double-click a row to open its scenario):</source>
        <translation>需要复习的内容（双击一行打开对应场景）：</translation>
    </message>
    <message>
        <source>Nothing to review: every answer was right and in time.</source>
        <translation>没有需要复习的：每题都答对了，而且没超时。</translation>
    </message>
    <message>
        <source>Open the scenario that teaches the points you missed.</source>
        <translation>打开讲解你答错的知识点的场景。</translation>
    </message>
    <message>
        <source>Scenarios that teach them:</source>
        <translation>讲解这些知识点的场景：</translation>
    </message>
    <message>
        <source>Question %1 of %2 · score so far %3</source>
        <translation>第 %1 题，共 %2 题 · 目前得分 %3</translation>
    </message>
    <message>
        <source>See the score ▶</source>
        <translation>查看得分 ▶</translation>
    </message>
    <message>
        <source>Next question ▶</source>
        <translation>下一题 ▶</translation>
    </message>
    <message>
        <source>An interview round: questions drawn at random from the exercises, each against the clock. Predict, and the real run of JAX settles it. An answer after the time is up is still checked, but scores nothing. At the end: your score and what to review, with the scenarios that teach it.</source>
        <translation>面试模式：从练习中随机抽题，每题限时。先预测，再由 JAX 的真实运行判定。超时的作答照样检查，但不计分。结束时给出得分、需要复习的内容，以及讲解它们的场景。</translation>
    </message>
    <message>
        <source>Questions:</source>
        <translation>题数：</translation>
    </message>
    <message>
        <source>Questions are drawn from the %1 exercises that can run here.</source>
        <translation>题目从这里能运行的 %1 道练习中抽取。</translation>
    </message>
    <message>
        <source>Seconds per question:</source>
        <translation>每题秒数：</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>How many questions to draw for this round.</source>
        <translation>这一轮抽多少道题。</translation>
    </message>
    <message>
        <source>Time to answer each question; the clock stops while JAX runs the code.</source>
        <translation>每题的作答时间；JAX 运行代码时计时暂停。</translation>
    </message>
    <message>
        <source>The same seed draws the same questions in the same order: replay a round.</source>
        <translation>同一个种子会按同样顺序抽到同样的题：可以重玩一轮。</translation>
    </message>
    <message>
        <source>Start the round ▶</source>
        <translation>开始这一轮 ▶</translation>
    </message>
    <message>
        <source>Draw the questions and start the first clock.</source>
        <translation>抽题，并开始第一题的计时。</translation>
    </message>
    <message>
        <source>Submit and run ▶</source>
        <translation>提交并运行 ▶</translation>
    </message>
    <message>
        <source>Lock in your prediction; the code runs for real and settles it.</source>
        <translation>锁定你的预测；代码会真实运行并给出判定。</translation>
    </message>
    <message>
        <source>Pass</source>
        <translation>跳过</translation>
    </message>
    <message>
        <source>Skip this question (it goes on the review list); the run still shows the answer.</source>
        <translation>跳过这题（会列入复习清单）；仍会运行并给出答案。</translation>
    </message>
    <message>
        <source>End the round</source>
        <translation>结束本轮</translation>
    </message>
    <message>
        <source>Stop now and see the score for the questions answered.</source>
        <translation>现在结束，查看已答题目的得分。</translation>
    </message>
    <message>
        <source>Running the real code… (the clock is stopped)</source>
        <translation>正在运行真实代码…（计时已暂停）</translation>
    </message>
    <message>
        <source>JAX is tracing, compiling and running the snippet.</source>
        <translation>JAX 正在追踪、编译并运行这段代码。</translation>
    </message>
    <message>
        <source>Time left for this question.</source>
        <translation>这题剩余的时间。</translation>
    </message>
    <message>
        <source>New round</source>
        <translation>新一轮</translation>
    </message>
    <message>
        <source>Back to the round&apos;s settings.</source>
        <translation>回到本轮设置。</translation>
    </message>
    <message>
        <source>Wrong, passed or late answers. Double-click one to open its scenario.</source>
        <translation>答错、跳过或超时的题。双击一行打开对应场景。</translation>
    </message>
    <message>
        <source>Right answers in time, out of the questions drawn.</source>
        <translation>按时答对的题数 / 抽到的题数。</translation>
    </message>
</context>
<context>
    <name>Kinds</name>
    <message>
        <source>first compile</source>
        <translation>首次编译</translation>
    </message>
    <message>
        <source>recompile</source>
        <translation>重编译</translation>
    </message>
    <message>
        <source>cache hit</source>
        <translation>缓存命中</translation>
    </message>
    <message>
        <source>persistent-cache hit</source>
        <translation>持久缓存命中</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>eager (jit disabled)</source>
        <translation>即时执行（jit 已关闭）</translation>
    </message>
    <message>
        <source>traced into an outer computation</source>
        <translation>被并入外层计算追踪</translation>
    </message>
</context>
<context>
    <name>KitchenCanvas</name>
    <message>
        <source>Waiting for an order</source>
        <translation>等待点单</translation>
    </message>
    <message>
        <source>Still running after %1 s — abandoned</source>
        <translation>运行 %1 秒仍未返回——已放弃</translation>
    </message>
    <message>
        <source>Order in: is there a card for it?</source>
        <translation>来单了：卡片架上有对应的脚本吗？</translation>
    </message>
    <message>
        <source>No card fits: re-rehearsing (tracing again)…</source>
        <translation>没有合适的卡片：重新排练（再次追踪）…</translation>
    </message>
    <message>
        <source>Rehearsing the recipe (tracing)…</source>
        <translation>正在排练菜谱（追踪）…</translation>
    </message>
    <message>
        <source>Writing another script (recompiling)…</source>
        <translation>正在另写一份脚本（重编译）…</translation>
    </message>
    <message>
        <source>Writing the script (lowering + compiling)…</source>
        <translation>正在写脚本（降级 + 编译）…</translation>
    </message>
    <message>
        <source>Cooking from the new script (running)…</source>
        <translation>照新脚本做菜（运行中）…</translation>
    </message>
    <message>
        <source>Served from a script already written (cache hit)</source>
        <translation>用已经写好的脚本出餐（缓存命中）</translation>
    </message>
    <message>
        <source>Served from card #%1 (cache hit)</source>
        <translation>按 %1 号卡片出餐（缓存命中）</translation>
    </message>
    <message>
        <source>First script written: card #%1</source>
        <translation>第一份脚本写好了：%1 号卡片</translation>
    </message>
    <message>
        <source>Re-rehearsed! New card #%1 in the holder</source>
        <translation>重新排练了！卡片架上多了 %1 号卡片</translation>
    </message>
    <message>
        <source>Script fetched from the archive (persistent cache)</source>
        <translation>从档案柜取出脚本（持久缓存）</translation>
    </message>
    <message>
        <source>The order failed: see the error</source>
        <translation>这单做砸了：请看错误信息</translation>
    </message>
    <message>
        <source>+%1 more</source>
        <translation>另有 %1 张</translation>
    </message>
    <message>
        <source>Rehearsal · trace</source>
        <translation>排练 · 追踪</translation>
    </message>
    <message>
        <source>Script · compile</source>
        <translation>写脚本 · 编译</translation>
    </message>
    <message>
        <source>Card holder · cache</source>
        <translation>卡片架 · 缓存</translation>
    </message>
    <message>
        <source>Re-rehearsal!</source>
        <translation>重新排练！</translation>
    </message>
    <message numerus="yes">
        <source>Card #%1: compiled by call #%2 in %3, used once since</source>
        <translation>
            <numerusform>%1 号卡片：由调用 #%2 编译，用时 %3，此后使用 %n 次</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Card #%1: compiled by call #%2 in %3, used %n times since</source>
        <translation>
            <numerusform>%1 号卡片：由调用 #%2 编译，用时 %3，此后使用 %n 次</numerusform>
        </translation>
    </message>
    <message>
        <source>Click to read its script; right-click to compare it with another card.</source>
        <translation>点击查看它的脚本；右键可与另一张卡片比较。</translation>
    </message>
    <message>
        <source>1 device</source>
        <translation>单设备</translation>
    </message>
    <message>
        <source>uncommitted</source>
        <translation>未提交</translation>
    </message>
    <message>
        <source>weak %1</source>
        <translation>弱类型 %1</translation>
    </message>
    <message>
        <source>%1 scalar</source>
        <translation>%1 标量</translation>
    </message>
    <message>
        <source>object #%1</source>
        <translation>对象 #%1</translation>
    </message>
    <message>
        <source>function object #%1 of this code (a new one was jitted)</source>
        <translation>这段代码的函数对象 #%1（又 jit 了一个新的）</translation>
    </message>
    <message>
        <source>%1 (static)</source>
        <translation>%1（静态）</translation>
    </message>
</context>
<context>
    <name>KitchenPanel</name>
    <message>
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>Compiles (recompiles)</source>
        <translation>编译次数（其中重编译）</translation>
    </message>
    <message>
        <source>Cache hit rate</source>
        <translation>缓存命中率</translation>
    </message>
    <message>
        <source>Time lost to compiling</source>
        <translation>编译耗费的时间</translation>
    </message>
    <message>
        <source>Calls made since the last reset or variant switch.</source>
        <translation>自上次重置或切换变体以来的调用次数。</translation>
    </message>
    <message>
        <source>Calls that traced and compiled; in brackets, the recompiles.</source>
        <translation>经历了追踪和编译的调用次数；括号里是重编译次数。</translation>
    </message>
    <message>
        <source>Share of calls served from a card already in the holder.</source>
        <translation>直接用卡片架上现成脚本完成的调用所占比例。</translation>
    </message>
    <message>
        <source>Trace + lower + compile time: spent writing scripts, not cooking.</source>
        <translation>追踪 + 降级 + 编译的时间：都花在写脚本上，而不是做菜。</translation>
    </message>
    <message>
        <source>Chef Wang&apos;s kitchen. Rehearsal = tracing, script = compiling, card holder = jit&apos;s cache (one card per compiled signature), alarm = a recompile.</source>
        <translation>王师傅的厨房。排练 = 追踪，写脚本 = 编译，卡片架 = jit 的缓存（每种编译过的签名一张卡片），警报 = 重编译。</translation>
    </message>
    <message>
        <source>Why the last compile happened, from jitlab&apos;s signature diff.</source>
        <translation>最近一次编译的原因，来自 jitlab 的签名对比。</translation>
    </message>
    <message>
        <source>Last compile (call #%1), because: %2</source>
        <translation>最近一次编译（调用 #%1），原因：%2</translation>
    </message>
    <message>
        <source>Last compile (call #%1): the first call of %2, nothing to compare it with.</source>
        <translation>最近一次编译（调用 #%1）：%2 的第一次调用，没有可比较的对象。</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n call failed: %3. Nothing was compiled.</source>
        <translation>
            <numerusform>%n 次调用中有 %1 次失败：%3。还没有编译出任何程序。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n calls failed: %3. Nothing was compiled.</source>
        <translation>
            <numerusform>%n 次调用中有 %1 次失败：%3。还没有编译出任何程序。</numerusform>
        </translation>
    </message>
    <message>
        <source>No compile yet: make a call to see why jit compiles.</source>
        <translation>还没有编译：调用一次，看看 jit 为什么编译。</translation>
    </message>
    <message>
        <source>Time lost tracing failed calls</source>
        <translation>失败调用的追踪耗时</translation>
    </message>
    <message>
        <source>%1 (+%2 failed)</source>
        <translation>%1（另有失败 %2）</translation>
    </message>
</context>
<context>
    <name>Ledger</name>
    <message>
        <source>kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>run</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Type and shape of this argument in each compiled signature; after @, where it lay: its sharding, or the device it was committed to (none: placed where the call ran).</source>
        <translation>这个参数在每个已编译签名里的类型和形状；@ 之后是它所在的位置：它的分片，或它被提交到的设备（没有 @：放在调用运行的地方）。</translation>
    </message>
    <message>
        <source>Which run of this lesson compiled it (a variant switch or a reset).</source>
        <translation>这一课的哪一轮编译了它（切换版本或重置都会开始新的一轮）。</translation>
    </message>
    <message>
        <source>at</source>
        <translation>时刻</translation>
    </message>
    <message>
        <source>cost</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>called from</source>
        <translation>调用位置</translation>
    </message>
    <message>
        <source>what changed</source>
        <translation>变了什么</translation>
    </message>
    <message>
        <source>function object</source>
        <translation>函数对象</translation>
    </message>
    <message>
        <source>%1 (static)</source>
        <translation>%1（静态）</translation>
    </message>
    <message>
        <source>Which call of the function compiled (cache hits count too).</source>
        <translation>这个函数的第几次调用触发了编译（缓存命中也计数）。</translation>
    </message>
    <message>
        <source>First compile, recompile or a load from the persistent cache.</source>
        <translation>首次编译、重新编译，还是从持久缓存载入。</translation>
    </message>
    <message>
        <source>Seconds since the recording started.</source>
        <translation>距录制开始的秒数。</translation>
    </message>
    <message>
        <source>Trace + lower + compile time of this signature.</source>
        <translation>这个签名的追踪 + 降级 + 编译时间。</translation>
    </message>
    <message>
        <source>The line of the program that made the call.</source>
        <translation>程序里发起这次调用的那一行。</translation>
    </message>
    <message>
        <source>What differed from the closest earlier signature.</source>
        <translation>与最接近的旧签名相比，哪里不同。</translation>
    </message>
    <message>
        <source>A new number means the function itself was created again.</source>
        <translation>编号变了，说明函数对象本身被重新创建了。</translation>
    </message>
    <message>
        <source>JAX&apos;s own explanation:</source>
        <translation>JAX 自己的解释：</translation>
    </message>
    <message>
        <source>Changed: %1, before %2</source>
        <translation>变了：现在 %1，之前 %2</translation>
    </message>
    <message>
        <source>This function was jitted before the recording began, so only JAX&apos;s compile events were seen: no signature, only JAX&apos;s reason.</source>
        <translation>这个函数在录制开始之前就已经 jit 过，只能看到 JAX 的编译事件：没有签名，只有 JAX 给的原因。</translation>
    </message>
</context>
<context>
    <name>LedgerView</name>
    <message>
        <source>Every signature compiled in this lesson, oldest first, what changed in the first columns. A highlighted cell differs from the row above in the same run: that is what made JAX compile again.</source>
        <translation>这一课编译过的每个签名，从早到晚排列，变过的列排在最前。高亮的格子和同一轮里的上一行不同：正是它让 JAX 又编译了一次。</translation>
    </message>
    <message>
        <source>Every signature this function was compiled for, oldest first. A highlighted cell differs from the row above: that is what made JAX compile again.</source>
        <translation>这个函数编译过的每一个签名，最早的在上。高亮的格子与上一行不同：正是它让 JAX 又编译了一次。</translation>
    </message>
    <message>
        <source>jit keeps one compiled program per signature: shapes, dtypes, statics.</source>
        <translation>jit 为每个签名（形状、数据类型、静态参数）各保留一份编译好的程序。</translation>
    </message>
    <message>
        <source>One row per compile. Hover a highlighted cell for its previous value.</source>
        <translation>每次编译一行。鼠标停在高亮格子上可看到它之前的值。</translation>
    </message>
</context>
<context>
    <name>LessonPanel</name>
    <message>
        <source>Predict before you run</source>
        <translation>运行之前，先猜一猜</translation>
    </message>
    <message>
        <source>The question to keep in mind while you cook, and your prediction.</source>
        <translation>下厨时要带着的问题，以及你的预测。</translation>
    </message>
    <message>
        <source>Your prediction (kept for the summary)…</source>
        <translation>写下你的预测（总结页会拿它对照结果）…</translation>
    </message>
    <message>
        <source>Write down what you expect; the summary shows it next to what happened.</source>
        <translation>写下你预计会发生什么；总结页会把它和实际结果放在一起。</translation>
    </message>
    <message>
        <source>Start cooking →</source>
        <translation>开始下厨 →</translation>
    </message>
    <message>
        <source>Keep your prediction and start: move a slider or press Step (Execute mode).</source>
        <translation>记下预测，开始吧：拖动滑块或按“单步”（执行模式）。</translation>
    </message>
    <message>
        <source>Then move a slider or press Step: each change is one call.</source>
        <translation>然后拖动滑块或按“单步”：每改一次就是一次调用。</translation>
    </message>
    <message>
        <source>Each slider move or Step is one call.</source>
        <translation>每拖一次滑块或按一次“单步”，就是一次调用。</translation>
    </message>
    <message>
        <source>In Chef Wang&apos;s kitchen</source>
        <translation>王师傅的厨房里</translation>
    </message>
    <message>
        <source>The answer</source>
        <translation>答案</translation>
    </message>
    <message>
        <source>Opens after your first call: predict, run, then compare.</source>
        <translation>做完第一次调用后才能打开：先预测，再运行，然后对照。</translation>
    </message>
    <message>
        <source>Show or hide the answer.</source>
        <translation>显示或收起答案。</translation>
    </message>
    <message>
        <source>Make your first call to unlock Chef Wang&apos;s story and the answer. Predict first!</source>
        <translation>先做一次调用，王师傅的故事和答案才会解锁。记得先猜！</translation>
    </message>
    <message>
        <source>See the fix as code →</source>
        <translation>看修正后的代码 →</translation>
    </message>
    <message>
        <source>What the fix changes, as a diff against the pitfall.</source>
        <translation>修正版改了哪些地方，以相对陷阱版的差异显示。</translation>
    </message>
    <message>
        <source>Loading the scenarios…</source>
        <translation>正在加载场景…</translation>
    </message>
    <message>
        <source>What goes wrong</source>
        <translation>哪里出了问题</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>The fix</source>
        <translation>修正办法</translation>
    </message>
    <message>
        <source>What the scripts show</source>
        <translation>脚本里看得出什么</translation>
    </message>
    <message>
        <source>Compare the scripts</source>
        <translation>对比两份脚本</translation>
    </message>
    <message>
        <source>Read the script</source>
        <translation>读这份脚本</translation>
    </message>
    <message>
        <source>Opens the chef&apos;s scripts of the calls named above, side by side.</source>
        <translation>打开上面提到的那几次调用的厨师脚本，并排对照。</translation>
    </message>
</context>
<context>
    <name>LessonScripts</name>
    <message>
        <source>until it makes card #%1</source>
        <translation>直到它做出第 #%1 张卡</translation>
    </message>
    <message>
        <source>Writing out the scripts on the executor…</source>
        <translation>正在执行线程上写出脚本…</translation>
    </message>
    <message>
        <source>Make these calls first: %1.</source>
        <translation>请先做这些调用：%1。</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>(No script: %1)</source>
        <translation>（没有脚本：%1）</translation>
    </message>
</context>
<context>
    <name>LogView</name>
    <message>
        <source>Read its script</source>
        <translation>读它的脚本</translation>
    </message>
    <message>
        <source>Only a call that compiled has a script of its own.</source>
        <translation>只有发生了编译的调用才有自己的脚本。</translation>
    </message>
    <message>
        <source>Show the full difference</source>
        <translation>显示完整差异</translation>
    </message>
    <message>
        <source>What changed for call #%1</source>
        <translation>调用 #%1：哪里变了</translation>
    </message>
    <message>
        <source>Show:</source>
        <translation>显示：</translation>
    </message>
    <message>
        <source>Show or hide the calls of this kind in the log.</source>
        <translation>在日志中显示或隐藏这一类调用。</translation>
    </message>
    <message>
        <source>One row per call. Hover a row for the details.</source>
        <translation>每次调用一行。鼠标悬停查看详情。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>① Start</source>
        <translation>① 开始</translation>
    </message>
    <message>
        <source>② Execute</source>
        <translation>② 执行</translation>
    </message>
    <message>
        <source>③ Monitor</source>
        <translation>③ 监控</translation>
    </message>
    <message>
        <source>④ Complete</source>
        <translation>④ 完成</translation>
    </message>
    <message>
        <source>Make calls and watch the kitchen work (Alt+2).</source>
        <translation>发起调用，看厨房如何运转（Alt+2）。</translation>
    </message>
    <message>
        <source>The question: predict what jit will do, then start cooking (Alt+1).</source>
        <translation>问题：先预测 jit 会怎么做，再开始下厨（Alt+1）。</translation>
    </message>
    <message>
        <source>Study what compiled: the signature ledger and where the compile time went (Alt+3).</source>
        <translation>细看编译了什么：签名台账，以及编译时间花在了哪里（Alt+3）。</translation>
    </message>
    <message>
        <source>Summary: fix vs pitfall side by side, and export (Alt+4).</source>
        <translation>总结：修正与陷阱并排对比，并可导出（Alt+4）。</translation>
    </message>
    <message>
        <source>Call log</source>
        <translation>调用日志</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Code</source>
        <translation>代码</translation>
    </message>
    <message>
        <source>One row per call, filterable by kind.</source>
        <translation>每次调用一行，可按类型筛选。</translation>
    </message>
    <message>
        <source>What the calls printed, trace time vs runtime.</source>
        <translation>调用打印的内容，区分追踪期与运行期。</translation>
    </message>
    <message>
        <source>The last error a call raised.</source>
        <translation>最近一次调用抛出的错误。</translation>
    </message>
    <message>
        <source>The code that runs, and the fix as a diff.</source>
        <translation>实际运行的代码，以及修正版的差异。</translation>
    </message>
    <message>
        <source>Scenarios, grouped by pitfall. Greyed ones failed to load: hover for why.</source>
        <translation>按陷阱分组的场景。灰色的加载失败了：悬停查看原因。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open recording…</source>
        <translation>打开录制…</translation>
    </message>
    <message>
        <source>Open a recording made by `jitlab watch` (Ctrl+O).</source>
        <translation>打开 `jitlab watch` 生成的录制文件（Ctrl+O）。</translation>
    </message>
    <message>
        <source>Test yourself: predict, then run</source>
        <translation>自测：先预测，再运行</translation>
    </message>
    <message>
        <source>Interview round (timed)</source>
        <translation>面试轮（限时）</translation>
    </message>
    <message>
        <source>Export chart as PNG…</source>
        <translation>将图表导出为 PNG…</translation>
    </message>
    <message>
        <source>Export call log as CSV…</source>
        <translation>将调用日志导出为 CSV…</translation>
    </message>
    <message>
        <source>Export call log as JSON…</source>
        <translation>将调用日志导出为 JSON…</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>Play the demo hands-free</source>
        <translation>自动播放演示</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Scenario list</source>
        <translation>场景列表</translation>
    </message>
    <message>
        <source>Show or fold away the list of scenarios (Ctrl+B).</source>
        <translation>显示或收起场景列表（Ctrl+B）。</translation>
    </message>
    <message>
        <source>About jitlab</source>
        <translation>关于 jitlab</translation>
    </message>
    <message>
        <source>jitlab shows, call by call, what jax.jit really does: trace, compile, cache hit, recompile, why, and what it costs.</source>
        <translation>jitlab 逐次调用地展示 jax.jit 到底做了什么：追踪、编译、缓存命中、重编译，原因何在，代价几何。</translation>
    </message>
    <message>
        <source>Broken plugins</source>
        <translation>损坏的插件</translation>
    </message>
    <message>
        <source>Failed to load: %1</source>
        <translation>加载失败：%1</translation>
    </message>
    <message>
        <source>Test yourself</source>
        <translation>自测</translation>
    </message>
    <message>
        <source>Exercises and interview rounds: predict what jax.jit will do, then a real run settles it (Ctrl+T).</source>
        <translation>练习与面试：先预测 jax.jit 会怎么做，再由真实运行揭晓（Ctrl+T）。</translation>
    </message>
    <message>
        <source>Internal error</source>
        <translation>内部错误</translation>
    </message>
    <message>
        <source>Unknown scenario</source>
        <translation>未知场景</translation>
    </message>
    <message>
        <source>No scenario %1; choose one from the list.</source>
        <translation>没有名为 %1 的场景；请从列表中选择。</translation>
    </message>
    <message>
        <source>%1 set to %2</source>
        <translation>%1设为%2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Demo: first the question. Make a guess!</source>
        <translation>演示：先看问题。猜一猜！</translation>
    </message>
    <message>
        <source>Demo: Monitor. The ledger highlights what changed in each compiled signature; the bars show where the compile time went.</source>
        <translation>演示：监控。台账高亮每个编译签名里变了的部分；条形图显示编译时间花在了哪里。</translation>
    </message>
    <message>
        <source>Demo (%1 left): %2</source>
        <translation>演示（还剩 %1 步）：%2</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>Export call log</source>
        <translation>导出调用日志</translation>
    </message>
</context>
<context>
    <name>MonitorView</name>
    <message>
        <source>Signature ledger: what compiled in this lesson</source>
        <translation>签名台账：这一课编译了什么</translation>
    </message>
    <message>
        <source>Every signature compiled in this lesson&apos;s runs (a variant switch or a reset starts a run). A highlighted cell is what changed from the signature above in the same run: the reason JAX compiled again.</source>
        <translation>这一课各轮编译过的每个签名（切换版本或重置都会开始新的一轮）。高亮的格子是同一轮里相对上一个签名变了的地方：JAX 再次编译的原因。</translation>
    </message>
    <message>
        <source>Function:</source>
        <translation>函数：</translation>
    </message>
    <message>
        <source>This run jitted several functions: pick one.</source>
        <translation>本轮 jit 了好几个函数：选一个看。</translation>
    </message>
    <message>
        <source>Where the compile time went</source>
        <translation>编译时间花在了哪里</translation>
    </message>
    <message>
        <source>The newest compiles, one bar each: trace (Python runs to record the program), lower (to XLA&apos;s language), compile (XLA optimises). One scale for all.</source>
        <translation>最近的几次编译，每次一条：追踪（运行 Python 记下程序）、降级（翻译成 XLA 的语言）、编译（XLA 优化）。所有条形用同一比例尺。</translation>
    </message>
    <message>
        <source>No compile yet: make a call, and each compile gets a bar here.</source>
        <translation>还没有编译：做一次调用，每次编译都会在这里出现一条。</translation>
    </message>
    <message>
        <source>%1 · caches cleared</source>
        <translation>%1 · 缓存已清空</translation>
    </message>
</context>
<context>
    <name>OutputView</name>
    <message>
        <source>trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>runtime</source>
        <translation>运行期</translation>
    </message>
    <message>
        <source>What the calls print appears here. ⚙ trace: printed while jit traced the function (happens only when it compiles). ▶ runtime: printed while the compiled code ran (jax.debug.print).</source>
        <translation>调用打印的内容显示在这里。⚙ 追踪：jit 追踪函数时打印（只在编译时发生）。▶ 运行期：编译后的代码运行时打印（jax.debug.print）。</translation>
    </message>
    <message>
        <source>Printed output of the calls: trace-time lines in orange, runtime lines in green.</source>
        <translation>调用的打印输出：追踪期的行为橙色，运行期的行为绿色。</translation>
    </message>
</context>
<context>
    <name>ParamControls</name>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>This scenario has no parameters.</source>
        <translation>这个场景没有参数。</translation>
    </message>
</context>
<context>
    <name>PhaseTimeline</name>
    <message>
        <source>trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>lower</source>
        <translation>降级</translation>
    </message>
    <message>
        <source>compile</source>
        <translation>编译</translation>
    </message>
    <message>
        <source>Call #%1 (%2): trace %3, lower %4, compile %5</source>
        <translation>调用 #%1（%2）：追踪 %3，降级 %4，编译 %5</translation>
    </message>
</context>
<context>
    <name>QuizInput</name>
    <message>
        <source>Make a prediction first.</source>
        <translation>请先做出预测。</translation>
    </message>
    <message>
        <source>“%1” is not a whole number ≥ 0.</source>
        <translation>“%1” 不是 ≥ 0 的整数。</translation>
    </message>
    <message>
        <source>Pick one of the answers.</source>
        <translation>请选择一个答案。</translation>
    </message>
    <message>
        <source>“%1” is not an exception name. Pick one from the list, type a name such as ValueError, or “none” if you think the code runs cleanly.</source>
        <translation>“%1” 不是异常名。请从列表中选一个，或输入类似 ValueError 的名字；如果认为代码能顺利跑完，填 “none”。</translation>
    </message>
</context>
<context>
    <name>QuizVariant</name>
    <message>
        <source>the pitfall</source>
        <translation>陷阱版</translation>
    </message>
    <message>
        <source>the fix</source>
        <translation>修正版</translation>
    </message>
</context>
<context>
    <name>QuizView</name>
    <message>
        <source>The exercises could not be loaded:</source>
        <translation>无法加载练习：</translation>
    </message>
    <message>
        <source>Exercises</source>
        <translation>练习</translation>
    </message>
    <message>
        <source>Interview</source>
        <translation>面试</translation>
    </message>
    <message>
        <source>Pick an exercise, predict, and let a real run of JAX settle it.</source>
        <translation>选一道练习，先预测，再让 JAX 的真实运行来判定。</translation>
    </message>
    <message>
        <source>A timed round of questions drawn at random; a score and what to review.</source>
        <translation>随机抽题、限时作答的一轮；给出得分和需要复习的内容。</translation>
    </message>
</context>
<context>
    <name>QuizWindow</name>
    <message>
        <source>Open the lab with: %1</source>
        <translation>用这条命令打开实验室：%1</translation>
    </message>
    <message>
        <source>Quiz</source>
        <translation>测验</translation>
    </message>
    <message>
        <source>Switch the interface language.</source>
        <translation>切换界面语言。</translation>
    </message>
</context>
<context>
    <name>Reasons</name>
    <message>
        <source>as the recording says: %1</source>
        <translation>录制文件中的原话：%1</translation>
    </message>
</context>
<context>
    <name>RecordingChart</name>
    <message>
        <source>returned after (ms, log scale)</source>
        <translation>返回用时（ms，对数刻度）</translation>
    </message>
    <message>
        <source>ms, log scale</source>
        <translation>毫秒，对数坐标</translation>
    </message>
    <message>
        <source>Each point&apos;s height is the time until the call returned to the program. JAX dispatches asynchronously: on a GPU or TPU a call returns before the device has finished, so this is compile and dispatch time, not the time the work took (the lab waits for the result; a watched program is not made to).</source>
        <translation>每个点的高度是调用返回到程序所用的时间。JAX 是异步派发的：在 GPU 或 TPU 上，调用会在设备算完之前就返回，所以这是编译加派发的时间，而不是计算本身花的时间（实验室会等结果算完；被监视的程序不会被强迫等待）。</translation>
    </message>
    <message>
        <source>One point per compile of this function, at the number of the call that made it; the calls in between were cache hits.</source>
        <translation>这个函数每编译一次画一个点，横坐标是触发它的调用序号；中间的调用都是缓存命中。</translation>
    </message>
</context>
<context>
    <name>RecordingKitchen</name>
    <message>
        <source>Cache hits of this function were not counted: it was jitted before the recording began, and a cache hit fires no JAX event.</source>
        <translation>这个函数的缓存命中没有计数：它在录制开始之前就已 jit，而缓存命中不会触发任何 JAX 事件。</translation>
    </message>
    <message>
        <source>Calls of this function: its compiles plus its cache hits.</source>
        <translation>这个函数的调用次数：编译次数加缓存命中次数。</translation>
    </message>
    <message>
        <source>Share of this function&apos;s calls served from a compiled program.</source>
        <translation>这个函数的调用中，直接用已编译程序完成的比例。</translation>
    </message>
</context>
<context>
    <name>RecordingWindow</name>
    <message>
        <source>Recording %1</source>
        <translation>录制 %1</translation>
    </message>
    <message>
        <source>The processes diverged in %1 place:</source>
        <translation>各进程有 %1 处出现分歧：</translation>
    </message>
    <message>
        <source>The processes diverged in %1 places:</source>
        <translation>各进程有 %1 处出现分歧：</translation>
    </message>
    <message>
        <source>… and %1 more</source>
        <translation>……另有 %1 处</translation>
    </message>
    <message>
        <source>In SPMD code every process should compile the same programs; a collective may wait on a process that is still compiling. Highlighted rows: the functions concerned; ⚠: the process that compiled what the others did not.</source>
        <translation>SPMD 代码里，每个进程都应编译同样的程序；否则集合通信可能要等一个还在编译的进程。高亮的行：涉及的函数；⚠：编译了其他进程没编译的程序的那个进程。</translation>
    </message>
    <message>
        <source>defined at %1</source>
        <translation>定义于 %1</translation>
    </message>
    <message>
        <source>in process %1</source>
        <translation>在进程 %1 中</translation>
    </message>
    <message>
        <source>What changed between its compiles:</source>
        <translation>各次编译之间变了什么：</translation>
    </message>
    <message>
        <source>Compiled once: nothing to fix here.</source>
        <translation>只编译过一次：这里没什么要修的。</translation>
    </message>
    <message>
        <source>Diagnoses</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>This function was jitted before the watch began: jitlab saw only JAX&apos;s compile events, so it has no script.</source>
        <translation>这个函数在记录开始之前就已被 jit：jitlab 只看到了 JAX 的编译事件，所以没有它的剧本。</translation>
    </message>
    <message>
        <source>No script was recorded for this compile.</source>
        <translation>这次编译没有记录剧本。</translation>
    </message>
    <message>
        <source>This recording keeps no scripts. Record the program with `jitlab watch --scripts` (figures) or `jitlab watch --script-texts` (jaxpr, StableHLO and HLO too) to read them here.</source>
        <translation>这份记录里没有剧本。用 `jitlab watch --scripts`（各项数字）或 `jitlab watch --script-texts`（连同 jaxpr、StableHLO 和 HLO）重新记录程序，就能在这里查看。</translation>
    </message>
    <message>
        <source>%1 processes (%2 …)</source>
        <translation>%1 个进程（%2 …）</translation>
    </message>
    <message>
        <source>program: %1</source>
        <translation>程序：%1</translation>
    </message>
    <message>
        <source>JAX %1</source>
        <translation>JAX %1</translation>
    </message>
    <message>
        <source>%1 functions, %2 compiles, %3 spent compiling</source>
        <translation>%1 个函数，编译 %2 次，编译共耗 %3</translation>
    </message>
    <message>
        <source>one lane per process and function; hosts: %1</source>
        <translation>每个函数在每个进程各占一行；主机数：%1</translation>
    </message>
    <message>
        <source>The file %1 does not exist (yet): waiting for it.</source>
        <translation>文件 %1 （还）不存在：正在等它出现。</translation>
    </message>
    <message>
        <source>%1 is not a recording file (a named pipe, a device or a socket): only regular files are read.</source>
        <translation>%1 不是记录文件（而是命名管道、设备或套接字）：只读取普通文件。</translation>
    </message>
    <message>
        <source>Reading the file: %1% so far…</source>
        <translation>正在读取文件：已读 %1%…</translation>
    </message>
    <message>
        <source>The program finished; the recording is complete.</source>
        <translation>程序已结束，录制完整。</translation>
    </message>
    <message>
        <source>Following: new compiles appear as the program writes them.</source>
        <translation>跟随中：程序写入新的编译记录时会立刻显示。</translation>
    </message>
    <message>
        <source>%1 has no end line: the program was killed or ended with os._exit (or it is still running); its counts are those written before.</source>
        <translation>%1 没有结束行：程序被终止或以 os._exit 退出（或仍在运行）；计数只含此前写入的部分。</translation>
    </message>
    <message>
        <source>The last line is incomplete (still being written, or the program was killed); it is skipped until it ends.</source>
        <translation>最后一行不完整（还在写入，或程序被强行终止）；在它写完之前先跳过。</translation>
    </message>
    <message>
        <source>What changed between its compiles: the %1 that explain the most compiles, of %2 (the ledger lists every compile):</source>
        <translation>各次编译之间变了什么：共 %2 种，下面是解释编译次数最多的 %1 种（签名台账列出了每一次编译）：</translation>
    </message>
    <message numerus="yes">
        <source>%n unreadable line skipped.</source>
        <translation>
            <numerusform>跳过了 %n 行无法读取的内容。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n unreadable lines skipped.</source>
        <translation>
            <numerusform>跳过了 %n 行无法读取的内容。</numerusform>
        </translation>
    </message>
    <message>
        <source>Lines longer than %1 MiB, not read: %2.</source>
        <translation>超过 %1 MiB 的行未读取：%2。</translation>
    </message>
    <message>
        <source>function</source>
        <translation>函数</translation>
    </message>
    <message>
        <source>time lost</source>
        <translation>损失时间</translation>
    </message>
    <message>
        <source>compiles</source>
        <translation>编译次数</translation>
    </message>
    <message>
        <source>recompiles</source>
        <translation>重新编译</translation>
    </message>
    <message>
        <source>cache hits</source>
        <translation>缓存命中</translation>
    </message>
    <message>
        <source>process</source>
        <translation>进程</translation>
    </message>
    <message>
        <source>The jitted function and, on hover, where it is defined.</source>
        <translation>被 jit 的函数；鼠标停留可看到它的定义位置。</translation>
    </message>
    <message>
        <source>Trace + lower + compile time spent on this function.</source>
        <translation>花在这个函数上的追踪 + 降级 + 编译时间。</translation>
    </message>
    <message>
        <source>Programs compiled for it (first compile, recompiles, persistent loads).</source>
        <translation>为它编译出的程序数（首次编译、重新编译、持久缓存载入）。</translation>
    </message>
    <message>
        <source>Compiles after the first: each one is time lost.</source>
        <translation>第一次之后的编译：每一次都是白花的时间。</translation>
    </message>
    <message>
        <source>Calls served from a compiled program; ? when they could not be counted.</source>
        <translation>直接用已编译程序完成的调用；无法计数时显示 ?。</translation>
    </message>
    <message>
        <source>The process of the job that wrote the recording; ⚠: it diverged.</source>
        <translation>写下这份记录的作业进程；⚠：它出现了分歧。</translation>
    </message>
    <message>
        <source>Functions sorted by time lost to compiling: fix the first one first.</source>
        <translation>函数按编译损失的时间排序：先修排在最前面的。</translation>
    </message>
    <message>
        <source>%1 (not on this machine)</source>
        <translation>%1（本机上没有这一页）</translation>
    </message>
    <message>
        <source>Functions, most time lost first:</source>
        <translation>函数（损失时间最多的在前）：</translation>
    </message>
    <message>
        <source>The picked function: where it is defined, what changed.</source>
        <translation>选中的函数：定义位置，以及变了什么。</translation>
    </message>
    <message>
        <source>Follow the file as the program writes it</source>
        <translation>随程序写入跟随文件</translation>
    </message>
    <message>
        <source>Read new lines as they are written, for a program that is still running.</source>
        <translation>程序还在运行时，新写入的行会被立即读入。</translation>
    </message>
    <message>
        <source>Signature ledger</source>
        <translation>签名账本</translation>
    </message>
    <message>
        <source>Every signature the function compiled for; changes highlighted.</source>
        <translation>函数编译过的每个签名；变化之处高亮。</translation>
    </message>
    <message>
        <source>Shape histogram</source>
        <translation>形状直方图</translation>
    </message>
    <message>
        <source>The sizes a changing dimension took, and buckets that cap them.</source>
        <translation>一个变动维度出现过的大小，以及限制编译次数的分桶方案。</translation>
    </message>
    <message>
        <source>Compile log</source>
        <translation>编译日志</translation>
    </message>
    <message>
        <source>One row per compile of the function.</source>
        <translation>函数每编译一次一行。</translation>
    </message>
    <message>
        <source>Call sites</source>
        <translation>调用点</translation>
    </message>
    <message>
        <source>The lines of the program whose calls compiled, costliest first.</source>
        <translation>调用时引发了编译的程序行，最耗时的在前。</translation>
    </message>
    <message>
        <source>Live executables</source>
        <translation>存活的可执行程序</translation>
    </message>
    <message>
        <source>The function&apos;s executables alive after each compile, over time.</source>
        <translation>每次编译之后这个函数仍存活的可执行程序，随时间变化。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open recording…</source>
        <translation>打开录制…</translation>
    </message>
    <message>
        <source>Open a recording made by jitlab watch.</source>
        <translation>打开 jitlab watch 录下的文件。</translation>
    </message>
    <message>
        <source>Read again from the start</source>
        <translation>从头重新读取</translation>
    </message>
    <message>
        <source>Follow the file</source>
        <translation>跟随文件</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Open a jitlab recording</source>
        <translation>打开 jitlab 录制</translation>
    </message>
    <message>
        <source>Recordings (*.jsonl *.json);;All files (*)</source>
        <translation>录制文件 (*.jsonl *.json);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>RunControls</name>
    <message>
        <source>the code as first written</source>
        <translation>最初写下的代码</translation>
    </message>
    <message>
        <source>the fix</source>
        <translation>修正版</translation>
    </message>
    <message>
        <source>variant %1</source>
        <translation>变体 %1</translation>
    </message>
    <message>
        <source>Run it and watch the kitchen: what will jit do?</source>
        <translation>运行它，看看厨房：jit 会怎么做？</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Call the function again and again at the call rate (Space).</source>
        <translation>按设定的调用速率反复调用函数（空格键）。</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Make exactly one call with the current values (Ctrl+Enter).</source>
        <translation>用当前参数调用一次（Ctrl+Enter）。</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Clear jit&apos;s caches: the card holder empties and the next call compiles (Ctrl+R).</source>
        <translation>清空 jit 的缓存：卡片架清空，下一次调用重新编译（Ctrl+R）。</translation>
    </message>
    <message>
        <source>Calls per second:</source>
        <translation>每秒调用次数：</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最快</translation>
    </message>
    <message>
        <source>How fast Run calls; 0 = as fast as the worker can.</source>
        <translation>运行时的调用速度；0 = 工作线程能跑多快就多快。</translation>
    </message>
    <message>
        <source>Overlay pitfall and fix</source>
        <translation>叠加对比陷阱与修正</translation>
    </message>
    <message>
        <source>Draw the latest pitfall run and the latest fix run from call 0, one on the other.</source>
        <translation>把最近一轮陷阱运行和最近一轮修正运行都从第 0 次调用画起，叠在一起。</translation>
    </message>
    <message>
        <source>Variant:</source>
        <translation>变体：</translation>
    </message>
    <message>
        <source>Which version of the code runs. Switching starts a fresh run (Ctrl+1…9).</source>
        <translation>运行哪个版本的代码。切换后开始新的一轮（Ctrl+1…9）。</translation>
    </message>
</context>
<context>
    <name>ScriptBook</name>
    <message>
        <source>Read its script</source>
        <translation>查看它的脚本</translation>
    </message>
    <message>
        <source>Compare with…</source>
        <translation>与其他卡片比较…</translation>
    </message>
</context>
<context>
    <name>ScriptDiffWindow</name>
    <message>
        <source>No comparison: %1</source>
        <translation>无法比较：%1</translation>
    </message>
    <message>
        <source>(identical)</source>
        <translation>（完全相同）</translation>
    </message>
    <message>
        <source>Compare card #%1 with card #%2</source>
        <translation>比较卡片 #%1 与卡片 #%2</translation>
    </message>
    <message>
        <source>Card #%1 → card #%2: %3</source>
        <translation>卡片 #%1 → 卡片 #%2：%3</translation>
    </message>
    <message>
        <source>the same signature, compiled again by another function object</source>
        <translation>签名相同，由另一个函数对象再次编译</translation>
    </message>
    <message>
        <source>jaxpr diff</source>
        <translation>jaxpr 差异</translation>
    </message>
    <message>
        <source>StableHLO diff</source>
        <translation>StableHLO 差异</translation>
    </message>
    <message>
        <source>HLO diff</source>
        <translation>HLO 差异</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>call #%1</source>
        <translation>调用 #%1</translation>
    </message>
</context>
<context>
    <name>ScriptView</name>
    <message>
        <source>Card #%1</source>
        <translation>卡片 #%1</translation>
    </message>
    <message>
        <source>Writing out the script on the executor…</source>
        <translation>正在执行线程上写出脚本…</translation>
    </message>
    <message>
        <source>%1 · card %2 · compiled by call #%3</source>
        <translation>%1 · 卡片 %2 · 由调用 #%3 编译</translation>
    </message>
    <message>
        <source>No script: %1</source>
        <translation>没有脚本：%1</translation>
    </message>
    <message>
        <source>Source — %1, from line %2</source>
        <translation>源代码 — %1，从第 %2 行起</translation>
    </message>
    <message>
        <source>Printing the StableHLO on the executor…</source>
        <translation>正在执行器上打印 StableHLO…</translation>
    </message>
    <message>
        <source>No StableHLO: %1</source>
        <translation>没有 StableHLO：%1</translation>
    </message>
    <message>
        <source>%1 equations</source>
        <translation>%1 个方程</translation>
    </message>
    <message>
        <source>%1 HLO instructions</source>
        <translation>%1 条 HLO 指令</translation>
    </message>
    <message>
        <source>%1 flops</source>
        <translation>%1 次浮点运算</translation>
    </message>
    <message>
        <source>%1 to compile</source>
        <translation>编译用时 %1</translation>
    </message>
    <message>
        <source>made in %1</source>
        <translation>生成用时 %1</translation>
    </message>
    <message>
        <source>Line %1 made no equation of this jaxpr.</source>
        <translation>第 %1 行没有生成这个 jaxpr 中的任何方程。</translation>
    </message>
    <message>
        <source>Line %1 made one equation of the jaxpr.</source>
        <translation>第 %1 行生成了 jaxpr 中的 1 个方程。</translation>
    </message>
    <message>
        <source>Line %1 made %2 equations of the jaxpr.</source>
        <translation>第 %1 行生成了 jaxpr 中的 %2 个方程。</translation>
    </message>
    <message>
        <source>This equation comes from %1.</source>
        <translation>这个方程来自 %1。</translation>
    </message>
    <message>
        <source>This equation comes from %1, outside the function shown.</source>
        <translation>这个方程来自 %1，不在所示函数之内。</translation>
    </message>
    <message>
        <source>Source ↔ jaxpr</source>
        <translation>源代码 ↔ jaxpr</translation>
    </message>
    <message>
        <source>StableHLO (lowered)</source>
        <translation>StableHLO（降级后）</translation>
    </message>
    <message>
        <source>HLO (optimized by XLA)</source>
        <translation>HLO（经 XLA 优化）</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>What jit handed to XLA: the program lowered to StableHLO.</source>
        <translation>jit 交给 XLA 的内容：降级为 StableHLO 的程序。</translation>
    </message>
    <message>
        <source>What XLA made of it after fusing and optimizing: what actually runs.</source>
        <translation>XLA 融合、优化之后的结果：真正运行的就是它。</translation>
    </message>
    <message>
        <source>jaxpr — select a line to see where it came from</source>
        <translation>jaxpr — 选中一行，查看它来自哪里</translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation>与之比较</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>数值</translation>
    </message>
</context>
<context>
    <name>ScriptWindow</name>
    <message>
        <source>Script of card #%1 — %2</source>
        <translation>卡片 #%1 的脚本 — %2</translation>
    </message>
</context>
<context>
    <name>ShapeHistogram</name>
    <message>
        <source>%1 (axis %2)</source>
        <translation>%1（第 %2 轴）</translation>
    </message>
    <message>
        <source>size of %1</source>
        <translation>%1 的大小</translation>
    </message>
    <message>
        <source>Seen: %1 sizes in %2 compiles. The bucket sizes %3 cut this to %4 (one compile per bucket), at the cost of %5% padding over the sizes seen.</source>
        <translation>见到 %1 种大小，共编译 %2 次。按桶大小 %3 可减到 %4 次（每个桶编译一次），代价是在出现过的大小上补齐 %5%。</translation>
    </message>
    <message>
        <source>%2: bucket sizes for %1, one compile each (%4 sizes seen)</source>
        <translation>%2：%1 的桶大小，每个桶编译一次（出现过 %4 种大小）</translation>
    </message>
    <message>
        <source>The smallest bucket that holds n.</source>
        <translation>能装下 n 的最小桶。</translation>
    </message>
    <message>
        <source>larger than every bucket: one more compile</source>
        <translation>比所有桶都大：会多编译一次</translation>
    </message>
    <message>
        <source>Pad a with zeros along axis up to size.</source>
        <translation>沿 axis 用 0 把 a 补齐到 size。</translation>
    </message>
    <message>
        <source>Before each call, pad to the bucket:</source>
        <translation>每次调用前，补齐到所在的桶：</translation>
    </message>
    <message>
        <source>pad these leaves the same way</source>
        <translation>这些叶子也照样补齐</translation>
    </message>
    <message>
        <source>Only the first n rows are real: mask the padding out of sums and means</source>
        <translation>只有前 n 行是真数据：求和、求均值时用掩码去掉补齐部分</translation>
    </message>
    <message>
        <source>pass the padded arguments and the mask</source>
        <translation>传入补齐后的参数和掩码</translation>
    </message>
    <message>
        <source>%1 never compiled for a new size of the same dimension: there is nothing to bucket. (Recompiles caused by dtypes, statics or shardings show in the signature ledger.)</source>
        <translation>%1 从未因同一维度的大小变化而重新编译：没有可分桶的东西。（由数据类型、静态参数或分片引起的重新编译见签名账本。）</translation>
    </message>
    <message>
        <source>Pick a function to see the sizes it compiled for.</source>
        <translation>选一个函数，查看它为哪些大小编译过。</translation>
    </message>
    <message>
        <source>Dimension:</source>
        <translation>维度：</translation>
    </message>
    <message>
        <source>Axes whose size changed between compiles; axes that change together share a row.</source>
        <translation>各次编译之间大小变化的轴；一起变化的轴合为一项。</translation>
    </message>
    <message>
        <source>Compiles allowed:</source>
        <translation>允许编译次数：</translation>
    </message>
    <message>
        <source>How many shapes you accept to compile. jitlab picks the bucket sizes that need the least padding for that many.</source>
        <translation>你愿意接受编译几种形状。jitlab 会为这个次数挑出补齐最少的桶大小。</translation>
    </message>
    <message>
        <source>One bar per size seen, its height the number of compiles at that size. Green bars are bucket sizes; red ones are padded up to the bucket at the right edge of their band.</source>
        <translation>每个出现过的大小一根柱子，高度是该大小的编译次数。绿柱是桶的大小；红柱会被补齐到所在色带右边缘的那个桶。</translation>
    </message>
    <message>
        <source>compiles</source>
        <translation>编译次数</translation>
    </message>
    <message>
        <source>Each size seen counts once: a recording counts cache hits per function, not per shape.</source>
        <translation>每个出现过的大小只算一次：录制按函数统计缓存命中，而不是按形状。</translation>
    </message>
    <message>
        <source>Code that applies the buckets: copy it into your program.</source>
        <translation>应用分桶的代码：复制到你的程序里。</translation>
    </message>
    <message>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
    <message>
        <source>Copy the bucketing code to the clipboard.</source>
        <translation>把分桶代码复制到剪贴板。</translation>
    </message>
    <message>
        <source>Only a dimension that changes size can be bucketed.</source>
        <translation>只有大小会变的维度才能分桶。</translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <source>Preparing JAX… your call runs as soon as it is ready.</source>
        <translation>正在准备 JAX……它一就绪，你要的调用就会执行。</translation>
    </message>
    <message>
        <source>Starting JAX on the worker thread…</source>
        <translation>正在工作线程上启动 JAX…</translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n call this run · %3 in total</source>
        <translation>
            <numerusform>%1 · 本轮 %n 次调用 · 共 %3 次</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n calls this run · %3 in total</source>
        <translation>
            <numerusform>%1 · 本轮 %n 次调用 · 共 %3 次</numerusform>
        </translation>
    </message>
    <message>
        <source>still running after %1 s (Pause, Reset or another scenario abandons it)</source>
        <translation>已运行 %1 秒仍未返回（暂停、重置或换一个场景即可放弃它）</translation>
    </message>
    <message>
        <source>Closing: waiting for the call in flight to finish… %1 s (at most %2 s)</source>
        <translation>正在关闭：等待进行中的调用结束…… 已等 %1 秒（最多 %2 秒）</translation>
    </message>
</context>
<context>
    <name>SummaryPage</name>
    <message>
        <source>Run both variants (or press “Measure both”) to compare them side by side.</source>
        <translation>把两个变体都跑一遍（或按“两者都测”），即可并排比较。</translation>
    </message>
    <message numerus="yes">
        <source>Not like with like: the pitfall run made %n call, the fix run %2. Press “Measure both” to run both on the same calls.</source>
        <translation>
            <numerusform>条件不同：陷阱版运行了 %n 次调用，修正版 %2 次。按“两者都测”可让两者跑同样的调用。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not like with like: the pitfall run made %n calls, the fix run %2. Press “Measure both” to run both on the same calls.</source>
        <translation>
            <numerusform>条件不同：陷阱版运行了 %n 次调用，修正版 %2 次。按“两者都测”可让两者跑同样的调用。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not like with like: the two runs made their %n call with different parameters. Press “Measure both” to run both on the same calls.</source>
        <translation>
            <numerusform>条件不同：两次运行的 %n 次调用用了不同的参数。按“两者都测”可让两者跑同样的调用。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not like with like: the two runs made their %n calls with different parameters. Press “Measure both” to run both on the same calls.</source>
        <translation>
            <numerusform>条件不同：两次运行的 %n 次调用用了不同的参数。按“两者都测”可让两者跑同样的调用。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Like with like: both runs made the same %n call.</source>
        <translation>
            <numerusform>同条件比较：两次运行做的是同样的 %n 次调用。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Like with like: both runs made the same %n calls.</source>
        <translation>
            <numerusform>同条件比较：两次运行做的是同样的 %n 次调用。</numerusform>
        </translation>
    </message>
    <message>
        <source>Your prediction: %1</source>
        <translation>你的预测：%1</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n call failed: %3</source>
        <translation>
            <numerusform>%n 次调用中 %1 次失败：%3</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n calls failed: %3</source>
        <translation>
            <numerusform>%n 次调用中 %1 次失败：%3</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n error types</source>
        <translation>
            <numerusform>%n 种错误</numerusform>
        </translation>
    </message>
    <message>
        <source>call in the run (0: pitfall #%1, fix #%2)</source>
        <translation>本轮中的调用序号（0：陷阱版 #%1，修正版 #%2）</translation>
    </message>
    <message>
        <source>Summary: %1</source>
        <translation>总结：%1</translation>
    </message>
    <message>
        <source>The fix measured against the pitfall (latest run of each)</source>
        <translation>修正与陷阱的实测对比（各取最近一轮）</translation>
    </message>
    <message>
        <source>Pitfall</source>
        <translation>陷阱</translation>
    </message>
    <message>
        <source>Fix</source>
        <translation>修正</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>Compiles (all)</source>
        <translation>编译次数（全部）</translation>
    </message>
    <message>
        <source>of which recompiles</source>
        <translation>其中重编译</translation>
    </message>
    <message>
        <source>Cache hit rate</source>
        <translation>缓存命中率</translation>
    </message>
    <message>
        <source>Time lost to compiling</source>
        <translation>编译耗费的时间</translation>
    </message>
    <message>
        <source>Mean latency of a cache hit</source>
        <translation>缓存命中的平均耗时</translation>
    </message>
    <message>
        <source>Total time of all calls</source>
        <translation>所有调用的总耗时</translation>
    </message>
    <message>
        <source>Remember:</source>
        <translation>记住：</translation>
    </message>
    <message>
        <source>latency (ms, log scale)</source>
        <translation>耗时（毫秒，对数坐标）</translation>
    </message>
    <message>
        <source>call number in the run</source>
        <translation>本轮中的调用序号</translation>
    </message>
    <message>
        <source>The same calls on the pitfall (solid) and on the fix (dashed), from call 0.</source>
        <translation>同一组调用分别在陷阱版（实线）和修正版（虚线）上的耗时，都从第 0 次调用开始。</translation>
    </message>
    <message>
        <source>Measure both</source>
        <translation>两者都测</translation>
    </message>
    <message>
        <source>Run the same calls on the pitfall, then on the fix, and compare.</source>
        <translation>在陷阱版上、再在修正版上跑同样的调用，然后比较。</translation>
    </message>
    <message>
        <source>← Back to the kitchen</source>
        <translation>← 回到厨房</translation>
    </message>
    <message>
        <source>Return to Execute mode.</source>
        <translation>回到执行模式。</translation>
    </message>
    <message>
        <source>Test yourself…</source>
        <translation>自测一下…</translation>
    </message>
    <message>
        <source>Predict-then-run exercises on this pitfall, settled by real runs.</source>
        <translation>针对这个陷阱的“先预测、后运行”练习，由真实运行给出答案。</translation>
    </message>
    <message>
        <source>Export chart (PNG)…</source>
        <translation>导出图表（PNG）…</translation>
    </message>
    <message>
        <source>Save the latency chart as a PNG image.</source>
        <translation>把耗时图表保存为 PNG 图片。</translation>
    </message>
    <message>
        <source>Export log (CSV)…</source>
        <translation>导出日志（CSV）…</translation>
    </message>
    <message>
        <source>Save every call as a CSV row.</source>
        <translation>每次调用保存为 CSV 的一行。</translation>
    </message>
    <message>
        <source>Export log (JSON)…</source>
        <translation>导出日志（JSON）…</translation>
    </message>
    <message>
        <source>Save every call as JSON, the same fields as `jitlab run --json`.</source>
        <translation>把每次调用保存为 JSON，字段与 `jitlab run --json` 相同。</translation>
    </message>
    <message>
        <source>(+%1 failed)</source>
        <translation>（另有 %1 次失败）</translation>
    </message>
    <message>
        <source>A call that raises gives no result, so its time is no saving: compare the costs of runs that work.</source>
        <translation>报错的调用没有结果，它花的时间谈不上省：只比较能跑通的运行的开销。</translation>
    </message>
    <message>
        <source>Errors</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>none: every call failed</source>
        <translation>无：每次调用都失败了</translation>
    </message>
</context>
<context>
    <name>VerdictPanel</name>
    <message>
        <source>✓ Right.</source>
        <translation>✓ 答对了。</translation>
    </message>
    <message>
        <source>✓ Right — precisely, it is %1.</source>
        <translation>✓ 答对了——确切地说是 %1。</translation>
    </message>
    <message>
        <source>✗ Not this time.</source>
        <translation>✗ 这次没猜中。</translation>
    </message>
    <message>
        <source>⏱ Too late (%1 s): checked, but not scored.</source>
        <translation>⏱ 超时（%1 秒）：已检查，但不计分。</translation>
    </message>
    <message>
        <source>Skipped: %1</source>
        <translation>已跳过：%1</translation>
    </message>
    <message>
        <source>The run broke: %1</source>
        <translation>运行出了意外：%1</translation>
    </message>
    <message>
        <source>You passed.</source>
        <translation>你跳过了这题。</translation>
    </message>
    <message>
        <source>You predicted: %1</source>
        <translation>你的预测：%1</translation>
    </message>
    <message>
        <source>The real run says: %1</source>
        <translation>真实运行的结果：%1</translation>
    </message>
    <message>
        <source>Open the scenario: %1 (%2)</source>
        <translation>打开场景：%1（%2）</translation>
    </message>
    <message>
        <source>%1 probed call(s), %2 compile(s), %3 ms in all.</source>
        <translation>探针记录了 %1 次调用，编译 %2 次，共 %3 毫秒。</translation>
    </message>
    <message>
        <source>trace</source>
        <translation>追踪</translation>
    </message>
    <message>
        <source>runtime</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Printed (trace = while rehearsing, runtime = while serving):</source>
        <translation>打印输出（追踪 = 彩排时，运行 = 上菜时）：</translation>
    </message>
    <message>
        <source>Noted by the code:</source>
        <translation>代码记下的值：</translation>
    </message>
    <message>
        <source>Evidence from the run</source>
        <translation>运行留下的证据</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>为什么</translation>
    </message>
    <message>
        <source>Open the scenario that teaches this point, in the variant shown, to play with it.</source>
        <translation>打开讲解这一点的场景（括号里的变体），动手试试。</translation>
    </message>
    <message>
        <source>Every call of a jitted function in the snippet, in order: what it did.</source>
        <translation>代码中每次调用 jit 函数时发生了什么，按顺序列出。</translation>
    </message>
    <message>
        <source>Lines printed during the calls. “trace” lines come from Python while jit traces (Chef Wang rehearsing); “runtime” lines come from the compiled program as it runs.</source>
        <translation>调用期间打印的行。“追踪” 行来自 jit 追踪时执行的 Python（王师傅彩排）；“运行” 行来自编译好的程序运行时。</translation>
    </message>
    <message>
        <source>Your prediction against the real run.</source>
        <translation>你的预测与真实运行的对比。</translation>
    </message>
</context>
<context>
    <name>_Figures</name>
    <message>
        <source>jaxpr equations (sub-graphs once)</source>
        <translation>jaxpr 方程数（子图只计一次）</translation>
    </message>
    <message>
        <source>top-level equations</source>
        <translation>顶层方程数</translation>
    </message>
    <message>
        <source>StableHLO operations</source>
        <translation>StableHLO 操作数</translation>
    </message>
    <message>
        <source>HLO instructions (optimized)</source>
        <translation>HLO 指令数（优化后）</translation>
    </message>
    <message>
        <source>flops (XLA&apos;s estimate)</source>
        <translation>浮点运算次数（XLA 估计）</translation>
    </message>
    <message>
        <source>transcendentals</source>
        <translation>超越函数运算次数</translation>
    </message>
    <message>
        <source>bytes accessed</source>
        <translation>访问字节数</translation>
    </message>
    <message>
        <source>argument memory</source>
        <translation>参数内存</translation>
    </message>
    <message>
        <source>output memory</source>
        <translation>输出内存</translation>
    </message>
    <message>
        <source>temporary memory</source>
        <translation>临时内存</translation>
    </message>
    <message>
        <source>generated code</source>
        <translation>生成的代码</translation>
    </message>
    <message>
        <source>trace time (when compiled)</source>
        <translation>追踪时间（编译时）</translation>
    </message>
    <message>
        <source>lower time</source>
        <translation>降级时间</translation>
    </message>
    <message>
        <source>compile time</source>
        <translation>编译时间</translation>
    </message>
</context>
</TS>
