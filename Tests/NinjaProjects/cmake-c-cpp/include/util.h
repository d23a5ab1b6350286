#ifndef UTIL_H
#define UTIL_H
#ifdef __cplusplus
extern "C" {
#endif
int util_add(int a, int b);
const char *util_version(void);
#ifdef __cplusplus
}
#endif
#endif
