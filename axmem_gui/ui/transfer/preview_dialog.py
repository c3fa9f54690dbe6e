"""The import preview: what an import would add, update, keep or skip, every problem with
its file, entry and field, and the conflict policy (for all conflicts, or one by one)."""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QPoint, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QMenu,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.catalog import EntryKind
from axmem_gui.core.formats import ImportPlan, Policy
from axmem_gui.core.formats.plan import POLICIES
from axmem_gui.ui.inert_text import inert, plain_label
from axmem_gui.ui.lint.severity import plural
from axmem_gui.ui.resources import style_sheet, with_base
from axmem_gui.ui.transfer.jobs import ImportPreview, Overrides
from axmem_gui.ui.transfer.plan_model import (
    POLICY_LABELS,
    SHOW_FILTERS,
    ImportPlanModel,
    PlanColumn,
    PlanFilterModel,
    PlanRole,
)

_Index = QModelIndex | QPersistentModelIndex

GLOBAL_POLICY_LABELS: dict[Policy, str] = {
    "skip": "Skip: keep the workspace's entry",
    "overwrite": "Overwrite: take the file's entry",
    "keep-both": "Keep both: import under a new id",
}
BLOCKED_TEXT = (
    "Nothing is imported while a file has errors: fix the problems listed below "
    "(each names its file, entry and field) and import again."
)
NOTHING_TEXT = "Nothing to import: every entry is unchanged or skipped."
COLUMN_SAMPLE_ROWS = 1000
COLUMN_LIMITS: dict[PlanColumn, tuple[int, int]] = {
    PlanColumn.Result: (80, 110),
    PlanColumn.Kind: (60, 80),
    PlanColumn.Policy: (90, 110),
    PlanColumn.Field: (60, 120),
}


def summary_text(plan: ImportPlan) -> str:
    s = plan.summary()
    parts = [
        f"{s['add']:,} to add",
        f"{s['update']:,} to update",
        f"{s['keep-both']:,} kept both" if s["keep-both"] else "",
        f"{s['unchanged']:,} unchanged",
        f"{s['skip']:,} skipped" if s["skip"] else "",
        plural(s["conflicts"], "conflict"),
        plural(s["errors"], "error"),
        plural(s["warnings"], "warning") if s["warnings"] else "",
    ]
    return " · ".join(p for p in parts if p)


def entries_text(count: int) -> str:
    return plural(count, "entry", "entries")


