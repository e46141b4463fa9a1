"""Named cases: failures the generator found, shrunk, each checked as the generated programs
are (watched and as a Probe, against JAX's log). A case of a rule that still has an entry in
known.py is expected to fail; it must pass once the entry goes."""

from __future__ import annotations

import pytest

from .checking import agree
from .known import holds, known, tolerated_but
from .specs import Arr, Call, Clear, Config, Ident, Node, Param, Program, Py, SetX64

X, Y, S, M = Param("x"), Param("y"), Param("s", static=True), Param("m")
Z = Param("z")


def keyed(w: Arr, *aux: object) -> Node:
    """A node registered with keys (``register_pytree_with_keys``): one leaf, static data."""
    return Node("keyed", (("w", w),), tuple((f"s{i}", a) for i, a in enumerate(aux)))


def flat(w: Arr, *aux: object) -> Node:
    """A node registered without keys (``register_pytree_node``): JAX's flat index."""
    return Node("flat", (("w", w),), tuple((f"s{i}", a) for i, a in enumerate(aux)))


def calls(*args: tuple[object, ...], **options: object) -> tuple[Call, ...]:
    return tuple(Call(a) for a in args)


@holds(1)
def test_static_data_changed_with_a_leaf_is_named() -> None:
    # A keyed node's static data and its leaf change at once: jitlab named the shape only.
    program = Program((M,), calls((keyed(Arr((3,)), "a"),), (keyed(Arr((4,)), "b"),)))
    agree(program, tolerate=tolerated_but(1))


@holds(1)
def test_a_structure_change_with_a_leaf_change_is_named() -> None:
    # A tuple became a list while a leaf beside it changed type: only the leaf was named.
    before = (Node("tuple", (("a", Arr((3,))),)), Py())
    after = (Node("list", (("a", Arr((3,))),)), Arr(()))
    agree(Program((X, Y), calls(before, after)), tolerate=tolerated_but(1))


@holds(1, 7)
def test_the_closest_program_is_one_jax_still_held() -> None:
    # After f.clear_cache() JAX held only the f32[4] program; jitlab compared with the
    # weakly typed scalar the clear dropped.
    steps = (Call((Py(),)), Clear("function"), Call((Arr((4,)),)), Call((Arr(()),)))
    agree(Program((X,), steps), tolerate=tolerated_but(1, 7))


@holds(7)
def test_a_program_a_clear_dropped_is_said_cleared_beside_a_held_one() -> None:
    # x by position, jax.clear_caches(), x by keyword, x by position again: the position
    # program was dropped by the clear (not "passed by position, before by keyword").
    steps = (Call((Arr((3,)),)), Clear("all"), Call((Arr((3,)),), frozenset({"x"})))
    steps += (Call((Arr((3,)),)),)
    agree(Program((X,), steps), tolerate=tolerated_but(7))


@known("closest-before-0.9")
def test_the_closest_program_is_the_one_jax_explains_with() -> None:
    # JAX 0.6-0.8 explain with the key of the smallest pjit size: the first call's (x's weak
    # type and s's value: 2), not the second's (x's weak type, x and s by keyword: 5).
    # jitlab weighed both 3 and took the newer (0.9+ ranks the pytree first: the same one).
    first = Call((Py("int", 0), "b"))
    by_keyword = Call((Py("int", 0), Config(0.1, 2)), frozenset({"x", "s"}))
    now = Call((Arr((), "int32"), Config(0.1, 2)))
    agree(Program((X, S), (first, by_keyword, now)), tolerate=tolerated_but("closest-before-0.9"))


@known(6)
def test_a_static_data_change_is_named_at_its_node() -> None:
    # f32[3]/a, f32[4]/a, then f32[4]/b: the static data changed, named at the leaf m.w.
    program = Program(
        (M,),
        calls((keyed(Arr((3,)), "a"),), (keyed(Arr((4,)), "a"),), (keyed(Arr((4,)), "b"),)),
    )
    agree(program, tolerate=tolerated_but(6))


