/* An example of a correct submission: it passes every test. */
#include <stdio.h>

int main(void) {
    long long x, largest;
    if (scanf("%lld", &largest) != 1) {
        printf("empty\n");
        return 0;
    }
    while (scanf("%lld", &x) == 1)
        if (x > largest) largest = x;
    printf("%lld\n", largest);
    return 0;
}
