"""The Run agent dialog offers "Local (bundled model)" as the Evals page does: checked, the
provider form is disabled, the order asks for provider "local", and the run starts the
bundled model (here not installed, so the run fails naming the extra to install)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from axmem_gui.core.providers import SCRIPTED_PROVIDER, ProviderSettings
from axmem_gui.engine import local_model
from axmem_gui.services.local_model import LOCAL_LABEL, LOCAL_PROVIDER
from axmem_gui.ui.sessions import provider_form
from axmem_gui.ui.sessions.controller import SessionsFeature
from tests.helpers.store import raw
from tests.ui.sessions.conftest import new_run_dialog, wait_idle


def _not_installed() -> local_model.LocalModelStatus:
    return local_model.LocalModelStatus(model_file=None, server=False)


def test_the_run_dialog_offers_the_bundled_model(feature: SessionsFeature, qtbot: Any) -> None:
    settings = ProviderSettings("openai-compatible", "m", base_url="http://127.0.0.1:9/v1")
    dialog = new_run_dialog(feature, settings)
    qtbot.addWidget(dialog)
    assert dialog.local.check.text() == LOCAL_LABEL
    assert not dialog.local.check.isChecked() and dialog.provider.isEnabled()
    dialog.set_input("userRequest", "How do I ship a release?")
    assert dialog.build_order().settings.provider == "openai-compatible"

    dialog.local.check.setChecked(True)
    assert not dialog.provider.isEnabled()
    order = dialog.build_order()
    assert order.settings.provider == LOCAL_PROVIDER
    dialog.local.check.setChecked(False)
    assert dialog.provider.isEnabled()
    assert dialog.build_order().settings == settings


def _installed() -> local_model.LocalModelStatus:
    return local_model.LocalModelStatus(model_file=Path("model.gguf"), server=True)


def test_a_remembered_local_choice_is_checked_again(
    feature: SessionsFeature, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provider_form, "local_model_status", _installed)
    dialog = new_run_dialog(feature, ProviderSettings(LOCAL_PROVIDER))
    qtbot.addWidget(dialog)
    assert dialog.local.check.isEnabled()
    assert dialog.local.check.isChecked() and not dialog.provider.isEnabled()


def test_without_the_bundled_model_the_local_box_is_disabled(
    feature: SessionsFeature, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It stayed enabled (checking it only failed at run time) under a lowercase status line;
    # a remembered "local" choice left a checked box the user could not uncheck.
    monkeypatch.setattr(provider_form, "local_model_status", _not_installed)
    dialog = new_run_dialog(feature, ProviderSettings(LOCAL_PROVIDER))
    qtbot.addWidget(dialog)
    assert not dialog.local.check.isEnabled() and not dialog.local.check.isChecked()
    assert dialog.provider.isEnabled()
    status = dialog.local.status.text()
    assert status.startswith("The bundled local model is not installed")
    assert dialog.local.check.toolTip() == status


def test_the_scripted_model_says_nothing_about_keys(feature: SessionsFeature, qtbot: Any) -> None:
    # "Local servers need no key (a placeholder is sent)" was shown for the in-process model.
    dialog = new_run_dialog(feature, ProviderSettings(SCRIPTED_PROVIDER))
    qtbot.addWidget(dialog)
    assert dialog.provider.provider_name() == SCRIPTED_PROVIDER
    assert "key" not in dialog.provider.key_status.text().lower()
    dialog.provider.set_settings(ProviderSettings("ollama", "m"))
    assert "Local servers need no key" in dialog.provider.key_status.text()


def test_a_local_run_starts_the_bundled_model(
    feature: SessionsFeature,
    qtbot: Any,
    errors: list[tuple[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The launcher's own check, as on a machine without the `local` extra.
    monkeypatch.setattr(local_model, "local_model_status", _not_installed)
    dialog = new_run_dialog(feature)
    qtbot.addWidget(dialog)
    dialog.set_input("userRequest", "How do I ship a release?")
    dialog.local.check.setChecked(True)
    sessions_before = raw(feature.controller.workspace).sessions.count()
    feature.start_run(dialog.build_order())
    wait_idle(qtbot, feature)
    assert len(errors) == 1
    title, message = errors[0]
    assert title == "Cannot run the agent"
    assert "the bundled local model is not installed" in message
    assert "axmem-gui[local]" in message
    assert raw(feature.controller.workspace).sessions.count() == sessions_before
    assert feature.default_settings() == ProviderSettings(
        LOCAL_PROVIDER, timeout_s=300.0, max_retries=0
    )


def test_the_rerun_dialog_offers_the_bundled_model(
    feature: SessionsFeature, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rerun had the provider form only: the bundled model could not be picked there.
    from axmem_gui.ui.sessions.run_dialog import RerunDialog
    from tests.ui.sessions.conftest import SAMPLE_ID

    monkeypatch.setattr(provider_form, "local_model_status", _installed)
    session = feature.sessions().get(SAMPLE_ID)
    dialog = RerunDialog(session, feature.runner, feature.sessions().jobs())
    qtbot.addWidget(dialog)
    assert dialog.local.check.text() == LOCAL_LABEL and dialog.local.check.isEnabled()
    dialog.local.check.setChecked(True)
    assert not dialog.provider.isEnabled()
    assert dialog.build_order().settings.provider == LOCAL_PROVIDER
