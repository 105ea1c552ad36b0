/* interface.h: the functions of {{TITLE}}. One stack, kept in your file's own static
 * variables: stack_init starts it afresh. */
#ifndef STACK_INTERFACE_H
#define STACK_INTERFACE_H

/* Starts an empty stack that holds at most `capacity` values (1 to 100). */
void stack_init(int capacity);

/* Pushes `value` (0 to 1000): 1 if pushed, 0 if the stack is full. */
int stack_push(int value);

/* Removes and returns the top value, or returns -1 if the stack is empty. */
int stack_pop(void);

/* How many values the stack holds. */
int stack_size(void);

#endif
