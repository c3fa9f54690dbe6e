"""The entry editor: form, markdown editor and preview, dialogs of catalog editing."""
