"""A class's submissions: one folder or zip file per student, each copied to a place of its own.

A submission is the ``yourgrad`` package itself (a folder with ``__init__.py`` at its top) or
holds one a few folders down (``alice/yourgrad/``, ``alice.zip`` with ``work/yourgrad/``). The
student's name is the folder's or the zip file's name. Zips are unpacked with care: no absolute
paths, no ``..``, no links, at most :data:`ZIP_BYTES` unpacked.
"""
import os
import shutil
import stat
import zipfile
from pathlib import Path

ZIP_BYTES, ZIP_FILES = 64 << 20, 5000
SEARCH_DEPTH = 3
PACKAGE = "yourgrad"


class NoPackage(Exception):
    """The submission holds no yourgrad package: the reason, in a few words."""


def find(folder):
    """[(student, path)] for every folder and zip file in `folder`, by name (a zip keeps its
    .zip when a folder has the same name)."""
    entries = [entry for entry in sorted(Path(folder).iterdir())
               if not entry.name.startswith(".")
               and (entry.is_dir() or entry.suffix.lower() == ".zip")]
    folders = {entry.name for entry in entries if entry.is_dir()}
    return [(entry.name if entry.is_dir() or entry.stem in folders else entry.stem, entry)
            for entry in entries]


def unpack(submission, copy_root):
    """Copy the submission into `copy_root`; return the folder holding its ``yourgrad``."""
    files = Path(copy_root) / "files"
    if Path(submission).is_dir():
        shutil.copytree(submission, files, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    else:
        extract(submission, files)
    files.mkdir(exist_ok=True)
    if (files / "__init__.py").is_file():
        return str(files.rename(Path(copy_root) / PACKAGE).parent)
    for depth in range(SEARCH_DEPTH):
        for found in sorted(files.glob("/".join(["*"] * depth + [PACKAGE, "__init__.py"]))):
            return str(found.parent.parent)
    if not any(files.iterdir()):
        raise NoPackage("empty")
    raise NoPackage(f"no {PACKAGE} package in it (a folder with __init__.py)")


def extract(archive, destination):
    """Unpack a zip file, refusing paths that leave `destination`, links and zip bombs."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            members = zipped.infolist()
            if len(members) > ZIP_FILES or sum(m.file_size for m in members) > ZIP_BYTES:
                raise NoPackage(f"the zip file unpacks to more than {ZIP_BYTES >> 20} MB")
            for member in members:
                extract_member(zipped, member, destination)
    except (zipfile.BadZipFile, OSError) as error:
        raise NoPackage(f"not a zip file we can read ({error})") from None


def extract_member(zipped, member, destination):
    parts = Path(member.filename).parts
    if member.filename.startswith(("/", "\\")) or ".." in parts or not parts:
        raise NoPackage(f"the zip file holds a path outside itself: {member.filename!r}")
    if stat.S_ISLNK(member.external_attr >> 16):
        return
    target = destination.joinpath(*parts)
    if member.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipped.open(member) as source, open(target, "wb") as sink:
        shutil.copyfileobj(source, sink)
    os.chmod(target, 0o644)
