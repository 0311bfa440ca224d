"""A minimal, faithful stand-in for ROS 2 `launch` / `launch_ros`, for machines where they are not
installable (PyPI has no wheels of them). It implements exactly the subset mnemo's launch files
use and refuses anything else with a clear error, so a launch file that needs more fails here
instead of silently doing something different from `ros2 launch`.

    install()            # puts the shim in sys.modules, only when the real modules are absent
    result = evaluate_launch_file("launch/tiago.launch.py", {"operator_gate": "false"})
    for node in result.nodes: node.package, node.executable, node.name, node.params, node.remappings

Semantics followed from launch / launch_ros:
- DeclareLaunchArgument sets its default only when the configuration is not already set; an
  argument with no default and no value is an error; `choices` are enforced.
- IncludeLaunchDescription sets its launch_arguments in the current scope (they stay visible
  after the include, as in `launch`); GroupAction(scoped=True) gives its actions a copy.
- IfCondition / UnlessCondition accept true/false/1/0 (any case) and nothing else.
- Node respawn (a bool or a true/false substitution), respawn_delay (s) and respawn_max_retries
  (-1: always) as launch's ExecuteProcess: the node starts again after it exits, whatever its code.
- Node parameters: YAML files contribute `ros__parameters` under `/**`, `NAME`, `/NAME` or
  `/NS/NAME` keys, nested mappings flattened to dotted names; dicts are merged after, in order;
  a substitution value is performed and its text read as YAML (so "true" is a bool, "2.0" a float).
"""
from __future__ import annotations

import importlib.util
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Union

import yaml

REPO_ROOT = Path(__file__).resolve().parents[3]
SHIM_MODULES = ("launch", "launch.actions", "launch.substitutions", "launch.conditions",
                "launch.launch_description_sources", "launch_ros", "launch_ros.actions", "launch_ros.substitutions")


class LaunchShimError(RuntimeError):
    """A launch file uses something the shim does not implement, or is wrong in itself."""


# -- substitutions -----------------------------------------------------------------------
class Substitution:
    def perform(self, context: "LaunchContext") -> str:
        raise NotImplementedError


SomeSubstitution = Union[str, Path, Substitution, Iterable[Union[str, Substitution]]]


def perform(value: SomeSubstitution, context: "LaunchContext") -> str:
    if isinstance(value, (str, Path)):
        return str(value)
    if isinstance(value, Substitution):
        return value.perform(context)
    if isinstance(value, (list, tuple)):
        return "".join(perform(v, context) for v in value)
    raise LaunchShimError(f"unsupported substitution {type(value).__name__}: {value!r} "
                          f"(the shim knows str, LaunchConfiguration, PathJoinSubstitution, FindPackageShare)")


class LaunchConfiguration(Substitution):
    def __init__(self, variable_name: str, default: Optional[SomeSubstitution] = None):
        self.variable_name, self.default = variable_name, default

    def perform(self, context: "LaunchContext") -> str:
        if self.variable_name in context.configurations:
            return context.configurations[self.variable_name]
        if self.default is not None:
            return perform(self.default, context)
        raise LaunchShimError(f"launch configuration '{self.variable_name}' is not set")

    def __repr__(self) -> str:
        return f"LaunchConfiguration({self.variable_name!r})"


class TextSubstitution(Substitution):
    def __init__(self, text: str = ""):
        self.text = text

    def perform(self, context: "LaunchContext") -> str:
        return self.text


class PathJoinSubstitution(Substitution):
    def __init__(self, substitutions: list):
        self.substitutions = list(substitutions)

    def perform(self, context: "LaunchContext") -> str:
        return str(Path(*[perform(s, context) for s in self.substitutions]))


def package_share(package: str) -> str:
    """The repo stands in for share/: `mnemo` is the repo root (launch/, config/), any other
    package its src/ folder (where setup.py's data_files come from)."""
    if package == "mnemo":
        return str(REPO_ROOT)
    candidate = REPO_ROOT / "src" / package
    if (candidate / "package.xml").exists():
        return str(candidate)
    raise LaunchShimError(f"package '{package}' not found under {REPO_ROOT / 'src'}")


class FindPackageShare(Substitution):
    def __init__(self, package: SomeSubstitution):
        self.package = package

    def perform(self, context: "LaunchContext") -> str:
        return package_share(perform(self.package, context))


