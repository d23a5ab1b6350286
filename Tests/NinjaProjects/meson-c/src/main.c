#include <stdio.h>
#include "util.h"
#include "version.h"
int main(void) {
    printf("mdemo %s (%s): %d\n", util_version(), DEMO_VERSION, util_add(2, 3));
    return 0;
}
