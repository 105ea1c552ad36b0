/* reference.c: the model answer of {{TITLE}}: the functions of interface.h, no main. */
#include "interface.h"

#define MAX_CAPACITY 100

static int values[MAX_CAPACITY];
static int capacity, count;

void stack_init(int c) {
    capacity = c;
    count = 0;
}

int stack_push(int value) {
    if (count == capacity) return 0;
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