@holds(1, 6)
def test_a_partials_function_changed_with_its_argument() -> None:
    plus = Node("partial", (("a", Arr((3,))),), (("func", "plus"),))
    times = Node("partial", (("a", Arr((4,))),), (("func", "times"),))
    agree(Program((M,), calls((plus,), (times,))), tolerate=tolerated_but(1, 6))


@known(6)
def test_an_equinox_static_field_is_named_by_its_field() -> None:
    pytest.importorskip("equinox")
    a = Node("eqx", (("w", Arr((3,))),), (("tag", "a"),))
    b = Node("eqx", (("w", Arr((4,))),), (("tag", "a"),))
    c = Node("eqx", (("w", Arr((4,))),), (("tag", "b"),))
    agree(Program((M,), calls((a,), (b,), (c,))), tolerate=tolerated_but(6))


@known(2)
def test_every_static_attribute_that_changed_is_named() -> None:
    # Two modules' static data flip at once (as model.eval() flips two layers): only the
    # first was named.
    before = (keyed(Arr((3,)), "a"), keyed(Arr((3,)), "a"))
    after = (keyed(Arr((3,)), "b"), keyed(Arr((3,)), "b"))
    agree(Program((X, Y), calls(before, after)), tolerate=tolerated_but(2))


@known(3)
def test_arguments_are_named_after_a_prebound_module() -> None:
    pytest.importorskip("flax")
    # nnx.jit_partial pre-binds a module: the probe named x "w" (the bound parameter).
    program = Program((X,), calls((Arr((3,)),), (Arr((4,)),)), wrapper="nnx.jit_partial")
    agree(program, tolerate=tolerated_but(3))


@known(4)
def test_an_equal_callable_object_shares_jaxs_cache() -> None:
    # jax.jit(Poly(2)) again before each call, each kept alive: JAX shares one cache (a hit,
    # then a shape change); jitlab said "new function object" and made two rows.
    program = Program(
        (X,), calls((Arr((3,)),), (Arr((3,)),), (Arr((4,)),)), wrapper="callable", handing="kept"
    )
    agree(program, tolerate=tolerated_but(4))


@known(4)
def test_a_jitted_partial_is_one_row() -> None:
    # Its compiles were filed under the function, its hits under "partial".
    program = Program((X,), calls((Arr((3,)),), (Arr((3,)),)), wrapper="partial")
    agree(program, tolerate=tolerated_but(4))


@known(5)
def test_applying_a_linearized_function_is_not_its_first_call() -> None:
    steps = (Call((Arr((3,)),)), Call((Arr((3,)),), via="linearize"))
    agree(Program((X,), steps), tolerate=tolerated_but(5))


@known(5)
def test_a_probe_counts_what_jax_compiles_when_a_linearized_call_is_applied() -> None:
    # JAX logs jit(f) twice for linearize and its application; the probe recorded one.
    steps = (Call((Arr((3,)),)), Call((Arr((3,)),), via="linearize"))
    agree(Program((X,), steps), tolerate=tolerated_but(5))


@known(5)
def test_a_transformed_program_after_a_context_change_is_not_the_first() -> None:
    # vmap, x64 on, vmap again: JAX compiled the batched program again (x64 differs);
    # jitlab filed the second as the function's first compile.
    steps = (Call((Arr((2,)),), via="vmap"), SetX64(True), Call((Arr((2,)),), via="vmap"))
    agree(Program((X,), steps), tolerate=tolerated_but(5))


@known(5)
def test_a_plain_call_after_vmap_is_not_the_first_compile() -> None:
    # JAX held the batched program of f; the plain call was filed as its first compile.
    steps = (Call((Arr((2,)),), via="vmap"), Call((Arr((3,)),)))
    agree(Program((X,), steps), tolerate=tolerated_but(5))


@known(5)
def test_a_plain_call_after_jvp_is_not_the_first_compile() -> None:
    steps = (Call((Arr((2,)),), via="jvp"), Call((Arr((2,)),)))
    agree(Program((X,), steps), tolerate=tolerated_but(5))


@known(5, "probe-after-call")
def test_a_plain_call_after_checkpoints_eager_run_is_not_the_first_compile() -> None:
    # jax.checkpoint(f)(x) compiled jit(f) from its trace, outside the call; then x64 on
    # and a plain call: JAX's second compile of f, filed as its first.
    steps = (Call((Arr((2,)),), via="remat"), SetX64(True), Call((Arr((2,)),)))
    agree(Program((X,), steps), tolerate=tolerated_but(5, "probe-after-call"))


