/* SPDX-License-Identifier: MIT */
/*
 * The subcommands of the `hcasim` command (build/bin/hcasim), one file each:
 *   hcasim.c    main, usage, `hcasim run`
 *   switch.c    `hcasim switch` (its port kinds: switch_*.c, switch.h)
 *   sim/replay/ `hcasim replay` (sim/replay.mk adds it to the link)
 */
#ifndef HCASIM_SHIM_HCASIM_CMD_H
#define HCASIM_SHIM_HCASIM_CMD_H

#include <stdio.h>

/* The usage text of every subcommand. */
void hcasim_usage(FILE *f);
/* `hcasim switch ARGS` (argv[0] = "switch"): the exit status. */
int hcasim_switch_main(int argc, char **argv);
/* `hcasim replay ARGS` (sim/replay/main.c): the exit status. */
int hcasim_replay_main(int argc, char **argv);

#endif /* HCASIM_SHIM_HCASIM_CMD_H */
