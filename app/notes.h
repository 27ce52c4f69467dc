/* Notes on how a command will run (no GPU found, an engine or format that
 * falls back on the CPU) are decided before its input is read. They are
 * held here and printed once the input has loaded, so that a command
 * refused for its input prints one line: the error (main.c drops them). */
#ifndef CMRS_APP_NOTES_H
#define CMRS_APP_NOTES_H

/* Holds "note: <fmt...>" for later (at most a few; more are dropped). */
void app_note(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Prints the held notes to stderr, in order, and forgets them. */
void app_notes_flush(void);
/* Forgets the held notes unprinted (the command failed). */
void app_notes_drop(void);

#endif