@known("probe-after-call")
def test_checkpoints_eager_run_compiles_outside_the_probes_call() -> None:
    # jax.checkpoint(probe)(x) traces the probe; its eager run then compiles jit(f) from
    # that trace, not through the probe: JAX logs one compile, the probe saw a trace.
    steps = (Call((Arr((2,)),), via="remat"),)
    agree(Program((X,), steps), tolerate=tolerated_but("probe-after-call"))


@known(6)
def test_a_flat_index_reads_as_jax_writes_it() -> None:
    # JAX writes m[0]; jitlab wrote m[<flat index 0>].
    agree(
        Program((M,), calls((flat(Arr((3,)), "a"),), (flat(Arr((4,)), "a"),))),
        tolerate=tolerated_but(6),
    )


@known(7)
def test_a_cleared_cache_says_what_cleared_it() -> None:
    steps = (Call((Arr((3,)),)), Clear("function"), Call((Arr((3,)),)))
    agree(Program((X,), steps), tolerate=tolerated_but(7))


@known("no-leaves", "no-leaves-keyword")
def test_an_empty_argument_passed_by_keyword() -> None:
    # f(x, ()) then f(x4, y=()): JAX compiles for both; jitlab named the shape only (alone,
    # the move is said by JAX's words where they name keywords, 0.6-0.8, and as JAX's
    # (args, kwargs) paths from 0.9).
    steps = (Call((Arr((3,)), Node("tuple"))), Call((Arr((4,)), Node("tuple")), frozenset({"y"})))
    agree(Program((X, Y), steps), tolerate=tolerated_but("no-leaves", "no-leaves-keyword"))


@holds("no-leaves")
def test_an_empty_argument_changing_structure_is_named() -> None:
    # x: () then []: jitlab named the change at y[0], the other argument's leaf.
    before, after = (Node("tuple"), Arr((3,))), (Node("list"), Arr((3,)))
    agree(Program((X, Y), calls(before, after)), tolerate=tolerated_but("no-leaves"))


@known("nnx-static")
def test_nnx_jit_static_argnames_are_static() -> None:
    pytest.importorskip("flax")
    # x's shape changed and the static s passed by keyword: jitlab took s for a leaf (it
    # has no type), so it named JAX's (args, kwargs) paths and left the shape out.
    steps = (Call((Arr((3,)), "a")), Call((Arr((4,)), "a"), frozenset({"s"})))
    program = Program((X, S), steps, wrapper="nnx.jit")
    agree(program, tolerate=tolerated_but("nnx-static"))


@known("eqx-keyword")
def test_equinox_binds_a_keyword_to_its_parameter() -> None:
    pytest.importorskip("equinox")
    # The shape changed; passing x by keyword did not change JAX's key under equinox.
    steps = (Call((Arr((3,)),)), Call((Arr((4,)),), frozenset({"x"})))
    program = Program((X,), steps, wrapper="eqx.filter_jit")
    agree(program, tolerate=tolerated_but("eqx-keyword"))


@known(3)
def test_a_keyword_after_a_prebound_module() -> None:
    pytest.importorskip("flax")
    # nnx.jit_partial, y passed by keyword: the probe said x was gone and y new.
    steps = (Call((Arr((3,)), Arr((3,)))), Call((Arr((3,)), Arr((3,))), frozenset({"y"})))
    program = Program((X, Y), steps, wrapper="nnx.jit_partial")
    agree(program, tolerate=tolerated_but(3))


@holds("no-leaves")
def test_an_equinox_static_argument_becoming_a_tuple() -> None:
    pytest.importorskip("equinox")
    # Under equinox a tuple of Python numbers is all static: s 1 then (1, 2) was named "[2]".
    steps = (Call((Arr((3,)), Arr((3,)), 1)), Call((Arr((3,)), Arr((3,)), (1, 2))))
    program = Program((X, Y, S), steps, wrapper="eqx.filter_jit")
    agree(program, tolerate=tolerated_but("no-leaves"))


