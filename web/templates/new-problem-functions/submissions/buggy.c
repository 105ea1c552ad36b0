/* A buggy example: the full test is off by one, so a full stack takes one value more. */
#include "interface.h"

static int values[101];
static int capacity, count;

void stack_init(int c) {
    capacity = c;
    count = 0;
}

int stack_push(int value) {
    if (count > capacity) return 0;
    values[count++] = value;
    return 1;
}

int stack_pop(void) {
    if (count == 0) return -1;
    return values[--count];
}

int stack_size(void) {
    return count;
}
