"""The words of the diagnoses (:mod:`jitlab.records.diagnoses`, one page each in
``docs/diagnoses/``), in English and Chinese: entries of :data:`jitlab.records.messages.CATALOGUE`
kept in their own table so that the catalogue stays one module of readable size. Each entry
is ``(en, zh)``, read by ``say()`` like every other (imports nothing: the catalogue takes it in).
"""

WORDS: dict[str, tuple[str, ...]] = {
    # -- diagnoses (jitlab/records/diagnoses.py; one page each in docs/diagnoses/) ---------
    "diagnosis.warning": ("jitlab: {id}: {text}", "jitlab：{id}：{text}"),
    "diagnosis.fix": ("  likely fix: {fix}", "  可能的修复：{fix}"),
    "diagnosis.page": ("  more: {command}", "  详见：{command}"),
    "diagnosis.line": ("{id} · {text} ({command})", "{id} · {text}（{command}）"),
    "diagnosis.line_information": (
        "{id} (for information, nothing to fix) · {text} ({command})",
        "{id}（仅供参考，无需修复）· {text}（{command}）",
    ),
    "diagnosis.title": ("Diagnoses:", "诊断："),
    "diagnosis.process": ("process {index}: {line}", "进程 {index}：{line}"),
    "diagnosis.newer": (
        "{function}: diagnosis {id} (from a newer jitlab)",
        "{function}：诊断 {id}（来自更新的 jitlab）",
    ),
    # Said once, at its (limit + 1)th compile, and read again after the run: the figures are
    # those of its first n compiles, never the function's total (the tables beside say that).
    "diagnosis.recompile_limit": (
        "{function} compiled more than {limit} times; in its first {n} compiles, {changing}.",
        "{function} 编译了超过 {limit} 次；在它的前 {n} 次编译中，{changing}。",
    ),
    # Two or more arguments changed as often, the same way: each is named.
    "diagnosis.names.two": ("{a} and {b}", "{a} 和 {b}"),
    "diagnosis.names.more": ("{rest}, and {last}", "{rest} 和 {last}"),
    "diagnosis.names.separator": (", ", "、"),
    "diagnosis.changing.shape_many": (
        "the shapes of {argument} each changed in {n} of {of} recompiles",
        "{of} 次重编译中，{argument} 的形状各有 {n} 次变了",
    ),
    "diagnosis.changing.static_value_many": (
        "the static arguments {argument} each took a new value in {n} of {of} recompiles",
        "{of} 次重编译中，静态参数 {argument} 各有 {n} 次取了新值",
    ),
    "diagnosis.changing.other_many": (
        "{argument} each changed ({change}) in {n} of {of} recompiles",
        "{of} 次重编译中，{argument} 各有 {n} 次变了（{change}）",
    ),
    "diagnosis.changing.shape": (
        "the shape of {argument} changed in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是 {argument} 的形状变了",
    ),
    "diagnosis.changing.static_value": (
        "the static argument {argument} took a new value in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是静态参数 {argument} 取了新值",
    ),
    "diagnosis.changing.new_function_object": (
        "the function was jitted again as a new function object in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是函数被重新创建为新的函数对象后再次 jit",
    ),
    "diagnosis.changing.other": (
        "{argument} changed ({change}) in {n} of {of} recompiles",
        "{of} 次重编译中有 {n} 次是 {argument} 变了（{change}）",
    ),
    "diagnosis.changing.unknown": (
        "jitlab cannot tell which argument keeps changing (JAX did not say)",
        "jitlab 无法判断是哪个参数在不断变化（JAX 没有说明）",
    ),
    "diagnosis.fix.bucket": (
        "pad or bucket {argument} to a few sizes (say powers of two), so that the shapes repeat",
        "把 {argument} 填充或分桶到少数几种尺寸（例如 2 的幂），让形状重复出现",
    ),
    "diagnosis.fix.static": (
        "{argument} is static, so each new value is a program of its own: pass the same value "
        "from call to call (or a few that repeat); if it is a number that only enters "
        "arithmetic, pass it as a traced argument instead",
        "{argument} 是静态参数，每个新值都对应一份单独的程序：每次调用都传入相同的值（或只取"
        "少数几种会重复的值）；如果它是只参与运算的数值，就改为作为被追踪的参数传入",
    ),
    "diagnosis.fix.static_int": (
        "{argument} is a static number, and each value is a program of its own (it may set a "
        "shape or a loop count, which a traced argument cannot): round it up to a few values "
        "that repeat (powers of two, padding or masking the rest); if it only enters "
        "arithmetic, pass it as a traced jnp array instead",
        "{argument} 是静态数值，每个取值都对应一份单独的程序（它可能决定形状或循环次数，"
        "被追踪的参数做不到）：把它向上取整到少数几个会重复的值（例如 2 的幂，多出的部分填充"
        "或掩码）；如果它只参与运算，就改为作为被追踪的 jnp 数组传入",
    ),
    "diagnosis.fix.static_many": (
        "{argument} are static, so each new value is a program of its own: pass the same "
        "values from call to call (or a few that repeat); a number among them that only "
        "enters arithmetic can be a traced argument instead",
        "{argument} 都是静态参数，每个新值都对应一份单独的程序：每次调用都传入相同的值（或只取"
        "少数几种会重复的值）；其中只参与运算的数值可以改为作为被追踪的参数传入",
    ),
    "diagnosis.fix.static_int_many": (
        "{argument} are static numbers, and each value is a program of its own (they may set "
        "a shape or a loop count, which a traced argument cannot): round them up to a few "
        "values that repeat (powers of two, padding or masking the rest)",
        "{argument} 都是静态数值，每个取值都对应一份单独的程序（它们可能决定形状或循环次数，"
        "被追踪的参数做不到）：把它们向上取整到少数几个会重复的值（例如 2 的幂，多出的部分"
        "填充或掩码）",
    ),
    "diagnosis.fix.recreate": (
        "create the jitted function once, outside the loop, and call that same object",
        "在循环外只创建一次被 jit 的函数，之后一直调用同一个对象",
    ),
    "diagnosis.fix.dtype": (
        "cast {argument} to one dtype before the call (a Python float and a float32 array "
        "differ too)",
        "调用前把 {argument} 转成同一种 dtype（Python 浮点数与 float32 数组也算不同）",
    ),
    "diagnosis.fix.other": (
        "keep {argument} the same from call to call, or make its few values repeat",
        "让 {argument} 在每次调用之间保持不变，或只取少数几种会重复的值",
    ),
    "diagnosis.fix.unknown": (
        "run with jitlab open to see each recompile's reason, then see the page below",
        "用 jitlab open 查看每次重编译的原因，再参阅下面的页面",
    ),
    "diagnosis.identity_static": (
        "{function} compiled again because its static {argument} is a new {cls} object "
        "equal in content to the last one ({value}), but {cls} compares and hashes by "
        "identity, so jit's cache never matches it.",
        "{function} 再次编译：它的静态参数 {argument} 是一个新的 {cls} 对象，内容与上一个相同"
        "（{value}），但 {cls} 按对象身份比较和求哈希，jit 的缓存因此永远对不上。",
    ),
    "diagnosis.fix.identity": (
        "give {cls} __eq__ and __hash__ by value (a frozen dataclass does), or build it once "
        "outside the loop and pass that same object; a number in it that only enters "
        "arithmetic (not a shape or a loop count) can be a traced argument instead",
        "为 {cls} 定义按值比较的 __eq__ 和 __hash__（冻结的 dataclass 即可），或者在循环外只"
        "创建一次并一直传入同一个对象；其中只参与运算的数值（不决定形状或循环次数）也可以改为"
        "被追踪的参数",
    ),
    # -- identity-static's advice by what the static value is (records/diagnoses.py) ------
    "diagnosis.fix.identity.self": (
        "build {cls} once and keep calling the method on that same object (each new {cls} is "
        "a new static self, so a new compile); or give {cls} __eq__ and __hash__ over the "
        "fields the method reads, and never change them afterwards; or register {cls} as a "
        "pytree (jax.tree_util.register_dataclass) and drop static_argnums=0, so that its "
        "arrays are traced",
        "只创建一次 {cls}，之后一直在这个对象上调用方法（每个新的 {cls} 都是新的静态 self，"
        "都会重新编译）；或者为 {cls} 定义基于方法所读字段的 __eq__ 和 __hash__，之后不再"
        "修改这些字段；或者把 {cls} 注册为 pytree（jax.tree_util.register_dataclass）并去掉 "
        "static_argnums=0，让其中的数组被追踪",
    ),
    "diagnosis.fix.identity.partial": (
        "make the partial once, outside the loop, and pass that same object; or pass the "
        "function itself as the static argument and the numbers the partial binds as traced "
        "arguments",
        "在循环外只创建一次这个 partial，之后一直传入同一个对象；或者只把函数本身作为静态参数，"
        "把 partial 绑定的数值作为被追踪的参数传入",
    ),
    "diagnosis.fix.identity.jit": (
        "jit the function once (at module level) and hand that same jax.jit object to every "
        "new object; or keep the plain function: called inside a jitted function, an inner "
        "jax.jit is traced into the outer program and compiles nothing of its own",
        "只 jit 一次（在模块级），把同一个 jax.jit 对象交给每个新对象；或者直接保存原函数："
        "在被 jit 的函数里调用时，内层的 jax.jit 会被追踪进外层程序，自己并不单独编译",
    ),
    "diagnosis.fix.identity.method": (
        "bind the method once, outside the loop (f = obj.method, on one object), and pass "
        "that same f; a new object makes a new method each time, equal in content but not "
        "to jit",
        "在循环外只绑定一次方法（f = obj.method，绑定在同一个对象上），之后一直传入同一个 f；"
        "每个新对象都会产生新的方法对象，内容相同，在 jit 看来却不相等",
    ),
    "diagnosis.fix.identity.module": (
        "build the {cls} once, outside the loop, and keep passing that same object; to start "
        "afresh, copy a new one's values into it rather than passing a new module",
        "在循环外只创建一次 {cls}，之后一直传入同一个对象；要重新开始，就把新模块的值复制进"
        "这个对象，而不是传入新模块",
    ),
    "diagnosis.fix.identity.callable": (
        "build the {cls} once, outside the loop, and pass that same object; or give {cls} "
        "__eq__ and __hash__ over its fields (a frozen dataclass with a __call__ method does)",
        "在循环外只创建一次 {cls}，之后一直传入同一个对象；或者为 {cls} 定义基于字段的 "
        "__eq__ 和 __hash__（带 __call__ 方法的冻结 dataclass 即可）",
    ),
    "diagnosis.identity_static.why_jit": (
        "a jax.jit object compares and hashes by identity, though this one wraps the same "
        "function with the same options",
        "jax.jit 对象按对象身份比较和求哈希，尽管这一个包装的是同一个函数、选项也相同",
    ),
    "diagnosis.identity_static.why_partial": (
        "functools.partial compares and hashes by identity, though its function and arguments "
        "are the same",
        "functools.partial 按对象身份比较和求哈希，尽管它的函数和参数都相同",
    ),
    # -- identity-static of a pytree's static data: a Flax NNX graph (flax#5548), a function
    # made anew (an optax transform's init/update), a flax.struct field ----------------------
    "diagnosis.identity_static.graph": (
        "{function} compiled again because {root} ({node}) was built anew: its Flax NNX graph "
        "is equal in content to the last call's, but its static attribute {argument} is a new "
        "{cls}: {why}, so the graph is unequal to jit and its cache never matches.",
        "{function} 再次编译：{root}（{node}）被重新创建了。它的 Flax NNX 图与上次调用的内容相同，"
        "但其静态属性 {argument} 是一个新的 {cls}：{why}，所以在 jit 看来图不相等，"
        "缓存永远对不上。",
    ),
    "diagnosis.identity_static.pytree": (
        "{function} compiled again because the static data {argument} of its pytree argument "
        "({node}) is a new {cls} equal in content to the last one ({value}), but {why}, so "
        "jit's cache never matches it.",
        "{function} 再次编译：它的 pytree 参数（{node}）的静态数据 {argument} 是一个新的 {cls}，"
        "内容与上一个相同（{value}），但{why}，jit 的缓存因此永远对不上。",
    ),
    "diagnosis.identity_static.static": (
        "{function} compiled again because its static {argument} is a new {cls} equal in "
        "content to the last one ({value}), but {why}, so jit's cache never matches it.",
        "{function} 再次编译：它的静态参数 {argument} 是一个新的 {cls}，内容与上一个相同"
        "（{value}），但{why}，jit 的缓存因此永远对不上。",
    ),
    "diagnosis.identity_static.why_class": (
        "{cls} compares and hashes by identity",
        "{cls} 按对象身份比较和求哈希",
    ),
    "diagnosis.identity_static.why_function": (
        "the function {made} in it is made anew each time (the same code, an equal closure), "
        "and functions compare by identity",
        "其中的函数 {made} 每次都被重新创建（代码相同、闭包相等），而函数按对象身份比较",
    ),
    "diagnosis.identity_static.why_itself": (
        "it is a function made anew each time (the same code, an equal closure), and functions "
        "compare by identity",
        "它是每次都被重新创建的函数（代码相同、闭包相等），而函数按对象身份比较",
    ),
    "diagnosis.fix.identity_graph": (
        "build {root} once, outside the loop, and keep passing that same object (to start it "
        "afresh, copy a new one's values into it: nnx.update({root}, nnx.state(new))); or make "
        "{argument} the same object each time (build it once before the loop, e.g. tx = "
        "optax.adam(lr); a module-level def, not a lambda made in __init__)",
        "在循环外只创建一次 {root}，之后一直传入同一个对象（要重新开始，就把新对象的值复制进去："
        "nnx.update({root}, nnx.state(new))）；或者让 {argument} 每次都是同一个对象（在循环前"
        "只创建一次，例如 tx = optax.adam(lr)；用模块级的 def，而不是在 __init__ 里新建 lambda）",
    ),
    "diagnosis.fix.identity_function": (
        "build {argument} once, outside the loop, and pass that same object each time: a "
        "function made in a loop or by a factory call (optax.adam(...)) is new on each call, "
        "a module-level def is the same every time",
        "在循环外只创建一次 {argument}，之后每次都传入同一个对象：在循环里或由工厂函数调用"
        "（optax.adam(...)）创建的函数每次都是新的，模块级的 def 则始终是同一个",
    ),
    # -- what a watch could not check or left out (notices; records/messages.notice_texts) ----
    "notice.internal_left_out": (
        "{n} compiles of JAX's own functions (eager jnp, jax.random and jax.nn operations "
        "outside your jitted functions: {detail}) are left out of the listing; to list them, "
        "record with jitlab watch --include-internal (jitlab.watch(include_internal=True))",
        "列表里省略了 {n} 次 JAX 自身函数的编译（在你的被 jit 函数之外执行的 jnp、jax.random、"
        "jax.nn 运算：{detail}）；要列出它们，用 jitlab watch --include-internal 录制"
        "（jitlab.watch(include_internal=True)）",
    ),
    "notice.jitted_before": (
        "{n} function was jitted before the watch began ({detail}): jitlab saw its compiles "
        "through JAX's events only, not its cache hits, so its hits, slow-dispatch and "
        "executables-growing could not be checked; start the watch before it is jitted "
        "(jitlab watch -- python prog.py watches from the first line)",
        "有 {n} 个函数在监视开始之前就已 jit（{detail}）：jitlab 只能通过 JAX 的事件看到它们的"
        "编译，看不到缓存命中，因此无法检查它们的命中次数、slow-dispatch 和 "
        "executables-growing；请在它们被 jit 之前开始监视（jitlab watch -- python prog.py "
        "从第一行起就开始监视）",
        "{n} functions were jitted before the watch began ({detail}): jitlab saw their "
        "compiles through JAX's events only, not their cache hits, so their hits, slow-dispatch "
        "and executables-growing could not be checked; start the watch before they are jitted "
        "(jitlab watch -- python prog.py watches from the first line)",
    ),
    # -- jitlab explain ID (jitlab/cli/explain.py) -------------------------------------------
    "explain.ids": (
        "The diagnoses jitlab states (jitlab explain ID prints one's page):",
        "jitlab 给出的诊断（jitlab explain ID 打印其中一个的说明页）：",
    ),
    "explain.unknown": (
        "no diagnosis {id}; jitlab's ids: {ids}",
        "没有名为 {id} 的诊断；jitlab 的诊断 id 有：{ids}",
    ),
    # -- diagnoses shown in the faces (report, notebook, jitlab open): any id, its page --------
    "diagnosis.heading": ("Diagnoses", "诊断"),
    "diagnosis.information": ("(for information, nothing to fix)", "（仅供参考，无需修复）"),
    "diagnosis.page_missing": (
        "{page} (not on this machine)",
        "{page}（本机上没有这一页）",
    ),
    # -- executables-growing (jitlab/records/diagnoses.py, docs/diagnoses/) -------------------
    "diagnosis.executables_growing.same": (
        "{function} has {live} executables still alive after {compiles} compiles, {same} "
        "of them for one signature (the same shapes and dtypes, static values that differ "
        "only in an object's address): a new program each time for inputs it already had "
        "one for ({held}).",
        "{function} 编译 {compiles} 次后仍有 {live} 个可执行程序存活，其中 {same} 个对应同一个"
        "签名（形状和 dtype 相同，静态值只有对象地址不同）：对已有程序的输入一次次编译新程序"
        "（{held}）。",
    ),
    "diagnosis.executables_growing.unseen": (
        "{function} has {live} executables still alive after {compiles} compiles ({held}); "
        "jitlab did not see its arguments, so it cannot tell whether they are for different "
        "shapes.",
        "{function} 编译 {compiles} 次后仍有 {live} 个可执行程序存活（{held}）；jitlab 没有"
        "看到它的参数，因此无法判断它们是否对应不同的形状。",
    ),
    "diagnosis.executables_growing.held": (
        "in all, as JAX's memory_analysis says: code {code}, temp {temp}, arguments "
        "{arguments}, outputs {outputs}",
        "按 JAX 的 memory_analysis 合计：代码 {code}，临时 {temp}，"
        "参数 {arguments}，输出 {outputs}",
    ),
    "diagnosis.fix.executables_growing": (
        "build the model or optimizer (and the jitted function) once, outside the loop, and "
        "pass what changes as traced arrays; a static or closed-over object that is new each "
        "epoch makes a new program each epoch, and while the jitted function lives JAX keeps "
        "every one",
        "在循环外只创建一次模型或优化器（以及被 jit 的函数），把会变的部分作为被追踪的数组传入；"
        "每个 epoch 都新建的静态对象或闭包捕获的对象，会让每个 epoch 编译一份新程序，"
        "而只要被 jit 的函数还在，JAX 就会全部保留",
    ),
    # -- slow-dispatch (diagnoses.SLOW_DISPATCH; docs/diagnoses/slow-dispatch.md) ---------
    "diagnosis.slow_dispatch": (
        "{function}: {n} of its {hits} cache hits ran through JAX's Python dispatch, not its "
        "C++ fast path: {cause}.",
        "{function}：{hits} 次缓存命中里有 {n} 次走了 JAX 的 Python 分派，而不是 C++ 快速路径："
        "{cause}。",
    ),
    "diagnosis.slow_dispatch_live": (
        "{function}: a cache hit ran through JAX's Python dispatch, not its C++ fast path: "
        "{cause}.",
        "{function}：一次缓存命中走了 JAX 的 Python 分派，而不是 C++ 快速路径：{cause}。",
    ),
    "diagnosis.slow_dispatch.callback": (
        "the function has host callbacks (jax.debug.print, debug.callback, io_callback), and "
        "JAX never gives such a program a fast-path entry",
        "函数里有主机回调（jax.debug.print、debug.callback、io_callback），JAX 从不为这样的程序"
        "建立快速路径条目",
    ),
    "diagnosis.slow_dispatch.not_kept": (
        'recorded by an older jitlab, which read _cache_size() staying 0 as "C++ kept no '
        'entry" (jax#39078, 8,192 jitted functions alive); JAX does keep the entry there '
        "(0.10.2 miscounts the size), so the cause is not known",
        "这是旧版 jitlab 记下的：它把 _cache_size() 一直是 0 当作“C++ 没有保留条目”"
        "（jax#39078，存活的被 jit 函数达到 8,192 个时）；其实 JAX 在那里保留了条目"
        "（是 0.10.2 把大小算错了），所以原因并不清楚",
    ),
    "diagnosis.slow_dispatch.unknown": (
        "JAX did not say why (jitlab cannot tell)",
        "JAX 没有说明原因（jitlab 无法判断）",
    ),
    "diagnosis.fix.dispatch_callback": (
        "take jax.debug.print / callbacks out of the hot function (or behind a flag that "
        "removes them once debugged); each call then costs microseconds less",
        "把 jax.debug.print 和回调移出频繁调用的函数（或用开关在调试完后去掉）；"
        "每次调用就能省下几微秒",
    ),
    "diagnosis.fix.dispatch_not_kept": (
        "no fix follows from this record; if hits stay slow with thousands of jitted functions "
        "alive, jit each function once (not per object or per call)",
        "这条记录推不出修复办法；如果存活的被 jit 函数有成千上万个、命中仍然慢，"
        "就让每个函数只 jit 一次（而不是每个对象或每次调用都 jit）",
    ),
    "diagnosis.fix.dispatch_unknown": (
        "see the page below; JAX's own dispatch did not say why",
        "参阅下面的页面；JAX 自己的分派没有说明原因",
    ),
    "diagnosis.bad_warn_after": (
        "{name}: {value} is not a number of compiles (a whole number >= 0; 0 turns the "
        "warning off)",
        "{name}：{value} 不是编译次数（应为 >= 0 的整数；0 表示关闭警告）",
    ),
    # -- captured-constant and call-site-cost (docs/diagnoses/; jitlab/records/diagnoses.py)
    "diagnosis.captured_constant": (
        "{function} compiled again for a re-created function whose program differs from the "
        "last one only in captured constants: {constant} ({type}, {kind}) {before} → {after}"
        "{more}.",
        "{function} 因函数被重新创建而再次编译，新程序与上一个只差在捕获的常量："
        "{constant}（{type}，{kind}）{before} → {after}{more}。",
    ),
    "diagnosis.captured_constant.unnamed": (
        "{function} compiled again for a re-created function whose program differs from the "
        "last one only in captured constants: a constant ({type}, {kind}) {before} → "
        "{after}{more}.",
        "{function} 因函数被重新创建而再次编译，新程序与上一个只差在捕获的常量："
        "一个常量（{type}，{kind}）{before} → {after}{more}。",
    ),
    "diagnosis.captured_constant.more": (" (and {n} more)", "（另有 {n} 个）"),
    "diagnosis.captured_constant.literal": (
        "a Python number written into the program",
        "写进程序的 Python 数值",
    ),
    "diagnosis.captured_constant.const": ("an array captured by the program", "被程序捕获的数组"),
    "diagnosis.captured_constant.shape": (
        "{function} compiled again for a re-created function, and its program differs from "
        "the last one in more than constants ({before} → {after} equations): jitlab cannot "
        "tell that a captured constant is the cause.",
        "{function} 因函数被重新创建而再次编译，但新程序与上一个不只差在常量（方程数 {before} → "
        "{after}）：jitlab 无法断定原因是捕获的常量。",
    ),
    "diagnosis.captured_constant.unread": (
        "{function} compiled again for a re-created function with the same program shape; it "
        "captures arrays too big for jitlab to read, so it cannot tell whether their values "
        "changed.",
        "{function} 因函数被重新创建而再次编译，程序结构相同；它捕获的数组太大，jitlab 没有读取，"
        "无法判断其中的值是否变了。",
    ),
    "diagnosis.captured_constant.no_jaxpr": (
        "{function} compiled again for a re-created function; jitlab could not get its "
        "program, so it cannot tell whether only captured constants changed.",
        "{function} 因函数被重新创建而再次编译；jitlab 拿不到它的程序，无法判断是否只是捕获的"
        "常量变了。",
    ),
    "diagnosis.fix.captured-constant": (
        "pass the value as an argument of the jitted function (a traced array, so a new value "
        "reuses the program), and jit it once; with Optax, optax.inject_hyperparams",
        "把这个值作为被 jit 函数的参数传入（被追踪的数组，新值可复用同一程序），并只 jit 一次；"
        "使用 Optax 时用 optax.inject_hyperparams",
    ),
    "diagnosis.call_site_cost": (
        "{site}: {n} compiles cost {ms} ms (trace {trace} + lower {lower} + compile "
        "{compile}), call site {rank} of {sites} by cost, {share} of all compile time; "
        "mostly {function}.",
        "{site}：{n} 次编译共耗时 {ms} 毫秒（追踪 {trace} + 降级 {lower} + 编译 {compile}），"
        "按耗时在 {sites} 个调用点中排第 {rank}，占全部编译时间的 {share}；主要是 {function}。",
    ),
    "diagnosis.call_site_cost.wasted": (
        "; {wasted} of them compiled again a signature compiled before",
        "；其中 {wasted} 次是把以前编译过的签名又编译了一遍",
    ),
    "diagnosis.call_site_cost.diagnosed": (
        "; {diagnosed} says what to change",
        "；{diagnosed} 说明了该改什么",
    ),
    "diagnosis.call_site_cost.ranking": (
        "{site} is where compile time goes: {n} compiles cost {ms} ms (trace {trace} + lower "
        "{lower} + compile {compile}), call site {rank} of {sites}, {share} of all compile "
        "time; each compiled a signature not compiled before and no diagnosis names them, so "
        "this is a ranking, not a fault; mostly {function}.",
        "编译时间主要花在 {site}：{n} 次编译共耗时 {ms} 毫秒（追踪 {trace} + 降级 {lower} + "
        "编译 {compile}），在 {sites} 个调用点中排第 {rank}，占全部编译时间的 {share}；每次"
        "编译的都是以前没编译过的签名，也没有别的诊断指出问题，所以这只是排名，不是错误；"
        "主要是 {function}。",
    ),
    "diagnosis.slow_dispatch.timed": (
        " Those calls took {ms} ms, {share} of the program's time.",
        "这些调用共耗时 {ms} 毫秒，占程序运行时间的 {share}。",
    ),
    "diagnosis.slow_dispatch.information": (
        "{function}: {n} of its {hits} cache hits ran through JAX's Python dispatch, not its "
        "C++ fast path ({cause}); they took {ms} ms, {share} of the program's time: too little "
        "to be worth a change.",
        "{function}：{hits} 次缓存命中里有 {n} 次走了 JAX 的 Python 分派，而不是 C++ 快速路径"
        "（{cause}）；这些调用共耗时 {ms} 毫秒，只占程序运行时间的 {share}，不值得为此修改。",
    ),
    "diagnosis.call_site_cost.title": (
        "Compile cost by call site (costliest first):",
        "按调用点统计的编译耗时（从高到低）：",
    ),
    "diagnosis.fix.call-site-cost": (
        "see what changes between this line's calls (jitlab open shows each recompile's "
        "reason) and make its calls repeat one signature",
        "查看这一行的各次调用之间有什么变化（jitlab open 会显示每次重编译的原因），"
        "让它的调用重复同一个签名",
    ),
    # -- call-site-cost listed in the faces (jitlab/records/site_costs.py: site_cells) ------
    "sites.col.site": ("call site", "调用点"),
    "sites.col.time": ("compile time", "编译耗时"),
    "sites.col.share": ("share", "占比"),
    "sites.col.costliest": ("costliest function", "最耗时的函数"),
    "sites.paths": (
        "How the program reached them (each call site, and under it the lines that called it):",
        "程序是怎样走到这些调用点的（每个调用点下面是调用它的各行）：",
    ),
    "sites.path": ("{site} — {compiles}, {ms}", "{site} — {compiles}，{ms}"),
    "sites.unknown": ("(calling line not found)", "（未找到调用行）"),
    "sites.note": (
        "Each compile is charged to the line of the program that made the call: trace + "
        "lower + compile time, summed per line; share: of all compile time.",
        "每次编译都记在发起调用的那一行程序上：追踪 + 降级 + 编译的耗时按行相加；"
        "占比：占全部编译时间的比例。",
    ),
    # -- persistent cache: persistent-not-written, persistent-key-changed (issue 43) --------
    "persistent.why.min_compile_time": (
        "compiled in {compile_s} s, under jax_persistent_cache_min_compile_time_secs = "
        "{min_compile_s} s",
        "编译用了 {compile_s} 秒，低于 jax_persistent_cache_min_compile_time_secs = "
        "{min_compile_s} 秒",
    ),
    "persistent.why.min_entry_size": (
        "its entry is {size} bytes, under jax_persistent_cache_min_entry_size_bytes = {min_size}",
        "它的缓存条目只有 {size} 字节，低于 jax_persistent_cache_min_entry_size_bytes = {min_size}",
    ),
    "persistent.why.host_callbacks": (
        "it uses host callbacks (jax.debug.print, a breakpoint), which this JAX does not store",
        "它用了主机回调（jax.debug.print、断点），这个版本的 JAX 不存这样的程序",
    ),
    "persistent.why.process_id": (
        "only process 0 of a multi-process job writes the cache",
        "多进程作业中只有 0 号进程写缓存",
    ),
    "persistent.why.cache_disabled": (
        "the cache is configured but JAX could not open it",
        "缓存已配置，但 JAX 没能打开它",
    ),
    "diagnosis.persistent_not_written": (
        "{function} was compiled but not written to the persistent cache: {why}; every new "
        "process compiles it again.",
        "{function} 编译了，却没有写入持久缓存：{why}；每个新进程都要重新编译它。",
    ),
    "diagnosis.persistent_not_written.cheap": (
        " It compiled in under a second: a new process loses little by compiling it again.",
        "它的编译不到一秒：新进程重新编译它损失不大。",
    ),
    "diagnosis.fix.persistent_not_written": (
        'lower the threshold JAX named (jax.config.update("jax_persistent_cache_min_compile_'
        'time_secs", 0), and …_min_entry_size_bytes to 0) before the first compile',
        '在第一次编译之前调低 JAX 所说的门槛（jax.config.update("jax_persistent_cache_min_'
        'compile_time_secs", 0)，以及把 …_min_entry_size_bytes 设为 0）',
    ),
    "persistent.outcome.written": ("written to the cache", "已写入缓存"),
    "persistent.outcome.not_written": ("not written ({why})", "未写入（{why}）"),
    "persistent.outcome.loaded": ("loaded from the cache", "从缓存加载"),
    "persistent.outcome.compiled": ("compiled (JAX logged no write)", "已编译（JAX 未记录写入）"),
    "diagnosis.persistent_key_changed": (
        "{function}: {signature} was {base} in the base run and {new} in the new one: its "
        "cache key changed ({base_key} → {new_key}); {what}.",
        "{function}：{signature} 在基准运行中{base}，在新运行中{new}：它的缓存键变了"
        "（{base_key} → {new_key}）；{what}。",
    ),
    "persistent.part": ("{part} differs: {base} → {new}", "{part} 不同：{base} → {new}"),
    "persistent.same_parts": (
        "jaxlib, the backend, the XLA flags and the cache folder are the same, so the program "
        "itself or its compile options differ (its code, a captured constant, a shape, a "
        "config flag); JAX hashes them into one digest, so jitlab can't tell which",
        "jaxlib、后端、XLA 开关和缓存目录都相同，所以是程序本身或编译选项不同（代码、捕获的常量、"
        "形状、配置开关）；JAX 把它们合成一个摘要，jitlab 分辨不出是哪一个",
    ),
    "persistent.same_key": (
        "{function}: {signature} was {base} in the base run and {new} in the new one, under the "
        "same cache key {key}: the entry was not there (another cache directory, or it was "
        "evicted or removed).",
        "{function}：{signature} 在基准运行中{base}，在新运行中{new}，缓存键相同（{key}）："
        "缓存里没有这个条目（换了缓存目录，或条目被淘汰、删除）。",
    ),
    "persistent.unknown_key": (
        "{function}: {signature} was {base} in the base run and {new} in the new one; jitlab "
        "can't tell whether its key changed: JAX did not log the key of both (it logs a load's "
        "key only at DEBUG or with jax_log_compiles).",
        "{function}：{signature} 在基准运行中{base}，在新运行中{new}；jitlab 无法判断缓存键是否"
        "变了：JAX 没有记下两边的键（加载时的键只在 DEBUG 级别或开启 jax_log_compiles 时记录）。",
    ),
    "persistent.title": ("Persistent cache:", "持久缓存："),
    "persistent.rerun.yes": ("a rerun would load it", "再运行会直接加载"),
    "persistent.rerun.no": ("a rerun compiles it again", "再运行还要重新编译"),
    "persistent.rerun.unknown": ("can't tell whether a rerun hits", "无法判断再运行是否命中"),
    "persistent.row": (
        "{function} {signature}: {outcome}; {rerun}",
        "{function} {signature}：{outcome}；{rerun}",
    ),
    "persistent.none": (
        "No persistent-cache lines in this recording: the persistent cache was not configured "
        "(jax_compilation_cache_dir), or JAX's cache log was kept from jitlab (its loggers set "
        "above WARNING), or an older jitlab recorded it.",
        "这份记录里没有持久缓存的记录：这次运行没有配置持久缓存（jax_compilation_cache_dir），"
        "或者 JAX 的缓存日志没有传到 jitlab（它的 logger 级别高于 WARNING），"
        "或者是旧版 jitlab 录的。",
    ),
}
