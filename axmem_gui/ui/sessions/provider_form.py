"""Provider choices for a live run: provider, model, base URL, structured-output mode,
where the API key comes from, and a connection test through the task runner.

A key typed here goes straight to the OS keyring (services.secrets) and the field is
cleared; the form never reads a stored key back, it only says whether one is stored.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from axmem_gui.core.errors import AxmemError, InputError
from axmem_gui.core.providers import (
    PROVIDERS,
    SCRIPTED_PROVIDER,
    STRUCTURED_OUTPUT_MODES,
    ConnectionReport,
    ProviderSettings,
    provider_info,
)
from axmem_gui.services import secrets
from axmem_gui.services.local_model import (
    LOCAL_LABEL,
    LOCAL_PROVIDER,
    SERVE_HINT,
    local_model_status,
)
from axmem_gui.services.providers import model_choices
from axmem_gui.ui.inert_text import inert, plain_label
from axmem_gui.ui.sessions.jobs import connection_job
from axmem_gui.ui.tasks import TaskRunner

KEYRING, ENV = 0, 1


def prepare_provider_form() -> None:
    """What a ProviderForm's build waits for besides widgets, done ahead on any thread
    (a page's `prepare`): the OS keyring's backend (keyring detects it once, loading its
    plugins: ~170 ms) and every provider's model list."""
    secrets.keyring_available()
    for name in PROVIDERS:
        model_choices(name)


class ProviderForm(QWidget):
    connection_checked = Signal(bool, str)  # ok, message

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._test_job: int | None = None

        self.provider = QComboBox()
        for info in PROVIDERS.values():
            self.provider.addItem(info.label, info.name)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        line = self.model.lineEdit()
        if line is not None:
            line.setPlaceholderText("model name")
        self.base_url = QLineEdit()
        self.structured = QComboBox()
        self.structured.addItems(list(STRUCTURED_OUTPUT_MODES))
        self.structured.setToolTip(
            "How the model returns structured fields: auto lets axllm pick from the "
            "provider's features; the others force one mode (needs a model name)."
        )
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1.0, 3600.0)
        self.timeout.setValue(120.0)
        self.timeout.setSuffix(" s")
        self.retries = QSpinBox()
        self.retries.setRange(0, 10)
        self.retries.setValue(2)
        self.retries.setToolTip(
            "Retries of one model call (0 = exactly one request); the timeout is a deadline "
            "for one whole reply"
        )
        self.stream = QCheckBox("stream replies")
        self.stream.setObjectName("streamReplies")
        self.stream.setToolTip("Ask the server for streamed (SSE) replies; the chunks are recorded")
        # Retry-policy details the form does not show, kept from set_settings (a rerun keeps
        # the recorded policy).
        self._policy = ProviderSettings("openai")

        self.keyring_radio = QRadioButton("OS keyring")
        self.env_radio = QRadioButton("Environment variable")
        self.key_source = QButtonGroup(self)
        self.key_source.addButton(self.keyring_radio, KEYRING)
        self.key_source.addButton(self.env_radio, ENV)
        self.key_edit = QLineEdit()
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setObjectName("apiKeyEdit")
        self.forget_key = QPushButton("Forget stored key")
        self.forget_key.clicked.connect(self._forget_key)
        self.env_edit = QLineEdit()
        self.key_status = plain_label()
        self.key_status.setObjectName("keyStatus")
        self.key_status.setWordWrap(True)
        key_row = QHBoxLayout()
        key_row.addWidget(self.keyring_radio)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.forget_key)
        env_row = QHBoxLayout()
        env_row.addWidget(self.env_radio)
        env_row.addWidget(self.env_edit, 1)

        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.test_connection)
        self.test_result = plain_label()
        self.test_result.setObjectName("connectionResult")
        self.test_result.setWordWrap(True)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)

        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Provider", self.provider)
        form.addRow("Model", self.model)
        form.addRow("Base URL", self.base_url)
        form.addRow("Structured output", self.structured)
        limits = QHBoxLayout()
        limits.addWidget(self.timeout)
        limits.addWidget(plain_label("retries"))
        limits.addWidget(self.retries)
        limits.addWidget(self.stream)
        limits.addStretch(1)
        form.addRow("Timeout", limits)
        form.addRow("API key", key_row)
        form.addRow("", env_row)
        form.addRow("", self.key_status)
        self._form = form
        form.addRow("", test_row)

        self.provider.currentIndexChanged.connect(self._on_provider)
        self.key_source.idToggled.connect(lambda *_: self._update_key_widgets())
        runner.finished.connect(self._on_finished)
        runner.failed.connect(self._on_failed)
        if not secrets.keyring_available():
            self.keyring_radio.setEnabled(False)
            self.keyring_radio.setToolTip(
                "No OS keyring on this machine: put the key in an environment variable."
            )
        self._on_provider()

    # values -------------------------------------------------------------------------
    def provider_name(self) -> str:
        return str(self.provider.currentData())

    def set_settings(self, settings: ProviderSettings) -> None:
        row = self.provider.findData(settings.provider)
        if row >= 0:
            self.provider.setCurrentIndex(row)
        self.model.setEditText(settings.model or "")
        self.base_url.setText(settings.base_url or "")
        self.structured.setCurrentText(settings.structured_output)
        self.timeout.setValue(settings.timeout_s)
        self.retries.setValue(settings.max_retries)
        self.stream.setChecked(settings.stream)
        self._policy = settings
        if settings.api_key_env:
            self.env_radio.setChecked(True)
            self.env_edit.setText(settings.api_key_env)
        self._update_key_widgets()

    def settings(self) -> ProviderSettings:
        """The settings as entered; InputError names the field that is wrong."""
        # Empty: the provider's usual variable (OPENAI_API_KEY, ...), as axllm reads it.
        env = self.env_edit.text().strip() if self.env_radio.isChecked() else ""
        if env and not env.replace("_", "").isalnum():
            raise InputError(f"API key: '{env}' is not an environment variable name")
        return ProviderSettings(
            provider=self.provider_name(),
            model=self.model.currentText().strip() or None,
            base_url=self.base_url.text().strip() or None,
            structured_output=self.structured.currentText(),
            api_key_env=env or None,
            timeout_s=float(self.timeout.value()),
            max_retries=int(self.retries.value()),
            retry_backoff_s=self._policy.retry_backoff_s,
            retry_max_wait_s=self._policy.retry_max_wait_s,
            retry_on=self._policy.retry_on,
            stream=self.stream.isChecked(),
        )

    def store_key(self) -> None:
        """Move a typed key into the OS keyring and clear the field."""
        key = self.key_edit.text()
        if not key or not self.keyring_radio.isChecked():
            return
        secrets.set_api_key(self.provider_name(), key.strip())
        self.key_edit.clear()
        self._update_key_widgets()

    # behaviour ----------------------------------------------------------------------
    def _on_provider(self) -> None:
        name = self.provider_name()
        info = provider_info(name)
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(model_choices(name))
        self.model.setEditText(current)
        if info is not None and info.needs_base_url:
            self.base_url.setPlaceholderText("required, e.g. http://127.0.0.1:8000/v1")
        elif info is not None and info.default_base_url:
            self.base_url.setPlaceholderText(f"default {info.default_base_url}")
        else:
            self.base_url.setPlaceholderText("provider default")
        usual = info.key_env[0] if info is not None and info.key_env else ""
        self.env_edit.setPlaceholderText(f"empty: {usual}" if usual else "variable name")
        if self.key_source.checkedId() < 0:
            (self.keyring_radio if self.keyring_radio.isEnabled() else self.env_radio).setChecked(
                True
            )
        self._update_key_widgets()

    def _update_key_widgets(self) -> None:
        keyring_mode = self.keyring_radio.isChecked()
        self.key_edit.setEnabled(keyring_mode)
        self.env_edit.setEnabled(self.env_radio.isChecked())
        info = provider_info(self.provider_name())
        local = info is not None and info.local
        stored = bool(secrets.get_api_key(self.provider_name())) if keyring_mode else False
        self.forget_key.setEnabled(stored)
        if keyring_mode:
            self.key_edit.setPlaceholderText(
                "a key is stored — type to replace it" if stored else "paste the API key"
            )
        notes = []
        if self.provider_name() == SCRIPTED_PROVIDER:
            pass  # answers in this process: no key is involved at all
        elif keyring_mode:
            notes.append(
                "A key is stored in the OS keyring for this provider."
                if stored
                else "No key stored for this provider; a typed key is saved to the OS keyring."
            )
        if local and self.provider_name() != SCRIPTED_PROVIDER:
            notes.append("Local servers need no key (a placeholder is sent).")
        self.show_key_status(" ".join(notes))

    def show_key_status(self, text: str) -> None:
        """The line under the key's source; its row takes no room when there is nothing
        to say (an empty row pushed the form past a laptop window's bottom)."""
        self.key_status.setText(text)
        self._form.setRowVisible(self.key_status, bool(text))

    def _forget_key(self) -> None:
        try:
            secrets.delete_api_key(self.provider_name())
        except AxmemError as exc:
            self.show_key_status(str(exc))
            return
        self._update_key_widgets()

    def test_connection(self) -> None:
        try:
            self.store_key()
            settings = self.settings()
        except AxmemError as exc:
            self._show_result(False, str(exc))
            return
        self.test_button.setEnabled(False)
        self.test_result.setText("Testing…")
        self._test_job = self.runner.submit(connection_job(settings))

    def _on_finished(self, job_id: int, report: object) -> None:
        if job_id != self._test_job or not isinstance(report, ConnectionReport):
            return
        self._test_job = None
        model = f" (model {report.model})" if report.model else ""
        if report.ok:
            self._show_result(True, f"Connected in {report.latency_ms:,.0f} ms{model}.")
        else:
            self._show_result(False, f"{report.message}{model}")

    def _on_failed(self, job_id: int, message: str) -> None:
        if job_id == self._test_job:
            self._test_job = None
            self._show_result(False, message)

    def _show_result(self, ok: bool, message: str) -> None:
        self.test_button.setEnabled(True)
        self.test_result.setProperty("ok", ok)
        self.test_result.setText(("✓ " if ok else "✗ ") + message)
        self.test_result.style().unpolish(self.test_result)
        self.test_result.style().polish(self.test_result)
        self.connection_checked.emit(ok, message)


