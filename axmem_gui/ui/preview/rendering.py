"""What the prompt preview makes off the GUI thread, on its own worker (`_renderer`): a big
catalog's skills section (rendered as soon as an index build starts, so the preview fills
when the index lands) and the comparison of the two runtimes' orders behind the line that
names the entries Ax and axllm show differently. Small catalogs get both here, at once.

A mixin of `PreviewPanel` (panel.py), which owns the pickers, the views and the
recompute; what these methods use of it is `PanelHost`."""

from __future__ import annotations

import weakref
from operator import is_not
from typing import TYPE_CHECKING, Protocol

from axmem_gui.core.ax.profile import AxProfile
from axmem_gui.core.ax.render import SkillsSection
from axmem_gui.core.ax.runtime_diff import RuntimeDifference, RuntimeDifferences, summary
from axmem_gui.core.ax.simulate import SectionInputs
from axmem_gui.core.catalog import Catalog, Memory, Skill
from axmem_gui.ui.tasks import JobContext, TaskRunner

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from axmem_gui.services.scenarios import PromptPreview
    from axmem_gui.ui.controller import WorkspaceController
    from axmem_gui.ui.preview.section_view import SectionView
    from axmem_gui.ui.retrieval.state import RetrievalState

#: A skills index of more entries than this is rendered on a worker thread (at 10,000
#: skills it is 1.25 MB of text: 70-110 ms of CPU); a smaller one here, at once.
RENDER_HERE_MAX_SKILLS = 200
#: Up to this many entries the two runtimes' orders are compared here (a few ms); beyond,
#: on the render worker (at 100,000 memories the collation keys cost ~250 ms).
ORDER_HERE_MAX_ENTRIES = 5_000


class _Rendered:
    """The shown stage's skills section and what it was rendered from."""

    __slots__ = ("inputs", "profile", "section", "skills")

    def __init__(
        self,
        skills: tuple[Skill, ...],
        inputs: SectionInputs,
        section: SkillsSection | None,
        profile: AxProfile,
    ) -> None:
        self.skills, self.inputs, self.section = skills, inputs, section
        self.profile = profile

    def of(self, skills: tuple[Skill, ...], inputs: SectionInputs, profile: AxProfile) -> bool:
        # The live catalog's tuple of skills is new after every change of a skill. One
        # rendered from the catalog an index was built of holds the same skills in another
        # tuple: compared once (item by item, each the same object), then adopted.
        if self.inputs != inputs or self.profile is not profile:
            return False
        if self.skills is not skills:
            if len(self.skills) != len(skills) or any(map(is_not, self.skills, skills)):
                return False
            self.skills = skills
        return True

class PanelHost(Protocol):
    """What the rendering uses of the panel (and of itself: the mixin's methods, typed on
    this protocol, call one another through it)."""

    state: RetrievalState
    controller: WorkspaceController
    preview: PromptPreview | None
    views: dict[str, SectionView]
    runtimes_label: QLabel
    runs_profile: str
    _runtimes: RuntimeDifferences
    _renderer: TaskRunner | None
    _rendered: _Rendered | None
    _render_job: tuple[int, tuple[Skill, ...], SectionInputs] | None
    _order_job: int | None
    _differences_shown: tuple[weakref.ref[Catalog], str] | None

    def profile(self) -> AxProfile: ...

    def recompute_now(self) -> None: ...

    def _inputs(self, catalog: Catalog) -> tuple[object, SectionInputs]: ...

    def _show_runtime_differences(self, catalog: Catalog) -> None: ...

    def _compare_orders(self, skills: tuple[Skill, ...], memories: tuple[Memory, ...]) -> None: ...

    def _on_order_compared(self, result: object) -> None: ...

    def _skills_section(
        self, skills: tuple[Skill, ...], inputs: SectionInputs
    ) -> _Rendered | None: ...