class PolicyDelegate(QStyledItemDelegate):
    """A combo box in the "On conflict" cell of a conflicting entry."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: _Index) -> QWidget:
        combo = QComboBox(parent)
        for policy in POLICIES:
            combo.addItem(POLICY_LABELS[policy], policy)
        return combo

    def setEditorData(self, editor: QWidget, index: _Index) -> None:
        if isinstance(editor, QComboBox):
            found = editor.findData(index.data(PlanRole.Policy))
            editor.setCurrentIndex(max(found, 0))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel, index: _Index) -> None:
        if isinstance(editor, QComboBox):
            model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)


class ImportPreviewDialog(QDialog):
    def __init__(
        self, preview: ImportPreview, policy: Policy = "skip", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("importPreview")
        self.setWindowTitle("Import preview")
        self.setStyleSheet(style_sheet("transfer"))
        with_base(self)  # its section title (the application's sheet had these rules)
        self.preview = preview
        self.policy: Policy = policy
        self.overrides: Overrides = {}
        self.plan = preview.plan(policy)
        self.model = ImportPlanModel(self.plan)
        self.model.override_requested.connect(self._on_override)
        self.proxy = PlanFilterModel()
        self.proxy.setSourceModel(self.model)
        self._build()
        self._refresh()
        self.resize(1100, 620)

    @classmethod
    def ask(
        cls, parent: QWidget | None, preview: ImportPreview, policy: Policy = "skip"
    ) -> ImportPlan | None:
        """The plan to apply, or None when the user cancelled."""
        dialog = cls(preview, policy, parent)
        try:
            if dialog.exec() == QDialog.DialogCode.Accepted:
                return dialog.plan
            return None
        finally:
            dialog.deleteLater()

    # construction -------------------------------------------------------------------
    def _build(self) -> None:
        sources = self.preview.paths
        title = plain_label(
            f"Import from {sources[0]}"
            if len(sources) == 1
            else f"Import from {len(sources):,} files and folders"
        )
        title.setObjectName("sectionTitle")
        title.setToolTip(inert("\n".join(sources)))
        self.summary_label = plain_label()
        self.summary_label.setObjectName("importSummary")
        self.blocked_label = plain_label(BLOCKED_TEXT)
        self.blocked_label.setObjectName("importBlocked")
        self.blocked_label.setWordWrap(True)

        self.policy_combo = QComboBox()
        self.policy_combo.setObjectName("policyCombo")
        for policy in POLICIES:
            self.policy_combo.addItem(GLOBAL_POLICY_LABELS[policy], policy)
        self.policy_combo.setCurrentIndex(POLICIES.index(self.policy))
        self.policy_combo.setToolTip(
            "What happens to an entry whose id is already in the workspace with other "
            "content. Choices made for single entries stay."
        )
        self.policy_combo.currentIndexChanged.connect(self._on_policy_combo)
        self.show_combo = QComboBox()
        self.show_combo.setObjectName("showCombo")
        self.show_combo.addItems(list(SHOW_FILTERS))
        self.show_combo.currentTextChanged.connect(self.proxy.set_show)
        controls = QHBoxLayout()
        controls.addWidget(plain_label("When an id already exists:"))
        controls.addWidget(self.policy_combo)
        controls.addStretch(1)
        controls.addWidget(plain_label("Show:"))
        controls.addWidget(self.show_combo)

        self.table = QTableView()
        self.table.setObjectName("planTable")
        self.table.setModel(self.proxy)
        self.table.setItemDelegateForColumn(PlanColumn.Policy, PolicyDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.SelectedClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(22)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self._fitted = False
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        hint = plain_label(
            "Double-click a conflict's “On conflict” cell (or right-click selected rows) to "
            "decide those entries alone."
        )
        hint.setObjectName("importHint")

        self.reason_label = plain_label()
        self.reason_label.setObjectName("importReason")
        self.import_button = QPushButton("Import")
        self.import_button.setObjectName("importButton")
        self.import_button.setDefault(True)
        self.import_button.clicked.connect(self.accept)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addWidget(self.reason_label, 1)
        buttons.addWidget(self.import_button)
        buttons.addWidget(cancel)

        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.blocked_label)
        layout.addLayout(controls)
        layout.addWidget(self.table, 1)
        layout.addWidget(hint)
        layout.addLayout(buttons)

    def showEvent(self, event: QShowEvent) -> None:
        # Measured once shown, when the style sheet's fonts apply.
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            self._fit_columns()

    def _fit_columns(self) -> None:
        """Columns as wide as their text (Qt samples at most 1,000 rows), within limits."""
        header = self.table.horizontalHeader()
        header.setResizeContentsPrecision(COLUMN_SAMPLE_ROWS)
        for column in PlanColumn:
            if column == PlanColumn.Details:
                continue
            self.table.resizeColumnToContents(column)
            low, high = COLUMN_LIMITS.get(column, (60, 320))
            self.table.setColumnWidth(column, min(max(self.table.columnWidth(column), low), high))

    # behaviour ----------------------------------------------------------------------
    def _on_policy_combo(self, _index: int) -> None:
        self.set_policy(self.policy_combo.currentData())

    def set_policy(self, policy: Policy) -> None:
        self.policy = policy
        if self.policy_combo.currentData() != policy:
            self.policy_combo.setCurrentIndex(POLICIES.index(policy))
        self._replan()

    def set_entry_policy(self, kind: EntryKind, entry_id: str, policy: Policy | None) -> None:
        """Decide one conflicting entry alone (None: back to the global policy)."""
        if policy is None:
            self.overrides.pop((kind, entry_id), None)
        else:
            self.overrides[kind, entry_id] = policy
        self._replan()

    def _on_override(self, kind: str, entry_id: str, policy: str) -> None:
        self.set_entry_policy(
            kind,  # type: ignore[arg-type]
            entry_id,
            policy or None,  # type: ignore[arg-type]
        )

    def _replan(self) -> None:
        self.plan = self.preview.plan(self.policy, dict(self.overrides))
        self.model.set_plan(self.plan, set(self.overrides))
        self._refresh()

    def _refresh(self) -> None:
        plan = self.plan
        self.summary_label.setText(summary_text(plan))
        self.blocked_label.setVisible(not plan.ok)
        writes = len(plan.writes)
        self.import_button.setText(f"Import {entries_text(writes)}")
        if not plan.ok:
            reason = "Nothing is imported while a file has errors."
        elif writes == 0:
            reason = NOTHING_TEXT
        else:
            reason = ""
        self.reason_label.setText(reason)
        self.import_button.setEnabled(not reason)
        self.import_button.setToolTip(
            inert(reason or "Write these entries in one step (Ctrl+Z undoes)")
        )

    def _selected_conflicts(self) -> list[tuple[EntryKind, str]]:
        rows = [self.proxy.mapToSource(i).row() for i in self.table.selectionModel().selectedRows()]
        return self.model.conflict_keys(sorted(rows))

    def _context_menu(self, pos: QPoint) -> None:
        keys = self._selected_conflicts()
        if not keys:
            return
        menu = QMenu(self)
        title = menu.addAction(f"{plural(len(keys), 'conflict')} selected")
        title.setEnabled(False)
        for policy in POLICIES:
            action = menu.addAction(POLICY_LABELS[policy].capitalize())
            action.triggered.connect(lambda _c=False, p=policy: self.set_policies(keys, p))
        back = menu.addAction("Use the global policy")
        back.triggered.connect(lambda _c=False: self.set_policies(keys, None))
        menu.exec(self.table.viewport().mapToGlobal(pos))

    def set_policies(self, keys: list[tuple[EntryKind, str]], policy: Policy | None) -> None:
        for key in keys:
            if policy is None:
                self.overrides.pop(key, None)
            else:
                self.overrides[key] = policy
        self._replan()
