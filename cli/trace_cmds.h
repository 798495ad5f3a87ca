/* The subcommands of `osprof trace` (cli/cmd_trace.c dispatches). Each takes
 * argv[0] = subcommand name, like a command. */
#ifndef OSPROF_CLI_TRACE_CMDS_H
#define OSPROF_CLI_TRACE_CMDS_H

int trace_cmd_record(int argc, char **argv);
int trace_cmd_dump(int argc, char **argv);
int trace_cmd_stats(int argc, char **argv);
int trace_cmd_profile(int argc, char **argv);
int trace_cmd_export(int argc, char **argv);

#endif
