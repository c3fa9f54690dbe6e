"""The Help menu and first start: a welcome (what the sample shows, three things to try;
dismissed once, remembered), Keyboard Shortcuts, Documentation (the README, rendered), and
View > Theme (System, Light, Dark; remembered)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QObject, Qt, QUrl
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QGuiApplication,
    QImage,
    QPalette,
    QStandardItem,
    QStandardItemModel,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QMenuBar,
    QPushButton,
    QScrollArea,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.ui.actions import make_action
from axmem_gui.ui.feature import (
    ActionRegistry,
    Contributions,
    DockSpec,
    FeatureContext,
    FeatureSpec,
    MenuPlace,
)
from axmem_gui.ui.settings import AppSettings
from axmem_gui.ui.theme import apply_theme

THEMES = (("system", "&System"), ("light", "&Light"), ("dark", "&Dark"))
#: Keys that belong to a widget rather than to a menu action.
WIDGET_KEYS = (
    ("Ctrl+F", "Filter the skills or memories list", "Catalog pages"),
    ("Ctrl+Enter", "Run the bench (in the bench) or the suites (elsewhere)", "Retrieval"),
    ("Ctrl+C", "Copy the shown section of the prompt preview", "Prompt preview"),
    ("F2", "Rename (entry id, scenario, suite) or edit the selected case or map item", "Pages"),
    ("Delete", "Delete the selection; Ctrl+Z brings it back", "Pages"),
    ("Ctrl+D", "Diff toggle in the context map view", "Context maps"),
    ("Alt+Up / Alt+Down", "Move the selected case up or down (in the case list)", "Evals"),
)


# --------------------------------------------------------------------------- theme
class ThemeSwitcher(QObject):
    """View > Theme: applies the choice at once and remembers it; with System, follows the
    system's light/dark switch (a QObject child of the window: disconnected with it)."""

    def __init__(self, app: QApplication, settings: AppSettings, parent: QObject) -> None:
        super().__init__(parent)
        self.app = app
        self.settings = settings
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_changed)

    def current(self) -> str:
        return self.settings.theme()

    def set_theme(self, preference: str) -> str:
        self.settings.set_theme(preference)
        self.settings.sync()
        return apply_theme(self.app, preference)

    def _system_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self.settings.theme() == "system":
            apply_theme(self.app, "system")


# --------------------------------------------------------------------------- welcome
class WelcomeText(NamedTuple):
    """The welcome: one line of what this is, then three things to try side by side."""

    intro: str
    tips: tuple[str, str, str]


def welcome_text(skills: int, memories: int, sample: bool) -> WelcomeText:
    if sample:
        what = f"The sample workspace: {skills:,} skills, {memories:,} memories."
    else:
        what = f"This workspace: {skills:,} skills, {memories:,} memories."
    intro = (
        "<b>Welcome to Ax Memory &amp; Skills Studio</b> — see exactly what Ax shows the "
        f"model, and what a search would find. {what} Three things to try:"
    )
    tips = (
        "<b>1.</b> Pick a skill, edit its description: the <b>Prompt preview</b> shows byte "
        "for byte what Ax shows the model.",
        "<b>2.</b> In the <b>Retrieval bench</b> type <i>how do I ship a release</i>, "
        "Ctrl+Enter; <b>Add as case…</b> keeps it in a suite.",
        "<b>3.</b> Open <b>Sessions</b>: open a recorded run and press <b>Replay</b>, or select "
        "both and <b>Compare</b>.",
    )
    return WelcomeText(intro, tips)


