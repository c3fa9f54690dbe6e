"""The prompt preview dock (its feature: `axmem_gui.ui.preview.install.PREVIEW`)."""
