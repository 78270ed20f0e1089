"""The type stubs (_native.pyi) name exactly what the extension exports, and every public
method and property of its classes."""

import ast
import pathlib

import hegpu
from hegpu import _native

STUB = pathlib.Path(hegpu.__file__).parent / "_native.pyi"


def stub_tree():
    return ast.parse(STUB.read_text())


def test_every_export_is_in_the_stubs():
    tree = stub_tree()
    names = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    names |= {t.id for node in tree.body if isinstance(node, ast.AnnAssign) for t in [node.target]}
    exported = {name for name in dir(_native) if not name.startswith("_")} | {"__version__"}
    assert exported - names == set(), "exported but not in the stubs"


def test_every_method_is_in_the_stubs():
    tree = stub_tree()
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    inherited = {
        item.name for item in classes["_ContextObject"].body if isinstance(item, ast.FunctionDef)
    }
    for name, cls in classes.items():
        if name.startswith("_") or not hasattr(_native, name) or issubclass(getattr(_native, name), Exception):
            continue
        stubbed = {item.name for item in cls.body if isinstance(item, ast.FunctionDef)} | inherited
        public = {m for m in vars(getattr(_native, name)) if not m.startswith("_")}
        assert public - stubbed == set(), f"{name}: methods missing from the stubs"
        assert {m for m in stubbed if not m.startswith("_")} - public - inherited == set(), f"{name}: stubs of no method"
