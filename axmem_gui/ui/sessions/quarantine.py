"""Sessions in quarantine: imported from a file that does not hold what it claims (its
`verify` failed), they run no code (no Replay, no Rerun) until the user trusts them.
The mark lives in the workspace (services.session_store, `SessionService.trust`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from axmem_gui.core.errors import AxmemError

if TYPE_CHECKING:
    from axmem_gui.ui.sessions.job_kinds import JobHost
    from axmem_gui.ui.sessions.viewer import SessionViewer


class TrustSessionDialog:
    """Asks whether to let a quarantined session's code run."""

    @classmethod
    def ask(cls, parent: QWidget | None, label: str, why: str) -> bool:
        box = QMessageBox(parent)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Trust this session?")
        box.setTextFormat(Qt.TextFormat.PlainText)  # a stranger's name: plain text
        box.setText(f"Let the code of “{label}” run?")
        box.setInformativeText(
            f"{why[:1].upper()}{why[1:]}: what it recorded cannot be checked, and the code "
            "its model wrote may be hostile. Replay and Rerun run that code (in a child "
            "process, within its limits)."
        )
        trust = box.addButton("Trust and Allow Replay", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is trust


def show_quarantine(host: JobHost, viewer: SessionViewer) -> None:
    """Mark `viewer` as its session's quarantine says (a stored one only)."""
    if viewer.saved:
        try:
            viewer.set_quarantine(host.sessions().quarantined(viewer.session_id))
        except AxmemError:  # a workspace that cannot say: nothing runs
            viewer.set_quarantine("its quarantine mark cannot be read")


def refused(viewer: SessionViewer, what: str) -> bool:
    """True (and the viewer says so) when the session is in quarantine."""
    if not viewer.quarantine:
        return False
    viewer.show_replay_error(f"{what} waits until you trust this session (Trust…)")
    return True


def trust(host: JobHost, viewer: SessionViewer) -> bool:
    """Ask, then take the session out of quarantine."""
    why = viewer.quarantine
    if not why or not TrustSessionDialog.ask(host.shell.dialog_parent, viewer.session.label, why):
        return False
    try:
        host.sessions().trust(viewer.session_id)
    except AxmemError as exc:
        host.error("Cannot trust the session", str(exc))
        return False
    viewer.set_quarantine("")
    host.update_actions()
    return True
