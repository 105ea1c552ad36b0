/* A correct example, written differently from the reference (the top as a pointer), that
 * prints as it works: what a hand-in prints is not judged. */
#include <stdio.h>
#include "interface.h"

static int storage[100];
static int *top = storage;
static int limit;

void stack_init(int capacity) {
    top = storage;
    limit = capacity;
}

int stack_push(int value) {
    if (top - storage >= limit) return 0;
    printf("pushing %d\n", value);
    *top++ = value;
    return 1;
}

int stack_pop(void) {
    return top == storage ? -1 : *--top;
}

int stack_size(void) {
    return (int)(top - storage);
}
