"""Help > About names the Unicode engine in use and the reference Ax runtime's ICU."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from axmem_gui.core.ax.icutext import text_engine
from axmem_gui.ui.about import AboutDialog, version_rows


def test_about_shows_icu_and_unicode_versions(qtbot: QtBot) -> None:
    rows = dict(version_rows())
    engine = text_engine()
    assert rows["Unicode text (collation, case, NFKD)"] == (
        f"ICU {engine.icu_version} (Unicode {engine.unicode_version})"
    )
    assert rows["Ax reference runtime"] == "Node 20.20.2, ICU 78.2 (Unicode 17.0)"
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    labels = [w.text() for w in dialog.findChildren(QLabel)]
    assert any(f"ICU {engine.icu_version}" in t and "ICU 78.2" in t for t in labels)
