/* SPDX-License-Identifier: GPL-2.0 */
/* cli_holders.h - add's report lines about holders (cli_holders.c). */
#ifndef REVOKE_CLI_HOLDERS_H
#define REVOKE_CLI_HOLDERS_H

#include <stdbool.h>

void cli_holders_print(const char *line, bool killed);

#endif /* REVOKE_CLI_HOLDERS_H */
