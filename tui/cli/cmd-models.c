/*
 * cmd-models.c — `cmc models`: the built-in step-function models.
 */
#include "engine/cmc_model.h"
#include "cmd.h"

static int models_exec(int argc, char **argv)
{
	for (size_t i = 0; cmc_builtin_models[i]; i++)
		printf("%-20s %s\n", cmc_builtin_models[i]->name,
		       cmc_builtin_models[i]->summary ? cmc_builtin_models[i]->summary : "");
	return 0;
}

const struct tui_cmd tui_cmd_models = {
	.name = "models",
	.usage = "models",
	.summary = "list the built-in models",
	.exec = models_exec,
};
