/* GLib's object system, found through pkg-config (gobject-2.0). No Swift code imports this module:
 * it exists so that CDashportVips' C file gets glib's include paths from pkg-config on every
 * architecture, instead of paths hard-coded per multiarch triple. */
#include <glib-object.h>
