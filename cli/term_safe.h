#ifndef OSPROF_CLI_TERM_SAFE_H
#define OSPROF_CLI_TERM_SAFE_H

/* Replaces stderr (and stdout when protect_stdout) by streams that print
 * terminal control characters as \xNN. Output meant to carry control
 * sequences (the progress line, ncurses) writes to the file descriptor. */
void osp_term_safe_streams(int protect_stdout);

#endif
