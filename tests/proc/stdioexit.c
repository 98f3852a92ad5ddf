/*
 * stdioexit.c — a stdio target for t1530 (INV-23): fgets in, printf out, so
 * the C library holds blocks of its own (the stdin and stdout buffers) when
 * the target exits.  Commands:
 *   push     a node onto a list held by a global      -> OK
 *   drop     forgets the whole list without freeing   -> OK (the leak)
 *   quit     frees the list, then exit(0)             -> BYE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	char text[24];
};

struct node *head;

int main(void)
{
	char line[128];
	while (fgets(line, sizeof line, stdin)) {
		if (!strcmp(line, "push\n")) {
			struct node *n = malloc(sizeof *n);
			n->next = head;
			snprintf(n->text, sizeof n->text, "node");
			head = n;
			printf("OK\n");
		} else if (!strcmp(line, "drop\n")) {
			head = NULL;
			printf("OK\n");
		} else if (!strcmp(line, "quit\n")) {
			while (head) {
				struct node *n = head->next;
				free(head);
				head = n;
			}
			printf("BYE\n");
			exit(0);
		} else {
			printf("ERR\n");
		}
	}
	return 0;
}
