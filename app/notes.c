/* The held notes of notes.h: a few fixed lines, no allocation. */
#include "notes.h"

#include <stdarg.h>
#include <stdio.h>

enum { MAX_NOTES = 8, NOTE_CHARS = 256 };
static char g_notes[MAX_NOTES][NOTE_CHARS];
static int g_count;

void app_note(const char *fmt, ...)
{
    if (g_count >= MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_notes[g_count++], NOTE_CHARS, fmt, ap);
    va_end(ap);
}

void app_notes_flush(void)
{
    for (int i = 0; i < g_count; ++i) fprintf(stderr, "note: %s\n", g_notes[i]);
    g_count = 0;
}

void app_notes_drop(void) { g_count = 0; }
