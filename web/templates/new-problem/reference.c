/* The reference solution of {{TITLE}}: what every answer is compared with. */
#include <stdio.h>

int main(void) {
    long long x, largest = 0;
    int any = 0;
    while (scanf("%lld", &x) == 1) {
        if (!any || x > largest) largest = x;
        any = 1;
    }
    if (any) printf("%lld\n", largest);
    else printf("empty\n");
    return 0;
}
