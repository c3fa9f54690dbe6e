"""One recorded session: a timeline (forward > stage > turn > model call) beside detail
tabs, with Replay, Rerun, Compare, What-if and Export. Slow actions are requested through
signals; the controller runs them on the task runner and hands results back."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QSplitter,
    QTableView,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.session.analytics import session_totals
from axmem_gui.core.session.app_session import (
    app_language,
    is_app_session,
    not_here,
    runtime_label,
    warnings_read,
)
from axmem_gui.core.session.model import Session
from axmem_gui.core.session.replay_check import ReplayReport
from axmem_gui.core.session.whatif import WhatIfReport, render_whatif
from axmem_gui.ui.elided import elided
from axmem_gui.ui.inert_text import inert, plain_label
from axmem_gui.ui.sessions.details import SessionDetails
from axmem_gui.ui.sessions.exact_text import ADDED, REMOVED, ExactTextView
from axmem_gui.ui.sessions.texts import error_text
from axmem_gui.ui.sessions.timeline_model import MS, STEP, TOKENS, TimelineModel
from axmem_gui.ui.sessions.whatif_model import WhatIfModel

#: What the banner shows of a session's warnings.
BANNER_WARNINGS, BANNER_WARNING_CHARS = 10, 500


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def set_banner(label: QLabel, text: str, level: str) -> None:
    """Show a one-line state above the view; `level` (ok, info, warn, error) picks the
    style in sessions.qss."""
    label.setText(text)
    label.setProperty("level", level)
    label.style().unpolish(label)
    label.style().polish(label)
    label.setVisible(bool(text))


def diff_line_colors(text: str) -> list[tuple[int, Any]]:
    out = []
    for i, line in enumerate(text.split("\n")):
        if line.startswith("+") and not line.startswith("+++"):
            out.append((i, ADDED))
        elif line.startswith("-") and not line.startswith("---"):
            out.append((i, REMOVED))
    return out


class WhatIfPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = plain_label()
        self.summary.setObjectName("panelCaption")
        self.summary.setWordWrap(True)
        self.model = WhatIfModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        for column, width in enumerate((200, 230, 180, 180, 140)):
            self.table.setColumnWidth(column, width)
        self.text = ExactTextView("Report")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.text)
        split.setSizes([260, 160])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)

    def set_report(self, report: WhatIfReport) -> None:
        self.model.set_report(report)
        differing = sum(1 for c in report.calls if not c.same)
        if not report.calls:
            summary = "The session made no discover or recall calls: nothing to recompute."
        elif report.changed:
            summary = (
                f"With the current catalog, {differing} of {len(report.calls)} discover/recall "
                "calls would load something different (the model's own search strings are "
                "kept as recorded)."
            )
        else:
            summary = (
                f"All {len(report.calls)} discover/recall calls would load the same entries "
                "with the current catalog."
            )
        self.summary.setText(summary)
        self.text.set_text(render_whatif(report))


class SessionViewer(QWidget):
    replay_requested = Signal()
    rerun_requested = Signal()
    compare_requested = Signal()
    whatif_requested = Signal()
    export_requested = Signal()
    trust_requested = Signal()
    whitespace_changed = Signal(bool)

    def __init__(self, session: Session, saved: bool = True) -> None:
        super().__init__()
        self.session = session
        self.saved = saved
        #: Why the session is in quarantine ("" when it is not): it runs no code then.
        self.quarantine = ""
        self._busy = False
        self._replay_refused: str | None = None
        self._rerun_refused: str | None = None
        self.toolbar = QToolBar()
        self.toolbar.setObjectName("sessionToolbar")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.replay_action = self._action("Replay", self.replay_requested, "Replay offline")
        self.rerun_action = self._action("Rerun…", self.rerun_requested, "Run the inputs again")
        self.compare_action = self._action(
            "Compare with…", self.compare_requested, "Side by side with another session"
        )
        self.whatif_action = self._action(
            "What-if", self.whatif_requested, "Recompute discover/recall on today's catalog"
        )
        self.export_action = self._action(
            "Export…", self.export_requested, "Save as a .axsession.json file"
        )
        self.trust_action = self._action(
            "Trust…", self.trust_requested, "Let this session's code run: Replay and Rerun"
        )
        self.trust_action.setVisible(False)
        self.title = elided("", "sessionTitle")
        self.meta = elided("", "sessionMeta")
        self.banner = plain_label()
        self.banner.setObjectName("sessionBanner")
        self.banner.setWordWrap(True)
        # A word longer than the window (a stranger's warning of 500 "W"s) cannot wrap: it
        # is cut at the edge instead of widening the window to fit it.
        self.banner.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.model = TimelineModel(self)
        self.tree = QTreeView()
        self.tree.setObjectName("timelineTree")
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(STEP, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TOKENS, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(MS, QHeaderView.ResizeMode.Interactive)
        self.tree.setColumnWidth(TOKENS, 64)
        self.tree.setColumnWidth(MS, 52)
        self.details = SessionDetails()
        self.details.whitespace_changed.connect(self.whitespace_changed)
        # Parented now (shown as tabs only later): Qt, not Python's GC, owns them.
        self.replay_view = ExactTextView("Replay report (first divergence as a unified diff)", self)
        self.replay_view.whitespace_toggled.connect(self.whitespace_changed)
        self.whatif_panel = WhatIfPanel(self)
        self.replay_view.hide()
        self.whatif_panel.hide()

        self.tree.setMinimumWidth(220)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(self.tree)
        split.addWidget(self.details)
        split.setStretchFactor(1, 1)
        split.setSizes([340, 820])  # the detail tabs side by side at 1350 pixels
        self.split = split
        head = QVBoxLayout()
        head.setSpacing(0)
        head.addWidget(self.title)
        head.addWidget(self.meta)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(3)
        layout.addWidget(self.toolbar)
        layout.addLayout(head)
        layout.addWidget(self.banner)
        layout.addWidget(split, 1)

        self.tree.selectionModel().currentChanged.connect(self._on_current)
        self.set_session(session, saved)

    def _action(self, text: str, signal: Any, tip: str) -> QAction:
        action = QAction(text, self)
        action.setToolTip(tip)
        action.triggered.connect(lambda _c=False: signal.emit())
        self.toolbar.addAction(action)
        return action

    # content ------------------------------------------------------------------------
    @property
    def session_id(self) -> str:
        return self.session.id

    def set_session(self, session: Session, saved: bool = True) -> None:
        self.session = session
        self.saved = saved
        # An app's session: its agent's code is not here to run again.
        self._rerun_refused = not_here(session, "rerun") if is_app_session(session) else None
        self._update_run_actions()
        self.rerun_action.setToolTip(inert(self._rerun_refused or "Run the inputs again"))
        self.model.set_session(session)
        self.details.set_session(session)
        self.tree.expandAll()
        self.title.setText(session.label)
        self.meta.setText(self._meta_text())
        self._status_banner()
        first = self.model.index_of_call(0)
        if first.isValid():
            self.tree.setCurrentIndex(first)
        else:
            self.details.show_item(None)

    def _meta_text(self) -> str:
        session = self.session
        provider = session.provider
        totals = session_totals(session)
        created = session.created_at.replace("T", " ")[:19]
        return (
            f"{session.id}  ·  agent {session.agent.name or '?'}  ·  "
            f"{provider.name or '?'} / {provider.model or '?'}  ·  {created}  ·  "
            f"{totals.calls} calls  ·  {totals.prompt_tokens:,} + {totals.completion_tokens:,} "
            f"tokens  ·  {totals.model_ms / 1000:,.1f} s model time  ·  "
            f"{runtime_label(session)}"
        )

    def _status_banner(self) -> None:
        text, level = "", "info"
        if self.quarantine:
            text = (
                f"In quarantine: {self.quarantine} when it was imported. Its code is not "
                "run until you trust it (Trust…)."
            )
            level = "warn"
        if self.session.complete:
            if is_app_session(self.session):
                text = (text + "\n" if text else "") + (
                    f"Recorded by your app ({app_language(self.session)}, "
                    f"{runtime_label(self.session)}): shown, verified, compared and what-if'd "
                    "here; the studio cannot replay or rerun it (your agent's code is not "
                    "here): replay it in your own tests (docs/recorders.md)."
                )
        else:
            message = _clip(error_text(self.session.error), BANNER_WARNING_CHARS * 2)
            message = message or "the run ended early"
            text = (text + "\n" if text else "") + (
                f"Incomplete session: {message}. The calls made before that are kept."
            )
            level = "warn"
        warnings = warnings_read(self.session)
        if warnings:
            # e.g. a context-map update that failed: axllm swallows it, the run "succeeds".
            # A stranger's file may hold thousands, or megabytes in one: a few lines each.
            shown = [_clip(w, BANNER_WARNING_CHARS) for w in warnings[:BANNER_WARNINGS]]
            if len(warnings) > BANNER_WARNINGS:
                shown.append(f"… {len(warnings) - BANNER_WARNINGS:,} more")
            text = (text + "\n" if text else "") + "\n".join(f"Warning: {w}" for w in shown)
            level = "warn"
        if not self.saved:
            text = (text + "\n" if text else "") + (
                "Not saved in the workspace (it is read-only): use Export… to keep it."
            )
            level = "warn"
        set_banner(self.banner, text, level)

    def set_replay_allowed(self, reason: str | None) -> None:
        self._replay_refused = reason
        self.replay_action.setToolTip(
            inert(reason or "Replay offline with the recorded replies")
        )
        self._update_run_actions()

    def set_quarantine(self, why: str) -> None:
        """A session imported from a file that does not hold what it claims runs no code:
        Replay and Rerun wait until the user trusts it."""
        self.quarantine = why
        self.trust_action.setVisible(bool(why))
        self._update_run_actions()
        self._status_banner()

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_run_actions()

    def _update_run_actions(self) -> None:
        free = not self._busy and not self.quarantine
        self.replay_action.setEnabled(free and self._replay_refused is None)
        self.rerun_action.setEnabled(free and self._rerun_refused is None)

    def set_show_whitespace(self, show: bool) -> None:
        self.details.set_show_whitespace(show)
        self.replay_view.blockSignals(True)
        self.replay_view.set_show_whitespace(show)
        self.replay_view.blockSignals(False)

    # results ------------------------------------------------------------------------
    def _show_tab(self, widget: QWidget, title: str) -> None:
        tabs = self.details.tabs
        if tabs.indexOf(widget) < 0:
            tabs.addTab(widget, title)
        tabs.setCurrentWidget(widget)

    def show_replay(self, report: ReplayReport) -> None:
        text = report.render()
        self.replay_view.set_text(text)
        self.replay_view.highlight_lines(diff_line_colors(text))
        self._show_tab(self.replay_view, "Replay")
        if report.identical:
            set_banner(
                self.banner,
                f"Replay identical: {report.calls_replayed} of {report.calls_recorded} model "
                "calls with the same prompts; outputs, context maps and callbacks match.",
                "ok",
            )
            return
        first = report.differences[0]
        set_banner(self.banner, f"Replay differs: {first.message} (at {first.where})", "error")
        if report.divergence is not None and report.divergence.kind in (
            "prompt",
            "stored_request",
            "digest",
        ):
            target = self.model.index_of_call(report.divergence.index)
            if target.isValid():
                self.tree.scrollTo(target)

    def show_replay_error(self, message: str) -> None:
        set_banner(self.banner, f"Cannot replay: {message}", "error")

    def show_whatif(self, report: WhatIfReport) -> None:
        self.whatif_panel.set_report(report)
        self._show_tab(self.whatif_panel, "What-if")

    def show_message(self, text: str, level: str = "info") -> None:
        set_banner(self.banner, text, level)

    # selection ----------------------------------------------------------------------
    def select_call(self, call_index: int) -> bool:
        target = self.model.index_of_call(call_index)
        if target.isValid():
            self.tree.setCurrentIndex(target)
        return target.isValid()

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.details.show_item(self.model.item(current))