# -- conditions --------------------------------------------------------------------------
def _truth(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise LaunchShimError(f"condition expects true/false/1/0, got {text!r}")


class IfCondition:
    def __init__(self, predicate_expression: SomeSubstitution):
        self.expression = predicate_expression

    def evaluate(self, context: "LaunchContext") -> bool:
        return _truth(perform(self.expression, context))


class UnlessCondition(IfCondition):
    def evaluate(self, context: "LaunchContext") -> bool:
        return not super().evaluate(context)


def _allowed(condition, context: "LaunchContext") -> bool:
    if condition is None:
        return True
    if not isinstance(condition, IfCondition):
        raise LaunchShimError(f"unsupported condition {type(condition).__name__}")
    return condition.evaluate(context)


# -- actions -----------------------------------------------------------------------------
class Action:
    def __init__(self, condition=None):
        self.condition = condition


class DeclareLaunchArgument(Action):
    def __init__(self, name: str, default_value: Optional[SomeSubstitution] = None, description: str = "",
                 choices: Optional[list[str]] = None, **kwargs):
        _no_extra("DeclareLaunchArgument", kwargs)
        super().__init__()
        self.name, self.default_value, self.description, self.choices = name, default_value, description, choices


class SetEnvironmentVariable(Action):
    def __init__(self, name: SomeSubstitution, value: SomeSubstitution, condition=None):
        super().__init__(condition)
        self.name, self.value = name, value


class GroupAction(Action):
    def __init__(self, actions: list, condition=None, scoped: bool = True, forwarding: bool = True, **kwargs):
        _no_extra("GroupAction", kwargs)
        super().__init__(condition)
        if not forwarding:
            raise LaunchShimError("GroupAction(forwarding=False) is not supported by the launch shim")
        self.actions, self.scoped = list(actions), scoped


class PythonLaunchDescriptionSource:
    def __init__(self, launch_file_path: SomeSubstitution):
        self.launch_file_path = launch_file_path


class IncludeLaunchDescription(Action):
    def __init__(self, launch_description_source, launch_arguments=None, condition=None, **kwargs):
        _no_extra("IncludeLaunchDescription", kwargs)
        super().__init__(condition)
        if not isinstance(launch_description_source, PythonLaunchDescriptionSource):
            raise LaunchShimError("IncludeLaunchDescription: only PythonLaunchDescriptionSource is supported")
        self.source = launch_description_source
        items = launch_arguments.items() if isinstance(launch_arguments, dict) else (launch_arguments or [])
        self.launch_arguments = list(items)


NODE_KWARGS = {"package", "executable", "name", "namespace", "parameters", "remappings", "arguments", "output",
               "condition", "emulate_tty", "respawn", "respawn_delay", "respawn_max_retries"}


class Node(Action):
    def __init__(self, *, executable: SomeSubstitution, package: Optional[SomeSubstitution] = None, **kwargs):
        unknown = set(kwargs) - NODE_KWARGS
        if unknown:
            raise LaunchShimError(f"launch_ros Node: unsupported argument(s) {sorted(unknown)}")
        super().__init__(kwargs.get("condition"))
        if package is None:
            raise LaunchShimError("launch_ros Node without package is not supported by the launch shim")
        self.package, self.executable = package, executable
        self.node_name = kwargs.get("name")
        self.namespace = kwargs.get("namespace")
        self.parameters = list(kwargs.get("parameters") or [])
        self.remappings = list(kwargs.get("remappings") or [])
        self.arguments = list(kwargs.get("arguments") or [])
        self.respawn = kwargs.get("respawn", False)
        self.respawn_delay = kwargs.get("respawn_delay")
        self.respawn_max_retries = kwargs.get("respawn_max_retries", -1)


def _no_extra(what: str, kwargs: dict) -> None:
    if kwargs:
        raise LaunchShimError(f"{what}: unsupported argument(s) {sorted(kwargs)}")


class LaunchDescription:
    def __init__(self, initial_entities: Optional[list] = None):
        self.entities = list(initial_entities or [])

    def add_action(self, action) -> None:
        self.entities.append(action)


# -- evaluation --------------------------------------------------------------------------
@dataclass
class DeclaredArgument:
    name: str
    default: Optional[str]
    description: str
    choices: Optional[list[str]]
    file: str


@dataclass
class NodeSpec:
    package: str
    executable: str
    name: str
    namespace: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    param_files: list[str] = field(default_factory=list)
    remappings: list[tuple[str, str]] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    file: str = ""
    respawn: bool = False
    respawn_delay: float = 0.0
    respawn_max_retries: int = -1


@dataclass
class LaunchResult:
    nodes: list[NodeSpec]
    arguments: list[DeclaredArgument]
    configurations: dict[str, str]
    env: dict[str, str]
    files: list[str]


@dataclass
class LaunchContext:
    configurations: dict[str, str]
    env: dict[str, str]


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value


def params_from_yaml(path: Union[str, Path], node_name: str, namespace: str = "") -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise LaunchShimError(f"parameters file {path} does not exist")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise LaunchShimError(f"{path}: a parameters file is a mapping of node names")
    fq = f"/{namespace.strip('/')}/{node_name}" if namespace.strip("/") else f"/{node_name}"
    out: dict[str, Any] = {}
    for key in ("/**", node_name, f"/{node_name}", fq):
        section = data.get(key)
        if section is None:
            continue
        if not isinstance(section, dict) or "ros__parameters" not in section:
            raise LaunchShimError(f"{path}: '{key}' needs a 'ros__parameters' mapping")
        _flatten("", section["ros__parameters"] or {}, out)
    return out


def _param_value(value: Any, context: LaunchContext) -> Any:
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, (bool, int, float, str)) for v in value):
        return list(value)
    text = perform(value, context)
    try:
        return yaml.safe_load(text) if text else text
    except yaml.YAMLError:
        return text


