"""Fakes for opening links: the confirmation dialog, the refusal notice and the desktop's URL
handler, recording what each was given (no dialog shows, no browser starts)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QWidget

from axmem_gui.ui.editor.dialogs import OpenLinkDialog


@dataclass
class LinkLog:
    answer: bool = False  # what the confirmation dialog answers
    asked: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    opened: list[QUrl] = field(default_factory=list)


def record_links(monkeypatch: pytest.MonkeyPatch) -> LinkLog:
    log = LinkLog()

    def ask(cls: object, parent: QWidget | None, target: str) -> bool:
        log.asked.append(target)
        return log.answer

    def refuse(cls: object, parent: QWidget | None, target: str) -> None:
        log.refused.append(target)

    def open_url(url: QUrl) -> bool:
        log.opened.append(url)
        return True

    monkeypatch.setattr(OpenLinkDialog, "ask", classmethod(ask))
    monkeypatch.setattr(OpenLinkDialog, "refuse", classmethod(refuse))
    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    return log