@holds(1, 6)
def test_a_structure_change_beside_keyword_moves_is_named_at_its_argument() -> None:
    # f(x, (a,), z) then f(x=, y=[a], z=): the tuple became a list at y, and all three moved
    # to keywords (it was named on the whole argument tree, '').
    before = (Arr((3,)), Node("tuple", (("a", Arr((3,))),)), Arr((3,)))
    after = (Arr((3,)), Node("list", (("a", Arr((3,))),)), Arr((3,)))
    steps = (Call(before), Call(after, frozenset({"x", "y", "z"})))
    agree(Program((X, Y, Param("z")), steps), tolerate=tolerated_but(1, 6))


@holds(6)
def test_a_container_of_a_registered_class_reads_as_jax_writes_it() -> None:
    # A tuple holding a dataclass became a list of it, x64 switched on between (found at 60
    # examples a test): the structure read "(CustomNode(Dataclass_a[()], [*]),)", a treedef,
    # where the class is named as the user wrote it: "(Dataclass_a(*),)".
    node = Node("dataclass", (("a", Arr((3,))),))
    before, after = Node("tuple", (("0", node),)), Node("list", (("0", node),))
    steps = (Call((before,)), SetX64(True), Call((after,)))
    agree(Program((X,), steps), tolerate=tolerated_but(6))


@known("dataclass-meta")
def test_a_register_dataclass_meta_field_is_named_by_its_field() -> None:
    # Found at 60 examples a test: the meta field s1 changed, 1 then 2; jitlab named the
    # node z with its whole static data, not the field z.s1.
    def z(s1: int) -> Node:
        return Node("dataclass", (("a", Arr(())),), (("s0", "b"), ("s1", s1)))

    agree(Program((Z,), calls((z(1),), (z(2),))), tolerate=tolerated_but(6))


@holds(1)
def test_new_function_objects_are_ranked_as_jax_ranks_keys() -> None:
    # A new partial before each call, kept alive: JAX compares none of them, and jitlab
    # weighed two keyword moves as one structure change (a tie, the newest taken) where the
    # structure change is the one difference (found by the generator once no-leaves went).
    steps = (
        Call((Node("tuple"), 1)),
        Call((Node("tuple", (("a", Arr((3,))),)), 1), frozenset({"x", "s"})),
        Call((Node("tuple", (("a", Arr((3,))),)), 1)),
    )
    agree(Program((X, S), steps, wrapper="partial", handing="kept"), tolerate=tolerated_but(1))


@holds(1)
def test_static_data_equal_to_jax_is_no_change() -> None:
    # A node's static data True, then 1: one treedef to JAX (node data compared by ==), yet
    # the texts differ and jitlab named the whole argument tree beside the static s.
    steps = (Call((keyed(Arr(()), True), Ident("A"))), Call((keyed(Arr(()), 1), Config())))
    agree(Program((X, S), steps), tolerate=tolerated_but(1))


@holds(1, 6)
def test_a_static_field_equal_to_jax_is_not_named() -> None:
    pytest.importorskip("flax")

    # s0 True then 1 (equal to JAX), s1 a then b: only s1 changed.
    def struct(s0: object, s1: str) -> Node:
        return Node("struct", (("a", Arr(())),), (("s0", s0), ("s1", s1)))

    agree(
        Program((X,), calls((struct(True, "a"),), (struct(1, "b"),))), tolerate=tolerated_but(1, 6)
    )


@holds(1)
def test_static_data_above_a_lost_leaf_is_named() -> None:
    # A node's static data changed (True, then b) while a node below it lost a leaf: only
    # the lost leaf was named (found on JAX 0.6.2 at CI's budget).
    def inner(*fields: str) -> Node:
        return Node("dataclass", tuple((f, Arr(())) for f in fields))

    before, after = flat_of(inner("a", "b"), True), flat_of(inner("a"), "b")
    agree(Program((X,), calls((before,), (after,))), tolerate=tolerated_but(1))


def flat_of(child: Node, *aux: object) -> Node:
    """A node registered without keys holding another node, with static data."""
    return Node("flat", (("a", child),), tuple((f"s{i}", a) for i, a in enumerate(aux)))
