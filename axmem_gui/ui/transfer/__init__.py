"""Import and export in the GUI: preview with conflict policies, progress and Cancel, one
undo step per import, drag and drop, and the export dialog (the feature:
`actions.TRANSFER`).

The package itself imports nothing so its parts load only when used."""
