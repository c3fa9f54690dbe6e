"""Live catalog lint in the GUI: a panel under the skill / memory form and a Lint dock
(the feature: `install.LINT`)."""