class PreviewRendering:
    """The preview's off-GUI-thread work (mixed into `PreviewPanel`, whose `__init__`
    sets these)."""

    #: The skills section last rendered, and the render under way on `_renderer`.
    _rendered: _Rendered | None
    _render_job: tuple[int, tuple[Skill, ...], SectionInputs] | None
    #: The comparison of the two runtimes' orders under way on `_renderer`.
    _order_job: int | None
    #: What the runtimes line was last filled for: (the catalog, weakly; the profile).
    _differences_shown: tuple[weakref.ref[Catalog], str] | None
    #: The skills index of a big catalog is rendered here, off the GUI thread: a runner of
    #: its own, so a render never waits behind a lint or an index build (None: no runner,
    #: everything here).
    _renderer: TaskRunner | None

    def _show_runtime_differences(self: PanelHost, catalog: Catalog) -> None:
        """Which entries the two profiles show differently (the tooltip lists why)."""
        skills, memories = catalog.skills, catalog.memories
        # The live catalog is one object while unchanged: held weakly (a strong reference
        # kept a replaced catalog's 100,000 entries alive).
        asked = (weakref.ref(catalog), self.profile().name)
        last = self._differences_shown
        if last is not None and last[0]() is catalog and last[1] == asked[1]:
            return  # the line already says it (a preview recomputes at every keystroke)
        order = self._runtimes.known_order(skills, memories)
        if order is None:
            if self._renderer is None or len(skills) + len(memories) <= ORDER_HERE_MAX_ENTRIES:
                order = self._runtimes.order(skills, memories)
            else:
                self._compare_orders(skills, memories)
                return
        found = [*order, *self._runtimes.entries(skills, memories)]
        self._differences_shown = asked
        line = summary(found)
        runs = "" if self.profile().name == self.runs_profile else (
            f"The studio's runs send {self.runs_profile}, not this. "
        )
        self.runtimes_label.setText(
            runs
            + (f"Ax and axllm differ: {line}" if line else "Ax and axllm show this catalog alike")
        )
        shown = [f"{d.entry_kind} {d.entry_id!r}: {d.message}" for d in found[:40]]
        if len(found) > len(shown):
            shown.append(f"… and {len(found) - len(shown)} more (see Lint: runtime-*)")
        runs = f"The studio's runs send {self.runs_profile}."
        self.runtimes_label.setToolTip("\n".join([runs, *shown]))

    def _compare_orders(
        self: PanelHost, skills: tuple[Skill, ...], memories: tuple[Memory, ...]
    ) -> None:
        """Compare the runtimes' orders of a big catalog on the worker; the line says so
        meanwhile and is filled when it lands (`_on_rendered`)."""
        assert self._renderer is not None
        self.runtimes_label.setText(
            f"comparing Ax's and axllm's order of {len(skills) + len(memories):,} entries…"
        )
        self.runtimes_label.setToolTip("")
        if self._order_job is not None:
            return  # one at a time: when it lands, a changed catalog is compared again

        def job(ctx: JobContext) -> tuple[object, list[RuntimeDifference]]:
            ctx.check()
            return RuntimeDifferences.key(skills, memories), RuntimeDifferences.compare(
                skills, memories
            )

        self._order_job = self._renderer.submit(job)

    def _on_order_compared(self: PanelHost, result: object) -> None:
        self._order_job = None
        if isinstance(result, tuple):
            key, order = result
            self._runtimes.remember(key, order)
        if self.state.usable() and not self.controller.is_closed:
            self._show_runtime_differences(self.state.live.catalog())

    def _skills_section(
        self: PanelHost, skills: tuple[Skill, ...], inputs: SectionInputs
    ) -> _Rendered | None:
        """The shown stage's skills section for `skills`: the last one rendered when its
        inputs are the same, else rendered here (a small catalog) or on the worker (then
        None, and the preview fills when it lands; one render at a time)."""
        profile = self.profile()
        if self._rendered is not None and self._rendered.of(skills, inputs, profile):
            return self._rendered
        if self._renderer is None or len(skills) <= RENDER_HERE_MAX_SKILLS:
            self._rendered = _Rendered(skills, inputs, inputs.render(skills, profile), profile)
            return self._rendered
        if self._render_job is None:

            def job(ctx: JobContext) -> _Rendered:
                ctx.check()
                return _Rendered(skills, inputs, inputs.render(skills, profile), profile)

            self._render_job = (self._renderer.submit(job), skills, inputs)
        if self.preview is None:
            self.views["skills"].stats.setText(f"rendering the index of {len(skills):,} skills…")
        return None

    def _prerender(self: PanelHost, catalog: object) -> None:
        """A new index is being built of `catalog`: render the shown stage's skills
        section of it meanwhile (seconds before the index lands at 100,000 memories), so
        the preview fills as soon as the index is there."""
        if (
            not isinstance(catalog, Catalog)
            or self._renderer is None
            or len(catalog.skills) <= RENDER_HERE_MAX_SKILLS
            or self.controller.is_closed
        ):
            return
        self._skills_section(catalog.skills, self._inputs(catalog)[1])

    def _on_rendered(self: PanelHost, job_id: int, result: object) -> None:
        if job_id == self._order_job:
            self._on_order_compared(result)
            return
        if self._render_job is None or job_id != self._render_job[0]:
            return
        self._render_job = None
        if isinstance(result, _Rendered):
            self._rendered = result
        self.recompute_now()  # shows it, or renders again for what changed meanwhile

    def _on_render_failed(self: PanelHost, job_id: int, message: str) -> None:
        del message
        if job_id == self._order_job:
            self._order_job = None
            self.runtimes_label.setText("")  # the lint view's runtime-* findings still say it
            return
        if self._render_job is None or job_id != self._render_job[0]:
            return
        _job, skills, inputs = self._render_job
        self._render_job = None
        # Render here rather than show nothing (the same text; it just costs a stall).
        profile = self.profile()
        self._rendered = _Rendered(skills, inputs, inputs.render(skills, profile), profile)
        self.recompute_now()
