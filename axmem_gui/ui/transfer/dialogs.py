"""Choosing what to import (files, or a folder of skill folders). Each behind `ask`."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from axmem_gui.ui import file_dialogs

IMPORT_FILTER = (
    "Catalogs (*.json *.ts *.mts *.cts *.js *.mjs *.jsonl *.ndjson SKILL.md);;"
    "Ax catalog JSON (*.json);;TypeScript modules (*.ts *.mts *.cts *.js *.mjs);;"
    "JSON Lines memories (*.jsonl *.ndjson);;Agent skill (SKILL.md);;All files (*)"
)


class ImportFilesDialog:
    @classmethod
    def ask(cls, parent: QWidget | None, start: str = "") -> list[Path] | None:
        names, _ = file_dialogs.get_open_file_names(parent, "Import catalogs", start, IMPORT_FILTER)
        return [Path(n) for n in names] if names else None


class ImportFolderDialog:
    @classmethod
    def ask(cls, parent: QWidget | None, start: str = "") -> Path | None:
        name = file_dialogs.get_existing_directory(
            parent, "Import a folder of skill folders (each with a SKILL.md)", start
        )
        return Path(name) if name else None