class LocalModelChoice(QWidget):
    """ "Local (bundled model)" above a ProviderForm: checked, the form is disabled and a run
    starts the bundled model for its time (`services.local_model.local_provider`). The
    line below says whether the model is installed (the optional `local` extra)."""

    def __init__(
        self, form: ProviderForm, parent: QWidget | None = None, *, compact: bool = False
    ) -> None:
        super().__init__(parent)
        self.form = form
        self.check = QCheckBox(LOCAL_LABEL)
        self.status = plain_label()
        self.status.setWordWrap(not compact)
        found = local_model_status()
        self.ready = found.ready
        message = found.message[:1].upper() + found.message[1:]
        message += f"; with it installed, {SERVE_HINT}"
        if found.ready:
            self.status.setText("SmolLM2-135M on 127.0.0.1, no account needed")
        elif compact:
            # One line beside the box (four lines pushed the Evals page's run controls
            # off a laptop's window); what to install is in the tooltip, as on the box.
            self.status.setText("not installed (its tooltip says what to install)")
            self.status.setToolTip(inert(message))
        else:
            self.status.setText(message)
        if not found.ready:
            # Nothing to run: the box cannot be checked by hand (the line below says why).
            self.check.setEnabled(False)
            self.check.setToolTip(inert(message))  # names a path on this machine
        layout = QHBoxLayout(self) if compact else QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.check)
        layout.addWidget(self.status, 1)
        self.check.toggled.connect(self._on_toggled)

    def _on_toggled(self, on: bool) -> None:
        self.form.setEnabled(not on)

    def set_checked(self, on: bool) -> None:
        self.check.setChecked(on)
        self._on_toggled(on)

    def set_settings(self, settings: ProviderSettings) -> None:
        """Settings remembered from an earlier run: "local" checks the box, anything
        else goes to the form."""
        if settings.provider == LOCAL_PROVIDER:
            # Not installed (any more): leave the box unchecked, the form as it is.
            self.set_checked(self.ready)
        else:
            self.form.set_settings(settings)

    def settings(self) -> ProviderSettings:
        if self.check.isChecked():
            return ProviderSettings(LOCAL_PROVIDER, timeout_s=300.0, max_retries=0)
        return self.form.settings()
