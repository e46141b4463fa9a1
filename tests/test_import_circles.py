"""No import circles inside a package, counting the imports made only for type checkers.

import-linter's "no import circles inside a package" contract leaves out ``TYPE_CHECKING``
imports (pyproject.toml), so a circle made of one runtime arrow and one type-only arrow back
(``gui/lesson/menus ↔ window``, issue 55) passes it. This test counts both kinds.
``KNOWN`` holds the circles still to break; it only shrinks.
"""

from __future__ import annotations

import grimp

KNOWN = {("jitlab.probe.diagnosing", "jitlab.probe.probe")}  # the coordinator's, issue 55


def test_no_sibling_modules_import_each_other_even_for_type_checkers() -> None:
    graph = grimp.build_graph("jitlab", exclude_type_checking_imports=False)
    circles = set()
    for module in graph.modules:
        package = module.rpartition(".")[0]
        for imported in graph.find_modules_directly_imported_by(module):
            if imported == module or imported.rpartition(".")[0] != package:
                continue
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back and all(step.startswith(f"{package}.") for step in back):
                circles.add(tuple(sorted((module, imported))))
    assert circles - KNOWN == set(), "new circles"
    assert KNOWN - circles == set(), "a known circle is gone: take it off KNOWN"
