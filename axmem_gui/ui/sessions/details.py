"""Detail tabs for the selected timeline node: prompts, reply, code, runtime output,
loaded/used entries, an app's function-tool calls, the context map before/after, and
per-call numbers."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.session.app_session import is_host_search, map_update_of
from axmem_gui.core.session.model import Exchange, Forward, SearchCall, Session
from axmem_gui.core.session.payloads import map_text
from axmem_gui.core.session.timeline import is_trouble, outcome_phrase
from axmem_gui.ui.inert_text import plain_label
from axmem_gui.ui.sessions import texts
from axmem_gui.ui.sessions.chips import ChipRow, chip
from axmem_gui.ui.sessions.exact_text import ADDED, CHANGED, REMOVED, ExactTextView, shrinkable
from axmem_gui.ui.sessions.textdiff import ADDED as MARK_ADDED
from axmem_gui.ui.sessions.textdiff import REMOVED as MARK_REMOVED
from axmem_gui.ui.sessions.textdiff import line_marks
from axmem_gui.ui.sessions.timeline_model import NodeKind, TimelineItem

MARK_COLORS = {MARK_REMOVED: REMOVED, MARK_ADDED: ADDED}

TAB_SYSTEM, TAB_USER, TAB_RESPONSE, TAB_CODE, TAB_OUTPUT = range(5)
TAB_LOADED, TAB_FUNCTIONS, TAB_MAP, TAB_DETAILS, TAB_REQUEST = range(5, 10)


class LoadedUsedPanel(QWidget):
    """Loaded entries of the forward as chips (loaded and used vs loaded only), and what
    the selected turn searched for."""

    def __init__(self) -> None:
        super().__init__()
        self.skills = ChipRow()
        self.memories = ChipRow()
        self.legend = ChipRow()
        self.legend.set_chips(
            [
                chip("loaded and used", "used", "Ax reported the entry as used in the answer"),
                chip("loaded only", "loaded", "Loaded into the prompt, never reported as used"),
                chip("used, not loaded", "unloaded", "Reported as used without a load event"),
            ]
        )
        self.searches = ExactTextView("Searches of this turn (discover / recall)")
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        for caption, row in (
            ("Skills loaded in this forward", self.skills),
            ("Memories loaded in this forward", self.memories),
            ("Legend", self.legend),
        ):
            title = plain_label(caption)
            title.setObjectName("panelCaption")
            layout.addWidget(title)
            layout.addWidget(row)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(scroll)
        split.addWidget(self.searches)
        split.setSizes([220, 200])
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(split)

    def show_forward(self, forward: Forward | None, turn_searches: str) -> None:
        for row, noun in ((self.skills, "skills"), (self.memories, "memories")):
            loaded = forward.callback_ids(f"loaded_{noun}") if forward else []
            used = forward.callback_ids(f"used_{noun}") if forward else []
            chips = [chip(i, "used" if i in used else "loaded") for i in loaded]
            chips += [chip(i, "unloaded") for i in used if i not in loaded]
            row.set_chips(chips, f"no {noun} loaded")
        self.searches.set_text(turn_searches, "This turn made no discover or recall call.")

    def kinds(self) -> dict[str, str]:
        return {**self.skills.kinds(), **self.memories.kinds()}


def searches_text(turn_searches: Sequence[SearchCall]) -> str:
    lines = []
    for s in turn_searches:
        queries = ", ".join(texts.pretty(q) for q in s.searches)
        ids = s.result_ids
        host = "   [answered by the app's own search callback]" if is_host_search(s) else ""
        lines.append(f"{s.kind}({queries}){host}")
        if s.already_loaded:
            lines.append(f"  excluded (already loaded): {', '.join(s.already_loaded)}")
        lines.append(f"  → {', '.join(ids) if ids else 'nothing'}")
    return "\n".join(lines) + ("\n" if lines else "")


class SessionDetails(QWidget):
    """The tabs; `show_item` fills them for a timeline node (a call, or the first call of
    a forward, stage or turn)."""

    whitespace_changed = Signal(bool)

    def __init__(self) -> None:
        super().__init__()
        self.session: Session | None = None
        self.header = plain_label("Select a model call in the timeline.")
        self.header.setObjectName("detailHeader")
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        shrinkable(self.header)
        self.system = ExactTextView("System prompt")
        self.user = ExactTextView("User prompt")
        self.response = ExactTextView("Model response")
        self.code = ExactTextView("Actor code (javascriptCode)")
        self.output = ExactTextView("Runtime output")
        self.next_view = ExactTextView("Shown to the model on the next call of this stage")
        self.loaded = LoadedUsedPanel()
        self.functions = ExactTextView("Function tool calls (arguments, result)")
        self.map_before = ExactTextView("Context map before this forward")
        self.map_after = ExactTextView("Context map after")
        self.map_update = ExactTextView("Update (Distiller diagnosis, Cartographer operations)")
        self.details = ExactTextView("Call and forward")
        self.request = ExactTextView("Request: its parameters, then messages, tools, format")
        self.views = [
            self.system,
            self.user,
            self.response,
            self.code,
            self.output,
            self.next_view,
            self.loaded.searches,
            self.functions,
            self.map_before,
            self.map_after,
            self.map_update,
            self.details,
            self.request,
        ]
        for view in self.views:
            view.whitespace_toggled.connect(self._sync_whitespace)

        maps = QSplitter(Qt.Orientation.Horizontal)
        maps.addWidget(self.map_before)
        maps.addWidget(self.map_after)
        map_page = QSplitter(Qt.Orientation.Vertical)
        map_page.addWidget(maps)
        map_page.addWidget(self.map_update)
        map_page.setSizes([360, 160])
        output_page = QSplitter(Qt.Orientation.Vertical)
        output_page.addWidget(self.output)
        output_page.addWidget(self.next_view)
        output_page.setSizes([300, 200])

        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        # Short titles: all ten tabs, and Replay and What-if after them, side by side in
        # a laptop's window (scroll arrows hid four of them); each view's caption and the
        # tab's tooltip say it in full. Arrows only in a narrower window still.
        self.tabs.setUsesScrollButtons(True)
        for widget, title, tip in (
            (self.system, "System", "The system prompt"),
            (self.user, "User", "The user prompt"),
            (self.response, "Response", "The model's response"),
            (self.code, "Code", "The actor's code (javascriptCode)"),
            (output_page, "Output", "The runtime's output, and what the next call shows of it"),
            (self.loaded, "Loaded", "Entries loaded and used, and the turn's searches"),
            (self.functions, "Functions", "Function tool calls: arguments and results"),
            (map_page, "Map", "The context map before and after this forward, and its update"),
            (self.details, "Tokens · ms", "The call's and the forward's numbers"),
            (self.request, "Request", "The request: its parameters, messages, tools, format"),
        ):
            self.tabs.setTabToolTip(self.tabs.addTab(widget, title), tip)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.tabs, 1)

    def set_show_whitespace(self, show: bool) -> None:
        for view in self.views:
            view.blockSignals(True)
            view.set_show_whitespace(show)
            view.blockSignals(False)

    def _sync_whitespace(self, show: bool) -> None:
        self.set_show_whitespace(show)
        self.whitespace_changed.emit(show)

    def set_session(self, session: Session) -> None:
        self.session = session
        self.show_item(None)

    # filling ------------------------------------------------------------------------
    def show_item(self, item: TimelineItem | None) -> None:
        if item is None:
            self.header.setText("Select a model call in the timeline.")
            for view in self.views:
                view.set_text("")
            self.loaded.show_forward(None, "")
            return
        all_exchanges = self.session.exchanges if self.session is not None else ()
        all_forwards = self.session.forwards if self.session is not None else ()
        fw_index = item.forward.index
        forward = all_forwards[fw_index] if 0 <= fw_index < len(all_forwards) else None
        call = item.call or item.first_call()
        exchange = (
            all_exchanges[call.index]
            if call is not None and 0 <= call.index < len(all_exchanges)
            else None
        )
        self.header.setText(self._header(item, exchange))
        self._show_call(exchange, item)
        turn = item.turn
        searches = searches_text(turn.searches) if turn is not None else ""
        if turn is None and item.kind == NodeKind.Forward and forward is not None:
            searches = searches_text(forward.search_calls)
        self.loaded.show_forward(forward, searches)
        self._show_functions(forward, item, exchange)
        self._show_map(forward)
        details = texts.forward_details(forward) if forward is not None else ""
        if exchange is not None:
            details = texts.call_details(exchange) + "\n" + details
        self.details.set_text(details)

    def _header(self, item: TimelineItem, exchange: Exchange | None) -> str:
        where = item.label()
        if exchange is None:
            return f"{where} — no model call"
        prompt, completion = exchange.tokens
        shown = "" if item.call is not None else f" — showing call #{exchange.index}"
        turn = item.turn
        trouble = turn is not None and is_trouble(turn.outcome)
        outcome = outcome_phrase(turn.outcome, turn.retry) if turn is not None and trouble else ""
        return (
            f"{where}{shown}   ·   {exchange.stage}   ·   "
            f"{prompt:,} + {completion:,} tokens   ·   {exchange.ms:,.0f} ms"
            + (f"   ·   {outcome}" if outcome else "")
        )

    def _show_call(self, exchange: Exchange | None, item: TimelineItem) -> None:
        if exchange is None:
            for view in (self.system, self.user, self.response, self.code, self.output):
                view.set_text("", "No model call here.")
            self.next_view.set_text("")
            self.request.set_text("")
            return
        request = exchange.request
        self.system.set_text(texts.system_prompt(request), "No system message.")
        self.user.set_text(texts.user_prompt(request), "No user message.")
        self.response.set_text(texts.response(exchange), "The call returned nothing.")
        turn = item.turn
        code = texts.code_of(exchange, turn.code if turn is not None else None)
        self.code.set_text(code or "", "Only actor turns (distiller, executor) write code.")
        is_actor_call = code is not None and turn is not None
        outcome = turn.outcome if turn is not None else None
        output = ""
        if turn is not None and (code is not None or outcome is not None):
            output = texts.turn_result(outcome, turn.message, turn.output, turn.is_error)
        placeholder = texts.NO_OUTPUT.get(outcome or "ran", "")
        self.output.set_text(
            output,
            placeholder if is_actor_call or outcome else "Only actor turns run code.",
        )
        self.next_view.set_text(
            (turn.next_view or "") if turn is not None else "",
            "The next call of this stage shows nothing new about this one (or there is none).",
        )
        self.request.set_text(texts.request_text(exchange))

    def _show_functions(
        self, forward: Forward | None, item: TimelineItem, exchange: Exchange | None
    ) -> None:
        """The function tools the selected call's code called (a forward: all of its)."""
        recorded = forward.function_calls if forward is not None else None
        calls = list(recorded or ())
        if item.kind != NodeKind.Forward and exchange is not None:
            calls = [c for c in calls if c.call_index == exchange.index]
        if recorded is not None:
            empty = "The code of this call called no function tool."
        else:
            empty = "Only sessions recorded by an app have function tools (docs/recorders.md)."
        self.functions.set_text(texts.function_calls_text(calls), empty)

    def _show_map(self, forward: Forward | None) -> None:
        before_text = map_text(forward.context_map_before) if forward else ""
        after_text = map_text(forward.context_map_after) if forward else ""
        none = "This agent has no context map."
        self.map_before.set_text(before_text, none)
        self.map_after.set_text(after_text, none)
        marks = line_marks(before_text, after_text)
        self.map_before.highlight_lines((i, MARK_COLORS.get(m, CHANGED)) for i, m in marks.left)
        self.map_after.highlight_lines((i, MARK_COLORS.get(m, CHANGED)) for i, m in marks.right)
        update = (
            map_update_of(self.session, forward)
            if forward is not None and self.session is not None
            else None
        )
        self.map_update.set_text(texts.map_update_text(update))
