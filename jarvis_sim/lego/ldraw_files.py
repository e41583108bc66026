"""The files of an LDraw model as authoring tools write them: MPD sub-files, embedded part files, neighbours.

An MPD holds the main model and its submodels as `0 FILE name` blocks (`0 NOFILE` ends one; many tools omit
it). Packing tools also embed the official part files a model uses, so that it opens without a library:
BrickLink Studio and BrickHub write `0 FILE 3001.dat`, three.js's packLDrawModel writes the LDConfig colours
first, then the main model without a `0 FILE` line, then `0 FILE parts/3001.dat`, `0 FILE parts/s/3001s01.dat`,
`0 FILE p/stud.dat` blocks, and rewrites references to those paths. A block is a part, not a submodel, when its
header says so (`0 !LDRAW_ORG Part`, `Unofficial_Part`, `Shortcut`, `Subpart`, `Primitive`...) or it holds
geometry (line types 2-5): the importer reads it by its part number, as it would read the library's file.
"""

from __future__ import annotations

from pathlib import Path

Lines = list[tuple[int, str]]

# `0 !LDRAW_ORG <type>` values of part files (LDraw File Format 1.0.2, "!LDRAW_ORG" meta); models say
# "Model", "Unofficial_Model" or nothing.
_PART_TYPES = ("part", "unofficial_part", "shortcut", "unofficial_shortcut", "subpart", "unofficial_subpart",
               "primitive", "unofficial_primitive", "48_primitive", "8_primitive", "unofficial_48_primitive",
               "unofficial_8_primitive", "part alias", "unofficial_part alias", "part physical_colour",
               "unofficial_part physical_colour", "part flexible_section", "unofficial_part flexible_section")
# Folders packers put in front of a part's name (three.js: parts/, parts/s/, p/, p/48/).
_LIBRARY_FOLDERS = ("parts/", "p/")


def split_mpd(text: str, file: str) -> dict[str, Lines]:
    """Sub-files by lower-case name, each a list of (line number, line); the first is the main model.

    Lines before the first `0 FILE` belong to the main model (a plain .ldr, or three.js's packed MPD whose main
    model has no `0 FILE` line).
    """
    files: dict[str, Lines] = {}
    current: Lines | None = None
    main = file.lower()
    for n, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):  # Studio writes a UTF-8 BOM
        line = raw.strip()
        words = line.split()
        if len(words) >= 3 and words[0] == "0" and words[1].upper() == "FILE":
            name = " ".join(words[2:]).lower().replace("\\", "/")
            if not files:
                main = name
            current = files.setdefault(name, [])
            continue
        if len(words) >= 2 and words[0] == "0" and words[1].upper() == "NOFILE":
            current = None
            continue
        if current is None:
            if files:
                continue
            current = files.setdefault(main, [])
        current.append((n, line))
    files.setdefault(main, [])
    # The main model goes first.
    return {main: files[main], **{k: v for k, v in files.items() if k != main}}


def is_part_block(lines: Lines) -> bool:
    """Whether an MPD block is an embedded part file (its header or its geometry says so), not a submodel."""
    for _, line in lines:
        words = line.split()
        if len(words) >= 3 and words[0] == "0" and words[1].upper() == "!LDRAW_ORG":
            kind = " ".join(words[2:]).lower()
            return any(kind == t or kind.startswith(t + " ") for t in _PART_TYPES)
    return any(ln[:1] in ("2", "3", "4", "5") for _, ln in lines)


def part_number(key: str) -> str:
    """The part number a (lower-case) reference names: `parts/3001.dat`, `3001.DAT` and `3001` all give 3001."""
    for folder in _LIBRARY_FOLDERS:
        if key.startswith(folder):
            key = key[len(folder):]
            break
    return key.removesuffix(".dat")


def block_title(lines: Lines) -> str | None:
    """An embedded file's title: its first comment line that is not a meta command."""
    for _, line in lines:
        if line.startswith("0 ") and len(line) > 2:
            title = line[2:].strip()
            if not title.startswith(("!", "Name:", "Author:", "//")):
                return title
    return None


def safe_neighbour(base_dir: Path, ref: str) -> Path | None:
    """The file `ref` names inside the model's folder, or None; references escaping the folder are refused."""
    if "\x00" in ref:  # no file name holds one; os calls would raise ValueError
        return None
    rel = Path(ref.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or rel.drive:
        return None
    try:
        root = base_dir.resolve()
        path = (root / rel).resolve()
    except (OSError, RuntimeError):
        return None
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path
