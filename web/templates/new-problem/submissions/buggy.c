/* An example of a buggy submission: it starts from 0, so a list of negative numbers
 * gets 0 (bugrank shrinks that to the simplest such input: `-1`). */
#include <stdio.h>

int main(void) {
    long long x, largest = 0;
    int any = 0;
    while (scanf("%lld", &x) == 1) {
        if (x > largest) largest = x;
        any = 1;
    }
    if (any) printf("%lld\n", largest);
    else printf("empty\n");
    return 0;
}
