"""Help > About: what this is and exactly which versions are in play."""

from __future__ import annotations

import platform

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from axmem_gui import __version__
from axmem_gui.core.ax.icutext import text_engine
from axmem_gui.core.ax.profile import load_profile

AX_PROFILE_VERSION = "24.0.21"


def _dist_version(name: str) -> str:
    from importlib import metadata  # only when the dialog opens (a slow import)

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _reference_text() -> str:
    ref = load_profile(AX_PROFILE_VERSION).reference_text
    icu, unicode = ref["referenceIcu"], ref["referenceUnicode"]
    return f"{ref['referenceRuntime']}, ICU {icu} (Unicode {unicode})"


def version_rows() -> list[tuple[str, str]]:
    return [
        ("Ax Memory & Skills Studio", __version__),
        ("Ax profile (rendering and search)", f"@ax-llm/ax {AX_PROFILE_VERSION}"),
        ("Unicode text (collation, case, NFKD)", text_engine().describe()),
        ("Ax reference runtime", _reference_text()),
        ("axllm (live runs)", _dist_version("axllm")),
        ("quickjs", _dist_version("quickjs")),
        ("Qt", qVersion()),
        ("PySide6", pyside_version),
        ("Python", platform.python_version()),
    ]


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Ax Memory & Skills Studio")
        rows = "".join(f"<tr><td>{k}</td><td><b>{v}</b></td></tr>" for k, v in version_rows())
        label = QLabel(
            "<h3>Ax Memory &amp; Skills Studio</h3>"
            "<p>Author, preview, test and replay Ax agent skill and memory catalogs.</p>"
            f"<table cellspacing='6'>{rows}</table>"
            "<p>Rendering and search follow @ax-llm/ax (Apache-2.0).</p>"
        )
        label.setTextFormat(label.textFormat().RichText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(label)
        layout.addWidget(buttons)
