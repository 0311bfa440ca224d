"""The generator's vocabulary, read from the data files beside this module.

``data/catalogue.yaml`` holds room kinds, fixture classes and object classes (names people use,
categories, where things are kept, attribute values, needs they meet); ``data/phrasing.yaml`` holds
instruction templates per task family, politeness, time words and misspellings; ``data/people.yaml``
the names of household members who own things. ``load_catalogue()`` reads and checks them once.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class RoomKind:
    key: str
    names: tuple[str, ...]
    size: tuple[tuple[float, float], tuple[float, float]]  # ranges of the two side lengths


@dataclass(frozen=True)
class FixtureClass:
    label: str
    names: tuple[str, ...]
    rooms: tuple[str, ...]
    kind: str  # surface | container
    size: tuple[float, float, float]  # depth, width, height
    lockable: bool = False
    colors: tuple[str, ...] = ()

    @property
    def is_container(self) -> bool:
        return self.kind == "container"


@dataclass(frozen=True)
class ObjectClass:
    label: str
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    rooms: tuple[str, ...]
    stored_in: tuple[str, ...]
    found_on: tuple[str, ...]
    size: tuple[float, float, float]
    attributes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    consumable: bool = False
    needs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Phrasing:
    prefixes: tuple[str, ...]
    suffixes: tuple[str, ...]
    fillers: tuple[str, ...]
    families: dict[str, tuple[str, ...]]
    time_words: dict[str, tuple[str, ...]]
    negation: tuple[str, ...]
    misspellings: dict[str, str]


@dataclass(frozen=True)
class Catalogue:
    rooms: dict[str, RoomKind]
    fixtures: dict[str, FixtureClass]
    objects: dict[str, ObjectClass]
    phrasing: Phrasing
    people: tuple[str, ...]

    def fixtures_for(self, room_kind: str, kind: str = "") -> list[FixtureClass]:
        return [f for f in self.fixtures.values() if room_kind in f.rooms and (not kind or f.kind == kind)]


class CatalogueError(ValueError):
    """A data file of the generator is malformed (names the file and the entry)."""


def _tuple(value: Any) -> tuple:
    return tuple(value or ())


def _read(name: str) -> Any:
    path = DATA_DIR / name
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogueError(f"{path}: cannot be read as YAML ({exc})") from None


def _check(cat: Catalogue) -> None:
    where = DATA_DIR / "catalogue.yaml"
    for f in cat.fixtures.values():
        bad = [r for r in f.rooms if r not in cat.rooms]
        if bad or f.kind not in ("surface", "container"):
            raise CatalogueError(f"{where}: fixture {f.label!r}: unknown rooms {bad} or kind {f.kind!r}")
    for o in cat.objects.values():
        problems = [r for r in o.rooms if r not in cat.rooms]
        problems += [c for c in o.stored_in if c not in cat.fixtures or not cat.fixtures[c].is_container]
        problems += [c for c in o.found_on if c not in cat.fixtures or cat.fixtures[c].is_container]
        if problems or not o.found_on:
            raise CatalogueError(f"{where}: object {o.label!r}: unknown or wrong-kind references {problems} "
                                 "(or no found_on surface)")


@lru_cache(maxsize=1)
def load_catalogue() -> Catalogue:
    data = _read("catalogue.yaml")
    rooms = {k: RoomKind(k, _tuple(v["names"]), tuple(tuple(r) for r in v["size"]))  # type: ignore[arg-type]
             for k, v in data["rooms"].items()}
    fixtures = {}
    for f in data["fixtures"]:
        fixtures[f["class"]] = FixtureClass(f["class"], _tuple(f.get("names")) or (f["class"],), _tuple(f["rooms"]),
                                            f["kind"], tuple(float(v) for v in f["size"]),  # type: ignore[arg-type]
                                            bool(f.get("lockable", False)), _tuple(f.get("colors")))
    objects = {}
    for o in data["objects"]:
        attrs = {k: tuple(str(v) for v in vals) for k, vals in (o.get("attributes") or {}).items() if vals}
        objects[o["class"]] = ObjectClass(o["class"], _tuple(o.get("names")) or (o["class"],), _tuple(o.get("kinds")),
                                          _tuple(o["rooms"]), _tuple(o.get("stored_in")), _tuple(o.get("found_on")),
                                          tuple(float(v) for v in o["size"]), attrs,  # type: ignore[arg-type]
                                          bool(o.get("consumable", False)), _tuple(o.get("needs")))
    p = _read("phrasing.yaml")
    phrasing = Phrasing(_tuple(p["politeness"]["prefix"]), _tuple(p["politeness"]["suffix"]), _tuple(p.get("fillers")),
                        {k: _tuple(v) for k, v in p["families"].items()},
                        {k: _tuple(v) for k, v in p["time_words"].items()}, _tuple(p["negation"]),
                        {str(k): str(v) for k, v in (p.get("typos") or {}).items()})
    people = _tuple(_read("people.yaml")["names"])
    cat = Catalogue(rooms, fixtures, objects, phrasing, people)
    _check(cat)
    return cat
