<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>BriefingPage</name>
    <message>
        <source>Predict before you run</source>
        <translation>运行之前，先猜一猜</translation>
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
        <source>Go to the kitchen and make the calls (Execute mode).</source>
        <translation>进厨房，动手调用函数（执行模式）。</translation>
    </message>
    <message>
        <source>The lesson: what goes wrong, why, the kitchen story and the fix.</source>
        <translation>本课内容：哪里出错、为什么、厨房里的故事，以及修正办法。</translation>
    </message>
    <message>
        <source>What goes wrong</source>
        <translation>哪里出了问题</translation>
    </message>
    <message>
        <source>Why</source>
        <translation>为什么</translation>
    </message>
    <message>
        <source>In Chef Wang&apos;s kitchen</source>
        <translation>王师傅的厨房里</translation>
    </message>
    <message>
        <source>The fix</source>
        <translation>修正办法</translation>
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
</context>
<context>
    <name>ChartView</name>
    <message>
        <source>latency (ms, log scale)</source>
        <translation>耗时（毫秒，对数坐标）</translation>
    </message>
    <message>
        <source>call number</source>
        <translation>调用序号</translation>
    </message>
    <message>
        <source>One point per call. Hover a point for its phases, signature and reason. Drag or scroll to zoom; double-click to follow the newest calls again.</source>
        <translation>每次调用一个点。悬停查看各阶段耗时、签名和原因。拖动或滚轮可缩放；双击恢复跟随最新的调用。</translation>
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
        <source>Colour: what JAX did for the call. Shape: which variant made it.</source>
        <translation>颜色：JAX 对这次调用做了什么。形状：由哪个变体发起。</translation>
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
        <translation>第 %1 次调用（%2）抛出了错误：</translation>
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
</context>
<context>
    <name>KitchenCanvas</name>
    <message>
        <source>Waiting for an order</source>
        <translation>等待点单</translation>
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
    <message>
        <source>Card #%1: compiled by call #%2 in %3, used %4 times since</source>
        <translation>%1 号卡片：由第 %2 次调用编译，用时 %3，此后使用 %4 次</translation>
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
        <source>Last compile, because: %1</source>
        <translation>最近一次编译的原因：%1</translation>
    </message>
    <message>
        <source>No compile yet: make a call to see why jit compiles.</source>
        <translation>还没有编译：调用一次，看看 jit 为什么编译。</translation>
    </message>
</context>
<context>
    <name>LogView</name>
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
        <source>Briefing: the pitfall, the story, the code and a question (Alt+1).</source>
        <translation>简介：陷阱、故事、代码和一个问题（Alt+1）。</translation>
    </message>
    <message>
        <source>Make calls and watch the kitchen work (Alt+2).</source>
        <translation>发起调用，看厨房如何运转（Alt+2）。</translation>
    </message>
    <message>
        <source>Study the chart, the log and the output (Alt+3).</source>
        <translation>细看图表、日志和输出（Alt+3）。</translation>
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
        <source>About jitlab</source>
        <translation>关于 jitlab</translation>
    </message>
    <message>
        <source>Watch for this</source>
        <translation>留意这一点</translation>
    </message>
    <message>
        <source>The question from the briefing, and your prediction.</source>
        <translation>简介里的问题，以及你的预测。</translation>
    </message>
    <message>
        <source>Your prediction: %1</source>
        <translation>你的预测：%1</translation>
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
        <source>Internal error</source>
        <translation>内部错误</translation>
    </message>
    <message>
        <source>Starting JAX on the worker thread…</source>
        <translation>正在工作线程上启动 JAX…</translation>
    </message>
    <message>
        <source>%1 · %2 calls this run · %3 in total</source>
        <translation>%1 · 本轮 %2 次调用 · 共 %3 次</translation>
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
    <name>RunControls</name>
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
    <name>SummaryPage</name>
    <message>
        <source>Compiles: %1 with the fix, %2 with the pitfall; the fix saved %3.</source>
        <translation>编译次数：修正版 %1 次，陷阱版 %2 次；修正版省下了 %3。</translation>
    </message>
    <message>
        <source>Run both variants (or press “Measure both”) to compare them side by side.</source>
        <translation>把两个变体都跑一遍（或按“两者都测”），即可并排比较。</translation>
    </message>
    <message>
        <source>Your prediction: %1</source>
        <translation>你的预测：%1</translation>
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
        <source>Play the demo script on the pitfall, then on the fix, and compare.</source>
        <translation>先在陷阱版上播放演示脚本，再在修正版上播放，然后比较。</translation>
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
</context>
</TS>
