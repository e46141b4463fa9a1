"""No import circles inside a package, counting the imports made only for type checkers.

import-linter's "no import circles inside a package" contract leaves out ``TYPE_CHECKING``
imports (pyproject.toml), so a circle made of one runtime arrow and one type-only arrow back
(``gui/lesson/menus ↔ window``, ``probe/diagnosing ↔ probe``: issue 55) passes it. This test
counts both kinds, and allows none.
"""

from __future__ import annotations

import grimp


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
    assert circles == set(), "modules of one package import each other"
