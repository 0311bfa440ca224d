"""Rewrite the build-machine paths that the ROS 2 PyPI wheels' CMake exports carry.

The wheels were built under /opt/python/cp311-cp311; their exported ``*.cmake`` files name that
interpreter's include directory and numpy's include directory, and CMake refuses to configure
until those exist. We point them at this interpreter's directories instead.
Usage: python fix_wheel_cmake_paths.py VENV
"""
import sys
import sysconfig
from pathlib import Path

import numpy

BUILD_PREFIX = "/opt/python/cp311-cp311"


def main(venv: Path) -> int:
    site = Path(sysconfig.get_paths()["purelib"])
    replacements = [
        (f"{BUILD_PREFIX}/lib/python3.11/site-packages/numpy/_core/include", numpy.get_include()),
        (f"{BUILD_PREFIX}/include/python3.11", sysconfig.get_paths()["include"]),
        (f"{BUILD_PREFIX}/lib/python3.11/site-packages", str(site)),
    ]
    changed = 0
    for path in venv.rglob("*.cmake"):
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        if BUILD_PREFIX not in text:
            continue
        for old, new in replacements:
            text = text.replace(old, new)
        path.write_text(text)
        changed += 1
    print(f"rewrote build-machine paths in {changed} CMake files")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