class _Evaluator:
    def __init__(self):
        self.nodes: list[NodeSpec] = []
        self.arguments: list[DeclaredArgument] = []
        self.files: list[str] = []

    def file(self, path: Path, context: LaunchContext) -> None:
        path = Path(path).resolve()
        if not path.is_file():
            raise LaunchShimError(f"launch file {path} does not exist")
        self.files.append(str(path))
        spec = importlib.util.spec_from_file_location(f"_mnemo_launch_{len(self.files)}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if not hasattr(module, "generate_launch_description"):
            raise LaunchShimError(f"{path}: no generate_launch_description()")
        description = module.generate_launch_description()
        if not isinstance(description, LaunchDescription):
            raise LaunchShimError(f"{path}: generate_launch_description() must return a LaunchDescription")
        self.entities(description.entities, context, str(path))

    def entities(self, entities: list, context: LaunchContext, file: str) -> None:
        for entity in entities:
            self.entity(entity, context, file)

    def entity(self, e: Any, context: LaunchContext, file: str) -> None:
        if isinstance(e, DeclareLaunchArgument):
            default = perform(e.default_value, context) if e.default_value is not None else None
            self.arguments.append(DeclaredArgument(e.name, default, e.description, e.choices, file))
            if e.name not in context.configurations:
                if default is None:
                    raise LaunchShimError(f"{file}: launch argument '{e.name}' is required (no default)")
                context.configurations[e.name] = default
            value = context.configurations[e.name]
            if e.choices is not None and value not in e.choices:
                raise LaunchShimError(f"{file}: argument '{e.name}' is {value!r}, expected one of {e.choices}")
            return
        if not isinstance(e, Action):
            raise LaunchShimError(f"{file}: unsupported launch entity {type(e).__name__} "
                                  "(the shim knows DeclareLaunchArgument, SetEnvironmentVariable, GroupAction, "
                                  "IncludeLaunchDescription and launch_ros Node)")
        if not _allowed(e.condition, context):
            return
        if isinstance(e, SetEnvironmentVariable):
            context.env[perform(e.name, context)] = perform(e.value, context)
        elif isinstance(e, GroupAction):
            scope = LaunchContext(dict(context.configurations), dict(context.env)) if e.scoped else context
            self.entities(e.actions, scope, file)
        elif isinstance(e, IncludeLaunchDescription):
            for k, v in e.launch_arguments:
                context.configurations[perform(k, context)] = perform(v, context)
            self.file(Path(perform(e.source.launch_file_path, context)), context)
        elif isinstance(e, Node):
            self.node(e, context, file)
        else:
            raise LaunchShimError(f"{file}: unsupported action {type(e).__name__}")

    def node(self, e: Node, context: LaunchContext, file: str) -> None:
        package, executable = perform(e.package, context), perform(e.executable, context)
        name = perform(e.node_name, context) if e.node_name is not None else executable
        namespace = perform(e.namespace, context) if e.namespace is not None else ""
        spec = NodeSpec(package, executable, name, namespace, env=dict(context.env), file=file)
        for item in e.parameters:
            if isinstance(item, dict):
                for k, v in item.items():
                    flat: dict[str, Any] = {}
                    _flatten(perform(k, context), _param_value(v, context) if not isinstance(v, dict) else v, flat)
                    spec.params.update(flat)
            else:
                path = perform(item, context)
                spec.param_files.append(path)
                spec.params.update(params_from_yaml(path, name, namespace))
        for pair in e.remappings:
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
                raise LaunchShimError(f"{file}: a remapping is a (from, to) pair, got {pair!r}")
            spec.remappings.append((perform(pair[0], context), perform(pair[1], context)))
        spec.arguments = [perform(a, context) for a in e.arguments]
        spec.respawn = e.respawn if isinstance(e.respawn, bool) else _truth(perform(e.respawn, context))
        if e.respawn_delay is not None:
            spec.respawn_delay = float(e.respawn_delay)
        spec.respawn_max_retries = int(e.respawn_max_retries)
        self.nodes.append(spec)


def evaluate_launch_file(path: Union[str, Path], arguments: Optional[dict[str, str]] = None) -> LaunchResult:
    """Evaluate a launch file into resolved node specs. The shim's modules stand in for
    launch/launch_ros while the file is evaluated (and the previous modules, real or none, are
    put back afterwards), so this works the same on a full ROS 2 install."""
    context = LaunchContext({k: str(v) for k, v in (arguments or {}).items()}, {})
    evaluator = _Evaluator()
    saved = {name: sys.modules.get(name) for name in SHIM_MODULES}
    sys.modules.update(_build_modules())
    try:
        evaluator.file(Path(path), context)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return LaunchResult(evaluator.nodes, evaluator.arguments, context.configurations, context.env, evaluator.files)


# -- installation into sys.modules -------------------------------------------------------
def _module(name: str, attrs: dict[str, Any]) -> types.ModuleType:
    module = types.ModuleType(name, f"mnemo launch shim for {name}")
    module.__dict__.update(attrs)
    module.__mnemo_launch_shim__ = True

    def __getattr__(attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise LaunchShimError(f"{name}.{attr} is not supported by mnemo's launch shim "
                              f"(supported: {sorted(k for k in attrs if not k.startswith('_'))}); "
                              "use ros2 launch on a full ROS 2 install")

    module.__getattr__ = __getattr__
    return module


def real_launch_available() -> bool:
    existing = sys.modules.get("launch")
    if existing is not None:
        return not getattr(existing, "__mnemo_launch_shim__", False)
    return importlib.util.find_spec("launch") is not None and importlib.util.find_spec("launch_ros") is not None


def _build_modules() -> dict[str, types.ModuleType]:
    actions = _module("launch.actions", {"DeclareLaunchArgument": DeclareLaunchArgument,
                                         "SetEnvironmentVariable": SetEnvironmentVariable,
                                         "GroupAction": GroupAction,
                                         "IncludeLaunchDescription": IncludeLaunchDescription})
    substitutions = _module("launch.substitutions", {"LaunchConfiguration": LaunchConfiguration,
                                                     "PathJoinSubstitution": PathJoinSubstitution,
                                                     "TextSubstitution": TextSubstitution})
    conditions = _module("launch.conditions", {"IfCondition": IfCondition, "UnlessCondition": UnlessCondition})
    sources = _module("launch.launch_description_sources",
                      {"PythonLaunchDescriptionSource": PythonLaunchDescriptionSource})
    launch = _module("launch", {"LaunchDescription": LaunchDescription, "actions": actions,
                                "substitutions": substitutions, "conditions": conditions,
                                "launch_description_sources": sources, "__path__": []})
    ros_actions = _module("launch_ros.actions", {"Node": Node})
    ros_subs = _module("launch_ros.substitutions", {"FindPackageShare": FindPackageShare})
    launch_ros = _module("launch_ros", {"actions": ros_actions, "substitutions": ros_subs, "__path__": []})
    return {m.__name__: m for m in (launch, actions, substitutions, conditions, sources, launch_ros, ros_actions,
                                    ros_subs)}


def install() -> bool:
    """Put the shim in sys.modules unless the real launch/launch_ros are importable; True when
    the shim is (now) in place."""
    if "launch" in sys.modules:
        return bool(getattr(sys.modules["launch"], "__mnemo_launch_shim__", False))
    if real_launch_available():
        return False
    sys.modules.update(_build_modules())
    return True


def uninstall() -> None:
    for name in SHIM_MODULES:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__mnemo_launch_shim__", False):
            del sys.modules[name]