def _rich_label(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    return label


class WelcomePanel(QWidget):
    """Shown in a dock at the top on first start; Got it dismisses it for good. The tips
    sit side by side, so on a 1366×768 laptop the whole welcome is three lines."""

    def __init__(self, text: WelcomeText, on_dismiss: Callable[[], None]) -> None:
        super().__init__()
        self.setObjectName("welcomePanel")
        self.label = _rich_label("welcomeText")
        self.tips = [_rich_label(f"welcomeTip{n}") for n in (1, 2, 3)]
        self.dismiss_button = QPushButton("Got it")
        self.dismiss_button.setObjectName("welcomeDismiss")
        self.dismiss_button.setToolTip("Hide this for good (Help > Welcome shows it again)")
        self.dismiss_button.clicked.connect(lambda _c=False: on_dismiss())
        side = QVBoxLayout()
        side.addWidget(self.dismiss_button)
        side.addStretch(1)
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(self.label)
        row = QHBoxLayout()
        row.setSpacing(18)
        for tip in self.tips:
            row.addWidget(tip, 1)
        column.addLayout(row)
        column.addStretch(1)
        # In a scroll area: on a narrow window the welcome keeps a strip and scrolls,
        # never taking the height the catalog and bench need.
        scroll = QScrollArea()
        scroll.setObjectName("welcomeScroll")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        # three lines: the intro and two lines of tips, as on a 1366×768 laptop
        scroll.setMinimumHeight(self.fontMetrics().lineSpacing() * 3 + column.spacing() + 4)
        # a banner, set apart from the menu bar above it by the theme's alternate colour
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.setAutoFillBackground(True)
        scroll.viewport().setAutoFillBackground(False)
        body.setAutoFillBackground(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(10, 2, 10, 2)
        layout.addWidget(scroll, 1)
        layout.addLayout(side)
        self.set_text(text)

    def set_text(self, text: WelcomeText) -> None:
        self.label.setText(text.intro)
        for label, tip in zip(self.tips, text.tips, strict=True):
            label.setText(tip)


# --------------------------------------------------------------------------- shortcuts
def _keys(action: QAction) -> str:
    return ", ".join(k.toString(k.SequenceFormat.NativeText) for k in action.shortcuts())


def shortcut_rows(menus: Sequence[QMenu]) -> list[tuple[str, str, str]]:
    """(keys, what, where) for every menu action with a shortcut, then widget keys."""
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for menu in menus:
        where = menu.title().replace("&", "")
        for action in menu.actions():
            keys = _keys(action)
            what = action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
            if keys and (keys, what) not in seen:
                seen.add((keys, what))
                rows.append((keys, what.rstrip("…"), where))
    rows.extend(WIDGET_KEYS)
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.model = QStandardItemModel(0, 3, self)
        self.model.setHorizontalHeaderLabels(["Keys", "Does", "Where"])
        for keys, what, where in rows:
            self.model.appendRow([QStandardItem(keys), QStandardItem(what), QStandardItem(where)])
        table = QTableView()
        table.setModel(self.model)
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table = table
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(table, 1)
        layout.addWidget(buttons)
        self.resize(640, 520)

    @classmethod
    def show_for(cls, parent: QWidget, actions: ActionRegistry) -> None:
        del actions  # the menus hold every registered action, and the window's own
        bar = parent.findChild(QMenuBar) if isinstance(parent, QMainWindow) else None
        menus = [] if bar is None else [a.menu() for a in bar.actions() if a.menu() is not None]
        dialog = cls(shortcut_rows([m for m in menus if isinstance(m, QMenu)]), parent)
        try:
            dialog.exec()
        finally:
            dialog.deleteLater()


# --------------------------------------------------------------------------- documentation
#: `![alt](target)` in markdown (the README's screenshots).
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
#: Screenshots are scaled down to this width (the dialog's text column).
DOC_IMAGE_WIDTH = 720


def readme_path() -> Path | None:
    """The README of the source checkout, when there is one."""
    local = Path(__file__).resolve().parents[2] / "README.md"
    return local if local.is_file() else None


def readme_text() -> str:
    """The README: from the source checkout when there is one, else the installed
    package's long description (the same file, copied at install time)."""
    local = readme_path()
    if local is not None:
        return local.read_text(encoding="utf-8")
    from importlib import metadata  # (email parsing: not before the first paint)

    try:
        return str(metadata.metadata("axmem-gui")["Description"] or "")
    except metadata.PackageNotFoundError:
        return ""


#: The private address of the README's picture N in the documentation's document: Qt
#: never resolves a picture's path itself (relative to its working directory, it found
#: the checkout's screenshots and showed them unscaled).
DOC_IMAGE_SCHEME = "axmem-doc"


def _doc_images(text: str, folder: Path | None) -> tuple[str, list[QImage]]:
    """The README with each picture that is a file under `folder` at a private address
    (`axmem-doc:N`, N its index in the list, scaled to the text's width), and the others
    (an installed package has no screenshots; a web address) named in their place."""
    base = folder.resolve() if folder is not None else None
    images: list[QImage] = []

    def image(match: re.Match[str]) -> str:
        alt, target = match.group(1), match.group(2)
        loaded = None
        if base is not None and "://" not in target:
            path = (base / target).resolve()
            loaded = QImage(str(path)) if path.is_relative_to(base) else None
        if loaded is None or loaded.isNull():
            return f"*[{alt or 'picture'}]*"
        if loaded.width() > DOC_IMAGE_WIDTH:
            loaded = loaded.scaledToWidth(
                DOC_IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation
            )
        images.append(loaded)
        return f"![{alt}]({DOC_IMAGE_SCHEME}:{len(images) - 1})"

    return _IMAGE.sub(image, text), images


class DocumentationDialog(QDialog):
    """The README, rendered with its screenshots (links open in the browser)."""

    def __init__(
        self, text: str, parent: QWidget | None = None, folder: Path | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Documentation — README")
        self.browser = QTextBrowser()
        self.browser.setObjectName("documentation")
        self.browser.setOpenExternalLinks(True)
        shown, images = _doc_images(text, folder)
        self.browser.setMarkdown(shown or "The README is not part of this installation.")
        document = self.browser.document()
        for n, picture in enumerate(images):  # after setMarkdown, which clears resources
            url = QUrl(f"{DOC_IMAGE_SCHEME}:{n}")
            document.addResource(QTextDocument.ResourceType.ImageResource, url, picture)
        document.markContentsDirty(0, document.characterCount())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        self.resize(820, 640)

    @classmethod
    def show_for(cls, parent: QWidget | None) -> None:
        path = readme_path()
        dialog = cls(readme_text(), parent, path.parent if path is not None else None)
        try:
            dialog.exec()
        finally:
            dialog.deleteLater()


# --------------------------------------------------------------------------- feature
WELCOME_DOCK = "welcomeDock"
VIEW_THEME = MenuPlace("view", "theme")
HELP_PLACE = MenuPlace("help", "help")


class HelpFeature:
    """View > Theme, the welcome dock and the Help menu's entries."""

    def __init__(self, context: FeatureContext) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        self.controller = context.controller
        self.settings = context.settings
        self.shell = context.shell
        self.themes = ThemeSwitcher(app, context.settings, context.shell)
        group = QActionGroup(context.shell)
        self.theme_actions: dict[str, QAction] = {}
        for key, title in THEMES:
            action = QAction(f"{title} Theme", context.shell)
            action.setCheckable(True)
            action.setChecked(self.themes.current() == key)
            action.setToolTip(f"{title.replace('&', '')} colours (remembered)")
            action.triggered.connect(lambda _c=False, k=key: self.set_theme(k))
            group.addAction(action)
            context.actions.add(f"help.theme.{key}", action, VIEW_THEME)
            self.theme_actions[key] = action
        self.welcome = WelcomePanel(self._welcome_text(), self.dismiss_welcome)
        # another workspace: its own counts (and not "the sample" unless it is)
        self.controller.opened.connect(lambda: self.welcome.set_text(self._welcome_text()))
        parent = context.shell.dialog_parent
        for action_id, action in (
            (
                "help.welcome",
                make_action(parent, "&Welcome", self.show_welcome, tip="What to try first"),
            ),
            (
                "help.shortcuts",
                make_action(
                    parent,
                    "&Keyboard Shortcuts",
                    lambda: ShortcutsDialog.show_for(parent, context.actions),
                    "Ctrl+/",
                    "Every shortcut, where it works",
                ),
            ),
            (
                "help.documentation",
                make_action(
                    parent,
                    "&Documentation",
                    lambda: DocumentationDialog.show_for(parent),
                    "F1",
                    "The README: install, where things live, the CLI",
                ),
            ),
        ):
            context.actions.add(action_id, action, HELP_PLACE)

    def _welcome_text(self) -> WelcomeText:
        counts = self.controller.counts()
        catalog = self.controller.workspace.catalog
        sample = catalog.revision_of("skills", "release-checklist") is not None
        return welcome_text(counts.skills, counts.memories, sample)

    def contributions(self) -> Contributions:
        dock = DockSpec(
            WELCOME_DOCK,
            "Welcome",
            self.welcome,
            Qt.DockWidgetArea.TopDockWidgetArea,
            shown=not self.settings.welcome_dismissed(),
            banner=True,  # "Got it" closes it; its three lines need the title's height
            # its three lines and no more: the pages below keep the height
            first_size=self.welcome.minimumSizeHint().height(),
        )
        return Contributions(docks=[dock])

    def show_welcome(self) -> None:
        self.welcome.set_text(self._welcome_text())
        self.shell.show_dock(WELCOME_DOCK)

    def dismiss_welcome(self) -> None:
        self.settings.set_welcome_dismissed(True)
        self.settings.sync()
        self.shell.hide_dock(WELCOME_DOCK)

    def set_theme(self, preference: str) -> None:
        self.themes.set_theme(preference)
        self.theme_actions[preference].setChecked(True)

    def shutdown(self) -> None:
        """Nothing runs in the background."""


HELP = FeatureSpec("help", HelpFeature)
