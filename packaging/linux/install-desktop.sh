#!/bin/sh
# Desktop integration of Ax Memory & Skills Studio for the current user: the menu entry,
# the icons, the AppStream metadata and the file types (.axmem workspaces and
# .axsession.json sessions open with the app).
#
# Run the copy staged by `make icons` (build/desktop/install-desktop.sh) or the one at the
# top of a bundle (dist/axmem-gui/install-desktop.sh); it installs the share/ tree beside it.
#
#   install-desktop.sh [--exec PATH] [--uninstall]
#
#   --exec PATH    the axmem-gui program the menu entry starts (default: the axmem-gui beside
#                  this script in a bundle, else `axmem-gui` found on PATH, e.g. from pipx)
#   --uninstall    remove exactly the files an install puts in place
#
# Files go to ${XDG_DATA_HOME:-~/.local/share}. Nothing outside that folder is touched.
set -eu

APP_ID=io.github.axmem.Studio
HERE=$(cd "$(dirname "$0")" && pwd)
SOURCE="$HERE/share"
TARGET="${XDG_DATA_HOME:-$HOME/.local/share}"
MODE=install
EXEC=""
[ -x "$HERE/axmem-gui" ] && EXEC="$HERE/axmem-gui"

fail() { echo "install-desktop.sh: error: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) MODE=uninstall ;;
        --exec) [ $# -ge 2 ] || fail "--exec needs a path"; EXEC="$2"; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) fail "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

[ -f "$SOURCE/applications/$APP_ID.desktop" ] ||
    fail "$SOURCE has no $APP_ID.desktop: run the copy staged by 'make icons' or in a bundle"
[ -d "$SOURCE/icons/hicolor" ] || fail "$SOURCE/icons is missing: run 'make icons' first"

# Check --exec before writing anything.
if [ "$MODE" = install ] && [ -n "$EXEC" ]; then
    [ -f "$EXEC" ] && [ -x "$EXEC" ] || fail "$EXEC is not an executable program"
    case "$EXEC" in
        /*) ;;
        *) EXEC="$(cd "$(dirname "$EXEC")" && pwd)/$(basename "$EXEC")" ;;
    esac
    # Desktop entry quoting: double quotes; these characters would need escapes.
    case "$EXEC" in
        *[\"\`\$\\]*) fail "the path $EXEC contains a quote, \`, \$ or \\; move the program" ;;
    esac
fi

# Refresh the caches desktops read; each tool is optional, a missing one is not an error.
refresh() {
    if command -v update-mime-database >/dev/null 2>&1; then
        update-mime-database "$TARGET/mime" || true
    fi
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$TARGET/applications" || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$TARGET/icons/hicolor/index.theme" ]; then
        gtk-update-icon-cache -q -t "$TARGET/icons/hicolor" || true
    fi
}

FILES=$(cd "$SOURCE" && find . -type f | sed 's|^\./||' | sort)

if [ "$MODE" = uninstall ]; then
    for f in $FILES; do
        rm -f "$TARGET/$f"
    done
    refresh
    echo "removed the desktop integration of $APP_ID from $TARGET"
    exit 0
fi

for f in $FILES; do
    mkdir -p "$(dirname "$TARGET/$f")"
    cp "$SOURCE/$f" "$TARGET/$f"
done

if [ -n "$EXEC" ]; then
    DESKTOP="$TARGET/applications/$APP_ID.desktop"
    SED_EXEC=$(printf '%s' "$EXEC" | sed 's/[&|]/\\&/g')
    sed -e "s|^Exec=axmem-gui |Exec=\"$SED_EXEC\" |" -e "s|^TryExec=axmem-gui\$|TryExec=$SED_EXEC|" \
        "$DESKTOP" >"$DESKTOP.tmp"
    mv "$DESKTOP.tmp" "$DESKTOP"
elif ! command -v axmem-gui >/dev/null 2>&1; then
    echo "install-desktop.sh: warning: axmem-gui is not on PATH; the menu entry stays hidden" \
        "until it is (pipx: run 'pipx ensurepath'), or pass --exec" >&2
fi

refresh
echo "installed the desktop integration of $APP_ID into $TARGET"
