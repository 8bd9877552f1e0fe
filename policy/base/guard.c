#include "guard.h"

__thread struct place_thread place_self __attribute__((tls_model("initial-exec")));
